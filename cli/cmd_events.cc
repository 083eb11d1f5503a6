// binrecover events: the SHOW BINLOG EVENTS table, offline.
#include <unistd.h>

#include "cli/commands.h"
#include "cli/option_groups.h"
#include "cli/option_groups_servers.h"
#include "recovery/emit/event_list.h"
#include "recovery/sql/output.h"

namespace binrecover::cli {

// The options of `binrecover events`.
namespace {

Group events_group() {
  Group grp("Event listing");
  po::options_description& g = grp.d;
  g.add_options()("format", po::value<std::string>(), "table (default), tsv or json")(
      "from", po::value<std::string>(),
      "start at this position of the first file (any event boundary; as --start-position)")(
      "limit", po::value<std::string>(), "[OFFSET,]COUNT events")(
      "result-file,r", po::value<std::string>(), "write to this file instead of stdout")(
      "stop-never",
      "with -R: follow the server: wait at the end of its logs for more, go on with each new "
      "file, each event listed as it comes");
  return grp;
}

}  // namespace

std::vector<Group> events_option_groups(bool for_option_files) {
  std::vector<Group> d = reading_groups();
  d.push_back(events_group());
  d.push_back(remote_group());
  if (!for_option_files) d.push_back(connection_group(ConnectionFor::kSource));
  d.push_back(misc_group());
  return d;
}

int events_command(Options& o) {
  return with_output(o, [&](recovery::Output& out) {
    recovery::run_event_list(o.inputs, o.decode, o.filter, o.events, out, warn);
    out.flush();
    return 0;
  });
}

}  // namespace binrecover::cli
