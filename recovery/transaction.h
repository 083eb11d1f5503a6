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
  std::uint64_t end_pos() const { return events.back().end_pos(); }
};

class TransactionAssembler;

// Keeps the assembler's arena from being reset for the scope (a payload being unpacked).
class ArenaPin {
 public:
  explicit ArenaPin(TransactionAssembler& a);
  ~ArenaPin();
  ArenaPin(const ArenaPin&) = delete;
  ArenaPin& operator=(const ArenaPin&) = delete;

 private:
  TransactionAssembler& a_;
};

// Groups events into transactions:
//   [GTID] [INTVAR|RAND|USER_VAR]* QUERY(BEGIN) ... XID | QUERY(COMMIT|ROLLBACK) | XA_PREPARE
//   [GTID] [INTVAR|RAND|USER_VAR]* QUERY(DDL or statement outside BEGIN)
//   [ANNOTATE|ROWS_QUERY] TABLE_MAP+ ROWS+ (up to STMT_END_F) outside BEGIN (non-transactional)
// Everything else is a meta unit of its own. A transaction that is interrupted (a new GTID,
// BEGIN, format description or rotate arrives, or the input ends) is returned with
// complete=false so the caller can warn and drop it.
class TransactionAssembler {
 public:
  // Feed one event whose views point into memory that outlives the returned unit (the arena).
  // Returns the units completed by this event: zero, one, or two (an interrupted transaction
  // followed by the meta event that interrupted it).
  void push(const binlog::Event& ev, std::vector<Transaction*>& ready);
  // At end of input: the unfinished transaction, if any (complete=false).
  Transaction* finish();
  bool in_transaction() const { return !current_.events.empty(); }
  // Called by the owner once the ready units were consumed; releases their memory for reuse.
  void recycle();
  binlog::EventArena& arena() { return arena_; }
  // While a MySQL transaction payload is unpacked, its bytes live in the arena: no reset then,
  // even if the payload held more than one transaction (see ArenaPin).
  void pin_arena(bool pinned) { arena_pinned_ = pinned; }

 private:
  enum class State : std::uint8_t { kIdle, kAfterGtid, kInBegin, kStatementPrefix, kRowsNoBegin };
  void start(const binlog::Event& ev, State s);
  void close_current(std::vector<Transaction*>& ready);

  State state_ = State::kIdle;
  bool standalone_gtid_ = false;
  Transaction current_;
  Transaction done_;
  Transaction meta_;
  binlog::EventArena arena_;
  bool arena_reset_pending_ = false;
  bool arena_pinned_ = false;
};

// The GTID of a transaction as text ("0-1-42", "uuid:42", "uuid:tag:42"), or "".
std::string transaction_gtid(const Transaction& txn);

// Whether a query is BEGIN / COMMIT / ROLLBACK (as servers write them).
bool is_begin(std::string_view q);
bool is_commit_or_rollback(std::string_view q);
// XA END / XA COMMIT / XA ROLLBACK etc.
bool starts_with_keyword(std::string_view q, std::string_view kw);

}  // namespace binrecover::recovery
