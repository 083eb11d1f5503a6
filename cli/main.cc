#include <fcntl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "binlog/error.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "recovery/sql/output.h"
#include "recovery/storage/private_file.h"
#include "recovery/text/escape.h"
#include "version.h"

namespace binrecover::cli {

// A password given as -pSECRET, --password=SECRET or --source-password=SECRET (or a prefix
// of them) is overwritten
// in the process's own argument memory, as the mysql client does, so that ps and
// /proc/PID/cmdline no longer show it (it was copied before).
void hide_password_args(int argc, char** argv) {
  constexpr std::string_view kValueShorts = "dhloPrSjuc";  // short options that take a value
  for (int i = 1; i < argc; ++i) {
    char* a = argv[i];
    const std::string_view arg(a);
    if (arg == "--") return;
    if (arg.size() > 2 && arg.substr(0, 2) == "--") {
      const std::size_t eq = arg.find('=');
      const std::string_view name = arg.substr(2, eq == std::string_view::npos ? eq : eq - 2);
      const auto prefix_of = [&](std::string_view full, std::size_t min) {
        return name.size() >= min && full.substr(0, name.size()) == name;
      };
      if (eq != std::string_view::npos &&
          (prefix_of("password", 2) || prefix_of("source-password", 9)))
        std::memset(a + eq + 1, 'x', arg.size() - eq - 1);
      continue;
    }
    if (arg.size() < 2 || arg[0] != '-') continue;
    for (std::size_t k = 1; k < arg.size(); ++k) {
      if (arg[k] == 'p') {
        std::memset(a + k + 1, 'x', arg.size() - k - 1);
        break;
      }
      if (kValueShorts.find(arg[k]) != std::string_view::npos) break;
    }
  }
}

}  // namespace binrecover::cli

namespace {

int run(const std::vector<std::string>& args) {
  using namespace binrecover::cli;
  Options o = parse_options(args, ::isatty(STDIN_FILENO) != 0);
  resolve_remote_inputs(o);
  switch (o.command) {
    case Command::kHelp:
      std::fputs(o.help_text.c_str(), stdout);
      return 0;
    case Command::kVersion:
      std::printf("binrecover %s (git %s)\n", BINRECOVER_VERSION, BINRECOVER_REVISION);
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
    case Command::kBackup:
      return backup_command(o);
    case Command::kRestore:
      return restore_command(o);
    case Command::kArchive:
      return archive_command(o);
  }
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  using binrecover::Error;
  // A file-size limit makes write() fail with EFBIG, reported and cut back like a full disk,
  // instead of killing the process in the middle of a transaction.
  std::signal(SIGXFSZ, SIG_IGN);
  std::vector<std::string> args(argv + 1, argv + argc);
  binrecover::cli::hide_password_args(argc, argv);
  try {
    return run(args);
  } catch (const Error& e) {
    std::fprintf(stderr, "binrecover: %s\n",
                 binrecover::recovery::terminal_text(e.describe()).c_str());
    return binrecover::exit_status(e.code());
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "binrecover: out of memory\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "binrecover: internal error: %s\n",
                 binrecover::recovery::terminal_text(e.what()).c_str());
    return 1;
  }
}
