#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "binlog/byte_cursor.h"
#include "recovery/server/local_files.h"

namespace binrecover::recovery {

// How to reach the server, with the mysql client's option names. What is not given here comes
// from the option files ([client] and [binrecover] groups, read by the client library) or the
// library's defaults (MYSQL_PWD, the login name, the local socket).
struct ConnectionOptions {
  std::optional<std::string> host;           // -h
  std::optional<unsigned> port;              // -P
  std::optional<std::string> user;           // -u
  std::optional<std::string> password;       // -p (cli/ prompts for it)
  std::optional<std::string> socket;         // -S
  bool read_defaults = true;                 // false: --no-defaults
  std::optional<std::string> defaults_file;  // --defaults-file: this file only
  std::vector<std::string> extra_files;      // --defaults-extra-file: read after the usual ones
  std::vector<std::string> default_files;    // the usual ones, for --defaults-extra-file
  // TLS (the option files' ssl-* settings apply too, read by the client library).
  enum class SslMode : std::uint8_t {
    kDefault,
    kDisabled,
    kPreferred,
    kRequired,
    kVerifyCa,
    kVerifyIdentity
  };
  SslMode ssl_mode = SslMode::kDefault;  // --ssl-mode (--ssl: REQUIRED)
  std::optional<std::string> ssl_ca, ssl_capath, ssl_cert, ssl_key, ssl_cipher;
  std::optional<std::string> ssl_crl, ssl_crlpath, tls_version;
  enum class Protocol : std::uint8_t { kDefault, kTcp, kSocket };
  Protocol protocol = Protocol::kDefault;   // --protocol
  std::optional<std::string> bind_address;  // --bind-address: the local address to connect from
  bool compress = false;                    // --compression-algorithms=zlib (the protocol's)
  // Seconds to wait for the server: to connect and for each read or write. 0: a session that
  // applies statements, which may run long: 10 minutes to connect, 8 hours for a result (a
  // server's default wait_timeout); nothing waits forever.
  unsigned read_timeout = 0;
  // The folder the server may read local files from (LOAD DATA LOCAL INFILE, which replay sends
  // for the LOAD files the SQL writer makes; recovery/server/local_files.h): a request for any
  // other file is refused. Not set (every session but replay's appliers): every request refused,
  // as from a server binrecover reads, where a request is a hostile server reading this machine.
  LocalFileFolder local_files;
};

// One client session on a server (the only code that talks to libmysqlclient, with the remote
// source in binlog/). Throws Error(kServer) with the server's message.
class Session {
 public:
  explicit Session(const ConnectionOptions& opts);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Runs one statement and discards any result.
  void execute(std::string_view sql);
  // Runs statements joined by ";\n" in one packet (multi-statements must be on) and reads
  // every result. Throws Error(kServer) at the first failing one; `done` is then the number
  // of statements that ran before it.
  void execute_batch(std::string_view sql, std::size_t& done);
  // Pipelining (Applier): sends statements joined by ";\n" as one packet (multi-statements on)
  // without waiting for the answer. read_sent() reads the answers of the packets sent so, the
  // oldest first, as execute_batch() does. At most two packets are in flight; nothing else may
  // use the session while one is (an internal error, never a mixed-up answer).
  void send(std::string_view sql);
  void read_sent(std::size_t& done);
  std::size_t in_flight() const { return in_flight_; }
  // Whether packets may be sent before the answer of the one before (not with the protocol's
  // compression, whose packet numbers the library keeps per command).
  bool may_pipeline() const { return !compressed_; }
  // Whether the server splits a packet into several statements (COM_SET_OPTION; off when the
  // session starts).
  void multi_statements(bool on);
  // The first column of the first row, or nullopt (no row, or NULL).
  std::optional<std::string> value(std::string_view sql);
  // Whether the server runs what is inside a comment that begins with `prefix` ("/*!80011",
  // "/*M!100001"): asked once per prefix (each server has its own rules; MariaDB runs none of
  // MySQL 5.7's and 8.0's), then remembered, by every session that shares this one's rules.
  bool runs_comment(std::string_view prefix);
  // From now on the comment rules are those `other` learns and has learnt (where both talk to
  // the same server version): the sessions of a parallel replay ask once between them, not
  // each five round trips more before its first unit. Either may be used on any thread.
  void share_comment_rules(const Session& other);
  void set_charset(const std::string& name);
  // Every row of a result, each column as text ("" for NULL).
  std::vector<std::vector<std::string>> rows(std::string_view sql);
  // Statements joined by ";\n", sent in one packet (multi-statements on for it): every row
  // of each one's result, a result per statement. Throws at the first failing one.
  std::vector<std::vector<std::vector<std::string>>> result_sets(std::string_view sql);
  // The first row of a result as (column name, value) pairs ("" for NULL; none: no row).
  std::vector<std::pair<std::string, std::string>> named_row(std::string_view sql);

  // The replication protocol: asks for the binary log `file` from `pos` (COM_BINLOG_DUMP; with
  // `non_block` the server ends the stream at the end of its logs instead of waiting), then
  // hands out one event per call (its bytes valid until the next call; nullopt at the end of
  // a non-blocking stream). After this the session is a binlog stream only.
  void start_binlog_dump(std::string_view file, std::uint32_t pos, std::uint32_t server_id,
                         bool non_block);
  std::optional<binlog::Bytes> next_binlog_packet();

  bool mariadb() const { return mariadb_; }
  const std::string& server_version() const { return version_; }
  std::uint64_t max_allowed_packet() const { return max_allowed_packet_; }
  // "host:port" or "socket PATH", for messages.
  const std::string& where() const { return where_; }
  // Seconds a read waits for the server (ConnectionOptions::read_timeout, or its default).
  unsigned read_timeout() const { return read_timeout_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  bool mariadb_ = false;
  std::string version_;
  std::uint64_t max_allowed_packet_ = 0;
  std::string where_;
  unsigned read_timeout_ = 0;
  bool multi_ = false;
  bool compressed_ = false;
  std::size_t in_flight_ = 0;  // packets sent whose answers are not read (send)
  void idle() const;           // throws where a packet's answer is not read
  void read_results(std::size_t& done);
  struct CommentRules;
  std::vector<std::pair<std::string, bool>> comment_rules_;  // (this session's copy)
  std::shared_ptr<CommentRules> shared_rules_;
};

}  // namespace binrecover::recovery
