// binrecover drill: restore the backup and replay the binlogs on a throwaway server, verify.
#include <unistd.h>

#include "cli/commands.h"
#include "cli/option_groups.h"
#include "cli/option_groups_servers.h"
#include "recovery/recover/drill.h"
#include "recovery/sql/output.h"
#include "recovery/storage/private_file.h"

namespace binrecover::cli {

// The options of `binrecover drill`.
std::vector<Group> drill_option_groups(bool for_option_files) {
  std::vector<Group> d = reading_groups();
  d.push_back(plan_group(true));
  d.push_back(remote_group(true));
  if (!for_option_files) d.push_back(connection_group(ConnectionFor::kDrill));
  d.push_back(misc_group());
  return d;
}

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
