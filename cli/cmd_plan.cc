// binrecover plan: the destructive transactions since the backup, and the recovery commands.
#include <unistd.h>

#include "cli/commands.h"
#include "recovery/sql/output.h"
#include "recovery/workflows/plan.h"

namespace binrecover::cli {

int plan_command(Options& o) {
  const int fd = open_output(o);
  recovery::Output out(fd, o.result_file.value_or("standard output"));
  const recovery::Plan plan = recovery::make_plan(o.inputs, o.plan, o.decode, o.filter, warn);
  if (o.plan_json)
    recovery::write_plan_json(plan, o.plan, out);
  else
    recovery::write_plan_text(plan, o.plan, out);
  if (o.result_file) ::close(fd);
  return 0;
}

}  // namespace binrecover::cli
