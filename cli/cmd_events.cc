// binrecover events: the SHOW BINLOG EVENTS table, offline.
#include <unistd.h>

#include "cli/commands.h"
#include "recovery/emit/event_list.h"
#include "recovery/sql/output.h"

namespace binrecover::cli {

int events_command(Options& o) {
  return with_output(o, [&](recovery::Output& out) {
    recovery::run_event_list(o.inputs, o.decode, o.filter, o.events, out, warn);
    out.flush();
    return 0;
  });
}

}  // namespace binrecover::cli
