// What the commands share around their work (cli/commands.h): warnings, the password from the
// terminal, and their output (standard output, or --result-file written privately).
#include <fcntl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "binlog/error.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "recovery/sql/output.h"
#include "recovery/storage/private_file.h"
#include "recovery/text/escape.h"

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
