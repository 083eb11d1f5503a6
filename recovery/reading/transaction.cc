#include "recovery/reading/transaction.h"

#include <cstring>

#include "recovery/reading/gtid_set.h"

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

bool is_word(std::string_view q, std::string_view kw) {
  q = trim_query(q);
  return q.size() == kw.size() && iequal_prefix(q, kw);
}

const binlog::Query* as_query(const Event& ev) { return std::get_if<binlog::Query>(&ev.body); }

}  // namespace

std::string_view trim_query(std::string_view q) {
  while (!q.empty() &&
         (q.front() == ' ' || q.front() == '\n' || q.front() == '\t' || q.front() == '\r'))
    q.remove_prefix(1);
  while (!q.empty() && (q.back() == ' ' || q.back() == '\n' || q.back() == '\t' ||
                        q.back() == '\r' || q.back() == ';' || q.back() == '\0'))
    q.remove_suffix(1);
  return q;
}

bool is_meta_event(EventType t) {
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

bool is_gtid_event(EventType t) {
  return t == EventType::kGtid || t == EventType::kAnonymousGtid || t == EventType::kMariaGtid ||
         t == EventType::kGtidTagged;
}

namespace {

// Events that belong to the statement that follows them: session values, and the data blocks
// of LOAD DATA (executed by the EXECUTE_LOAD_QUERY or EXEC_LOAD that ends them).
bool is_statement_context(EventType t) {
  return t == EventType::kIntvar || t == EventType::kRand || t == EventType::kUserVar ||
         t == EventType::kBeginLoadQuery || t == EventType::kAppendBlock ||
         t == EventType::kCreateFile;
}

}  // namespace

bool starts_with_keyword(std::string_view q, std::string_view kw) {
  q = trim_query(q);
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

bool is_transaction_control(std::string_view q) {
  return is_begin(q) || is_commit_or_rollback(q) || starts_with_keyword(q, "SAVEPOINT") ||
         starts_with_keyword(q, "ROLLBACK") || starts_with_keyword(q, "RELEASE") ||
         starts_with_keyword(q, "XA") || starts_with_keyword(q, "COMMIT");
}

UnitTracker::Step UnitTracker::push(const Event& ev) {
  Step step;
  const EventType t = ev.type();
  // An event of a type unknown here inside a transaction is part of it: one its server flagged
  // ignorable (servers skip it where it stands; Aurora writes padding so), or one skipped with
  // --force-read. Taken as the end of the transaction, it cut the rows before it off their
  // COMMIT, and the rows after it off their BEGIN.
  if (!binlog::is_known_event_type(ev.header.type) && state_ != State::kIdle) {
    ++count_;
    return step;
  }
  if (is_meta_event(t)) {
    step.interrupts = count_ > 0;
    step.meta = true;
    reset();
    return step;
  }
  const bool gtid = is_gtid_event(t);
  const binlog::Query* q = as_query(ev);
  const bool begin = q != nullptr && is_begin(q->query);

  // BEGIN is expected after a GTID (MySQL; older MariaDB repeats it after its own GTID) and
  // after INTVAR/RAND/USER_VAR; anywhere else inside a transaction it means the previous one
  // never finished.
  const bool begin_after_gtid = begin && count_ == 1 && state_ == State::kInBegin;
  const bool begin_interrupts =
      begin && ((state_ == State::kInBegin && !begin_after_gtid) || state_ == State::kRowsNoBegin);
  if (state_ != State::kIdle && (gtid || begin_interrupts)) {
    step.interrupts = true;  // the previous transaction never finished
    reset();
  }
  const auto* rows = std::get_if<binlog::Rows>(&ev.body);
  const bool stmt_end = rows != nullptr && (rows->flags & binlog::kStmtEndFlag);
  ++count_;
  switch (state_) {
    case State::kIdle:
      step.starts = true;
      if (gtid) {
        state_ = State::kAfterGtid;
        const auto* mg = std::get_if<binlog::MariaGtid>(&ev.body);
        standalone_gtid_ = mg != nullptr && (mg->flags & binlog::MariaGtid::kStandalone);
        if (mg != nullptr && !standalone_gtid_) state_ = State::kInBegin;  // implicit BEGIN
      } else if (begin) {
        state_ = State::kInBegin;
      } else if (t == EventType::kTransactionPayload) {
        state_ = State::kAfterGtid;
      } else if (is_statement_context(t)) {
        state_ = State::kStatementPrefix;
      } else if (q != nullptr || t == EventType::kXid || t == EventType::kXaPrepare ||
                 t == EventType::kLoad || t == EventType::kNewLoad || t == EventType::kExecLoad ||
                 t == EventType::kDeleteFile) {
        // (EXEC_LOAD / DELETE_FILE here: another thread's statement came between it and its
        // CREATE_FILE; the SQL output keeps the LOAD's options until it runs.)
        step.closes = true;
      } else {
        // Table maps, rows, annotations outside BEGIN: a non-transactional statement.
        state_ = State::kRowsNoBegin;
        step.closes = stmt_end;
      }
      break;
    case State::kAfterGtid:
    case State::kStatementPrefix:
      if (begin) {
        state_ = State::kInBegin;
      } else if (t == EventType::kTransactionPayload) {
        // MySQL 8's compressed transaction: its unpacked events (BEGIN ... XID) follow.
      } else if (q != nullptr || t == EventType::kXaPrepare || t == EventType::kExecLoad ||
                 t == EventType::kDeleteFile || t == EventType::kLoad || t == EventType::kNewLoad) {
        step.closes = true;  // a DDL or a statement outside BEGIN
      } else if (!is_statement_context(t)) {
        state_ = State::kRowsNoBegin;
        step.closes = stmt_end;
      }
      break;
    case State::kInBegin:
      if (begin_after_gtid) break;  // older MariaDB writes BEGIN after its GTID
      step.closes = t == EventType::kXid || t == EventType::kXaPrepare ||
                    (q != nullptr && is_commit_or_rollback(q->query)) ||
                    (standalone_gtid_ && q != nullptr);
      break;
    case State::kRowsNoBegin:
      step.closes = stmt_end || t == EventType::kXid;
      break;
  }
  if (step.closes) reset();
  return step;
}

void TransactionAssembler::recycle() {
  done_.events.clear();
  meta_.events.clear();
}

void TransactionAssembler::push(const Event& ev, std::vector<Transaction*>& ready) {
  const UnitTracker::Step step = tracker_.push(ev);
  if (step.interrupts) {
    std::swap(done_, current_);
    current_.events.clear();
    done_.complete = false;
    ready.push_back(&done_);
  }
  if (step.meta) {
    meta_.kind = UnitKind::kMeta;
    meta_.complete = true;
    meta_.events.assign(1, ev);
    ready.push_back(&meta_);
    return;
  }
  if (step.starts) {
    current_.events.clear();
    current_.kind = UnitKind::kTransaction;
    current_.complete = true;
  }
  current_.events.push_back(ev);
  if (step.closes) {
    std::swap(done_, current_);
    current_.events.clear();
    ready.push_back(&done_);
  }
}

std::string event_gtid(const Event& ev) {
  fmt::memory_buffer out;
  if (const auto* g = std::get_if<binlog::MariaGtid>(&ev.body)) {
    fmt::format_to(std::back_inserter(out), "{}-{}-{}", g->domain_id, ev.header.server_id,
                   g->seq_no);
  } else if (const auto* g = std::get_if<binlog::Gtid>(&ev.body)) {
    if (g->anonymous) return {};
    append_uuid(out, g->sid);
    if (!g->tag.empty()) fmt::format_to(std::back_inserter(out), ":{}", g->tag);
    fmt::format_to(std::back_inserter(out), ":{}", g->gno);
  }
  return std::string(out.data(), out.size());
}

std::string transaction_gtid(const Transaction& txn) {
  for (const Event& ev : txn.events) {
    if (std::holds_alternative<binlog::MariaGtid>(ev.body)) return event_gtid(ev);
    if (std::holds_alternative<binlog::Gtid>(ev.body)) return event_gtid(ev);
  }
  return {};
}

std::uint64_t Transaction::end_pos() const {
  std::uint64_t end = 0;
  for (const Event& ev : events)
    if (!ev.in_payload) end = std::max(end, ev.end_pos());
  return end != 0 ? end : events.back().end_pos();
}

Transaction* TransactionAssembler::finish() {
  tracker_.reset();
  if (current_.events.empty()) return nullptr;
  current_.complete = false;
  std::swap(done_, current_);
  current_.events.clear();
  return &done_;
}

}  // namespace binrecover::recovery
