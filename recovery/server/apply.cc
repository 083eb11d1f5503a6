#include "recovery/server/apply.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "binlog/error.h"
#include "binlog/event_type.h"

namespace binrecover::recovery {

using namespace statement_kinds;  // NOLINT(google-build-using-namespace): its classifiers

namespace {

// Room for the command byte and what the fragment statements add around their text.
constexpr std::size_t kPacketSlack = 64;

// The base64 text (trimmed) of a BINLOG statement of the writer's own for a table map or rows
// event (one that the server applies as it applies the same events from the next BINLOG
// statement); nullopt for any other statement.
std::optional<std::string_view> row_binlog_base64(const SqlItem& item) {
  if (item.kind != SqlItem::Kind::kStatement || item.verbatim) return std::nullopt;
  const auto type = static_cast<binlog::EventType>(item.event_type);
  binlog::RowsTypeInfo info{};
  if (type != binlog::EventType::kTableMap && !binlog::rows_type_info(type, &info))
    return std::nullopt;
  const auto b64 = binlog_base64(item.text);
  if (!b64) return std::nullopt;
  return trim(*b64);
}

}  // namespace

bool logs_group(const SqlItem& item) {
  return item.kind == SqlItem::Kind::kStatement &&
         (item.verbatim || binlog_base64(item.text).has_value());
}

std::size_t Applier::max_statement() const {
  const std::uint64_t map = session_.max_allowed_packet();
  return map > kPacketSlack ? static_cast<std::size_t>(map - kPacketSlack) : 0;
}

Error Applier::item_error(const SqlItem& item, const std::string& why) const {
  Error e(ErrorCode::kServer, item.through && item.through != item.at
                                  ? why +
                                        " (one BINLOG statement for the row events up to offset " +
                                        std::to_string(*item.through) + ")"
                                  : why);
  if (item.at) e.with_offset(*item.at);
  if (item.event_type != 0) e.with_event(std::string(binlog::event_type_name(item.event_type)));
  return e;
}

void Applier::fail(const SqlItem& item, const std::string& why) {
  send_held();  // (the unit before it committed first, as its COMMIT came first)
  roll_back();
  throw item_error(item, why);
}

void Applier::roll_back() {
  forget_state();
  try {
    session_.execute("ROLLBACK");
  } catch (const Error&) {  // the session may be gone; the server rolls back then
  }
}

void Applier::check_ran(std::size_t done, std::size_t sent) {
  if (done != sent)
    throw Error(ErrorCode::kServer, "the server ran " + std::to_string(done) + " of the " +
                                        std::to_string(sent) + " statements sent in one packet");
}

Applier::Outcome Applier::apply(std::string_view text,
                                const std::vector<Output::Statement>& statements) {
  return apply(text, statements, Hooks{});
}

Applier::Outcome Applier::apply(std::string_view text,
                                const std::vector<Output::Statement>& statements,
                                const Hooks& hooks) {
  items_.clear();
  owned_.clear();
  for (const Output::Statement& st : statements) {
    const std::string_view stmt = trim(text.substr(st.begin, st.end - st.begin));
    if (stmt.empty()) continue;
    if (st.kind == Output::Statement::Kind::kCharset) {
      if (auto cs = charset_command(stmt))
        items_.push_back({SqlItem::Kind::kCharset, *cs, st.at, st.event_type, false, std::nullopt});
      continue;
    }
    items_.push_back(
        {SqlItem::Kind::kStatement, stmt, st.at, st.event_type, st.verbatim, std::nullopt});
  }
  const std::size_t limit = max_statement();
  for (const SqlItem& item : items_) {
    if (item.kind != SqlItem::Kind::kStatement || item.text.size() <= limit) continue;
    const std::string size = std::to_string(item.text.size());
    const std::string map = std::to_string(session_.max_allowed_packet());
    const auto b64 = binlog_base64(item.text);
    if (!b64)
      fail(item, "a statement of " + size + " bytes is larger than the server's " +
                     "max_allowed_packet (" + map + "): raise it on the server (SET GLOBAL " +
                     "max_allowed_packet=" + std::to_string(item.text.size() + 1024) +
                     "), then resume; " + snippet(item.text));
    if (!session_.mariadb())
      fail(item, "a BINLOG statement of " + size + " bytes is larger than the server's " +
                     "max_allowed_packet (" + map + ") and MySQL has no BINLOG fragments: " +
                     "raise it (SET GLOBAL max_allowed_packet=" +
                     std::to_string(item.text.size() + 1024) + "), then resume");
    if (!binlog_fragments(*b64, limit))
      fail(item, "a BINLOG statement of " + size + " bytes does not fit the server's " +
                     "max_allowed_packet (" + map + ") even as two fragments: raise it (SET " +
                     "GLOBAL max_allowed_packet=" + std::to_string(item.text.size() / 2 + 1024) +
                     " or more), then resume");
  }
  // (a unit that is not one transaction: each statement of the log's rows its own BINLOG
  // statement, as the SQL writer made them, a group of its own on the target, see
  // not_one_transaction)
  if (!hooks.not_one_transaction) merge_row_binlogs(limit);
  logged_ = false;
  if (hooks.not_one_transaction && !items_.empty()) not_one_transaction(hooks.piece);
  Outcome outcome;
  if (!hooks.after_begin.empty()) {
    for (std::size_t k = 0; k < items_.size(); ++k) {
      const SqlItem& item = items_[k];
      if (item.kind != SqlItem::Kind::kStatement || item.verbatim || !is_plain_begin(item.text))
        continue;
      items_.insert(items_.begin() + static_cast<std::ptrdiff_t>(k) + 1,
                    SqlItem{SqlItem::Kind::kStatement, hooks.after_begin, item.at, item.event_type,
                            false, std::nullopt});
      outcome.after_begin_ran = true;
      break;
    }
  }
  if (!hooks.before.empty() && !items_.empty())
    items_.insert(items_.begin(), SqlItem{SqlItem::Kind::kStatement, hooks.before, items_[0].at,
                                          items_[0].event_type, false, std::nullopt});
  outcome.ended_in_commit =
      !items_.empty() && items_.back().kind == SqlItem::Kind::kStatement &&
      (hooks.last_is_commit || (!items_.back().verbatim && is_commit(items_.back().text)));
  const bool may_hold = hooks.hold_commit && outcome.ended_in_commit && !hooks.last_is_commit;
  const auto run_all = [&] {
    run(0, items_.size(), may_hold, may_hold && hooks.pipeline);
    if (held_) {
      outcome.held = true;
      held_done_ = hooks.hold_commit;
    }
  };
  if (!outcome.ended_in_commit || !hooks.commit) {
    run_all();
    return outcome;
  }
  if (hooks.commit_now && hooks.commit_now()) {
    outcome.committed_now = true;
    run_all();
    return outcome;
  }
  run(0, items_.size() - 1);
  ++statements_;
  ++round_trips_;
  hooks.commit(items_.back().text);
  return outcome;
}

// Consecutive BINLOG statements for row events go to the server as one, up to the largest
// statement it takes: it applies the events of one BINLOG statement in their order, as those of
// several (mysqlbinlog writes a table map and its rows so), and MariaDB ends a packet at each
// BINLOG statement, a round trip each. A failure names the first event of the statement; the
// server's message names the event that failed (its end_log_pos).
void Applier::merge_row_binlogs(std::size_t limit) {
  constexpr std::string_view kHead = "BINLOG '", kTail = "\n'";
  b64_.clear();
  for (const SqlItem& item : items_) b64_.push_back(row_binlog_base64(item));
  std::size_t out = 0;
  for (std::size_t k = 0; k < items_.size();) {
    std::size_t end = k + 1;
    if (b64_[k]) {
      std::size_t size = kHead.size() + b64_[k]->size() + 1 + kTail.size();
      for (; end < items_.size() && b64_[end] && size + b64_[end]->size() + 1 <= limit; ++end)
        size += b64_[end]->size() + 1;
      if (end - k > 1) {
        std::string merged;
        merged.reserve(size);
        merged.append(kHead);
        for (std::size_t j = k; j < end; ++j) merged.append("\n").append(*b64_[j]);
        merged.append(kTail);
        owned_.push_back(std::move(merged));
        items_[k].text = owned_.back();
        items_[k].through = items_[end - 1].at;
        items_[out++] = items_[k];
        k = end;
        continue;
      }
    }
    items_[out++] = items_[k++];
  }
  items_.resize(out);
}

// A server logs each statement of a unit that changes a table that is not transactional (a
// MyISAM table's rows) as a group of its own as it ends, also inside BEGIN ... COMMIT. MariaDB:
// the first group takes the unit's GTID, each one after it the target's next sequence number,
// which a later unit of the log then seems to have (the target's binlog state keeps the last
// one). MySQL: the first takes the GTID_NEXT set, the second fails (1837: GTID_NEXT must be set
// again), the unit's GTID in gtid_executed with only its first statement run. Such a unit (of
// several statements that log, as BINLOG statements past max_allowed_packet, or in pieces) goes
// without its BEGIN and COMMIT (a COMMIT takes nothing back from such tables). MariaDB: each of
// its statements given the unit's gtid_seq_no (which cannot change inside a transaction).
// MySQL, which logs a GTID once: its statements with the target's own GTIDs
// (GTID_NEXT='AUTOMATIC'), then an empty transaction with the unit's GTID where it ends: the
// GTID is there once all of it ran. On MySQL a whole unit of one such statement goes as it is;
// on MariaDB only a unit of row events is changed: one with statements of the log's own text
// may be an old server's transaction without an Xid, which stays one. Pieces: the BEGIN comes
// in the first, the COMMIT in the last, the GTID's setting is kept from the first for the others.
void Applier::not_one_transaction(Hooks::Piece piece) {
  if (piece != Hooks::Piece::kMore) {
    gtid_setting_.clear();
    gtid_mysql_ = false;
    for (const SqlItem& item : items_) {
      if (item.kind != SqlItem::Kind::kStatement || item.verbatim) continue;
      if (is_plain_begin(item.text)) break;
      if (!sets_next_gtid(item.text)) continue;
      gtid_setting_.assign(item.text);
      gtid_mysql_ = !sets_maria_seq_no(item.text);
    }
  }
  if (gtid_setting_.empty()) return;
  if (piece == Hooks::Piece::kWhole) {
    // (BEGIN, statements, COMMIT: not a DDL, nor MySQL's CREATE ... SELECT, one transaction)
    std::size_t logging = 0;
    bool begin = false;
    for (const SqlItem& item : items_) {
      if (item.verbatim && !gtid_mysql_) return;
      if (logs_group(item)) ++logging;
      if (item.kind == SqlItem::Kind::kStatement && !item.verbatim && is_plain_begin(item.text))
        begin = true;
    }
    const SqlItem& last = items_.back();
    // (MariaDB, one statement too: in a transaction, its rows of a table that is transactional
    // on the target would be logged at the COMMIT as a group of its own, with the target's next
    // sequence number; alone, the statement is one group. MySQL: one statement in a
    // transaction is one group with its GTID.)
    if (logging < (gtid_mysql_ ? 2U : 1U) || !begin || last.kind != SqlItem::Kind::kStatement ||
        last.verbatim || !is_commit(last.text))
      return;
  }
  std::vector<SqlItem> out;
  out.reserve(items_.size() * 2);
  bool begin_left = piece == Hooks::Piece::kMore, automatic = false;
  const auto statement = [](const SqlItem& at, std::string_view text) {
    SqlItem st = at;
    st.verbatim = false;
    st.through.reset();
    st.text = text;
    return st;
  };
  for (std::size_t k = 0; k < items_.size(); ++k) {
    const SqlItem& item = items_[k];
    if (item.kind == SqlItem::Kind::kStatement && !item.verbatim) {
      if (!begin_left && is_plain_begin(item.text)) {
        begin_left = true;
        continue;
      }
      // (MariaDB: the GTID's setting goes right before each statement that logs)
      if (sets_next_gtid(item.text)) continue;
      if (k + 1 == items_.size() && is_commit(item.text)) {
        if (gtid_mysql_) {  // (the unit's end: its GTID)
          out.push_back(statement(item, gtid_setting_));
          out.push_back(statement(item, "BEGIN"));
          out.push_back(item);
        }
        continue;
      }
    }
    if (logs_group(item) && !gtid_mysql_) out.push_back(statement(item, gtid_setting_));
    if (logs_group(item) && gtid_mysql_ && !automatic) {
      out.push_back(statement(item, "SET @@SESSION.GTID_NEXT='AUTOMATIC'"));
      automatic = true;
    }
    out.push_back(item);
  }
  items_ = std::move(out);
}

void Applier::run(std::size_t begin, std::size_t end, bool may_hold, bool pipeline) {
  if (pending_ && !held_) read_pending(false);  // (a packet in flight has a COMMIT after it)
  batch_.clear();
  batch_items_.clear();
  guarded_ = false;
  if (held_) {  // (the unit before this one commits first, in this packet)
    held_ = false;
    held_sending_ = true;
    if (pending_) {  // (and its last packet is in flight: this one goes guarded)
      guarded_ = true;
      guard_item_ = held_item_;
      guard_item_.text = kPipelineGuard;
      batch_.append(kPipelineGuard).append(";\n");
      batch_items_.push_back(&guard_item_);
    }
    batch_.append(held_item_.text);
    batch_items_.push_back(&held_item_);
  }
  const std::size_t limit = max_statement();
  for (std::size_t k = begin; k < end; ++k) {
    SqlItem& item = items_[k];
    // The unit's COMMIT that would go alone is held for the next packet (Hooks::hold_commit).
    if (may_hold && k + 1 == items_.size() && batch_items_.empty() &&
        item.kind == SqlItem::Kind::kStatement && !item.verbatim && is_commit(item.text)) {
      held_text_.assign(item.text);
      held_item_ = item;
      held_item_.text = held_text_;
      held_ = true;
      continue;
    }
    if (item.kind == SqlItem::Kind::kCharset) {
      // The client's \C is SET NAMES on the server (nothing here depends on the library's
      // idea of the character set); the logged SET of the session's character sets follows.
      if (item.text == charset_) continue;
      charset_.assign(item.text);
      owned_.push_back("SET NAMES " + charset_);
      item.text = owned_.back();
    }
    // A statement that is only a comment this server does not run is an empty statement,
    // which ends a packet of several with a syntax error: it is not sent at all.
    if (!item.verbatim)
      if (const auto prefix = comment_only_prefix(item.text);
          prefix && !session_.runs_comment(*prefix))
        continue;
    // A session setting this session already has (a unit sets its whole session when units
    // go to several sessions) is not sent again; anything else that may change the session
    // makes every setting unknown.
    if (item.kind == SqlItem::Kind::kStatement) {
      const auto key = item.verbatim ? std::nullopt : session_setting(item.text);
      if (key) {
        auto it = std::find_if(settings_.begin(), settings_.end(),
                               [&](const auto& e) { return e.first == *key; });
        if (it != settings_.end() && it->second == item.text) continue;
        if (it == settings_.end()) it = settings_.emplace(settings_.end(), *key, std::string());
        it->second.assign(item.text);
      } else if (item.verbatim ? !is_table_ddl(item.text) && !controls_transaction(item.text)
                               : !keeps_session(item.text)) {
        settings_.clear();
      }
    }
    const bool alone = item.text.size() > limit ||
                       (item.verbatim && item.text.find(';') != std::string_view::npos);
    if (alone) {
      flush_batch();
      run_alone(item);
      continue;
    }
    if (!batch_items_.empty() && batch_.size() + 2 + item.text.size() > limit) flush_batch();
    if (!batch_items_.empty()) batch_.append(";\n");
    batch_.append(item.text);
    batch_items_.push_back(&item);
    // Nothing of binrecover's after a logged text in one packet; and a BINLOG statement ends
    // its packet too: MariaDB 10.11 runs nothing after one in a multi-statement packet (it
    // answers as if the packet ended there, and drops the rest). MySQL 9.7 answers for fewer
    // statements than a packet with one sent it too ("ran 12 of the 13": tried 2026-12-07).
    // (the unit's last packet, its COMMIT held after it, may be left in flight: pipeline)
    if (item.verbatim || starts_with_ci(item.text, "BINLOG"))
      flush_batch(pipeline && !item.verbatim && k + 2 == items_.size() &&
                  items_[k + 1].kind == SqlItem::Kind::kStatement && !items_[k + 1].verbatim &&
                  is_commit(items_[k + 1].text) && may_leave_pending());
  }
  flush_batch();
}

void Applier::flush_batch(bool leave_pending) {
  if (batch_items_.empty()) return;
  if (pending_ || leave_pending) {
    flush_pipelined(leave_pending);
    return;
  }
  statements_ += batch_items_.size();
  ++round_trips_;
  if (batch_items_.size() == 1) {
    const SqlItem& item = *batch_items_.front();
    batch_items_.clear();
    batch_.clear();  // (else the next packet of several would start with it again)
    try {
      session_.execute(item.text);
    } catch (const Error& e) {
      if (held_sending_) held_failed(e);
      fail(item, std::string(e.what()) + " in: " + snippet(item.text));
    }
    logged_ = logged_ || logs_group(item);
    if (held_sending_) held_ran();
    return;
  }
  std::size_t done = 0;
  try {
    session_.multi_statements(true);
    session_.execute_batch(batch_, done);
    check_ran(done, batch_items_.size());
  } catch (const Error& e) {
    const SqlItem& item = *batch_items_[std::min(done, batch_items_.size() - 1)];
    // (the statements before the failing one ran: logged() says whether one that logs did)
    for (std::size_t k = 0; k < done && k < batch_items_.size(); ++k)
      logged_ = logged_ || logs_group(*batch_items_[k]);
    batch_items_.clear();
    if (held_sending_) {
      if (done == 0) held_failed(e);
      held_ran();
    }
    fail(item, std::string(e.what()) + " in: " + snippet(item.text));
  }
  for (const SqlItem* item : batch_items_) logged_ = logged_ || logs_group(*item);
  batch_.clear();
  batch_items_.clear();
  if (held_sending_) held_ran();
}

void Applier::send_held() {
  if (!held_) return;
  if (pending_) read_pending(false);  // (throws where its packet failed: nothing held then)
  held_ = false;
  held_sending_ = true;
  ++statements_;
  ++round_trips_;
  try {
    session_.execute(held_item_.text);
  } catch (const Error& e) {
    held_failed(e);
  }
  held_ran();
}

void Applier::held_ran() {
  held_sending_ = false;
  const std::function<void()> done = std::exchange(held_done_, nullptr);
  if (done) done();
}

void Applier::held_failed(const Error& e) {
  held_sending_ = false;
  held_done_ = nullptr;
  roll_back();
  throw HeldCommitFailed(
      item_error(held_item_, std::string(e.what()) + " in: " + snippet(held_item_.text)));
}

void Applier::run_alone(const SqlItem& item) {
  ++statements_;
  ++round_trips_;
  try {
    if (item.text.size() > max_statement()) {
      // Checked in apply(): a BINLOG statement on MariaDB that fits as two fragments.
      const auto parts = binlog_fragments(*binlog_base64(item.text), max_statement());
      for (const std::string& s : *parts) session_.execute(s);
      logged_ = true;
      return;
    }
    // A logged text with a ';' in it: one statement, as the log has it.
    session_.multi_statements(false);
    session_.execute(item.text);
  } catch (const Error& e) {
    fail(item, std::string(e.what()) + " in: " + snippet(item.text));
  }
  logged_ = logged_ || logs_group(item);
}

}  // namespace binrecover::recovery
