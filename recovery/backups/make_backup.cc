#include "recovery/backups/make_backup.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>

#include "binlog/error.h"
#include "recovery/recover/backup_text.h"
#include "recovery/server/programs.h"
#include "recovery/storage/envelope.h"
#include "recovery/storage/s3_archive.h"

namespace binrecover::recovery {

namespace {

constexpr std::size_t kHeadBytes = std::size_t{1} << 20;   // the coordinates come before this
constexpr std::size_t kTailBytes = std::size_t{64} << 10;  // mariadb-dump's deferred GTIDs

// The server as the manifest names it.
struct ServerFacts {
  bool mariadb = false;
  std::string version, host, uuid;
  std::uint32_t server_id = 0;
  std::int64_t now = 0;
  std::vector<std::string> databases;
};

ServerFacts ask_server(const BackupOptions& o) {
  Session s(o.server);
  ServerFacts f;
  f.mariadb = s.mariadb();
  f.version = s.server_version();
  f.host = s.value("SELECT @@hostname").value_or("");
  f.server_id =
      static_cast<std::uint32_t>(std::stoull(s.value("SELECT @@server_id").value_or("0")));
  if (!f.mariadb) f.uuid = s.value("SELECT @@server_uuid").value_or("");
  f.now = std::stoll(s.value("SELECT UNIX_TIMESTAMP()").value_or("0"));
  if (s.value("SELECT @@log_bin").value_or("0") != "1")
    throw Error(ErrorCode::kServer,
                s.where() +
                    " has no binary log (log_bin is off): a backup without binlog "
                    "coordinates cannot be recovered forward");
  for (const auto& row : s.rows("SHOW DATABASES")) {
    const std::string& d = row.empty() ? std::string() : row[0];
    if (d == "information_schema" || d == "performance_schema" || d == "sys" || d == "mysql")
      continue;
    // (a name the dump program would take for one of its options is never passed to it)
    if (d.empty() || d[0] == '-')
      throw Error(ErrorCode::kServer,
                  s.where() + " has a database named '" + d +
                      "', which cannot be given to the dump program as a name: name the "
                      "databases to back up with --database");
    f.databases.push_back(d);
  }
  return f;
}

// The dump program's --version line ("" when it does not answer).
std::string tool_version(const std::string& tool) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return {};
  const pid_t pid = spawn({tool, "--version"}, -1, fds[1], -1);
  ::close(fds[1]);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;)
    out.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  wait_exit(pid);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out.substr(0, out.find('\n'));
}

// "Ver 8.0.26" -> 80026 (0: not found).
unsigned version_number(const std::string& line) {
  const std::size_t at = line.find("Ver ");
  if (at == std::string::npos) return 0;
  unsigned major = 0, minor = 0, patch = 0;
  if (std::sscanf(line.c_str() + at + 4, "%u.%u.%u", &major, &minor, &patch) < 2) return 0;
  return major * 10000 + minor * 100 + patch;
}

std::vector<std::string> dump_args(const BackupOptions& o, const ServerFacts& f,
                                   const std::string& tool, const std::string& version,
                                   const std::vector<std::string>& databases) {
  std::vector<std::string> a = {tool};
  const ConnectionOptions& c = o.server;
  if (!c.read_defaults) a.emplace_back("--no-defaults");
  if (c.defaults_file) a.push_back("--defaults-file=" + *c.defaults_file);
  if (c.host) a.push_back("--host=" + *c.host);
  if (c.port) a.push_back("--port=" + std::to_string(*c.port));
  if (c.user) a.push_back("--user=" + *c.user);
  if (c.socket) a.push_back("--socket=" + *c.socket);
  if (c.protocol == ConnectionOptions::Protocol::kTcp) a.emplace_back("--protocol=TCP");
  if (c.protocol == ConnectionOptions::Protocol::kSocket) a.emplace_back("--protocol=SOCKET");
  if (c.ssl_ca) a.push_back("--ssl-ca=" + *c.ssl_ca);
  if (c.ssl_cert) a.push_back("--ssl-cert=" + *c.ssl_cert);
  if (c.ssl_key) a.push_back("--ssl-key=" + *c.ssl_key);
  const bool maria_tool = version.find("MariaDB") != std::string::npos;
  a.insert(a.end(), {"--single-transaction", "--routines", "--events", "--triggers", "--hex-blob",
                     "--default-character-set=utf8mb4"});
  if (maria_tool) {
    a.emplace_back("--master-data=2");
    if (f.mariadb) a.emplace_back("--gtid");
  } else {
    const unsigned v = version_number(version);
    a.emplace_back(v >= 80026 ? "--source-data=2" : "--master-data=2");
    // The GTIDs as a comment: the dump loads into any server (plan reads them all the same).
    if (v >= 80017) a.emplace_back("--set-gtid-purged=COMMENTED");
  }
  a.emplace_back("--databases");
  a.insert(a.end(), databases.begin(), databases.end());
  return a;
}

// What the dump program wrote, as it streams by: its SHA-256, size, head and tail.
class DumpWatch {
 public:
  void add(std::string_view s) {
    sha_.update(s.data(), s.size());
    bytes_ += s.size();
    if (head_.size() < kHeadBytes) head_.append(s.substr(0, kHeadBytes - head_.size()));
    tail_.append(s);
    if (tail_.size() > 2 * kTailBytes) tail_.erase(0, tail_.size() - kTailBytes);
  }
  std::string sha256() { return sha_.hex(); }
  std::uint64_t bytes() const { return bytes_; }
  // Whole lines only (a GTID set cut at the limit would be wrong, not just short).
  std::string_view head() const {
    if (bytes_ <= head_.size()) return head_;
    const std::size_t nl = head_.rfind('\n');
    return std::string_view(head_).substr(0, nl == std::string::npos ? 0 : nl + 1);
  }
  std::string_view tail() const {
    std::string_view t = tail_;
    if (t.size() > kTailBytes) t = t.substr(t.size() - kTailBytes);
    if (bytes_ > t.size()) {
      const std::size_t nl = t.find('\n');
      t = nl == std::string_view::npos ? std::string_view{} : t.substr(nl + 1);
    }
    return t;
  }

 private:
  s3::Sha256 sha_;
  std::uint64_t bytes_ = 0;
  std::string head_, tail_;
};

// A private temporary file for the dump program's messages.
struct MessagesFile {
  MessagesFile() {
    const char* tmp = std::getenv("TMPDIR");
    path = std::string(tmp != nullptr && *tmp ? tmp : "/tmp") + "/binrecover-dump-XXXXXX";
    fd = ::mkostemp(path.data(), O_CLOEXEC);
    if (fd < 0)
      throw Error(ErrorCode::kIo,
                  "cannot create a temporary file: " + std::string(std::strerror(errno)));
  }
  ~MessagesFile() {
    ::close(fd);
    ::unlink(path.c_str());
  }
  std::string path;
  int fd = -1;
};

std::string size_text(std::uint64_t b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(b) / 1048576.0);
  return buf;
}

}  // namespace

s3::Url server_folder(const std::string& to, const std::optional<std::string>& folder,
                      const std::string& uuid, std::uint32_t server_id) {
  s3::Url base = s3::parse_url(to);
  if (!base.key.empty() && base.key.back() != '/') base.key += '/';
  const std::string name =
      folder.value_or(uuid.empty() ? "server-" + std::to_string(server_id) : uuid);
  return s3::Url{base.bucket, base.key + name + "/"};
}

namespace {

// The dump program: --dump-tool, else the flavour's on PATH; its --version line in *version.
std::string dump_tool(const BackupOptions& o, const ServerFacts& f, const binlog::WarningSink& warn,
                      std::string* version) {
  const std::string tool =
      !o.dump_tool.empty()
          ? o.dump_tool
          : find_program(f.mariadb ? std::vector<std::string>{"mariadb-dump", "mysqldump"}
                                   : std::vector<std::string>{"mysqldump"});
  if (tool.empty() || ::access(tool.c_str(), X_OK) != 0)
    throw Error(ErrorCode::kUsage, std::string("no ") + (f.mariadb ? "mariadb-dump" : "mysqldump") +
                                       " on PATH (give --dump-tool=PATH)");
  *version = tool_version(tool);
  if (!f.mariadb && version->find("MariaDB") != std::string::npos)
    warn(tool + " is MariaDB's dump program and the server is MySQL " + f.version +
         ": give --dump-tool=PATH of MySQL's mysqldump if the dump fails");
  return tool;
}

// Where the backup goes: the folder, or the server's folder of the bucket (refused when it
// holds another server's archive, or binlogs encrypted with a key this backup would not use).
std::unique_ptr<BackupStore> backup_store(const BackupOptions& o, const ServerFacts& f,
                                          const binlog::WarningSink& warn) {
  if (!o.to) return folder_backup_store(*o.dir);
  const s3::Url folder = server_folder(*o.to, o.folder, f.uuid, f.server_id);
  auto client = std::make_shared<s3::Client>(s3::load_config(o.s3));
  client->on_retry = [&warn](const std::string& m) { warn("the store failed " + m); };
  if (const auto m = s3::read_manifest(*client, folder)) {
    if (m->server_id != f.server_id || m->server_uuid != f.uuid)
      throw Error(ErrorCode::kServer, folder.text() + " holds the archive of server id " +
                                          std::to_string(m->server_id) + ", not this server's (" +
                                          std::to_string(f.server_id) +
                                          "): give another --to or --s3-folder");
    // An encrypted archive gets no dump in clear beside it, nor one under another key.
    if (!m->key_id.empty() && m->key_id != (o.codec.key ? o.codec.key_id : std::string()))
      throw Error(ErrorCode::kUsage,
                  folder.text() + " holds binlogs encrypted with key id " + m->key_id +
                      (o.codec.key ? "; the key given has id " + o.codec.key_id
                                   : ": give --encryption-key-file, a backup beside them is "
                                     "not stored in clear"));
  }
  return s3_backup_store(client, folder);
}

// The dump's bytes on their way into the store: zstd, and with a key envelopes of 4 MiB
// (storage/envelope.h) of the zstd stream.
class StoredDump {
 public:
  StoredDump(BackupStore& store, const BackupOptions& o)
      : store_(store),
        z_(o.level, std::thread::hardware_concurrency() > 2 ? 2 : 0,
           [this](std::string_view b) { compressed(b); }) {
    seal_.key = o.codec.key;
    seal_.key_id = o.codec.key_id;
  }
  void write(std::string_view dump) { z_.write(dump); }
  void finish() {
    z_.finish();
    if (seal_.key && !pending_.empty()) seal_pending();
    store_.end();
  }
  std::uint64_t stored() const { return stored_; }

 private:
  static constexpr std::size_t kEnvelopeBytes = std::size_t{4} << 20;
  void compressed(std::string_view b) {
    if (!seal_.key) return out(b);
    pending_.append(b);
    if (pending_.size() >= kEnvelopeBytes) seal_pending();
  }
  void seal_pending() {
    const std::vector<std::byte> e =
        seal(seal_, {reinterpret_cast<const std::byte*>(pending_.data()), pending_.size()});
    out({reinterpret_cast<const char*>(e.data()), e.size()});
    pending_.clear();
  }
  void out(std::string_view b) {
    store_.write(b);
    stored_ += b.size();
  }

  BackupStore& store_;
  Codec seal_;
  std::string pending_;
  std::uint64_t stored_ = 0;
  ZstdCompressor z_;  // (last: its sink uses the members above)
};

// The dump program's output read to its end into `watch` and `sink`; then its exit status and
// whether the dump is whole are checked. `fd` is closed and the program waited for here, also
// when the copy fails (it is stopped then).
void copy_dump(int fd, pid_t pid, const std::string& tool, const MessagesFile& messages,
               const BackupOptions& o, const std::string& id, DumpWatch& watch, StoredDump& sink) {
  std::string buf(std::size_t{1} << 20, '\0');
  std::uint64_t said = 0;
  try {
    for (;;) {
      const ssize_t n = ::read(fd, buf.data(), buf.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0)
        throw Error(ErrorCode::kIo, std::string("reading the dump: ") + std::strerror(errno));
      if (n == 0) break;
      const std::string_view chunk(buf.data(), static_cast<std::size_t>(n));
      watch.add(chunk);
      sink.write(chunk);
      if (o.progress && watch.bytes() - said >= (std::uint64_t{64} << 20)) {
        said = watch.bytes();
        o.progress("backup " + id + ": " + size_text(said) + " dumped, " +
                   size_text(sink.stored()) + " stored");
      }
    }
  } catch (...) {
    ::close(fd);
    ::kill(pid, SIGTERM);
    wait_exit(pid);
    throw;
  }
  ::close(fd);
  const int status = wait_exit(pid);
  if (status != 0)
    throw Error(ErrorCode::kServer, tool + " failed (exit " + std::to_string(status) +
                                        "): " + last_lines(read_text_file(messages.path), 3));
  if (watch.tail().find("-- Dump completed") == std::string_view::npos)
    throw Error(ErrorCode::kServer,
                tool + " ended without its '-- Dump completed' line: the dump is not whole");
}

}  // namespace

BackupEntry run_backup(const BackupOptions& o, const binlog::WarningSink& warn) {
  const ServerFacts f = ask_server(o);
  const std::vector<std::string> databases = o.databases.empty() ? f.databases : o.databases;
  if (databases.empty())
    throw Error(ErrorCode::kUsage,
                "the server has no database of its own to back up (only the system ones): give "
                "--database");
  std::string version;
  const std::string tool = dump_tool(o, f, warn, &version);
  const std::unique_ptr<BackupStore> store = backup_store(o, f, warn);

  BackupEntry e;
  e.flavor = f.mariadb ? "mariadb" : "mysql";
  e.version = f.version;
  e.server = f.host;
  e.server_id = f.server_id;
  e.server_uuid = f.uuid;
  e.tool = tool.substr(tool.rfind('/') + 1);
  e.tool_version = version;
  e.started = f.now;
  e.databases = databases;
  if (o.codec.key) {
    e.encryption = "aes-256-gcm";
    e.key_id = o.codec.key_id;
  }
  e.id = store->begin(backup_id_at(f.now));

  MessagesFile messages;
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0)
    throw Error(ErrorCode::kIo, std::string("pipe failed: ") + std::strerror(errno));
  // The password reaches the dump program through its environment, never its arguments.
  if (o.server.password) ::setenv("MYSQL_PWD", o.server.password->c_str(), 1);
  const pid_t pid = spawn(dump_args(o, f, tool, version, databases), -1, out[1], messages.fd);
  if (o.server.password) ::unsetenv("MYSQL_PWD");
  ::close(out[1]);

  DumpWatch watch;
  std::uint64_t stored = 0;
  bool copied = false;
  try {
    StoredDump sink(*store, o);
    copied = true;  // (copy_dump closes the pipe and waits for the program, whatever happens)
    copy_dump(out[0], pid, tool, messages, o, e.id, watch, sink);
    sink.finish();
    stored = sink.stored();
    const BackupCoordinates c = coords::parse_dump(watch.head(), watch.tail(), e.id);
    if (c.file.empty() && c.mysql_gtid_set.empty() && c.mariadb_gtid_pos.empty())
      throw Error(ErrorCode::kServer, tool + " wrote no binlog coordinates");
    e.binlog_file = c.file;
    e.binlog_pos = c.position;
    e.mysql_gtids = c.mysql_gtid_set;
    e.mariadb_gtids = c.mariadb_gtid_pos;
  } catch (...) {
    if (!copied) {
      ::close(out[0]);
      ::kill(pid, SIGTERM);
      wait_exit(pid);
    }
    store->abandon();
    throw;
  }
  e.stored_bytes = stored;
  e.dump_bytes = watch.bytes();
  e.sha256 = watch.sha256();
  e.completed = s3::unix_now();
  store->commit(e);
  e.location = store->location_of(e.id);
  return e;
}

}  // namespace binrecover::recovery
