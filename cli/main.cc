#include <unistd.h>

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "binlog/error.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "recovery/sql/output.h"

namespace binrecover::cli {

void warn(const std::string& msg) {
  std::fprintf(stderr, "binrecover: warning: %s\n", msg.c_str());
}

std::string read_password() {
  const char* pw = ::getpass("Enter password: ");
  if (pw == nullptr) throw Error(ErrorCode::kUsage, "-p: cannot read a password from a terminal");
  return pw;
}

int open_output(const Options& o) {
  return o.result_file ? recovery::Output::open_file(*o.result_file) : STDOUT_FILENO;
}

}  // namespace binrecover::cli

namespace {

int run(const std::vector<std::string>& args) {
  using namespace binrecover::cli;
  Options o = parse_options(args, ::isatty(STDIN_FILENO) != 0);
  switch (o.command) {
    case Command::kHelp:
      std::fputs(o.help_text.c_str(), stdout);
      return 0;
    case Command::kVersion:
      std::printf("binrecover %s\n", BINRECOVER_VERSION);
      return 0;
    case Command::kSql:
      return sql_command(o);
    case Command::kEvents:
      return events_command(o);
    case Command::kStats:
      return stats_command(o);
    case Command::kPlan:
      return plan_command(o);
    case Command::kDrill:
      return drill_command(o);
    case Command::kReplay:
      return replay_command(o);
  }
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  using binrecover::Error;
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    return run(args);
  } catch (const Error& e) {
    std::fprintf(stderr, "binrecover: %s\n", e.describe().c_str());
    return binrecover::exit_status(e.code());
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "binrecover: out of memory\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "binrecover: internal error: %s\n", e.what());
    return 1;
  }
}
