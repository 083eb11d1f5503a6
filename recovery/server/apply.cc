#include "recovery/server/apply.h"

#include <algorithm>
#include <cctype>

#include "binlog/error.h"
#include "binlog/event_type.h"

namespace binrecover::recovery {

namespace {

// Room for the command byte and what the fragment statements add around their text.
constexpr std::size_t kPacketSlack = 64;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

bool starts_with_ci(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[i])) !=
        std::tolower(static_cast<unsigned char>(prefix[i])))
      return false;
  return true;
}

// "/*!\C utf8mb4 */" -> "utf8mb4"
std::optional<std::string_view> charset_command(std::string_view stmt) {
  if (!stmt.starts_with("/*!\\C") || !stmt.ends_with("*/")) return std::nullopt;
  std::string_view name = trim(stmt.substr(5, stmt.size() - 7));
  if (name.empty() || name.find_first_of(" \t\n'\"`") != std::string_view::npos)
    return std::nullopt;
  return name;
}

// "/*!80011" of a statement that is nothing but a comment "/*!80011 ... */" (or "/*M!...");
// nullopt for any other statement.
std::optional<std::string_view> comment_only_prefix(std::string_view stmt) {
  std::size_t at;
  if (stmt.starts_with("/*!"))
    at = 3;
  else if (stmt.starts_with("/*M!"))
    at = 4;
  else
    return std::nullopt;
  if (stmt.find("*/") != stmt.size() - 2) return std::nullopt;
  std::size_t end = at;
  while (end < stmt.size() && end - at < 6 && stmt[end] >= '0' && stmt[end] <= '9') ++end;
  if (end - at != 5 && end - at != 6) return std::nullopt;  // no version: always run
  return stmt.substr(0, end);
}

// The body of a statement of the writer's own inside a versioned comment ("/*!50700 SET ...*/",
// "/*M!100001 SET ...*/"), or the statement itself; nullopt for a comment that is not one.
std::optional<std::string_view> setting_body(std::string_view stmt) {
  if (!stmt.starts_with("/*")) return stmt;
  const std::size_t space = stmt.find(' ');
  if (space == std::string_view::npos || !stmt.ends_with("*/")) return std::nullopt;
  return stmt.substr(space + 1, stmt.size() - space - 3);
}

// The session variable that a statement of the writer's own sets, when setting it from a
// constant is all the statement does ("SET @@session.x=1", also in a versioned comment, with
// more assignments after it; "use `db`"): the text up to its first '=' (the whole `use`).
// Not a GTID that changes with every transaction (gtid_seq_no, GTID_NEXT: the server resets
// them at each commit), nor one that reads a variable. (gtid_domain_id stays as set.)
std::optional<std::string_view> session_setting(std::string_view stmt) {
  const auto body = setting_body(stmt);
  if (!body) return std::nullopt;
  if (body->starts_with("use ")) return stmt;
  if (!body->starts_with("SET @@session.") || body->find("=@") != std::string_view::npos)
    return std::nullopt;
  if ((body->find("gtid") != std::string_view::npos ||
       body->find("GTID") != std::string_view::npos) &&
      (!body->starts_with("SET @@session.gtid_domain_id=") ||
       body->find(',') != std::string_view::npos))
    return std::nullopt;
  const std::size_t eq = stmt.find('=');
  if (eq == std::string_view::npos) return std::nullopt;
  return stmt.substr(0, eq);
}

// A statement of the writer's own that sets the next transaction's GTID from a constant
// (MariaDB's gtid_seq_no, MySQL's GTID_NEXT) and nothing else.
bool sets_next_gtid(std::string_view stmt) {
  const auto body = setting_body(stmt);
  if (!body) return false;
  const std::size_t eq = body->find('=');
  if (eq == std::string_view::npos) return false;
  const std::string_view name = body->substr(0, eq), value = body->substr(eq + 1);
  return (name == "SET @@session.gtid_seq_no" || name == "SET @@SESSION.GTID_NEXT") &&
         value.find_first_of(",@;") == std::string_view::npos;
}

// MariaDB's gtid_seq_no of a unit, set by a statement of the writer's own.
bool sets_maria_seq_no(std::string_view stmt) {
  if (!sets_next_gtid(stmt)) return false;
  const auto body = setting_body(stmt);
  return body && body->starts_with("SET @@session.gtid_seq_no=");
}

// A statement of the log's own text that controls the transaction only (SAVEPOINT, ROLLBACK
// [TO], RELEASE SAVEPOINT, XA, BEGIN, COMMIT), one statement: it leaves the session's variables
// as they are. (Taken for one that may change them, each made a parallel replay send every
// setting again: a SAVEPOINT-heavy log cost the target 4.4 SETs more per transaction, its CPU
// nearly twice serial replay's.)
bool controls_transaction(std::string_view stmt) {
  if (stmt.find(';') != std::string_view::npos) return false;
  return starts_with_ci(stmt, "SAVEPOINT ") || starts_with_ci(stmt, "ROLLBACK") ||
         starts_with_ci(stmt, "RELEASE SAVEPOINT ") || starts_with_ci(stmt, "XA ") ||
         is_plain_begin(stmt) || is_commit(stmt);
}

// Statements of the writer's (and replay's) own that leave the session's variables as they
// are (but for the GTID of the next transaction, and the workers' lock wait).
bool keeps_session(std::string_view stmt) {
  return starts_with_ci(stmt, "BINLOG") || controls_transaction(stmt) ||
         starts_with_ci(stmt, "REPLACE INTO ") || starts_with_ci(stmt, "SET TIMESTAMP=") ||
         sets_next_gtid(stmt) || starts_with_ci(stmt, "SET SESSION innodb_lock_wait_timeout = ");
}

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

// A statement that changes rows (the log's own text, or a BINLOG statement of row events).
bool logs_group(const SqlItem& item) {
  return item.kind == SqlItem::Kind::kStatement &&
         (item.verbatim || binlog_base64(item.text).has_value());
}

// The statement's first line, shortened, for messages.
std::string snippet(std::string_view stmt) {
  std::string_view s = stmt.substr(0, stmt.find('\n'));
  std::string out(s.substr(0, 60));
  if (s.size() > 60 || s.size() < stmt.size()) out += "...";
  return out;
}

}  // namespace

// ---- BINLOG fragments ----

std::optional<std::string_view> binlog_base64(std::string_view statement) {
  if (!starts_with_ci(statement, "BINLOG")) return std::nullopt;
  std::string_view rest = trim(statement.substr(6));
  if (rest.size() < 2 || rest.front() != '\'' || rest.back() != '\'') return std::nullopt;
  rest = rest.substr(1, rest.size() - 2);
  if (rest.find('\'') != std::string_view::npos) return std::nullopt;
  return rest;
}

std::optional<std::vector<std::string>> binlog_fragments(std::string_view base64,
                                                         std::size_t max_statement) {
  static constexpr std::string_view kSet[2] = {"SET @binlog_fragment_0='",
                                               "SET @binlog_fragment_1='"};
  const std::size_t half = (base64.size() + 1) / 2;
  if (kSet[0].size() + half + 1 > max_statement) return std::nullopt;
  std::vector<std::string> out;
  for (int k = 0; k < 2; ++k) {
    const std::string_view part = k == 0 ? base64.substr(0, half) : base64.substr(half);
    std::string s;
    s.reserve(kSet[k].size() + part.size() + 1);
    s.append(kSet[k]).append(part).push_back('\'');
    out.push_back(std::move(s));
  }
  out.emplace_back("BINLOG @binlog_fragment_0, @binlog_fragment_1");
  out.emplace_back("SET @binlog_fragment_0=NULL, @binlog_fragment_1=NULL");
  return out;
}

bool is_plain_begin(std::string_view statement) {
  statement = trim(statement);
  auto word = [&](std::string_view w) {
    return statement.size() == w.size() && starts_with_ci(statement, w);
  };
  return word("BEGIN") || word("START TRANSACTION");
}

bool is_commit(std::string_view statement) {
  statement = trim(statement);
  constexpr std::string_view kCommit = "COMMIT";
  if (statement.size() < kCommit.size()) return false;
  for (std::size_t i = 0; i < kCommit.size(); ++i)
    if (std::toupper(static_cast<unsigned char>(statement[i])) != kCommit[i]) return false;
  // COMMIT, COMMIT /* xid=.. */, COMMIT WORK; not COMMITTED or a name that starts so
  const std::string_view rest = trim(statement.substr(kCommit.size()));
  return rest.empty() || rest.substr(0, 2) == "/*" || rest == "WORK" || rest == "work";
}

std::size_t Applier::max_statement() const {
  const std::uint64_t map = session_.max_allowed_packet();
  return map > kPacketSlack ? static_cast<std::size_t>(map - kPacketSlack) : 0;
}

void Applier::fail(const SqlItem& item, const std::string& why) {
  forget_state();
  try {
    session_.execute("ROLLBACK");
  } catch (const Error&) {  // the session may be gone; the server rolls back then
  }
  Error e(ErrorCode::kServer, item.through && item.through != item.at
                                  ? why +
                                        " (one BINLOG statement for the row events up to offset " +
                                        std::to_string(*item.through) + ")"
                                  : why);
  if (item.at) e.with_offset(*item.at);
  if (item.event_type != 0) e.with_event(std::string(binlog::event_type_name(item.event_type)));
  throw e;
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
  if (!outcome.ended_in_commit || !hooks.commit) {
    run(0, items_.size());
    return outcome;
  }
  if (hooks.commit_now && hooks.commit_now()) {
    outcome.committed_now = true;
    run(0, items_.size());
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

void Applier::run(std::size_t begin, std::size_t end) {
  batch_.clear();
  batch_items_.clear();
  const std::size_t limit = max_statement();
  for (std::size_t k = begin; k < end; ++k) {
    SqlItem& item = items_[k];
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
    // answers as if the packet ended there, and drops the rest).
    if (item.verbatim || starts_with_ci(item.text, "BINLOG")) flush_batch();
  }
  flush_batch();
}

void Applier::flush_batch() {
  if (batch_items_.empty()) return;
  statements_ += batch_items_.size();
  ++round_trips_;
  if (batch_items_.size() == 1) {
    const SqlItem& item = *batch_items_.front();
    batch_items_.clear();
    batch_.clear();  // (else the next packet of several would start with it again)
    try {
      session_.execute(item.text);
    } catch (const Error& e) {
      fail(item, std::string(e.what()) + " in: " + snippet(item.text));
    }
    logged_ = logged_ || logs_group(item);
    return;
  }
  std::size_t done = 0;
  try {
    session_.multi_statements(true);
    session_.execute_batch(batch_, done);
    if (done != batch_items_.size())
      throw Error(ErrorCode::kServer, "the server ran " + std::to_string(done) + " of the " +
                                          std::to_string(batch_items_.size()) +
                                          " statements sent in one packet");
  } catch (const Error& e) {
    const SqlItem& item = *batch_items_[std::min(done, batch_items_.size() - 1)];
    batch_items_.clear();
    fail(item, std::string(e.what()) + " in: " + snippet(item.text));
  }
  for (const SqlItem* item : batch_items_) logged_ = logged_ || logs_group(*item);
  batch_.clear();
  batch_items_.clear();
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

// (The session settings a parallel replay's unit sends are not sent again after one: a log with
// a DDL every few transactions sent nine more SETs with each.)
bool is_table_ddl(std::string_view stmt) {
  static constexpr std::string_view kTableDdl[] = {"CREATE TABLE ",
                                                   "CREATE TEMPORARY TABLE ",
                                                   "CREATE OR REPLACE TABLE ",
                                                   "DROP TABLE ",
                                                   "DROP TEMPORARY TABLE ",
                                                   "ALTER TABLE ",
                                                   "CREATE INDEX ",
                                                   "CREATE UNIQUE INDEX ",
                                                   "DROP INDEX ",
                                                   "TRUNCATE TABLE ",
                                                   "RENAME TABLE "};
  if (stmt.find(';') != std::string_view::npos) return false;
  if (std::none_of(std::begin(kTableDdl), std::end(kTableDdl),
                   [&](std::string_view p) { return starts_with_ci(stmt, p); }))
    return false;
  return !contains_ci(stmt, "SELECT");
}

bool contains_ci(std::string_view s, std::string_view word) {
  for (std::size_t i = 0; i + word.size() <= s.size(); ++i)
    if (starts_with_ci(s.substr(i), word)) return true;
  return false;
}

}  // namespace binrecover::recovery
