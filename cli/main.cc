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

void warn(const std::string& msg) {
  std::fprintf(stderr, "binrecover: warning: %s\n", recovery::terminal_text(msg).c_str());
}

std::string nothing_kept_text() {
  return "the range and filters keep no transaction of the binlogs read (check "
         "--start/--stop-position, --start/--stop-datetime, --database, --table, --server-id "
         "and the GTID options against `binrecover events`)";
}

std::string read_password() {
  // From the terminal itself, never standard input (which may be the binlog).
  const int tty = ::open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
  if (tty < 0)
    throw Error(ErrorCode::kUsage,
                "-p asks for the password on a terminal, and there is none; give it in an option "
                "file ([client] password=...) or in MYSQL_PWD");
  struct termios saved {};
  const bool is_term = ::tcgetattr(tty, &saved) == 0;
  if (is_term) {
    struct termios quiet = saved;
    quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    ::tcsetattr(tty, TCSAFLUSH, &quiet);
  }
  constexpr std::string_view kPrompt = "Enter password: ";
  [[maybe_unused]] const ssize_t w = ::write(tty, kPrompt.data(), kPrompt.size());
  std::string pw;
  char c;
  while (::read(tty, &c, 1) == 1 && c != '\n') pw.push_back(c);
  if (is_term) ::tcsetattr(tty, TCSAFLUSH, &saved);
  [[maybe_unused]] const ssize_t nl = ::write(tty, "\n", 1);
  ::close(tty);
  return pw;
}

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

namespace {

// --result-file: a private file (recovery/storage/private_file.h) that replaces the target at
// the end; never one of the inputs.
class ResultFile {
 public:
  ResultFile(const std::string& path, const std::vector<recovery::InputFile>& inputs)
      : file_(checked(path, inputs)) {}
  int fd() const { return file_.fd(); }
  void finish() { file_.commit(); }
  // After a failure: cut back to the last whole transaction `out` wrote, then finish().
  void finish_partial(const recovery::Output& out) {
    if (out.bytes_written() > out.whole_bytes()) {
      if (::ftruncate(file_.fd(), static_cast<off_t>(out.whole_bytes())) != 0) {
        warn(file_.path() + ": cannot cut the torn end of the output (" + std::strerror(errno) +
             "): removed");
        return;  // the destructor removes it
      }
      warn(file_.path() + ": output cut back to its last whole transaction (" +
           std::to_string(out.whole_bytes()) + " bytes)");
    }
    finish();
  }

 private:
  static std::string checked(const std::string& path,
                             const std::vector<recovery::InputFile>& inputs) {
    struct stat target {};
    if (::stat(path.c_str(), &target) == 0) {
      for (const recovery::InputFile& in : inputs) {
        struct stat st {};
        if (!in.memory && !in.open && ::stat(in.path.c_str(), &st) == 0 &&
            st.st_dev == target.st_dev && st.st_ino == target.st_ino)
          throw Error(ErrorCode::kUsage,
                      "--result-file names the input " + in.path + ": it would be overwritten")
              .with_file(path);
      }
    }
    return path;
  }
  recovery::PrivateFile file_;
};

}  // namespace

int with_output(const Options& o, const std::function<int(recovery::Output&)>& body) {
  if (!o.result_file) {
    recovery::Output out(STDOUT_FILENO);
    return body(out);
  }
  return with_file_output(*o.result_file, o, body);
}

int with_file_output(const std::string& path, const Options& o,
                     const std::function<int(recovery::Output&)>& body) {
  ResultFile file(path, o.inputs);
  int status = 0;
  {
    recovery::Output out(file.fd(), path);
    try {
      status = body(out);
      out.flush();
    } catch (...) {
      try {
        out.flush();  // what is whole is kept
      } catch (...) {
      }
      try {
        file.finish_partial(out);
      } catch (const Error& e) {
        warn(e.describe());
      }
      throw;
    }
  }
  file.finish();
  return status;
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
