// binrecover stats: rows changed per table, events per type, the largest transactions; with
// --timeline the picture of the range instead, --html the page.
#include <unistd.h>

#include "cli/commands.h"
#include "cli/option_groups.h"
#include "cli/option_groups_servers.h"
#include "recovery/recover/stats.h"
#include "recovery/recover/timeline.h"
#include "recovery/sql/output.h"

namespace binrecover::cli {

// The options of `binrecover stats`.
namespace {

Group stats_group() {
  Group grp("Statistics");
  po::options_description& g = grp.d;
  g.add_options()("format", po::value<std::string>(), "table (default) or json")(
      "result-file,r", po::value<std::string>(), "write to this file instead of stdout")(
      "transactions", po::value<std::string>()->implicit_value("10"),
      "the N largest and N longest transactions (default 5; alone: 10), each with its start and "
      "commit time, duration, bytes, rows, GTID and the tables it changed");
  add_timeline_options(g, true);
  return grp;
}

}  // namespace

std::vector<Group> stats_option_groups(bool for_option_files) {
  std::vector<Group> d = reading_groups();
  d.push_back(stats_group());
  d.push_back(remote_group());
  if (!for_option_files) d.push_back(connection_group(ConnectionFor::kSource));
  d.push_back(misc_group());
  return d;
}

int stats_command(Options& o) {
  const bool picture = o.timeline || o.html_file;
  recovery::Timeline tl;
  tl.by_table = o.timeline_by_table;
  std::unique_ptr<recovery::WalkConsumer> finder, collector;
  std::optional<recovery::TeeConsumer> both;
  if (picture) {
    finder = recovery::damage_finder(o.plan, tl.damage);
    collector = recovery::timeline_collector(tl);
    both.emplace(std::vector<recovery::WalkConsumer*>{finder.get(), collector.get()});
  }
  recovery::Stats st;
  const int status = with_output(o, [&](recovery::Output& out) {
    st = recovery::collect_stats(o.inputs, o.decode, o.filter, warn, o.stats_top,
                                 both ? &*both : nullptr);
    if (o.timeline)
      recovery::write_timeline_text(tl, o.timeline_bucket.value_or(0), out);
    else if (o.stats_json)
      recovery::write_stats_json(st, out);
    else
      recovery::write_stats_table(st, out);
    out.flush();
    return 0;
  });
  if (o.html_file) {
    recovery::HtmlPage page;
    page.title = "binrecover stats: " + o.inputs.front().display_name +
                 (o.inputs.size() > 1 ? " to " + o.inputs.back().display_name : "");
    page.facts = {{"binlogs", std::to_string(o.inputs.size())},
                  {"events", std::to_string(st.events)},
                  {"transactions", std::to_string(st.transactions)},
                  {"rows changed", std::to_string(st.rows)},
                  {"destructive events", std::to_string(tl.damage.size())}};
    with_file_output(*o.html_file, o, [&](recovery::Output& out) {
      recovery::write_timeline_html(tl, o.timeline_bucket.value_or(0), page, out);
      return 0;
    });
  }
  return status;
}

}  // namespace binrecover::cli
