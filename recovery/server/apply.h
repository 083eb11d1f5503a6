#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "binlog/byte_cursor.h"
#include "recovery/server/local_files.h"
#include "recovery/sql/output.h"

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

// One piece of mysql-client input: a statement for the server or a client command.
struct SqlItem {
  enum class Kind : std::uint8_t {
    kStatement,  // text: the statement without its delimiter
    kCharset,    // text: a character set name (`/*!\C name */`, the client's charset command)
  };
  Kind kind = Kind::kStatement;
  std::string_view text;
  std::optional<std::uint64_t> at;       // the binlog position of the event it was written for
  std::uint8_t event_type = 0;           // and that event's type (0: none)
  bool verbatim = false;                 // the log's own text (Output::Statement::verbatim)
  std::optional<std::uint64_t> through;  // several BINLOG statements as one: the last one's `at`
};

// The base64 text of a `BINLOG '<base64>'` statement, or nullopt for any other statement.
std::optional<std::string_view> binlog_base64(std::string_view statement);

// A BINLOG statement in MariaDB's fragment form (10.2+), for a statement larger than the
// server's max_allowed_packet: SET @binlog_fragment_0='<first half>', SET
// @binlog_fragment_1='<second half>', BINLOG @binlog_fragment_0, @binlog_fragment_1 (each a
// statement of at most `max_statement` bytes). MariaDB caps every string a statement builds at
// max_allowed_packet (CONCAT, GROUP_CONCAT, long data), so two halves are as far as it goes:
// nullopt when a half would still not fit.
std::optional<std::vector<std::string>> binlog_fragments(std::string_view base64,
                                                         std::size_t max_statement);

// Whether a statement is a plain COMMIT (as the SQL writer ends a transaction), or a plain
// BEGIN / START TRANSACTION (as it starts one).
bool is_commit(std::string_view statement);
bool is_plain_begin(std::string_view statement);

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
  // Whether the server splits a packet into several statements (COM_SET_OPTION; off when the
  // session starts).
  void multi_statements(bool on);
  // The first column of the first row, or nullopt (no row, or NULL).
  std::optional<std::string> value(std::string_view sql);
  // Whether the server runs what is inside a comment that begins with `prefix` ("/*!80011",
  // "/*M!100001"): asked once per prefix (each server has its own rules; MariaDB runs none of
  // MySQL 5.7's and 8.0's), then remembered.
  bool runs_comment(std::string_view prefix);
  void set_charset(const std::string& name);
  // Every row of a result, each column as text ("" for NULL).
  std::vector<std::vector<std::string>> rows(std::string_view sql);
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
  std::vector<std::pair<std::string, bool>> comment_rules_;
};

// Applies SQL text to a session, one whole unit (transaction, or event outside one) at a time.
// Every statement of the unit is split and checked for size before the first one runs, so a
// statement that cannot be sent fails the unit before any of it was applied.
// The statements binrecover wrote go to the server many to a packet (a row transaction is one
// round trip); a statement with the log's own text ends its packet, and one holding a ';' goes
// alone with the server's multi-statement parsing off, so that nothing in a logged text can
// make the server read more statements than the log has.
class Applier {
 public:
  explicit Applier(Session& session) : session_(session) {}
  struct Hooks {
    // A statement to run inside the unit's transaction, right after its BEGIN (replay's
    // progress row); "" for none.
    std::string_view after_begin;
    // Runs a unit's final COMMIT (given its text) instead of the applier, everything else of
    // it having run: a parallel replay commits in order there, or has the unit committed by the
    // session's worker that holds the turn. Throws to give the unit up (the caller rolls it
    // back).
    std::function<void(std::string_view commit)> commit;
    // Asked (with `commit` set) before the unit's statements are sent: true when the unit may
    // commit as soon as it ran (its turn has come): the COMMIT then goes with the statements, in
    // their last packet, and `commit` is not called.
    std::function<bool()> commit_now;
    // The unit's last statement is its commit whatever it is (an XA unit's XA PREPARE, XA
    // COMMIT or XA ROLLBACK): `commit` and `commit_now` serve it as a COMMIT.
    bool last_is_commit = false;
  };
  struct Outcome {
    bool after_begin_ran = false;  // the unit had a BEGIN, and Hooks::after_begin ran after it
    bool ended_in_commit = false;  // its last statement was a COMMIT
    bool committed_now = false;    // Hooks::commit_now said yes: the unit committed here
  };
  // Applies the statements the SQL writer marked in `text` (recovery/output.h): nothing is
  // lexed again, and each statement knows its event. Throws Error(kServer) at the first failing
  // statement (file offset and type of its event), after rolling back the open transaction.
  Outcome apply(std::string_view text, const std::vector<Output::Statement>& statements,
                const Hooks& hooks);
  Outcome apply(std::string_view text, const std::vector<Output::Statement>& statements);
  std::uint64_t statements() const { return statements_; }
  // Round trips to the server (packets of statements, client commands).
  std::uint64_t round_trips() const { return round_trips_; }
  // The longest statement the server takes (its max_allowed_packet less the packet's framing).
  std::size_t max_statement() const;
  // The session's state is not known any more (after an error, or another user of it).
  void forget_state() {
    charset_.clear();
    settings_.clear();
  }

 private:
  void merge_row_binlogs(std::size_t limit);
  void run(std::size_t begin, std::size_t end);
  void flush_batch();
  void run_alone(const SqlItem& item);
  [[noreturn]] void fail(const SqlItem& item, const std::string& why);

  Session& session_;
  std::vector<SqlItem> items_;
  std::deque<std::string> owned_;  // texts of items made here (SET NAMES, the commit hook's)
  std::vector<std::optional<std::string_view>> b64_;  // merge_row_binlogs: items' row base64
  std::string batch_;                                 // statements joined for one packet
  std::vector<const SqlItem*> batch_items_;
  std::string charset_;  // the client character set last set (\C), "" unknown
  // The session settings last run, by what they set (Applier::run).
  std::vector<std::pair<std::string, std::string>> settings_;
  std::uint64_t statements_ = 0;
  std::uint64_t round_trips_ = 0;
};

}  // namespace binrecover::recovery
