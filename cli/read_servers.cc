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

}  // namespace binrecover::cli
