// binrecover plan: the destructive transactions since the backup, and the recovery commands.
#include <unistd.h>

#include "cli/commands.h"
#include "recovery/sql/output.h"
#include "recovery/workflows/plan.h"

namespace binrecover::cli {

int plan_command(Options& o) {
  return with_output(o, [&](recovery::Output& out) {
    const recovery::Plan plan = recovery::make_plan(o.inputs, o.plan, o.decode, o.filter, warn);
    if (o.plan_json)
      recovery::write_plan_json(plan, o.plan, out);
    else
      recovery::write_plan_text(plan, o.plan, out);
    out.flush();
    return 0;
  });
}

}  // namespace binrecover::cli
