// binrecover drill: restore the backup and replay the binlogs on a throwaway server, verify.
#include <unistd.h>

#include "cli/commands.h"
#include "recovery/sql/output.h"
#include "recovery/workflows/drill.h"

namespace binrecover::cli {

int drill_command(Options& o) {
  if (o.password_prompt && o.drill.server) o.drill.server->password = read_password();
  const int fd = open_output(o);
  recovery::Output out(fd, o.result_file.value_or("standard output"));
  const recovery::DrillResult r = recovery::run_drill(o.inputs, o.drill, o.decode, warn);
  if (o.drill.report_file) {
    recovery::Output report(recovery::Output::open_file(*o.drill.report_file),
                            *o.drill.report_file);
    recovery::write_drill_report(r, o.drill, report);
  }
  out.append(recovery::drill_summary(r));
  out.flush();
  if (o.result_file) ::close(fd);
  return r.passed ? 0 : 7;
}

}  // namespace binrecover::cli
