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
#include "recovery/server/session.h"
#include "recovery/sql/output.h"

namespace binrecover::recovery {

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
// A statement of the log's own text that changes tables only, never a session variable nor the
// default database: a DDL of tables and indexes, one statement, that runs nothing (no SELECT:
// one could call a function that sets a variable, or read rows under locks). It waits for
// metadata locks alone, never for a row lock.
bool is_table_ddl(std::string_view statement);
// Whether `word` (ASCII) is anywhere in `s`, letter case aside.
bool contains_ci(std::string_view s, std::string_view word);
bool is_plain_begin(std::string_view statement);

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
    // A statement to run first, in the unit's first packet (replay's `SET SESSION
    // innodb_lock_wait_timeout = ...`: no round trip of its own); "" for none.
    std::string_view before;
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
    // The unit is not one transaction (each of its statements that changes a table that is not
    // transactional is logged as a group of its own): see Applier::not_one_transaction.
    bool not_one_transaction = false;
    // (with not_one_transaction) The text is a piece of such a unit too large to hold: its
    // first (kFirst, with the unit's BEGIN) or one after it (kMore, the last with its COMMIT).
    // Every piece goes without the unit's BEGIN and COMMIT, each statement that logs a group
    // given the unit's GTID setting (kept from the first piece) as not_one_transaction says.
    enum class Piece : std::uint8_t { kWhole, kFirst, kMore };
    Piece piece = Piece::kWhole;
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
  // (after apply() of a unit that is not one transaction, also one that threw) Whether a
  // statement of it that changes rows ran: none did when it failed at its first.
  bool logged() const { return logged_; }
  // The session's state is not known any more (after an error, or another user of it).
  void forget_state() {
    charset_.clear();
    settings_.clear();
  }

 private:
  void merge_row_binlogs(std::size_t limit);
  void not_one_transaction(Hooks::Piece piece);
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
  // (a unit that is not one transaction) Its GTID's setting ("" none), whether it is MySQL's
  // GTID_NEXT (else MariaDB's gtid_seq_no).
  std::string gtid_setting_;
  bool gtid_mysql_ = false;
  bool logged_ = false;
};

}  // namespace binrecover::recovery
