#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "binlog/arena.h"
#include "binlog/events.h"

namespace binrecover::recovery {

// What one assembled unit is.
enum class UnitKind : std::uint8_t {
  kMeta,         // an event outside any transaction: FDE, rotate, GTID list, checkpoint, ...
  kTransaction,  // GTID/BEGIN ... XID/COMMIT, or one DDL or statement with its context events
};

struct Transaction {
  UnitKind kind = UnitKind::kMeta;
  std::vector<binlog::Event> events;
  bool complete = true;
  std::uint64_t first_pos() const { return events.front().pos; }
  std::uint64_t last_pos() const { return events.back().pos; }
  // Where the unit ends in its file: the end of its last event that is not inside a MySQL
  // transaction payload (the payload event itself ends after the events it holds).
  std::uint64_t end_pos() const;
};

// The grouping rules, as a state machine over events alone:
//   [GTID] [INTVAR|RAND|USER_VAR]* QUERY(BEGIN) ... XID | QUERY(COMMIT|ROLLBACK) | XA_PREPARE
//   [GTID] [INTVAR|RAND|USER_VAR]* QUERY(DDL or statement outside BEGIN)
//   [ANNOTATE|ROWS_QUERY] TABLE_MAP+ ROWS+ (up to STMT_END_F) outside BEGIN (non-transactional)
// Everything else is a meta unit of its own. A transaction that is interrupted (a new GTID,
// BEGIN, format description or rotate arrives) ends incomplete. The tracker holds no events:
// it serves transactions held in memory and transactions streamed from the input alike.
class UnitTracker {
 public:
  struct Step {
    bool interrupts = false;  // the unit in progress ended, incomplete, before this event
    bool meta = false;        // this event is a unit of its own, outside any transaction
    bool starts = false;      // this event starts a unit (and belongs to it)
    bool closes = false;      // this event completes the unit it belongs to
  };
  Step push(const binlog::Event& ev);
  bool in_unit() const { return state_ != State::kIdle || count_ > 0; }
  // The unit in progress (if any) is given up: at the end of a file.
  void reset() {
    state_ = State::kIdle;
    count_ = 0;
    standalone_gtid_ = false;
  }

 private:
  enum class State : std::uint8_t { kIdle, kAfterGtid, kInBegin, kStatementPrefix, kRowsNoBegin };
  State state_ = State::kIdle;
  std::uint64_t count_ = 0;  // events of the unit in progress
  bool standalone_gtid_ = false;
};

// Groups events into transactions held in memory (the tracker's rules), for tests and tools that
// want whole units; the reading path (recovery/walker.h) streams units that are too large.
class TransactionAssembler {
 public:
  // Feed one event whose views point into memory that outlives the returned unit (the arena).
  // Returns the units completed by this event: zero, one, or two (an interrupted transaction
  // followed by the meta event that interrupted it).
  void push(const binlog::Event& ev, std::vector<Transaction*>& ready);
  // At end of input: the unfinished transaction, if any (complete=false).
  Transaction* finish();
  bool in_transaction() const { return !current_.events.empty(); }
  // Called by the owner once the ready units were consumed.
  void recycle();

 private:
  UnitTracker tracker_;
  Transaction current_;
  Transaction done_;
  Transaction meta_;
};

// The GTID of a transaction as text ("0-1-42", "uuid:42", "uuid:tag:42"), or "" when the event
// is not a (non-anonymous) GTID event.
std::string event_gtid(const binlog::Event& ev);
std::string transaction_gtid(const Transaction& txn);

// Whether a query is BEGIN / COMMIT / ROLLBACK (as servers write them).
bool is_begin(std::string_view q);
bool is_commit_or_rollback(std::string_view q);
// Transaction control that belongs to its transaction whatever the filters say: BEGIN, COMMIT,
// ROLLBACK, SAVEPOINT, ROLLBACK TO, RELEASE SAVEPOINT, XA ... .
bool is_transaction_control(std::string_view q);
// XA END / XA COMMIT / XA ROLLBACK etc.
bool starts_with_keyword(std::string_view q, std::string_view kw);
// A statement without the blanks around it and its trailing ';'.
std::string_view trim_query(std::string_view q);
// Meta events: units of their own, outside any transaction.
bool is_meta_event(binlog::EventType t);
bool is_gtid_event(binlog::EventType t);

}  // namespace binrecover::recovery
