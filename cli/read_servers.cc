#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "binlog/error.h"
#include "binlog/index_file.h"
#include "cli/command_table.h"
#include "cli/option_readers.h"
#include "recovery/reading/local_time.h"
#include "recovery/storage/s3_archive.h"
#include "recovery/text/escape.h"

namespace binrecover::cli {

// -h, -P, -u, -p, -S and the rest of a connection: whether any was given.
bool connection_given(const Given& g) {
  return g.has("host") || g.has("port") || g.has("user") || g.has("password") || g.has("socket") ||
         g.has("ssl-mode") || g.has("ssl") || g.has("ssl-ca") || g.has("ssl-capath") ||
         g.has("ssl-cert") || g.has("ssl-key") || g.has("ssl-cipher") ||
         g.has("ssl-verify-server-cert") || g.has("protocol") || g.has("bind-address") ||
         g.has("compression-algorithms") || g.has("zstd-compression-level");
}

// -R and --stop-never (following a server), and mysqlbinlog's -R --raw (a binlog backup: an
// archive).
void read_follow_and_raw(const Given& g, Command cmd, int verbose, Options& o) {
  o.remote = g.has("read-from-remote-server") || g.has("read-from-remote-source");
  if ((cmd == Command::kSql || cmd == Command::kEvents) && g.has("stop-never") && !g.has("raw")) {
    if (!o.remote) usage_error("--stop-never follows a server: give -R");
    if (g.has("stop-position"))
      usage_error(
          "--stop-position names a position of the last file, which --stop-never never "
          "reaches: use --stop-datetime or --stop-gtid");
    o.follow = true;
    o.events.flush_each = true;
  }
  if (cmd == Command::kSql && g.has("raw")) {
    // mysqlbinlog's spelling of a binlog backup: -R --raw --result-file=PREFIX [--stop-never].
    if (!o.remote) usage_error("--raw copies a server's binlogs: give -R");
    o.command = Command::kArchive;
    const std::string prefix = g.text("result-file").value_or("");
    const auto slash = prefix.rfind('/');
    o.archive.dir =
        slash == std::string::npos ? "." : prefix.substr(0, std::max<std::size_t>(slash, 1));
    o.archive.prefix = slash == std::string::npos ? prefix : prefix.substr(slash + 1);
    o.archive.stop_never = g.has("stop-never");
    o.archive_raw = true;
    // A byte-for-byte copy: nothing that selects, decodes or writes SQL applies to it.
    static const std::set<std::string> kRawOptions = {"read-from-remote-server",
                                                      "read-from-remote-source",
                                                      "raw",
                                                      "result-file",
                                                      "stop-never",
                                                      "to-last-log",
                                                      "connection-server-id",
                                                      "host",
                                                      "port",
                                                      "user",
                                                      "password",
                                                      "socket",
                                                      "ssl-mode",
                                                      "ssl",
                                                      "ssl-ca",
                                                      "ssl-capath",
                                                      "ssl-cert",
                                                      "ssl-key",
                                                      "ssl-cipher",
                                                      "ssl-verify-server-cert",
                                                      "protocol",
                                                      "bind-address",
                                                      "compression-algorithms",
                                                      "zstd-compression-level",
                                                      "compress",
                                                      "ssl-crl",
                                                      "ssl-crlpath",
                                                      "tls-version",
                                                      "read-from-remote-master",
                                                      "stop-never-slave-server-id",
                                                      "binlog-row-event-max-size",
                                                      "open-files-limit",
                                                      "no-progress",
                                                      "files"};
    if (verbose > 0) usage_error("-v does not apply to -R --raw (a byte-for-byte copy)");
    for (const auto& [name, value] : g.map())
      if (!value.defaulted() && kRawOptions.count(name) == 0)
        usage_error("--" + name +
                    " does not apply to -R --raw (a byte-for-byte copy of the "
                    "server's binlogs; binrecover archive)");
  }
}

// The object store's endpoint, region, profile and addressing (every command that reads
// s3://, and archive --to).
void read_s3(const Given& g, Options& o) {
  recovery::s3::ConfigOverrides so;
  so.endpoint = g.text("s3-endpoint");
  so.region = g.text("s3-region");
  so.profile = g.text("s3-profile");
  if (auto a = g.text("s3-addressing")) {
    if (*a == "path")
      so.addressing = recovery::s3::Addressing::kPath;
    else if (*a == "virtual")
      so.addressing = recovery::s3::Addressing::kVirtual;
    else if (*a != "auto")
      usage_error("--s3-addressing must be auto, path or virtual, not '" + *a + "'");
  }
  if (auto n = g.u64("s3-streams")) {
    if (*n < 1 || *n > 64) usage_error("--s3-streams must be 1 to 64");
    so.streams = static_cast<std::size_t>(*n);
  }
  if (so.endpoint && so.endpoint->rfind("http://", 0) != 0 &&
      so.endpoint->rfind("https://", 0) != 0)
    usage_error("--s3-endpoint takes http(s)://HOST[:PORT], not '" + *so.endpoint + "'");
  o.archive.s3 = so;
  recovery::s3::set_reader_config(so);
  // The key of encrypted archives and backups: the option, else the environment.
  std::optional<std::string> key_file = g.text("encryption-key-file");
  if (!key_file)
    if (const char* e = std::getenv("BINRECOVER_ENCRYPTION_KEY_FILE"); e != nullptr && *e != 0)
      key_file = e;
  if (key_file) {
    recovery::Codec c;
    c.key = recovery::read_key_file(*key_file);
    c.key_id = recovery::key_id_of(*c.key);
    recovery::s3::set_reader_codec(c);
    o.archive.codec.key = c.key;
    o.archive.codec.key_id = c.key_id;
    o.backup.codec = c;
  }
}

namespace {

// --retain, --retain-days, --dry-run (recovery/archive/retention.h).
void read_retention(const Given& g, Options& o) {
  recovery::RetentionPolicy& p = o.archive.retain;
  if (auto n = g.u64("retain")) {
    if (*n < 1 || *n > 100000) usage_error("--retain keeps at least 1 backup (1 to 100000)");
    p.keep = static_cast<unsigned>(*n);
  }
  if (auto n = g.u64("retain-days")) {
    if (*n < 1 || *n > 36500) usage_error("--retain-days must be 1 to 36500");
    p.days = static_cast<unsigned>(*n);
  }
  p.dry_run = g.has("dry-run");
  if (p.dry_run && !p.any()) usage_error("--dry-run applies with --retain or --retain-days");
}

// archive's plain settings: --stop-never, --verify, --dir, intervals, --status and its format.
void read_archive_settings(const Given& g, Options& o) {
  o.remote = true;
  o.archive.stop_never = g.has("stop-never");
  o.archive_verify = g.has("verify");
  if (auto d = g.text("dir")) o.archive.dir = *d;
  if (auto n = g.u64("fsync-interval"))
    o.archive.fsync_seconds = static_cast<unsigned>(std::min<std::uint64_t>(*n, 86400));
  o.archive.remote.heartbeat_seconds = 30;
  if (auto n = g.u64("heartbeat-period"))
    o.archive.remote.heartbeat_seconds =
        static_cast<unsigned>(std::min<std::uint64_t>(*n, 4294967));
  o.archive.status_file = g.text("status-file");
  o.archive_status = g.has("status");
  if (auto f = g.text("format")) {  // (with --status: option_rules.cc)
    if (*f != "table" && *f != "json")
      usage_error("--format must be table or json, not '" + *f + "'");
    o.archive_status_json = *f == "json";
  }
}

// --to s3://..., --s3-folder, --upload-interval, --part-size.
void read_archive_bucket(const Given& g, Options& o) {
  o.archive.to = g.text("to");
  o.archive.folder = g.text("s3-folder");
  if (o.archive.to) {
    if (!recovery::s3::is_url(*o.archive.to))
      usage_error("--to takes s3://BUCKET/PREFIX/, not '" + *o.archive.to + "'");
    recovery::s3::parse_url(*o.archive.to);
  }
  if (o.archive.folder &&
      (o.archive.folder->empty() || o.archive.folder->find('/') != std::string::npos ||
       (*o.archive.folder)[0] == '.'))
    usage_error("--s3-folder takes a name without '/', not '" + *o.archive.folder + "'");
  if (auto n = g.u64("upload-interval")) {
    if (*n < 1 || *n > 3600) usage_error("--upload-interval must be 1 to 3600 seconds");
    o.archive.upload_seconds = static_cast<unsigned>(*n);
  }
  if (auto n = g.u64("part-size")) {
    if (*n < 5 || *n > 1024) usage_error("--part-size must be 5 to 1024 (MiB)");
    o.archive.part_bytes = static_cast<std::size_t>(*n) << 20;
  }
}

// The S3 options apply only where a bucket is written or read.
void check_archive_store_options(const Given& g, const Options& o) {
  bool store = o.archive.to.has_value();
  if (g.has("files"))
    for (const auto& f : g.list("files")) store = store || recovery::s3::is_url(f);
  for (const char* n : kS3Options)
    if (g.has(n) && !store) usage_error(std::string("--") + n + " applies with --to or s3://");
  // (the archiver stores one piece at a time as the server sends it; --status and
  // retention read manifests and delete: only --verify reads binlogs and backups back)
  if (g.has("s3-streams") && !o.archive_verify)
    usage_error(
        "--s3-streams applies to archive --verify s3://... (reading the bucket), "
        "and to the commands that read s3:// or make and restore backups");
  // (a folder's --verify reads its backups, which may be encrypted)
  if (g.has("encryption-key-file") && !store && !o.archive_verify)
    usage_error("--encryption-key-file applies with --to or s3://, or to --verify");
}

// --zstd (--zstd-level) and the key: only for a bucket, whose pieces are sealed.
void read_archive_codec(const Given& g, Options& o) {
  if (g.has("zstd-level") && !g.has("zstd")) usage_error("--zstd-level applies with --zstd");
  if (g.has("zstd")) {
    if (!o.archive.to)
      usage_error(
          "--zstd applies with --to s3://... (a folder archive is byte for byte, as the "
          "server's own folder)");
    o.archive.codec.zstd = true;
    if (auto n = g.u64("zstd-level")) {
      if (*n < 1 || *n > 19) usage_error("--zstd-level must be 1 to 19");
      o.archive.codec.level = static_cast<int>(*n);
    }
  }
  if (g.has("encryption-key-file") && !o.archive.to && !o.archive.dir.empty())
    usage_error(
        "--encryption-key-file applies with --to s3://... (a folder archive is byte for "
        "byte, as the server's own folder)");
  if (o.archive.codec.key && !o.archive.to) {  // (reading only: the key from the environment)
    o.archive.codec.key.reset();
    o.archive.codec.key_id.clear();
  }
}

// One thing at a time: archive (--dir, --to), --verify, --status, or retention alone.
void check_archive_mode(const Given& g, Options& o) {
  const int modes = (o.archive_verify ? 1 : 0) + (o.archive_status ? 1 : 0);  // (one: rules)
  if (modes > 0 && (o.archive.to || !o.archive.dir.empty()))
    usage_error(std::string(o.archive_verify ? "--verify" : "--status") +
                " reads an archive: no --dir or --to");
  if (modes > 0 && o.archive.retain.any())
    usage_error("--retain and --retain-days delete: not with --verify or --status");
  const bool archiving = !o.archive.dir.empty() || o.archive.to;
  o.archive_retain_only = o.archive.retain.any() && !archiving;
  if (o.archive.retain.dry_run && archiving)
    usage_error(
        "--dry-run shows what retention would delete in an archive: name it (archive "
        "--retain=N --dry-run DIR|s3://...), without --dir or --to");
  if (o.archive_retain_only && connection_given(g))
    usage_error(
        "-h, -u ... name a server to archive: give --dir or --to (the archiver then applies "
        "--retain), or name the archive alone");
  if (modes == 0 && !archiving && !o.archive_retain_only)
    usage_error(
        "archive needs --dir=DIR or --to=s3://BUCKET/PREFIX/ (where the binlogs go), or "
        "--verify DIR, or --status s3://BUCKET/, or --retain=N DIR|s3://...");
}

}  // namespace

// archive's own options: where the copy goes (--dir or --to), --verify, --status.
void read_archive(const Given& g, Command cmd, Options& o) {
  if (cmd != Command::kArchive) return;
  read_archive_settings(g, o);
  read_archive_bucket(g, o);
  check_archive_store_options(g, o);
  read_retention(g, o);
  read_archive_codec(g, o);
  check_archive_mode(g, o);
}

// How -R reads: by file and position or by GTIDs; --to-last-log, the server id, the timeout.
void read_remote(const Given& g, Command cmd, const std::optional<std::string>& start_gtids,
                 Options& o) {
  if (auto v = g.text("read-from-remote-source")) {
    if (*v == "BINLOG-DUMP-GTID")
      o.gtid_start = true;
    else if (*v != "BINLOG-DUMP-NON-GTID")
      usage_error(
          "--read-from-remote-source must be BINLOG-DUMP-NON-GTID (files and positions) "
          "or BINLOG-DUMP-GTID (from the GTIDs --exclude-gtids does not name), not '" +
          *v + "'");
    if (o.gtid_start && (cmd == Command::kArchive || o.command == Command::kArchive))
      usage_error(
          "archive copies whole files from the one named (or the first): "
          "BINLOG-DUMP-GTID does not apply to it");
    if (o.gtid_start && (g.has("files") || o.filter.start_position || g.has("to-last-log")))
      usage_error(
          "BINLOG-DUMP-GTID finds where to start from the GTIDs (--exclude-gtids, or a MariaDB "
          "GTID --start-position): no FILE, position or --to-last-log");
  }
  // -R with a GTID start and no file: from the binlog where those GTIDs end, as a replica
  // connecting by GTID would be sent.
  if (start_gtids && o.remote && !g.has("files") && !g.has("to-last-log") &&
      cmd != Command::kArchive && o.command != Command::kArchive)
    o.gtid_start = true;
  if (!o.remote &&
      (g.has("to-last-log") || g.has("connection-server-id") || g.has("net-read-timeout")))
    usage_error("--to-last-log, --connection-server-id and --net-read-timeout apply with -R");
  if (!o.remote && connection_given(g) && cmd != Command::kReplay && cmd != Command::kDrill &&
      cmd != Command::kBackup && cmd != Command::kRestore)
    usage_error("-h, -P, -u, -p and -S name the server to read from: give -R too");
  if (o.remote) {
    if (g.has("index-file") || g.has("binlog-dir"))
      usage_error("-R reads the server's own list of binlogs: no --index-file or --binlog-dir");
    o.to_last_log = g.has("to-last-log");
    if (auto n = g.u64("net-read-timeout")) {
      if (*n == 0 || *n > 86400) usage_error("--net-read-timeout must be 1..86400 seconds");
      o.net_read_timeout = static_cast<unsigned>(*n);
    }
    if (auto id = g.u64("connection-server-id")) {
      if (*id > 0xffffffffULL) usage_error("--connection-server-id is at most 4294967295");
      o.remote_server_id = static_cast<std::uint32_t>(*id);
    }
  }
}

namespace {

// --ssl-mode and the certificates of a connection.
void read_tls(const Given& g, Options& o) {
  using Ssl = recovery::ConnectionOptions::SslMode;
  if (auto m = g.text("ssl-mode")) {
    std::string v = *m;
    for (char& c : v) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (v == "DISABLED")
      o.connection.ssl_mode = Ssl::kDisabled;
    else if (v == "PREFERRED")
      o.connection.ssl_mode = Ssl::kPreferred;
    else if (v == "REQUIRED")
      o.connection.ssl_mode = Ssl::kRequired;
    else if (v == "VERIFY_CA")
      o.connection.ssl_mode = Ssl::kVerifyCa;
    else if (v == "VERIFY_IDENTITY")
      o.connection.ssl_mode = Ssl::kVerifyIdentity;
    else
      usage_error(
          "--ssl-mode must be DISABLED, PREFERRED, REQUIRED, VERIFY_CA or "
          "VERIFY_IDENTITY, not '" +
          *m + "'");
  }
  if (g.has("ssl") && o.connection.ssl_mode == Ssl::kDefault)
    o.connection.ssl_mode = Ssl::kRequired;
  if (g.has("ssl-verify-server-cert")) o.connection.ssl_mode = Ssl::kVerifyIdentity;
  o.connection.ssl_ca = g.text("ssl-ca");
  o.connection.ssl_capath = g.text("ssl-capath");
  o.connection.ssl_cert = g.text("ssl-cert");
  o.connection.ssl_key = g.text("ssl-key");
  o.connection.ssl_cipher = g.text("ssl-cipher");
  o.connection.ssl_crl = g.text("ssl-crl");
  o.connection.ssl_crlpath = g.text("ssl-crlpath");
  o.connection.tls_version = g.text("tls-version");
}

}  // namespace

// The connection to the server: the target (replay, drill) or the server -R reads from.
void read_connection(const Given& g, Command cmd, Options& o) {
  if (cmd == Command::kReplay || (cmd == Command::kDrill && connection_given(g)) || o.remote ||
      cmd == Command::kBackup || cmd == Command::kRestore) {
    read_tls(g, o);
    if (auto p = g.text("protocol")) {
      std::string v = *p;
      for (char& c : v) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      using Protocol = recovery::ConnectionOptions::Protocol;
      if (v == "TCP")
        o.connection.protocol = Protocol::kTcp;
      else if (v == "SOCKET")
        o.connection.protocol = Protocol::kSocket;
      else if (v == "PIPE" || v == "MEMORY")
        usage_error("--protocol=" + *p + " is Windows-only; here: TCP or SOCKET");
      else
        usage_error("--protocol must be TCP or SOCKET, not '" + *p + "'");
    }
    o.connection.bind_address = g.text("bind-address");
    if (auto a = g.text("compression-algorithms")) {
      // mysql's list, e.g. "zlib,zstd,uncompressed": the connection uses the first it can.
      std::string v = *a;
      for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      bool zlib = false, none = false, zstd = false;
      std::istringstream items(v);
      for (std::string item; std::getline(items, item, ',');) {
        if (item == "zlib")
          zlib = true;
        else if (item == "uncompressed")
          none = true;
        else if (item == "zstd")
          zstd = true;
        else
          usage_error("--compression-algorithms takes zlib, zstd, uncompressed, not '" + item +
                      "'");
      }
      if (zstd && !zlib && !none)
        usage_error(
            "--compression-algorithms=zstd: the client library (MariaDB Connector/C) "
            "compresses with zlib only; use zlib");
      o.connection.compress = zlib;
    }
    if (g.has("zstd-compression-level"))
      usage_error(
          "--zstd-compression-level: zstd protocol compression is not available (the "
          "client library has zlib only)");
    o.connection.host = g.text("host");
    o.connection.user = g.text("user");
    o.connection.socket = g.text("socket");
    if (auto p = g.u64("port")) {
      if (*p == 0 || *p > 65535) usage_error("--port must be 1..65535");
      o.connection.port = static_cast<unsigned>(*p);
    }
    if (auto pw = g.text("password")) {
      // -p alone asks; -pSECRET / --password=SECRET is taken (never required).
      if (*pw == kAskPassword || pw->empty())
        o.password_prompt = true;
      else
        o.connection.password = *pw == kEmptyPassword ? std::string() : *pw;
    }
    if ((cmd == Command::kDrill && connection_given(g)) || cmd == Command::kRestore)
      o.drill.server = o.connection;
  }
}

// The server -R reads from: the connection options, or for replay and drill (whose -h ...
// name the target) the --source-* ones.
void read_source(const Given& g, Command cmd, Options& o) {
  // (option files and --no-defaults alike for both)
  o.source = o.connection;
  o.source.read_timeout = o.net_read_timeout;  // (the target's sessions wait as apply.h says)
  o.source_password_prompt = o.password_prompt;
  if (cmd == Command::kReplay || cmd == Command::kDrill) {
    const bool source_given = g.has("source-host") || g.has("source-port") ||
                              g.has("source-user") || g.has("source-password") ||
                              g.has("source-socket");
    if (source_given && !o.remote) usage_error("--source-* name the server -R reads from: give -R");
    o.source.host = g.text("source-host");
    o.source.user = g.text("source-user");
    o.source.socket = g.text("source-socket");
    o.source.port.reset();
    o.source.password.reset();
    o.source_password_prompt = false;
    if (auto p = g.u64("source-port")) {
      if (*p == 0 || *p > 65535) usage_error("--source-port must be 1..65535");
      o.source.port = static_cast<unsigned>(*p);
    }
    if (auto pw = g.text("source-password")) {
      if (*pw == kAskPassword || pw->empty())
        o.source_password_prompt = true;
      else
        o.source.password = *pw == kEmptyPassword ? std::string() : *pw;
    }
  }
}

// --parallel, --no-preserve-commit-order, --merge-transactions (replay and drill).
void read_parallel(const Given& g, Command cmd, Options& o) {
  if (cmd == Command::kReplay || cmd == Command::kDrill || cmd == Command::kRestore) {
    std::size_t& workers = cmd == Command::kReplay ? o.replay.parallel : o.drill.parallel;
    if (auto n = g.text("parallel")) {
      if (n->empty() || n->size() > 3 || n->find_first_not_of("0123456789") != std::string::npos ||
          std::stoul(*n) < 1 || std::stoul(*n) > 64)
        usage_error("--parallel needs a number of sessions from 1 to 64, not '" + *n + "'");
      workers = std::stoul(*n);
    }
    if (g.has("no-preserve-commit-order")) {
      if (workers < 2) usage_error("--no-preserve-commit-order needs --parallel 2 or more");
      if (cmd == Command::kReplay) o.replay.preserve_commit_order = false;
      if (cmd != Command::kReplay) o.drill.preserve_commit_order = false;
    }
    if (auto m = g.text("merge-transactions")) {
      if (m->empty() || m->size() > 5 || m->find_first_not_of("0123456789") != std::string::npos ||
          std::stoul(*m) < 1 || std::stoul(*m) > 10000)
        usage_error("--merge-transactions needs a number from 1 to 10000, not '" + *m + "'");
      (cmd == Command::kReplay ? o.replay.merge_transactions : o.drill.merge_transactions) =
          std::stoul(*m);
      if (std::stoul(*m) > 1 && g.has("no-preserve-commit-order"))
        usage_error(
            "--merge-transactions needs the commit order: not with --no-preserve-commit-order");
    }
  }
}

namespace {

// --server-applier and what goes with it (--window, --listen).
void read_server_applier(const Given& g, Options& o) {
  if (g.has("server-applier")) {
    o.replay.server_applier = true;
    // What the target's replication cannot honour: it applies the log's events as they are.
    for (const char* n :
         {"rows-as-sql", "idempotent", "skip-gtids", "progress-table", "in-doubt",
          "no-preserve-commit-order", "trigger-tables", "schema", "local-load", "rewrite-db"})
      if (g.has(n))
        usage_error(std::string("--") + n +
                    " does not apply with --server-applier (the target's replication applies "
                    "the log's events as they are, and records them in its gtid_slave_pos)");
    if (auto gm = g.text("gtids"); gm && *gm == "strip")
      usage_error(
          "--gtids=strip does not apply with --server-applier (the target's "
          "replication keeps the log's GTIDs)");
  }
  if (auto w = g.text("window")) {
    if (w->empty() || w->size() > 6 || w->find_first_not_of("0123456789") != std::string::npos ||
        std::stoul(*w) < 1 || std::stoul(*w) > 65536)
      usage_error("--window needs MiB from 1 to 65536, not '" + *w + "'");
    o.replay.window_bytes = std::uint64_t{std::stoul(*w)} << 20;
  }
  if (auto l = g.text("listen")) {
    std::string host = *l;
    if (const auto colon = host.rfind(':');
        colon != std::string::npos && host.find(':') == colon) {  // (an IPv6 address: no port)
      const std::string port = host.substr(colon + 1);
      if (port.empty() || port.size() > 5 ||
          port.find_first_not_of("0123456789") != std::string::npos || std::stoul(port) > 65535)
        usage_error("--listen needs HOST[:PORT], not '" + *l + "'");
      o.replay.listen_port = static_cast<unsigned>(std::stoul(port));
      host = host.substr(0, colon);
    }
    if (host.empty() || host.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV"
                                               "WXYZ0123456789.-:_") != std::string::npos)
      usage_error("--listen needs a host name or address of this machine, not '" + host + "'");
    o.replay.listen_host = host;
  }
}

}  // namespace

// replay's own options: report, state, resume, progress table, in-doubt, GTIDs.
void read_replay(const Given& g, Command cmd, Options& o) {
  if (cmd == Command::kReplay) {
    o.replay_report = g.text("report");
    if (auto f = g.text("state-file")) o.replay.state_file = *f;
    o.replay.resume = g.has("resume");
    o.replay.idempotent = g.has("idempotent");
    o.sql.idempotent = false;  // (the sessions' setting, not a statement of the stream)
    if (auto t = g.text("progress-table")) {
      if (*t == "none") {
        o.replay.progress_table.clear();
      } else if (*t == "auto") {
        o.replay.progress_table = "auto";
      } else {
        const auto dot = t->find('.');
        if (dot == std::string::npos || dot == 0 || dot + 1 == t->size() ||
            t->find('.', dot + 1) != std::string::npos)
          usage_error("--progress-table needs auto, none or DB.TABLE, not '" + *t + "'");
        o.replay.progress_table = *t;
      }
    }
    if (!o.replay.preserve_commit_order && o.replay.progress_table.empty())
      usage_error(
          "--no-preserve-commit-order needs the progress table (not --progress-table=none)");
    if (auto v = g.text("in-doubt")) {
      if (*v == "applied")
        o.replay.in_doubt = recovery::InDoubt::kApplied;
      else if (*v == "not-applied")
        o.replay.in_doubt = recovery::InDoubt::kNotApplied;
      else
        usage_error("--in-doubt must be applied or not-applied, not '" + *v + "'");
    }
    read_server_applier(g, o);
    if (auto gm = g.text("gtids")) {
      if (*gm == "keep")
        o.replay.gtids = recovery::GtidMode::kKeep;
      else if (*gm == "skip-applied")
        o.replay.gtids = recovery::GtidMode::kSkipApplied;
      else if (*gm == "strip")
        o.replay.gtids = recovery::GtidMode::kStrip;
      else
        usage_error("--gtids must be keep, skip-applied or strip, not '" + *gm + "'");
      if (o.sql.skip_gtids && o.replay.gtids != recovery::GtidMode::kStrip)
        usage_error("--skip-gtids contradicts --gtids=" + *gm);
    } else if (o.sql.skip_gtids) {
      o.replay.gtids = recovery::GtidMode::kStrip;
    }
  }
}

}  // namespace binrecover::cli
