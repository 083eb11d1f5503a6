#include "recovery/server/programs.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

#include "binlog/error.h"

namespace binrecover::recovery {

std::string find_program(const std::vector<std::string>& names) {
  std::vector<std::string> dirs;
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    for (std::string d; std::getline(ss, d, ':');)
      if (!d.empty()) dirs.push_back(d);
  }
  for (const char* d : {"/usr/sbin", "/usr/local/sbin", "/usr/bin", "/usr/local/bin"})
    dirs.emplace_back(d);
  for (const auto& name : names)
    for (const auto& d : dirs) {
      const std::string p = d + "/" + name;
      if (::access(p.c_str(), X_OK) == 0) return p;
    }
  return {};
}

pid_t spawn(const std::vector<std::string>& argv, int in, int out, int err) {
  const pid_t pid = ::fork();
  if (pid < 0) throw Error(ErrorCode::kIo, std::string("fork failed: ") + std::strerror(errno));
  if (pid == 0) {
    sigset_t none;
    ::sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    const int null = ::open("/dev/null", O_RDWR);
    ::dup2(in >= 0 ? in : null, 0);
    ::dup2(out >= 0 ? out : null, 1);
    ::dup2(err >= 0 ? err : null, 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  return pid;
}

int wait_exit(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

std::string read_text_file(const std::string& path, std::size_t max) {
  std::ifstream in(path, std::ios::binary);
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (s.size() > max) s = s.substr(s.size() - max);
  return s;
}

std::string last_lines(std::string text, int n) {
  while (!text.empty() && text.back() == '\n') text.pop_back();
  std::size_t pos = text.size();
  for (int i = 0; i < n; ++i) {
    const std::size_t nl = pos == 0 ? std::string::npos : text.rfind('\n', pos - 1);
    if (nl == std::string::npos) return text;
    pos = nl;
  }
  return text.substr(pos + 1);
}

}  // namespace binrecover::recovery
