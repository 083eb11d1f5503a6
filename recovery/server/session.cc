#include "recovery/server/session.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "binlog/error.h"
#include "recovery/libs/mariadb_api.h"
#include "recovery/server/option_files.h"

namespace binrecover::recovery {

namespace {

std::optional<std::uint64_t> parse_number(std::string_view s) {
  if (s.empty() || s.size() > 19) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return v;
}

// host, port and socket as the option files give them, for messages only (the client library
// reads the files itself when it connects, and tells nothing when that fails).
struct ConnectionTarget {
  std::string host, socket;
  unsigned port = 0;
};

// The option files a session reads: --defaults-file alone, or the usual ones and any
// --defaults-extra-file.
std::vector<std::string> option_files_of(const ConnectionOptions& o) {
  if (o.defaults_file) return {*o.defaults_file};
  std::vector<std::string> files = o.default_files;
  files.insert(files.end(), o.extra_files.begin(), o.extra_files.end());
  return files;
}

ConnectionTarget target_from_option_files(const ConnectionOptions& o) {
  ConnectionTarget t;
  const std::vector<std::string> files = option_files_of(o);
  for (const OptionLine& l : read_option_files(files, nullptr)) {
    if (!is_connection_group(l.group)) continue;
    if (l.key == "host")
      t.host = l.value;
    else if (l.key == "socket")
      t.socket = l.value;
    else if (l.key == "port")
      if (auto n = parse_number(l.value); n && *n < 65536) t.port = static_cast<unsigned>(*n);
  }
  return t;
}

}  // namespace

// ---- the session ----

struct Session::Impl {
  MYSQL* mysql = nullptr;
  LocalFileFolder local_files;  // (the handler's userdata: lives as long as the session)
  std::string temp_defaults;    // the include file made for --defaults-extra-file
  ~Impl() {
    if (mysql != nullptr) libs::mariadb().mysql_close(mysql);
    if (!temp_defaults.empty()) ::unlink(temp_defaults.c_str());
  }
  // "[what: ]server error 1062 (23000): Duplicate entry ..."
  [[noreturn]] void fail(const std::string& what = {}) const {
    throw Error(ErrorCode::kServer, (what.empty() ? "" : what + ": ") + "server error " +
                                        std::to_string(libs::mariadb().mysql_errno(mysql)) + " (" +
                                        libs::mariadb().mysql_sqlstate(mysql) +
                                        "): " + libs::mariadb().mysql_error(mysql));
  }
  // The statement's result as the client library read it, nullptr where it has none; a result
  // lost on its way (the connection closed inside its rows: the library then forgets it had
  // columns) is an error, never "no row".
  MYSQL_RES* stored(std::string_view sql) const {
    const libs::MariadbApi& db = libs::mariadb();
    MYSQL_RES* res = db.mysql_store_result(mysql);
    if (res == nullptr && (db.mysql_errno(mysql) != 0 || db.mysql_field_count(mysql) != 0))
      fail(std::string(sql));
    return res;
  }
  void drain() {
    do {
      if (MYSQL_RES* res = libs::mariadb().mysql_store_result(mysql))
        libs::mariadb().mysql_free_result(res);
    } while (libs::mariadb().mysql_next_result(mysql) == 0);
  }
};

namespace {

// The client library reads the option files' client groups and [binrecover] (host, user,
// password, socket, ssl-* ...) as every MySQL program does: given a private file holding the
// lines of those groups from the files binrecover reads (the usual ones and any
// --defaults-extra-file, or --defaults-file alone), never a world-writable one
// (recovery/server/option_files.h; the warning was given when the options were read). Returns
// that file's path (removed once connected).
std::string private_defaults_file(MYSQL* m, const ConnectionOptions& o) {
  const std::vector<std::string> files = option_files_of(o);
  std::string text = "[binrecover]\n";
  for (const OptionLine& l : read_option_files(files, nullptr))
    if (is_connection_group(l.group)) text += l.text + "\n";
  const char* tmp = std::getenv("TMPDIR");
  std::string tmpl =
      std::string(tmp != nullptr && *tmp ? tmp : "/tmp") + "/binrecover-defaults-XXXXXX";
  const int fd = ::mkostemp(tmpl.data(), O_CLOEXEC);  // 0600, O_EXCL
  if (fd < 0) throw Error(ErrorCode::kIo, "cannot create a temporary option file");
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  if (!written) {
    ::unlink(tmpl.c_str());
    throw Error(ErrorCode::kIo, "cannot write a temporary option file");
  }
  libs::mariadb().mysql_options(m, MYSQL_READ_DEFAULT_FILE, tmpl.c_str());
  libs::mariadb().mysql_options(m, MYSQL_READ_DEFAULT_GROUP, "binrecover");
  return tmpl;
}

// TLS (--ssl-mode and the certificates), the protocol, the bind address, compression.
void set_transport(MYSQL* m, const ConnectionOptions& o) {
  const libs::MariadbApi& db = libs::mariadb();
  using Ssl = ConnectionOptions::SslMode;
  auto set_text = [m, &db](mysql_option opt, const std::optional<std::string>& v) {
    if (v) db.mysql_options(m, opt, v->c_str());
  };
  set_text(MYSQL_OPT_SSL_CA, o.ssl_ca);
  set_text(MYSQL_OPT_SSL_CAPATH, o.ssl_capath);
  set_text(MYSQL_OPT_SSL_CERT, o.ssl_cert);
  set_text(MYSQL_OPT_SSL_KEY, o.ssl_key);
  set_text(MYSQL_OPT_SSL_CIPHER, o.ssl_cipher);
  set_text(MYSQL_OPT_SSL_CRL, o.ssl_crl);
  set_text(MYSQL_OPT_SSL_CRLPATH, o.ssl_crlpath);
  set_text(MYSQL_OPT_TLS_VERSION, o.tls_version);
  set_text(MYSQL_OPT_BIND, o.bind_address);
  if (o.protocol != ConnectionOptions::Protocol::kDefault) {
    unsigned int protocol = o.protocol == ConnectionOptions::Protocol::kTcp ? MYSQL_PROTOCOL_TCP
                                                                            : MYSQL_PROTOCOL_SOCKET;
    db.mysql_options(m, MYSQL_OPT_PROTOCOL, &protocol);
  }
  if (o.compress) db.mysql_options(m, MYSQL_OPT_COMPRESS, nullptr);
  if (o.ssl_mode == Ssl::kRequired || o.ssl_mode == Ssl::kVerifyCa ||
      o.ssl_mode == Ssl::kVerifyIdentity) {
    my_bool on = 1;
    db.mysql_options(m, MYSQL_OPT_SSL_ENFORCE, &on);  // TLS or no connection
    my_bool verify = o.ssl_mode == Ssl::kRequired ? 0 : 1;
    db.mysql_options(m, MYSQL_OPT_SSL_VERIFY_SERVER_CERT, &verify);
  } else if (o.ssl_mode == Ssl::kDisabled) {
    my_bool off = 0;
    db.mysql_options(m, MYSQL_OPT_SSL_ENFORCE, &off);
  }
}

// Where we connected or tried to ("host:port", "localhost (socket S)"), with what the option
// files gave.
std::string connection_place(MYSQL* m, const ConnectionOptions& o, bool ok, unsigned port) {
  (void)m;  // (asked only of MariaDB's client library)
  std::string h = o.host.value_or(""), sock = o.socket.value_or("");
  unsigned p = port;
  if (o.read_defaults && (h.empty() || p == 0 || sock.empty())) {
    const ConnectionTarget t = target_from_option_files(o);
    if (h.empty()) h = t.host;
    if (p == 0) p = t.port;
    if (sock.empty()) sock = t.socket;
  }
#ifdef LIBMARIADB
  if (ok) {
    const char* v = nullptr;
    unsigned pv = 0;
    if (libs::mariadb().mariadb_get_infov(m, MARIADB_CONNECTION_HOST, &v) == 0 && v != nullptr)
      h = v;
    if (libs::mariadb().mariadb_get_infov(m, MARIADB_CONNECTION_PORT, &pv) == 0 && pv != 0) p = pv;
  }
#endif
  if (h.empty()) h = "localhost";
  if (h == "localhost")
    return sock.empty() ? "localhost (the local socket)" : "localhost (socket " + sock + ")";
  else
    return h + ":" + std::to_string(p == 0 ? MYSQL_PORT : p);
}

}  // namespace

Session::Session(const ConnectionOptions& o)
    : impl_(std::make_unique<Impl>()), shared_rules_(std::make_shared<CommentRules>()) {
  const libs::MariadbApi& db = libs::mariadb();
  MYSQL* m = db.mysql_init(nullptr);
  if (m == nullptr) throw Error(ErrorCode::kServer, "cannot start a client session: out of memory");
  impl_->mysql = m;
  if (o.read_defaults) impl_->temp_defaults = private_defaults_file(m, o);
  // Nothing waits forever: a server or a link that stops answering is an error (2013).
  unsigned read_timeout = o.read_timeout != 0 ? o.read_timeout : 8 * 3600;
  unsigned connect_timeout = o.read_timeout != 0 ? o.read_timeout : 600;
  db.mysql_options(m, MYSQL_OPT_CONNECT_TIMEOUT, &connect_timeout);
  db.mysql_options(m, MYSQL_OPT_READ_TIMEOUT, &read_timeout);
  db.mysql_options(m, MYSQL_OPT_WRITE_TIMEOUT, &read_timeout);
  read_timeout_ = read_timeout;
  // LOAD DATA is replayed as LOAD DATA LOCAL INFILE from the files SqlSink writes: a request
  // is answered from that folder only (also when an option file turns local-infile on).
  impl_->local_files = o.local_files;
  unsigned int local_infile = o.local_files ? 1 : 0;
  db.mysql_options(m, MYSQL_OPT_LOCAL_INFILE, &local_infile);
  install_local_file_handler(m, impl_->local_files ? &impl_->local_files : nullptr);
  // The client's own packet limit must not be the one that bites: the server's is checked.
  unsigned long client_packet = 1UL << 30;
  db.mysql_options(m, MYSQL_OPT_MAX_ALLOWED_PACKET, &client_packet);
  db.mysql_options(m, MYSQL_SET_CHARSET_NAME, "utf8mb4");
  set_transport(m, o);
  const char* host = o.host ? o.host->c_str() : nullptr;
  const char* user = o.user ? o.user->c_str() : nullptr;
  const char* password = o.password ? o.password->c_str() : nullptr;
  const char* socket = o.socket ? o.socket->c_str() : nullptr;
  const unsigned port = o.port.value_or(0);
  const bool ok = db.mysql_real_connect(m, host, user, password, nullptr, port, socket,
                                        CLIENT_MULTI_RESULTS) != nullptr;
  const std::string connect_error = ok ? "" : db.mysql_error(m);
  const unsigned connect_errno = ok ? 0 : db.mysql_errno(m);
  if (!impl_->temp_defaults.empty()) {
    ::unlink(impl_->temp_defaults.c_str());
    impl_->temp_defaults.clear();
  }
  where_ = connection_place(m, o, ok, port);
  if (!ok) {
    // 3159: require_secure_transport (MySQL and MariaDB); 2026: the TLS handshake.
    const std::string hint = connect_errno == 3159   ? "; give --ssl-mode=REQUIRED (or VERIFY_CA "
                                                       "with --ssl-ca)"
                             : connect_errno == 2026 ? "; check --ssl-ca and the server's "
                                                       "certificate"
                                                     : "";
    throw Error(ErrorCode::kServer, "cannot connect to " + where_ + ": " + connect_error +
                                        " (error " + std::to_string(connect_errno) + ")" + hint);
  }

  compressed_ = m->net.compress != 0;
  version_ = db.mysql_get_server_info(m);
  mariadb_ = version_.find("MariaDB") != std::string::npos;
  if (auto v = value("SELECT @@max_allowed_packet"))
    max_allowed_packet_ = std::strtoull(v->c_str(), nullptr, 10);
  if (max_allowed_packet_ == 0) max_allowed_packet_ = 1 << 20;
}

Session::~Session() = default;

void Session::idle() const {
  if (in_flight_ != 0)
    throw Error(ErrorCode::kServer,
                "internal: a statement sent while an answer of " + where_ + " was not read");
}

void Session::execute(std::string_view sql) {
  idle();
  MYSQL* m = impl_->mysql;
  if (libs::mariadb().mysql_real_query(m, sql.data(), static_cast<unsigned long>(sql.size())) != 0)
    impl_->fail();
  impl_->drain();
  if (libs::mariadb().mysql_errno(m) != 0) impl_->fail();
}

void Session::execute_batch(std::string_view sql, std::size_t& done) {
  idle();
  const libs::MariadbApi& db = libs::mariadb();
  MYSQL* m = impl_->mysql;
  done = 0;
  if (db.mysql_real_query(m, sql.data(), static_cast<unsigned long>(sql.size())) != 0)
    impl_->fail();
  read_results(done);
}

void Session::send(std::string_view sql) {
  if (in_flight_ > 1 || !multi_ || compressed_)
    throw Error(ErrorCode::kServer, "internal: a packet pipelined where it may not be");
  if (libs::mariadb().mysql_send_query(impl_->mysql, sql.data(),
                                       static_cast<unsigned long>(sql.size())) != 0)
    impl_->fail();
  ++in_flight_;
}

void Session::read_sent(std::size_t& done) {
  done = 0;
  if (in_flight_ == 0) throw Error(ErrorCode::kServer, "internal: no packet's answer to read");
  --in_flight_;
  if (libs::mariadb().mysql_read_query_result(impl_->mysql) != 0) impl_->fail();
  read_results(done);
}

void Session::read_results(std::size_t& done) {
  const libs::MariadbApi& db = libs::mariadb();
  MYSQL* m = impl_->mysql;
  for (;;) {
    if (MYSQL_RES* res = impl_->stored({})) db.mysql_free_result(res);
    ++done;
    const int next = db.mysql_next_result(m);
    if (next < 0) return;
    if (next > 0) impl_->fail();
  }
}

struct Session::CommentRules {
  std::mutex mu;
  std::vector<std::pair<std::string, bool>> rules;
};

bool Session::runs_comment(std::string_view prefix) {
  for (const auto& [p, runs] : comment_rules_)
    if (p == prefix) return runs;
  std::optional<bool> runs;
  {
    std::lock_guard lock(shared_rules_->mu);
    for (const auto& [p, r] : shared_rules_->rules)
      if (p == prefix) runs = r;
  }
  if (!runs) {
    runs = value("SELECT 1 " + std::string(prefix) + " + 1 */").value_or("1") == "2";
    std::lock_guard lock(shared_rules_->mu);
    shared_rules_->rules.emplace_back(prefix, *runs);
  }
  comment_rules_.emplace_back(prefix, *runs);
  return *runs;
}

void Session::share_comment_rules(const Session& other) {
  if (other.version_ != version_ || other.mariadb_ != mariadb_) return;
  shared_rules_ = other.shared_rules_;
  comment_rules_.clear();
}

void Session::multi_statements(bool on) {
  if (on == multi_) return;
  idle();
  if (libs::mariadb().mysql_set_server_option(
          impl_->mysql,
          on ? MYSQL_OPTION_MULTI_STATEMENTS_ON : MYSQL_OPTION_MULTI_STATEMENTS_OFF) != 0)
    impl_->fail("cannot switch multi-statements");
  multi_ = on;
}

std::optional<std::string> Session::value(std::string_view sql) {
  idle();
  const libs::MariadbApi& db = libs::mariadb();
  MYSQL* m = impl_->mysql;
  if (db.mysql_real_query(m, sql.data(), static_cast<unsigned long>(sql.size())) != 0)
    impl_->fail(std::string(sql));
  std::optional<std::string> out;
  if (MYSQL_RES* res = impl_->stored(sql)) {
    MYSQL_ROW row = db.mysql_fetch_row(res);
    if (row != nullptr && db.mysql_num_fields(res) > 0 && row[0] != nullptr) {
      const unsigned long* len = db.mysql_fetch_lengths(res);
      out.emplace(row[0], len[0]);
    }
    db.mysql_free_result(res);
  }
  impl_->drain();
  return out;
}

namespace {
// Every row of a stored result, each column as text ("" for NULL); the result freed.
std::vector<std::vector<std::string>> take_rows(MYSQL_RES* res) {
  const libs::MariadbApi& db = libs::mariadb();
  std::vector<std::vector<std::string>> out;
  const unsigned n = db.mysql_num_fields(res);
  while (MYSQL_ROW row = db.mysql_fetch_row(res)) {
    const unsigned long* len = db.mysql_fetch_lengths(res);
    std::vector<std::string>& r = out.emplace_back();
    for (unsigned k = 0; k < n; ++k)
      r.emplace_back(row[k] != nullptr ? std::string(row[k], len[k]) : std::string());
  }
  db.mysql_free_result(res);
  return out;
}
}  // namespace

std::vector<std::vector<std::string>> Session::rows(std::string_view sql) {
  idle();
  const libs::MariadbApi& db = libs::mariadb();
  MYSQL* m = impl_->mysql;
  if (db.mysql_real_query(m, sql.data(), static_cast<unsigned long>(sql.size())) != 0)
    impl_->fail(std::string(sql));
  std::vector<std::vector<std::string>> out;
  if (MYSQL_RES* res = impl_->stored(sql)) out = take_rows(res);
  impl_->drain();
  return out;
}

std::vector<std::vector<std::vector<std::string>>> Session::result_sets(std::string_view sql) {
  idle();
  const libs::MariadbApi& db = libs::mariadb();
  MYSQL* m = impl_->mysql;
  multi_statements(true);
  if (db.mysql_real_query(m, sql.data(), static_cast<unsigned long>(sql.size())) != 0)
    impl_->fail(std::string(sql));
  std::vector<std::vector<std::vector<std::string>>> out;
  for (;;) {
    if (MYSQL_RES* res = impl_->stored(sql))
      out.push_back(take_rows(res));
    else
      out.emplace_back();
    const int next = db.mysql_next_result(m);
    if (next < 0) return out;
    if (next > 0) impl_->fail(std::string(sql));
  }
}

std::vector<std::pair<std::string, std::string>> Session::named_row(std::string_view sql) {
  idle();
  const libs::MariadbApi& db = libs::mariadb();
  MYSQL* m = impl_->mysql;
  if (db.mysql_real_query(m, sql.data(), static_cast<unsigned long>(sql.size())) != 0)
    impl_->fail(std::string(sql));
  std::vector<std::pair<std::string, std::string>> out;
  if (MYSQL_RES* res = impl_->stored(sql)) {
    const unsigned n = db.mysql_num_fields(res);
    const MYSQL_FIELD* fields = db.mysql_fetch_fields(res);
    if (MYSQL_ROW row = db.mysql_fetch_row(res)) {
      const unsigned long* len = db.mysql_fetch_lengths(res);
      for (unsigned k = 0; k < n; ++k)
        out.emplace_back(fields[k].name,
                         row[k] != nullptr ? std::string(row[k], len[k]) : std::string());
    }
    db.mysql_free_result(res);
  }
  impl_->drain();
  return out;
}

void Session::start_binlog_dump(std::string_view file, std::uint32_t pos, std::uint32_t server_id,
                                bool non_block) {
  // COM_BINLOG_DUMP: u32 position, u16 flags (1 = BINLOG_DUMP_NON_BLOCK: an EOF packet at the
  // end of the logs instead of waiting; MariaDB: 2 = BINLOG_SEND_ANNOTATE_ROWS_EVENT, else it
  // leaves its Annotate_rows events out), u32 server id, the file name (the rest).
  std::string cmd(10, '\0');
  for (int k = 0; k < 4; ++k) cmd[k] = static_cast<char>((pos >> (8 * k)) & 0xff);
  cmd[4] = static_cast<char>((non_block ? 1 : 0) | (mariadb_ ? 2 : 0));
  for (int k = 0; k < 4; ++k) cmd[6 + k] = static_cast<char>((server_id >> (8 * k)) & 0xff);
  cmd.append(file);
  MYSQL* m = impl_->mysql;
  if (m->methods->db_command(m, COM_BINLOG_DUMP, cmd.data(), cmd.size(), 1, nullptr) != 0)
    impl_->fail("cannot start reading " + std::string(file));
}

std::optional<binlog::Bytes> Session::next_binlog_packet() {
  MYSQL* m = impl_->mysql;
  const auto asked = std::chrono::steady_clock::now();
  const unsigned long len = libs::mariadb().mysql_net_read_packet(m);
  if (len == packet_error || len == 0) {
    const auto waited =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - asked)
            .count();
    // (a timeout is the client's lost connection, 2013, after the whole wait; a server's own
    // error keeps its "(error N)" form, which is_server_error reads)
    if (libs::mariadb().mysql_errno(m) == 2013 && read_timeout_ > 0 &&
        waited + 1 >= static_cast<long long>(read_timeout_))
      throw Error(ErrorCode::kServer, "reading the binary log: the server at " + where_ +
                                          " sent nothing for " + std::to_string(waited) +
                                          " s (a read timeout, error 2013)");
    impl_->fail("reading the binary log");
  }
  const auto* p = reinterpret_cast<const std::byte*>(m->net.read_pos);
  if (p[0] == std::byte{0xfe} && len < 8) return std::nullopt;  // EOF: the end of the logs
  if (p[0] != std::byte{0})
    throw Error(ErrorCode::kServer, "reading the binary log: unexpected packet from the server");
  return binlog::Bytes(p + 1, len - 1);
}

void Session::set_charset(const std::string& name) {
  if (libs::mariadb().mysql_set_character_set(impl_->mysql, name.c_str()) != 0)
    impl_->fail("cannot switch the client character set to " + name);
}

// ---- applying ----

}  // namespace binrecover::recovery
