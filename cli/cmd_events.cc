// binrecover events: the SHOW BINLOG EVENTS table, offline.
#include <unistd.h>

#include "cli/commands.h"
#include "recovery/sql/output.h"
#include "recovery/workflows/event_table.h"

namespace binrecover::cli {

int events_command(Options& o) {
  const int fd = open_output(o);
  recovery::Output out(fd, o.result_file.value_or("standard output"));
  recovery::run_event_list(o.inputs, o.decode, o.filter, o.events, out, warn);
  out.flush();
  if (o.result_file) ::close(fd);
  return 0;
}

}  // namespace binrecover::cli
