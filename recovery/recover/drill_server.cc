// The drill's own server: a throwaway one (started, reached and stopped by the drill alone) or
// the given one.
#include "recovery/recover/drill_server.h"

#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "binlog/error.h"
#include "recovery/server/programs.h"

namespace binrecover::recovery {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// The user the throwaway server runs as: ours, or when we are root an unprivileged one (the
// server must not write root-owned files for whoever reaches it).
const passwd* server_account() {
  if (::geteuid() != 0) return ::getpwuid(::geteuid());
  for (const char* name : {"mysql", "nobody"})
    if (const passwd* pw = ::getpwnam(name)) return pw;
  return nullptr;
}

void private_dir(const std::string& path, const passwd* owner) {
  if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST)
    throw Error(ErrorCode::kIo, "cannot create " + path + ": " + std::strerror(errno));
  if (owner != nullptr && ::geteuid() == 0 &&
      ::chown(path.c_str(), owner->pw_uid, owner->pw_gid) != 0)
    throw Error(ErrorCode::kIo,
                "cannot hand " + path + " to the server's user: " + std::strerror(errno));
}

}  // namespace

ThrowawayServer::ThrowawayServer(const DrillOptions& opts) {
  if (opts.server) {
    external_ = *opts.server;
    if (external_->password) ::setenv("MYSQL_PWD", external_->password->c_str(), 1);
  }
  binary_ = !opts.server_binary.empty() ? opts.server_binary : find_program({"mariadbd", "mysqld"});
  if (binary_.empty() && !external_)
    throw Error(ErrorCode::kUsage,
                "no mariadbd or mysqld on PATH for the drill server (give --server-binary)");
  client_ = find_program({"mariadb", "mysql"});
  if (client_.empty()) throw Error(ErrorCode::kUsage, "no mariadb or mysql client on PATH");
  mariadb_ = binary_.find("mariadbd") != std::string::npos;
  const char* tmp = std::getenv("TMPDIR");
  std::string tmpl =
      std::string(tmp != nullptr && *tmp ? tmp : "/tmp") + "/binrecover-drill-XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr)
    throw Error(ErrorCode::kIo,
                std::string("cannot create the drill folder: ") + std::strerror(errno));
  dir_ = tmpl;
  srv_ = dir_ + "/server";
  keep_ = opts.keep;
  server_applier_ = opts.server_applier;
}
void ThrowawayServer::abandon() {
  stop();
  if (!keep_ && !dir_.empty()) {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
}

void ThrowawayServer::start() {
  if (external_) {
    std::string out;
    if (query("SELECT 1", &out) != 0)
      throw Error(ErrorCode::kServer, "cannot connect to the given server: " + last_lines(out, 2));
    return;
  }
  const passwd* account = server_account();
  if (account == nullptr)
    throw Error(ErrorCode::kUsage,
                "running as root, and no mysql or nobody user to run the drill server as");
  account_ = account->pw_name;
  // dir_ (0700 from mkdtemp) is ours; the server's own folder inside it is its user's. When
  // that user is not us, dir_ lets it pass (0711) without listing.
  if (::geteuid() == 0 && account->pw_uid != 0) ::chmod(dir_.c_str(), 0711);
  private_dir(srv_, account);
  private_dir(srv_ + "/files", account);
  private_dir(srv_ + "/tmp", account);
  if (socket().size() >= sizeof(sockaddr_un{}.sun_path))
    throw Error(ErrorCode::kUsage, "the drill folder's path is too long for a Unix socket (" +
                                       socket() + "): set TMPDIR to a shorter folder");
  const std::string log = dir_ + "/init.log";
  const int lf = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int rc;
  if (mariadb_) {
    const std::string install = find_program({"mariadb-install-db", "mysql_install_db"});
    if (install.empty()) throw Error(ErrorCode::kUsage, "no mariadb-install-db on PATH");
    rc = wait_exit(
        spawn({install, "--no-defaults", "--user=" + account_, "--datadir=" + srv_ + "/data",
               "--tmpdir=" + srv_ + "/tmp",  // (not /tmp: two at once collide there)
               "--auth-root-authentication-method=normal", "--skip-test-db"},
              -1, lf, lf));
  } else {
    rc = wait_exit(spawn({binary_, "--no-defaults", "--initialize-insecure", "--user=" + account_,
                          "--datadir=" + srv_ + "/data", "--tmpdir=" + srv_ + "/tmp"},
                         -1, lf, lf));
  }
  ::close(lf);
  if (rc != 0)
    throw Error(ErrorCode::kServer, "initialising the drill server's data folder failed: " +
                                        last_lines(read_text_file(log), 5));
  std::vector<std::string> args = {binary_,
                                   "--no-defaults",
                                   "--user=" + account_,
                                   "--datadir=" + srv_ + "/data",
                                   "--socket=" + socket(),
                                   "--pid-file=" + srv_ + "/mysqld.pid",
                                   "--log-error=" + srv_ + "/error.log",
                                   "--tmpdir=" + srv_ + "/tmp",
                                   "--skip-networking",
                                   "--secure-file-priv=" + srv_ + "/files",
                                   "--innodb-buffer-pool-size=128M",
                                   "--max-allowed-packet=1G",
                                   "--skip-log-bin"};
  // (--server-applier: a server id no binlog names, as a replica's events of its own id would
  // be left out)
  if (server_applier_) args.push_back("--server-id=4294967001");
  if (!mariadb_) args.push_back("--mysqlx=OFF");
  pid_ = spawn(args, -1, -1, -1);
  const auto deadline = Clock::now() + std::chrono::seconds(90);
  while (Clock::now() < deadline) {
    if (query("SELECT 1", nullptr) == 0) return;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  throw Error(ErrorCode::kServer, "the drill server did not start: " +
                                      last_lines(read_text_file(srv_ + "/error.log"), 5));
}

void ThrowawayServer::stop() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  for (int i = 0; i < 300; ++i) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ::kill(pid_, SIGKILL);
  wait_exit(pid_);
  pid_ = -1;
}

ConnectionOptions ThrowawayServer::connection() const {
  if (external_) return *external_;
  ConnectionOptions c;
  c.read_defaults = false;
  c.socket = socket();
  c.user = "root";
  return c;
}

std::vector<std::string> ThrowawayServer::client_args(bool batch) const {
  std::vector<std::string> a = {client_};
  if (external_) {
    // Like any mysql client, it reads [client] from the usual option files.
    if (!external_->read_defaults) a.push_back("--no-defaults");
    if (external_->defaults_file) a.push_back("--defaults-file=" + *external_->defaults_file);
    if (external_->host) a.push_back("--host=" + *external_->host);
    if (external_->port) a.push_back("--port=" + std::to_string(*external_->port));
    if (external_->user) a.push_back("--user=" + *external_->user);
    if (external_->socket) a.push_back("--socket=" + *external_->socket);
  } else {
    a.insert(a.end(), {"--no-defaults", "--protocol=SOCKET", "--socket=" + socket(), "-uroot"});
  }
  a.insert(a.end(),
           {"--default-character-set=utf8mb4", "--local-infile=1", "--max-allowed-packet=1G"});
  if (batch) {
    a.push_back("-N");
    a.push_back("-B");
  }
  return a;
}

int ThrowawayServer::query(const std::string& sql, std::string* out) const {
  std::vector<std::string> a = client_args(true);
  a.push_back("-e");
  a.push_back(sql);
  const std::string file = dir_ + "/query.out";
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const int rc = wait_exit(spawn(a, -1, fd, fd));
  ::close(fd);
  if (out != nullptr) *out = read_text_file(file);
  return rc;
}

int ThrowawayServer::source_file(const std::string& path, std::string* err) const {
  const int in = ::open(path.c_str(), O_RDONLY);
  if (in < 0) throw Error(ErrorCode::kIo, "cannot open " + path + ": " + std::strerror(errno));
  const std::string efile = dir_ + "/client.err";
  const int ef = ::open(efile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const int rc = wait_exit(spawn(client_args(false), in, -1, ef));
  ::close(in);
  ::close(ef);
  *err = last_lines(read_text_file(efile), 5);
  return rc;
}

SignalWatch::SignalWatch(std::function<void()> cleanup) : cleanup_(std::move(cleanup)) {
  ::sigemptyset(&set_);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaddset(&set_, sig);
  ::pthread_sigmask(SIG_BLOCK, &set_, &old_);
  thread_ = std::thread([this] {
    int sig = 0;
    while (::sigwait(&set_, &sig) == 0) {
      if (done_.load()) return;
      std::fprintf(stderr, "binrecover: drill: signal %d, stopping the drill server\n", sig);
      cleanup_();
      ::_exit(128 + sig);
    }
  });
}

SignalWatch::~SignalWatch() {
  done_ = true;
  ::pthread_kill(thread_.native_handle(), SIGHUP);
  thread_.join();
  ::pthread_sigmask(SIG_SETMASK, &old_, nullptr);
}

}  // namespace binrecover::recovery
