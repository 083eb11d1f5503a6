// binrecover plan: the destructive transactions since the backup, and the recovery commands;
// --timeline the picture of the range after them, --html the page.
#include <unistd.h>

#include "cli/commands.h"
#include "cli/option_groups.h"
#include "cli/option_groups_servers.h"
#include "recovery/reading/local_time.h"
#include "recovery/recover/plan.h"
#include "recovery/recover/timeline.h"
#include "recovery/sql/output.h"

namespace binrecover::cli {

// The options of `binrecover plan` (its own group, plan_group(false), is shared with drill).
std::vector<Group> plan_option_groups(bool for_option_files) {
  std::vector<Group> d = reading_groups();
  d.push_back(plan_group(false));
  d.push_back(remote_group());
  if (!for_option_files) d.push_back(connection_group(ConnectionFor::kSource));
  d.push_back(misc_group());
  return d;
}

int plan_command(Options& o) {
  recovery::Timeline tl;
  tl.by_table = o.timeline_by_table;
  std::unique_ptr<recovery::WalkConsumer> collector;
  if (o.timeline || o.html_file) collector = recovery::timeline_collector(tl);
  recovery::Plan plan;
  const int status = with_output(o, [&](recovery::Output& out) {
    plan = recovery::make_plan(o.inputs, o.plan, o.decode, o.filter, warn, collector.get());
    tl.damage = plan.damage;
    if (o.plan_json)
      recovery::write_plan_json(plan, o.plan, out);
    else
      recovery::write_plan_text(plan, o.plan, out);
    if (o.timeline) {
      out.append("\n");
      recovery::write_timeline_text(tl, o.timeline_bucket.value_or(0), out);
    }
    out.flush();
    return 0;
  });
  if (o.html_file) {
    recovery::HtmlPage page;
    page.title = "binrecover plan: " + std::to_string(plan.damage.size()) +
                 " destructive transaction(s) since the backup";
    if (!plan.backup.source.empty())
      page.facts.push_back(
          {"backup",
           plan.backup.source + ": " +
               (plan.backup.file.empty()
                    ? std::string("no binlog coordinates")
                    : plan.backup.file + ":" + std::to_string(plan.backup.position.value_or(0)))});
    const std::string start =
        plan.files.front().display_name +
        (plan.start.position ? ":" + std::to_string(*plan.start.position) : std::string());
    page.facts.push_back({"start", start + " (" + plan.start.why + ")"});
    page.facts.push_back({"scanned", start + " through " + plan.files.back().display_name + ": " +
                                         recovery::with_commas(plan.total.transactions) +
                                         " transaction(s)"});
    for (std::size_t i = 0; i < plan.damage.size(); ++i) {
      const recovery::Damage& d = plan.damage[i];
      const std::string left = recovery::left_out_text(plan, i);
      page.facts.push_back(
          {"#" + std::to_string(d.number) + " " + std::string(recovery::severity_name(d.severity)),
           recovery::local_time_text(d.timestamp, true) + "  " + d.what + " " + d.target + " at " +
               d.file + ":" + std::to_string(d.pos) + " (" + d.why + ")" +
               (left.empty() ? "" : "; " + left)});
    }
    if (plan.incident) {
      const recovery::Damage& d = plan.damage[*plan.incident];
      page.facts.push_back({"incident", "#" + std::to_string(d.number) + " " + d.what + " " +
                                            d.target + " (" + plan.incident_why + ")"});
      page.commands.push_back(
          {"Recover to just before the incident (#" + std::to_string(d.number) + ")",
           recovery::recovery_command(plan, o.plan)});
      page.commands.push_back(
          {"Or replay everything except the incident", recovery::skip_command(plan, o.plan)});
    } else {
      page.commands.push_back(
          {"Replay everything since the backup", recovery::recovery_command(plan, o.plan)});
    }
    for (std::size_t i = 0; i < plan.damage.size(); ++i)
      if (!plan.incident || i != *plan.incident)
        page.commands.push_back({"Stop just before #" + std::to_string(plan.damage[i].number),
                                 recovery::stop_before_command(plan, o.plan, i)});
    with_file_output(*o.html_file, o, [&](recovery::Output& out) {
      recovery::write_timeline_html(tl, o.timeline_bucket.value_or(0), page, out);
      return 0;
    });
  }
  return status;
}

}  // namespace binrecover::cli
