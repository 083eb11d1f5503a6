// binrecover stats: rows changed per table, events per type, the largest transactions.
#include <unistd.h>

#include "cli/commands.h"
#include "recovery/sql/output.h"
#include "recovery/workflows/stats.h"

namespace binrecover::cli {

int stats_command(Options& o) {
  const int fd = open_output(o);
  recovery::Output out(fd, o.result_file.value_or("standard output"));
  const recovery::Stats st = recovery::collect_stats(o.inputs, o.decode, o.filter, warn);
  if (o.stats_json)
    recovery::write_stats_json(st, out);
  else
    recovery::write_stats_table(st, out);
  if (o.result_file) ::close(fd);
  return 0;
}

}  // namespace binrecover::cli
