#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "binlog/byte_cursor.h"
#include "binlog/error.h"
#include "recovery/server/session.h"
#include "recovery/server/statement_kinds.h"
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

// A statement that changes rows (the log's own text, or a BINLOG statement of row events).
bool logs_group(const SqlItem& item);

// Applies SQL text to a session, one whole unit (transaction, or event outside one) at a time.
// Every statement of the unit is split and checked for size before the first one runs, so a
// statement that cannot be sent fails the unit before any of it was applied.
// The statements binrecover wrote go to the server many to a packet (a row transaction is one
// round trip); a statement with the log's own text ends its packet, and one holding a ';' goes
// alone with the server's multi-statement parsing off, so that nothing in a logged text can
// make the server read more statements than the log has. A unit's COMMIT that would go alone
// (after a BINLOG statement, which ends its packet) may be held for the next unit's first packet
// (Hooks::hold_commit): one round trip a transaction instead of two.
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
    // (set: the COMMIT may be held) The unit's COMMIT, where it would go to the server in a
    // packet of its own (after a BINLOG statement, which ends its packet on MariaDB, or a
    // statement of the log's own text), is held: it goes at the head of the next packet this
    // applier sends (the next unit's first: a round trip a transaction less), or alone by
    // send_held(). Called once the held COMMIT ran (the unit committed), before anything after
    // it in that packet is known; it may throw HeldCommitFailed (the unit's own bookkeeping
    // failed: the caller rolls back what ran after the COMMIT). Not with `commit` called (the
    // unit commits there), nor for an XA unit's last statement (last_is_commit).
    std::function<void()> hold_commit;
    // (with hold_commit) The unit's last packet, when its COMMIT is held, may go without waiting
    // for its answer (pipelining): the next packet this applier sends goes first, guarded at
    // its head (a statement that fails where the one before it failed, so that nothing of it
    // runs then), and the answers are read after it. A failure of that packet is the held
    // unit's (HeldUnitFailed), or the COMMIT's at its head (HeldCommitFailed). Only where the
    // server keeps to the guard (asked once a session) and the packet has nothing the server
    // may answer with a request (LOAD DATA LOCAL) nor a statement of the log's own.
    bool pipeline = false;
  };
  struct Outcome {
    bool after_begin_ran = false;  // the unit had a BEGIN, and Hooks::after_begin ran after it
    bool ended_in_commit = false;  // its last statement was a COMMIT
    bool committed_now = false;    // Hooks::commit_now said yes: the unit committed here
    bool held = false;             // its COMMIT is held (Hooks::hold_commit): not sent yet
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
  // Packets left in flight (Hooks::pipeline): sent before the answer of the one before. (Read
  // by any thread.)
  std::uint64_t pipelined() const { return pipelined_.load(std::memory_order_relaxed); }
  // The longest statement the server takes (its max_allowed_packet less the packet's framing).
  std::size_t max_statement() const;
  // (after apply() of a unit that is not one transaction, also one that threw) Whether a
  // statement of it that changes rows ran: none did when it failed at its first.
  bool logged() const { return logged_; }
  // A COMMIT is held (Hooks::hold_commit): the session is inside that unit's transaction.
  bool holding() const { return held_; }
  // Sends the held COMMIT alone (and calls its hook), after reading the answer of a packet
  // left in flight (Hooks::pipeline). Throws HeldCommitFailed, HeldUnitFailed.
  void send_held();
  // A packet left in flight (Hooks::pipeline) is answered: its answer read (the hook of a
  // COMMIT at its head called). Throws HeldCommitFailed, HeldUnitFailed.
  void settle() {
    if (pending_) read_pending(false);
  }
  // A packet is in flight: the session may not be used before settle().
  bool in_flight() const { return pending_; }
  // The held COMMIT is never sent (the session's end rolls its unit back); settle() first.
  void drop_held() {
    held_ = false;
    held_done_ = nullptr;
  }
  // The session's state is not known any more (after an error, or another user of it).
  void forget_state() {
    charset_.clear();
    settings_.clear();
  }

 private:
  void merge_row_binlogs(std::size_t limit);
  void not_one_transaction(Hooks::Piece piece);
  void run(std::size_t begin, std::size_t end, bool may_hold = false, bool pipeline = false);
  void flush_batch(bool leave_pending = false);
  // ---- pipelining (apply_pipeline.cc) ----
  // Whether the batch may be left in flight: nothing in it the server answers with a request.
  bool may_leave_pending();
  // Whether this session's server refuses the guard after a failed statement (asked once).
  bool guard_holds();
  // The batch sent while a packet is in flight (the guard at its head), or left in flight.
  void flush_pipelined(bool leave_pending);
  // Reads the answer of the packet in flight; `next_sent`: the batch after it went too (its
  // answer read here where the one in flight failed). Throws HeldCommitFailed, HeldUnitFailed.
  void read_pending(bool next_sent);
  // The answer of the batch sent after the packet in flight, which was answered.
  void read_batch_answer();
  // The error of a statement, naming its event.
  Error item_error(const SqlItem& item, const std::string& why) const;
  // The held COMMIT ran: its hook called. Or it failed: rolled back, HeldCommitFailed thrown.
  void held_ran();
  [[noreturn]] void held_failed(const Error& e);
  void run_alone(const SqlItem& item);
  [[noreturn]] void fail(const SqlItem& item, const std::string& why);
  // The open transaction rolled back (errors aside: the session may be gone), the session's
  // state forgotten.
  void roll_back();
  // Throws where the server ran fewer statements of a packet than were sent.
  static void check_ran(std::size_t done, std::size_t sent);

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
  // A unit's COMMIT held for the next packet (Hooks::hold_commit): the statement, its hook;
  // `held_sending_`: it is in batch_, first.
  SqlItem held_item_;
  std::string held_text_;
  std::function<void()> held_done_;
  bool held_ = false;
  bool held_sending_ = false;
  // Pipelining (Hooks::pipeline): the held unit's last packet is in flight, its statements
  // (their texts the unit's, or in pending_owned_), the hook of the COMMIT at its head (null:
  // none; pending_commit_: its index, after the guard); guard_: the guard holds (nullopt: not
  // asked yet); guarded_: the batch being made starts with the guard.
  bool pending_ = false;
  std::vector<SqlItem> pending_items_;
  std::deque<std::string> pending_owned_;
  std::function<void()> pending_done_;
  bool pending_has_commit_ = false;
  std::size_t pending_commit_ = 0;
  std::optional<bool> guard_;
  std::atomic<std::uint64_t> pipelined_{0};
  bool guarded_ = false;
  SqlItem guard_item_;
};

// The statement at the head of a packet sent while the one before it is in flight: it fails
// (kPipelineGuardError, an unknown locale) where the last statement before it failed, which
// stops the rest of its packet; else it sets the session's lc_time_names to what it is.
inline constexpr std::string_view kPipelineGuard =
    "SET @@SESSION.lc_time_names = IF(@@error_count = 0, @@SESSION.lc_time_names, "
    "'binrecover: the statement before failed')";
inline constexpr unsigned kPipelineGuardError = 1649;

// The COMMIT a unit held (Applier::Hooks::hold_commit) failed, or its hook did: the error is
// that unit's, not the one whose packet carried it (nothing of which ran, or what ran is to be
// rolled back).
class HeldCommitFailed : public Error {
 public:
  explicit HeldCommitFailed(const Error& e) : Error(e) {}
};

// The statements of the unit whose COMMIT is held failed, in its last packet, which was left in
// flight (Hooks::pipeline): that unit is not applied (rolled back), the COMMIT at its packet's
// head (the unit before it) ran and its hook was called; nothing of the packet sent after it
// ran.
class HeldUnitFailed : public Error {
 public:
  explicit HeldUnitFailed(const Error& e) : Error(e) {}
};

}  // namespace binrecover::recovery
