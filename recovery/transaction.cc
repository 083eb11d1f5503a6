#include "recovery/transaction.h"

#include <cstring>

#include "recovery/event_info.h"

namespace binrecover::recovery {

using binlog::Event;
using binlog::EventType;

namespace {

bool iequal_prefix(std::string_view s, std::string_view kw) {
  if (s.size() < kw.size()) return false;
  for (std::size_t i = 0; i < kw.size(); ++i) {
    char a = s[i];
    if (a >= 'a' && a <= 'z') a = static_cast<char>(a - 'a' + 'A');
    if (a != kw[i]) return false;
  }
  return true;
}

std::string_view trim(std::string_view q) {
  while (!q.empty() &&
         (q.front() == ' ' || q.front() == '\n' || q.front() == '\t' || q.front() == '\r'))
    q.remove_prefix(1);
  while (!q.empty() && (q.back() == ' ' || q.back() == '\n' || q.back() == '\t' ||
                        q.back() == '\r' || q.back() == ';' || q.back() == '\0'))
    q.remove_suffix(1);
  return q;
}

bool is_word(std::string_view q, std::string_view kw) {
  q = trim(q);
  return q.size() == kw.size() && iequal_prefix(q, kw);
}

const binlog::Query* as_query(const Event& ev) { return std::get_if<binlog::Query>(&ev.body); }

bool is_meta_type(EventType t) {
  switch (t) {
    case EventType::kFormatDescription:
    case EventType::kStartV3:
    case EventType::kRotate:
    case EventType::kStop:
    case EventType::kPreviousGtids:
    case EventType::kMariaGtidList:
    case EventType::kMariaBinlogCheckpoint:
    case EventType::kHeartbeat:
    case EventType::kHeartbeatV2:
    case EventType::kIncident:
    case EventType::kMariaStartEncryption:
    case EventType::kViewChange:
    case EventType::kTransactionContext:
    case EventType::kUnknown:
      return true;
    default:
      return !binlog::is_known_event_type(static_cast<std::uint8_t>(t));
  }
}

// Events that belong to the statement that follows them: session values, and the data blocks
// of LOAD DATA (executed by the EXECUTE_LOAD_QUERY or EXEC_LOAD that ends them).
bool is_statement_context(EventType t) {
  return t == EventType::kIntvar || t == EventType::kRand || t == EventType::kUserVar ||
         t == EventType::kBeginLoadQuery || t == EventType::kAppendBlock ||
         t == EventType::kCreateFile;
}

}  // namespace

bool starts_with_keyword(std::string_view q, std::string_view kw) {
  q = trim(q);
  if (!iequal_prefix(q, kw)) return false;
  return q.size() == kw.size() || q[kw.size()] == ' ' || q[kw.size()] == '\n' ||
         q[kw.size()] == '\t';
}

bool is_begin(std::string_view q) {
  return is_word(q, "BEGIN") || is_word(q, "START TRANSACTION") ||
         starts_with_keyword(q, "XA START") || starts_with_keyword(q, "XA BEGIN");
}

bool is_commit_or_rollback(std::string_view q) {
  return is_word(q, "COMMIT") || is_word(q, "ROLLBACK");
}

ArenaPin::ArenaPin(TransactionAssembler& a) : a_(a) { a_.pin_arena(true); }
ArenaPin::~ArenaPin() { a_.pin_arena(false); }

void TransactionAssembler::recycle() {
  done_.events.clear();
  meta_.events.clear();
  if (arena_reset_pending_ && current_.events.empty() && !arena_pinned_) {
    arena_.reset();
    arena_reset_pending_ = false;
  }
}

void TransactionAssembler::start(const Event& ev, State s) {
  current_.events.clear();
  current_.kind = UnitKind::kTransaction;
  current_.complete = true;
  current_.events.push_back(ev);
  state_ = s;
}

void TransactionAssembler::close_current(std::vector<Transaction*>& ready) {
  std::swap(done_, current_);
  current_.events.clear();
  state_ = State::kIdle;
  standalone_gtid_ = false;
  arena_reset_pending_ = true;
  ready.push_back(&done_);
}

void TransactionAssembler::push(const Event& ev, std::vector<Transaction*>& ready) {
  const EventType t = ev.type();
  if (is_meta_type(t)) {
    if (!current_.events.empty()) {
      current_.complete = false;
      close_current(ready);
    }
    meta_.kind = UnitKind::kMeta;
    meta_.complete = true;
    meta_.events.clear();
    meta_.events.push_back(ev);
    ready.push_back(&meta_);
    arena_reset_pending_ = true;
    return;
  }
  const bool gtid = t == EventType::kGtid || t == EventType::kAnonymousGtid ||
                    t == EventType::kMariaGtid || t == EventType::kGtidTagged;
  const binlog::Query* q = as_query(ev);
  const bool begin = q != nullptr && is_begin(q->query);

  // BEGIN is expected after a GTID (MySQL; older MariaDB repeats it after its own GTID) and
  // after INTVAR/RAND/USER_VAR; anywhere else inside a transaction it means the previous one
  // never finished.
  const bool begin_after_gtid = begin && current_.events.size() == 1 && state_ == State::kInBegin;
  const bool begin_interrupts =
      begin && ((state_ == State::kInBegin && !begin_after_gtid) || state_ == State::kRowsNoBegin);
  if (state_ != State::kIdle && (gtid || begin_interrupts)) {
    // The previous transaction never finished.
    current_.complete = false;
    close_current(ready);
  }

  switch (state_) {
    case State::kIdle:
      if (gtid) {
        start(ev, State::kAfterGtid);
        const auto* mg = std::get_if<binlog::MariaGtid>(&ev.body);
        standalone_gtid_ = mg != nullptr && (mg->flags & binlog::MariaGtid::kStandalone);
        if (mg != nullptr && !standalone_gtid_) state_ = State::kInBegin;  // implicit BEGIN
      } else if (begin) {
        start(ev, State::kInBegin);
      } else if (t == EventType::kTransactionPayload) {
        start(ev, State::kAfterGtid);
      } else if (is_statement_context(t)) {
        start(ev, State::kStatementPrefix);
      } else if (q != nullptr || t == EventType::kXid || t == EventType::kXaPrepare ||
                 t == EventType::kLoad || t == EventType::kNewLoad || t == EventType::kExecLoad ||
                 t == EventType::kDeleteFile) {
        // (EXEC_LOAD / DELETE_FILE here: another thread's statement came between it and its
        // CREATE_FILE; the SQL output keeps the LOAD's options until it runs.)
        start(ev, State::kIdle);
        close_current(ready);
      } else {
        // Table maps, rows, annotations outside BEGIN: a non-transactional statement.
        start(ev, State::kRowsNoBegin);
        const auto* rows = std::get_if<binlog::Rows>(&ev.body);
        if (rows != nullptr && (rows->flags & binlog::kStmtEndFlag)) close_current(ready);
      }
      return;
    case State::kAfterGtid:
    case State::kStatementPrefix:
      current_.events.push_back(ev);
      if (begin) {
        state_ = State::kInBegin;
      } else if (t == EventType::kTransactionPayload) {
        // MySQL 8's compressed transaction: its unpacked events (BEGIN ... XID) follow.
      } else if (q != nullptr || t == EventType::kXaPrepare || t == EventType::kExecLoad ||
                 t == EventType::kDeleteFile || t == EventType::kLoad || t == EventType::kNewLoad) {
        close_current(ready);  // a DDL or a statement outside BEGIN
      } else if (!is_statement_context(t)) {
        state_ = State::kRowsNoBegin;
        const auto* rows = std::get_if<binlog::Rows>(&ev.body);
        if (rows != nullptr && (rows->flags & binlog::kStmtEndFlag)) close_current(ready);
      }
      return;
    case State::kInBegin:
      current_.events.push_back(ev);
      if (begin_after_gtid) return;  // older MariaDB writes BEGIN after its GTID
      if (t == EventType::kXid || t == EventType::kXaPrepare ||
          (q != nullptr && is_commit_or_rollback(q->query)) || (standalone_gtid_ && q != nullptr))
        close_current(ready);
      return;
    case State::kRowsNoBegin: {
      current_.events.push_back(ev);
      const auto* rows = std::get_if<binlog::Rows>(&ev.body);
      if ((rows != nullptr && (rows->flags & binlog::kStmtEndFlag)) || t == EventType::kXid)
        close_current(ready);
      return;
    }
  }
}

std::string transaction_gtid(const Transaction& txn) {
  fmt::memory_buffer out;
  for (const Event& ev : txn.events) {
    if (const auto* g = std::get_if<binlog::MariaGtid>(&ev.body)) {
      fmt::format_to(std::back_inserter(out), "{}-{}-{}", g->domain_id, ev.header.server_id,
                     g->seq_no);
      break;
    }
    if (const auto* g = std::get_if<binlog::Gtid>(&ev.body)) {
      if (g->anonymous) break;
      append_uuid(out, g->sid);
      if (!g->tag.empty()) fmt::format_to(std::back_inserter(out), ":{}", g->tag);
      fmt::format_to(std::back_inserter(out), ":{}", g->gno);
      break;
    }
  }
  return std::string(out.data(), out.size());
}

Transaction* TransactionAssembler::finish() {
  if (current_.events.empty()) return nullptr;
  current_.complete = false;
  std::swap(done_, current_);
  current_.events.clear();
  state_ = State::kIdle;
  return &done_;
}

}  // namespace binrecover::recovery
