#include "recovery/workflows/drill.h"

#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <sstream>
#include <thread>

#include "binlog/error.h"
#include "recovery/reading/local_time.h"
#include "recovery/sql/event_info.h"
#include "recovery/sql/sql_quote.h"
#include "recovery/workflows/event_table.h"
#include "recovery/workflows/replay.h"
#include "recovery/workflows/server_applier.h"

namespace binrecover::recovery {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

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

// Runs argv with the given stdin/stdout/stderr descriptors (-1: /dev/null); returns the pid.
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

std::string read_file(const std::string& path, std::size_t max = 1 << 20) {
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

// A throwaway server that accepts no one but us: no TCP at all, its Unix socket in a folder
// only its user (and root) may enter, root without a password only through that socket,
// secure_file_priv in that folder, run as an unprivileged user when we are root; no binary log.
class ThrowawayServer {
 public:
  explicit ThrowawayServer(const DrillOptions& opts) {
    if (opts.server) {
      external_ = *opts.server;
      if (external_->password) ::setenv("MYSQL_PWD", external_->password->c_str(), 1);
    }
    binary_ =
        !opts.server_binary.empty() ? opts.server_binary : find_program({"mariadbd", "mysqld"});
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
  ~ThrowawayServer() { abandon(); }
  // Stops the server and removes its folder (unless --keep).
  void abandon() {
    stop();
    if (!keep_ && !dir_.empty()) {
      std::error_code ec;
      fs::remove_all(dir_, ec);
    }
  }

  const std::string& dir() const { return dir_; }
  const std::string& binary() const { return binary_; }
  std::string socket() const { return srv_ + "/mysqld.sock"; }
  const std::string& account() const { return account_; }

  void start() {
    if (external_) {
      std::string out;
      if (query("SELECT 1", &out) != 0)
        throw Error(ErrorCode::kServer,
                    "cannot connect to the given server: " + last_lines(out, 2));
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
                                          last_lines(read_file(log), 5));
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
    throw Error(ErrorCode::kServer,
                "the drill server did not start: " + last_lines(read_file(srv_ + "/error.log"), 5));
  }

  void stop() {
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

  // How the replay engine reaches the server.
  ConnectionOptions connection() const {
    if (external_) return *external_;
    ConnectionOptions c;
    c.read_defaults = false;
    c.socket = socket();
    c.user = "root";
    return c;
  }

  std::vector<std::string> client_args(bool batch) const {
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

  // Runs `sql` through the client; its output in *out (when given). Returns the exit status.
  int query(const std::string& sql, std::string* out) const {
    std::vector<std::string> a = client_args(true);
    a.push_back("-e");
    a.push_back(sql);
    const std::string file = dir_ + "/query.out";
    const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int rc = wait_exit(spawn(a, -1, fd, fd));
    ::close(fd);
    if (out != nullptr) *out = read_file(file);
    return rc;
  }

  // Feeds a file to the client; returns its status, with its messages in *err.
  int source_file(const std::string& path, std::string* err) const {
    const int in = ::open(path.c_str(), O_RDONLY);
    if (in < 0) throw Error(ErrorCode::kIo, "cannot open " + path + ": " + std::strerror(errno));
    const std::string efile = dir_ + "/client.err";
    const int ef = ::open(efile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int rc = wait_exit(spawn(client_args(false), in, -1, ef));
    ::close(in);
    ::close(ef);
    *err = last_lines(read_file(efile), 5);
    return rc;
  }

 private:
  std::string binary_, client_, dir_, srv_, account_;
  bool mariadb_ = true;
  bool server_applier_ = false;
  bool keep_ = false;
  std::optional<ConnectionOptions> external_;
  pid_t pid_ = -1;
};

// SIGINT, SIGTERM and SIGHUP while the drill runs are taken by a thread of their own, which
// stops the server and removes its folder before the drill exits with 128 + the signal.
class SignalWatch {
 public:
  explicit SignalWatch(std::function<void()> cleanup) : cleanup_(std::move(cleanup)) {
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
  ~SignalWatch() {
    done_ = true;
    ::pthread_kill(thread_.native_handle(), SIGHUP);
    thread_.join();
    ::pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SignalWatch(const SignalWatch&) = delete;
  SignalWatch& operator=(const SignalWatch&) = delete;

 private:
  std::function<void()> cleanup_;
  sigset_t set_{}, old_{};
  std::atomic<bool> done_{false};
  std::thread thread_;
};

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

}  // namespace

DrillResult run_drill(const std::vector<InputFile>& inputs, const DrillOptions& opts,
                      const DecodeOptions& decode, const binlog::WarningSink& warn) {
  DrillResult r;
  auto step = [&](const std::string& name, auto&& fn) {
    const auto t = Clock::now();
    DrillStep s{name, 0, true, {}};
    try {
      s.detail = fn();
    } catch (const Error& e) {
      s.ok = false;
      s.detail = e.describe();
    } catch (const std::exception& e) {
      s.ok = false;
      s.detail = e.what();
    }
    s.seconds = since(t);
    r.steps.push_back(s);
    if (!s.ok && r.error.empty()) r.error = name + ": " + s.detail;
    return s.ok;
  };

  // 0. A backup the drill cannot restore (the mysql client restores SQL dumps) is refused
  // before anything starts.
  PlanOptions plan_opts = opts.plan;
  {
    const BackupCoordinates& b =
        *(plan_opts.backup = read_backup_coordinates(*opts.plan.dump, true));
    if (b.source != "mysqldump")
      throw Error(ErrorCode::kUsage,
                  *opts.plan.dump + " is a " + b.source +
                      " backup: drill restores SQL dumps (mysqldump / mariadb-dump) with the "
                      "mysql client; restore this one on a server of your own, then apply the "
                      "binlogs with the command `binrecover plan` prints (or binrecover replay)");
  }

  // 1. Where to start (the backup) and where to stop (before the incident, or as asked). A bad
  // option or target is an error of the command (exit 2) before any server starts.
  Plan plan;
  FilterOptions filter = opts.filter;
  std::vector<InputFile> replay_inputs;
  try {
    plan = make_plan(inputs, plan_opts, decode, opts.filter, warn);
  } catch (const Error& e) {
    if (e.code() == ErrorCode::kUsage || e.code() == ErrorCode::kNotFound) throw;
    r.steps.push_back({"plan", 0, false, e.describe()});
    r.error = "plan: " + e.describe();
    return r;
  }
  step("plan", [&]() -> std::string {
    filter.start_position = plan.start.position;
    replay_inputs = plan.files;
    r.start = plan.files.front().display_name +
              (plan.start.position ? ":" + std::to_string(*plan.start.position) : "") + " (" +
              plan.start.why + ")";
    if (filter.stop_position) {
      r.stop_file = replay_inputs.back().display_name;
      r.stop_pos = *filter.stop_position;
      r.target = "position " + std::to_string(*filter.stop_position) + " of " + r.stop_file;
    } else if (filter.stop_gtid) {
      r.stop_gtid = *filter.stop_gtid;
      r.target = "the transaction with GTID " + *filter.stop_gtid;
    } else if (filter.stop_datetime) {
      r.stop_time = static_cast<std::time_t>(*filter.stop_datetime);
      r.target = "the first event at or after " + local_time_text(r.stop_time, true);
    } else if (!opts.to_end && plan.incident) {
      const Damage& d = plan.damage[*plan.incident];
      filter.stop_position = d.pos;
      while (!replay_inputs.empty() && replay_inputs.back().display_name != d.file)
        replay_inputs.pop_back();
      r.stop_file = d.file;
      r.stop_pos = d.pos;
      r.stop_gtid = d.gtid;
      r.stop_time = d.timestamp;
      r.incident = "#" + std::to_string(d.number) + " " + d.what + " " + d.target + " (" +
                   std::string(severity_name(d.severity)) + "; " + plan.incident_why + ")";
      r.left_out = plan.after_incident();
      r.target = "the incident " + r.incident + " at " + d.file + ":" + std::to_string(d.pos) +
                 (d.gtid.empty() ? "" : " (GTID " + d.gtid + ")") + ", " +
                 local_time_text(d.timestamp, true);
    } else {
      r.target = "the end of the binlogs";
      if (!opts.to_end && !plan.damage.empty())
        r.target += " (no incident: " + plan.incident_why + ")";
    }
    return "from " + r.start + " to just before " + r.target;
  });

  ThrowawayServer server(opts);
  SignalWatch watch([&server] { server.abandon(); });
  if (!step("start server", [&]() -> std::string {
        server.start();
        if (opts.server) return std::string("the given server");
        return server.binary() + " as " + server.account() + ", socket " + server.socket() +
               " only (no TCP), data in " + server.dir();
      }))
    return r;
  if (!step("restore backup", [&]() -> std::string {
        std::string err;
        if (server.source_file(*opts.plan.dump, &err) != 0)
          throw Error(ErrorCode::kServer, "the client failed to load the backup: " + err);
        return *opts.plan.dump;
      }))
    return r;
  if (!step("replay binlogs", [&]() -> std::string {
        // The replay engine, as `binrecover replay --parallel N` (its state and progress on
        // the drill server, which has no binary log: the progress table).
        const ConnectionOptions conn = server.connection();
        Session session(conn);
        ReplayOptions ro;
        ro.state_file = server.dir() + "/replay.state";
        ro.parallel = opts.parallel;
        ro.preserve_commit_order = opts.preserve_commit_order;
        ro.server_applier = opts.server_applier;
        ro.merge_transactions = opts.merge_transactions;
        const ReplayResult rr =
            opts.server_applier
                ? run_server_applier(replay_inputs, decode, filter, false, ro, conn, session, warn)
                : run_replay(replay_inputs, decode, filter, SqlOptions{}, ro, conn, session, warn);
        r.server_applier = opts.server_applier;
        r.replay = rr.stats;
        r.workers = rr.workers;
        r.replay_seconds = rr.seconds;
        r.replay_transactions = rr.transactions_applied;
        r.replay_barriers = rr.barriers;
        r.replay_merged = rr.merged_transactions;
        r.replay_merged_into = rr.merged_groups;
        return std::to_string(r.replay.events) + " events, " +
               std::to_string(rr.transactions_applied) + " transactions, " +
               std::to_string(rr.workers) + (rr.workers == 1 ? " worker" : " workers") +
               (opts.server_applier ? " of the server's own replication applier" : "");
      }))
    return r;

  // 4. Verify: every table of the chosen databases, rows and CHECKSUM TABLE.
  step("verify", [&]() -> std::string {
    // (binrecover: the replay's progress table)
    std::string where =
        "table_type = 'BASE TABLE' AND table_schema NOT IN ('mysql', 'information_schema', "
        "'performance_schema', 'sys', 'binrecover')";
    if (!opts.plan.databases.empty()) {
      where += " AND table_schema IN (";
      for (std::size_t i = 0; i < opts.plan.databases.size(); ++i)
        where += (i ? "," : "") + quoted_string(opts.plan.databases[i]);
      where += ")";
    }
    std::string list;
    if (server.query("SELECT table_schema, table_name FROM information_schema.tables WHERE " +
                         where + " ORDER BY 1, 2",
                     &list) != 0)
      throw Error(ErrorCode::kServer, "listing the tables failed: " + last_lines(list, 3));
    std::istringstream lines(list);
    std::string script;
    std::vector<std::string> names;
    for (std::string line; std::getline(lines, line);) {
      const auto tab = line.find('\t');
      if (tab == std::string::npos) continue;
      const std::string q =
          quoted_ident(line.substr(0, tab)) + "." + quoted_ident(line.substr(tab + 1));
      names.push_back(line.substr(0, tab) + "." + line.substr(tab + 1));
      script += "SELECT COUNT(*) FROM " + q + "; CHECKSUM TABLE " + q + ";\n";
    }
    std::string values;
    if (!script.empty() && server.query(script, &values) != 0)
      throw Error(ErrorCode::kServer, "checking the tables failed: " + last_lines(values, 3));
    std::istringstream vs(values);
    for (const auto& name : names) {
      TableResult t;
      t.table = name;
      std::string count, checksum_line;
      std::getline(vs, count);
      std::getline(vs, checksum_line);
      t.rows = std::strtoull(count.c_str(), nullptr, 10);
      const auto tab = checksum_line.rfind('\t');
      t.checksum = tab == std::string::npos ? checksum_line : checksum_line.substr(tab + 1);
      r.tables.push_back(t);
    }
    if (opts.expect_file) {
      std::ifstream in(*opts.expect_file);
      if (!in) throw Error(ErrorCode::kIo, "cannot read " + *opts.expect_file);
      std::vector<std::string> seen;
      std::size_t mismatches = 0;
      for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream f(line);
        std::string table, rows, checksum;
        std::getline(f, table, '\t');
        std::getline(f, rows, '\t');
        std::getline(f, checksum, '\t');
        seen.push_back(table);
        auto it = std::find_if(r.tables.begin(), r.tables.end(),
                               [&](const TableResult& t) { return t.table == table; });
        if (it == r.tables.end()) {
          TableResult missing;
          missing.table = table;
          missing.ok = false;
          missing.expected_rows = std::strtoull(rows.c_str(), nullptr, 10);
          missing.expected_checksum = checksum;
          r.tables.push_back(missing);
          ++mismatches;
          continue;
        }
        it->expected_rows = std::strtoull(rows.c_str(), nullptr, 10);
        it->expected_checksum = checksum;
        it->ok = it->rows == *it->expected_rows && (checksum.empty() || checksum == it->checksum);
        if (!it->ok) ++mismatches;
      }
      for (auto& t : r.tables)
        if (std::find(seen.begin(), seen.end(), t.table) == seen.end()) {
          t.ok = false;  // a table the expectation does not know
          ++mismatches;
        }
      if (mismatches > 0)
        throw Error(ErrorCode::kServer,
                    std::to_string(mismatches) + " table(s) differ from " + *opts.expect_file);
    }
    if (opts.write_expect_file) {
      std::ofstream o(*opts.write_expect_file);
      o << "# table\trows\tchecksum (binrecover drill)\n";
      for (const auto& t : r.tables) o << t.table << '\t' << t.rows << '\t' << t.checksum << '\n';
    }
    return std::to_string(r.tables.size()) + " tables";
  });
  r.passed = r.error.empty();
  return r;
}

std::string drill_summary(const DrillResult& r) {
  std::ostringstream o;
  for (const auto& s : r.steps)
    o << (s.ok ? "ok    " : "FAILED") << "  " << s.name << " (" << std::fixed
      << std::setprecision(1) << s.seconds << " s): " << s.detail << "\n";
  for (const auto& t : r.tables) {
    o << (t.ok ? "  " : "! ") << t.table << "  rows " << t.rows << "  checksum " << t.checksum;
    if (t.expected_rows)
      o << "  (expected rows " << *t.expected_rows << ", checksum " << t.expected_checksum << ")";
    o << "\n";
  }
  if (!r.start.empty()) o << "start: " << r.start << "\n";
  if (!r.stop_file.empty() || !r.stop_gtid.empty() || r.stop_time != 0) {
    o << "stop point: just before";
    if (!r.stop_file.empty()) o << " " << r.stop_file << ":" << r.stop_pos;
    if (!r.stop_gtid.empty()) o << " (GTID " << r.stop_gtid << ")";
    if (r.stop_time != 0) o << ", " << local_time_text(r.stop_time, true);
    o << "\n";
  }
  if (!r.incident.empty()) {
    o << "incident: " << r.incident << "\n";
    o << "left out after it: " << with_commas(r.left_out.transactions) << " transaction(s)";
    if (!r.left_out.tables.empty()) o << ": " << counts_text(r.left_out);
    o << "\n";
  }
  o << (r.passed ? "PASS" : "FAIL") << ": drill " << (r.passed ? "restored" : "did not restore")
    << " the backup and replayed "
    << (r.target.empty() ? std::string("nothing (the plan failed)") : "to just before " + r.target)
    << "\n";
  return o.str();
}

void write_drill_report(const DrillResult& r, const DrillOptions&, Output& out) {
  auto& b = out.buf();
  auto it = std::back_inserter(b);
  fmt::format_to(it, "{{\"passed\":{},\"target\":", r.passed ? "true" : "false");
  append_json_string(b, r.target);
  append(b, ",\"start\":");
  append_json_string(b, r.start);
  append(b, ",\"stop\":{\"file\":");
  append_json_string(b, r.stop_file);
  fmt::format_to(it, ",\"position\":{},\"gtid\":", r.stop_pos);
  append_json_string(b, r.stop_gtid);
  append(b, ",\"time\":");
  append_json_string(b, r.stop_time != 0 ? local_time_text(r.stop_time, true) : std::string());
  fmt::format_to(it, ",\"timestamp\":{}}},\"incident\":", static_cast<long long>(r.stop_time));
  append_json_string(b, r.incident);
  append(b, ",\"left_out\":");
  append_counts_json(b, r.left_out);
  append(b, ",\"error\":");
  append_json_string(b, r.error);
  append(b, ",\"steps\":[");
  for (std::size_t i = 0; i < r.steps.size(); ++i) {
    const auto& s = r.steps[i];
    if (i) append(b, ",");
    append(b, "{\"name\":");
    append_json_string(b, s.name);
    fmt::format_to(it, ",\"ok\":{},\"seconds\":{:.3f},\"detail\":", s.ok ? "true" : "false",
                   s.seconds);
    append_json_string(b, s.detail);
    append(b, "}");
  }
  fmt::format_to(
      it,
      "],\"replay\":{{\"events\":{},\"transactions\":{},\"bytes\":{}}},"
      "\"parallel\":{{\"workers\":{},\"applier\":\"{}\",\"seconds\":{:.3f},"
      "\"transactions\":{},\"alone\":{},\"merged\":{},\"merged_into\":{},\"rate\":{:.1f}}},"
      "\"tables\":[",
      r.replay.events, r.replay_transactions, r.replay.bytes_read, r.workers,
      r.server_applier ? "server" : "sessions", r.replay_seconds, r.replay_transactions,
      r.replay_barriers, r.replay_merged, r.replay_merged_into,
      r.replay_seconds > 0 ? static_cast<double>(r.replay_transactions) / r.replay_seconds : 0.0);
  for (std::size_t i = 0; i < r.tables.size(); ++i) {
    const auto& t = r.tables[i];
    if (i) append(b, ",");
    append(b, "{\"table\":");
    append_json_string(b, t.table);
    fmt::format_to(it, ",\"rows\":{},\"checksum\":", t.rows);
    append_json_string(b, t.checksum);
    if (t.expected_rows) {
      fmt::format_to(it, ",\"expected_rows\":{},\"expected_checksum\":", *t.expected_rows);
      append_json_string(b, t.expected_checksum);
    }
    fmt::format_to(it, ",\"ok\":{}}}", t.ok ? "true" : "false");
  }
  append(b, "]}\n");
  out.flush();
}

}  // namespace binrecover::recovery
