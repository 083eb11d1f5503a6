// binrecover plan: the destructive transactions since the backup, and the recovery commands;
// --timeline the picture of the range after them, --html the page.
#include <unistd.h>

#include "cli/commands.h"
#include "recovery/sql/output.h"
#include "recovery/workflows/plan.h"
#include "recovery/workflows/timeline.h"

namespace binrecover::cli {

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
      page.facts.push_back({"backup", plan.backup.source + ": " + plan.backup.file + ":" +
                                          std::to_string(plan.backup.position.value_or(0))});
    page.facts.push_back({"scanned", plan.files.front().display_name + ":" +
                                         std::to_string(plan.start_position) + " through " +
                                         plan.files.back().display_name});
    if (!plan.damage.empty()) {
      const recovery::Damage& d = plan.damage.front();
      page.facts.push_back({"first damage", recovery::local_time_text(d.timestamp) + "  " + d.what +
                                                " " + d.target + " at " + d.file + ":" +
                                                std::to_string(d.pos)});
    }
    page.commands.push_back({plan.damage.empty()
                                 ? "Replay everything since the backup"
                                 : "Recover to just before the first destructive transaction",
                             recovery::recovery_command(plan, o.plan)});
    if (!plan.damage.empty())
      page.commands.push_back({"Or replay everything except the destructive transactions",
                               recovery::skip_command(plan, o.plan)});
    with_file_output(*o.html_file, o, [&](recovery::Output& out) {
      recovery::write_timeline_html(tl, o.timeline_bucket.value_or(0), page, out);
      return 0;
    });
  }
  return status;
}

}  // namespace binrecover::cli
