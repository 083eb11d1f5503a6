// binrecover stats: rows changed per table, events per type, the largest transactions.
#include <unistd.h>

#include "cli/commands.h"
#include "recovery/sql/output.h"
#include "recovery/workflows/stats.h"

namespace binrecover::cli {

int stats_command(Options& o) {
  return with_output(o, [&](recovery::Output& out) {
    const recovery::Stats st = recovery::collect_stats(o.inputs, o.decode, o.filter, warn);
    if (o.stats_json)
      recovery::write_stats_json(st, out);
    else
      recovery::write_stats_table(st, out);
    out.flush();
    return 0;
  });
}

}  // namespace binrecover::cli
