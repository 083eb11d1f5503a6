// binrecover drill: restore the backup and replay the binlogs on a throwaway server, verify.
#include <unistd.h>

#include "cli/commands.h"
#include "recovery/recover/drill.h"
#include "recovery/sql/output.h"
#include "recovery/storage/private_file.h"

namespace binrecover::cli {

int drill_command(Options& o) {
  if (o.password_prompt && o.drill.server) o.drill.server->password = read_password();
  return with_output(o, [&](recovery::Output& out) {
    const recovery::DrillResult r = recovery::run_drill(o.inputs, o.drill, o.decode, warn);
    if (o.drill.report_file) {
      recovery::PrivateFile file(*o.drill.report_file);
      {
        recovery::Output report(file.fd(), *o.drill.report_file);
        recovery::write_drill_report(r, o.drill, report);
        report.flush();
      }
      file.commit();
    }
    out.append(recovery::drill_summary(r));
    out.flush();
    return r.passed ? 0 : 7;
  });
}

}  // namespace binrecover::cli
