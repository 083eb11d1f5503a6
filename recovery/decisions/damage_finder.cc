#include "recovery/decisions/damage_finder.h"

#include "binlog/error.h"
#include "recovery/decisions/dump_rows.h"
#include "recovery/reading/sql_lexer.h"
#include "recovery/reading/statement_dbs.h"

namespace binrecover::recovery {

using binlog::Event;

namespace {

constexpr std::size_t kStatementKept = 1000;  // bytes of a statement kept for the listing

std::string cut(std::string_view s) {
  return std::string(s.size() > kStatementKept ? s.substr(0, kStatementKept) : s);
}

// Whether the statement holds the keyword at its top level or anywhere (CREATE TABLE ... SELECT,
// DROP TEMPORARY TABLE).
bool has_keyword(std::string_view sql, std::string_view kw) {
  SqlLexer lex(sql);
  for (SqlToken t = lex.next(); t.kind != SqlToken::Kind::kEnd; t = lex.next())
    if (is_keyword(t, kw)) return true;
  return false;
}

std::string db_of(const std::string& name) {
  const auto dot = name.find('.');
  return dot == std::string::npos ? name : name.substr(0, dot);
}

}  // namespace

DamageFinder::DamageFinder(DamageFinderOptions opts, std::vector<Damage>& out)
    : opts_(std::move(opts)), out_(out) {}

void DamageFinder::begin_unit(const UnitInfo& u, const binlog::FormatContext& /*ctx*/) {
  active_ = u.kind == UnitKind::kTransaction && u.complete;
  file_ = u.file;
  found_.reset();
  named_ = false;
  annotation_.clear();
  thread_id_ = 0;
  statement_rows_.clear();
  unit_ = RangeCounts{};
}

void DamageFinder::event(const Event& ev, std::uint8_t marks,
                         const binlog::FormatContext& /*ctx*/) {
  if (!active_) return;
  if (opts_.named_pos && !ev.in_payload && ev.pos == opts_.named_pos->second && file_ != nullptr &&
      *file_ == opts_.named_pos->first)
    named_ = true;
  if (const auto* q = std::get_if<binlog::Query>(&ev.body)) {
    statement(*q, ev);
  } else if (const auto* rq = std::get_if<binlog::RowsQuery>(&ev.body)) {
    end_row_statement();  // (a statement whose last rows event a filter dropped)
    annotation_.assign(rq->query);
  } else if (const auto* tm = std::get_if<binlog::TableMap>(&ev.body)) {
    counter_.note(*tm);
  } else if (const auto* r = std::get_if<binlog::Rows>(&ev.body)) {
    rows(ev, *r, (r->flags & binlog::kStmtEndFlag) != 0 || (marks & kMarkStmtEnd) != 0);
  }
}

void DamageFinder::statement(const binlog::Query& q, const Event& ev) {
  thread_id_ = q.thread_id;
  if (is_transaction_control(q.query)) return;
  end_row_statement();
  using A = StatementTargets::Action;
  const StatementTargets t = statement_targets(q.query);
  std::vector<std::string> names;
  std::string db_buf, table_buf;
  for (std::uint8_t k = 0; k < std::max<std::uint8_t>(t.count, 1); ++k) {
    const TableRef r = t.count > 0 ? t.refs[k] : TableRef{};
    const std::string db(r.db.empty() ? q.db : ident_name(r.db, db_buf));
    if (t.kind == StatementTargets::Kind::kDatabase || r.table.empty())
      names.push_back(db);
    else
      names.push_back(db + "." + std::string(ident_name(r.table, table_buf)));
  }
  // What the rows of each table are known to be from here on.
  switch (t.action) {
    case A::kInsert:
    case A::kUpdate:
    case A::kDelete:
    case A::kLoad:
      for (const auto& n : names) {
        ++unit_.tables[n].statements;
        tables_[n].unknown = true;
      }
      break;
    case A::kCreate:
      if (t.kind == StatementTargets::Kind::kTables)
        for (const auto& n : names) {
          TableRows fresh;
          fresh.from_dump = false;
          fresh.unknown = has_keyword(q.query, "SELECT");  // statement format: rows not logged
          tables_[n] = fresh;
        }
      break;
    case A::kTruncate:
      for (const auto& n : names) {
        TableRows empty;
        empty.from_dump = false;
        tables_[n] = empty;
      }
      break;
    case A::kDropTable:
    case A::kRename:
      for (const auto& n : names) tables_[n].unknown = true;
      break;
    case A::kDropDatabase:
      dropped_dbs_.insert(names.front());
      for (auto it = tables_.begin(); it != tables_.end();)
        it = db_of(it->first) == names.front() ? tables_.erase(it) : std::next(it);
      break;
    default:
      break;
  }
  Damage d = base(ev.pos, ev.header.timestamp);
  d.target = names.front();
  d.statement = cut(q.query);
  const auto certain = [&d](std::string what, const char* why) {
    d.what = std::move(what);
    d.severity = Severity::kCertainLoss;
    d.why = why;
  };
  switch (t.action) {
    case A::kDropDatabase:
      certain("DROP DATABASE", "the database and every table in it");
      break;
    case A::kDropTable:
      if (has_keyword(q.query, "TEMPORARY")) return;  // a session's own table
      certain("DROP TABLE", "the table and all its rows");
      break;
    case A::kTruncate:
      certain("TRUNCATE", "every row of the table");
      break;
    case A::kDelete:
    case A::kUpdate: {
      const std::string verb = t.action == A::kDelete ? "DELETE" : "UPDATE";
      const WhereKind wk = where_kind(q.query);
      if (wk == WhereKind::kPinned) return;
      if (wk == WhereKind::kNone) {
        certain(verb + " without WHERE", "every row of the table");
      } else {
        d.what = verb + " with a WHERE that pins no key";
        d.severity = Severity::kSuspect;
        d.why =
            "statement format: the rows it changed are not in the log, and its WHERE picks them "
            "by a range or an expression, as a batch job does";
      }
      break;
    }
    default:
      return;
  }
  consider(std::move(d));
}

void DamageFinder::rows(const Event& ev, const binlog::Rows& r, bool statement_end) {
  const RowCounter::Count c = counter_.count(ev, r);
  const std::string& name = c.table->name;
  if (statement_rows_.empty()) {
    statement_pos_ = ev.pos;
    statement_time_ = ev.header.timestamp;
  }
  StatementRows& s = statement_rows_[name];
  TableCounts& u = unit_.tables[name];
  switch (r.kind) {
    case binlog::RowsKind::kWrite:
      s.inserted += c.rows;
      u.inserted += c.rows;
      break;
    case binlog::RowsKind::kDelete:
      s.deleted += c.rows;
      u.deleted += c.rows;
      break;
    default:
      s.updated += c.rows;
      u.updated += c.rows;
      break;
  }
  if (statement_end) end_row_statement();
}

void DamageFinder::end_row_statement() {
  if (statement_rows_.empty()) {
    annotation_.clear();
    return;
  }
  using A = StatementTargets::Action;
  std::optional<StatementTargets::Action> annotated;
  if (!annotation_.empty()) annotated = statement_targets(annotation_).action;
  for (const auto& [name, s] : statement_rows_) {
    for (const bool deletes : {true, false}) {
      const std::uint64_t n = deletes ? s.deleted : s.updated;
      if (n == 0) continue;
      const std::string verb = deletes ? "DELETE" : "UPDATE";
      Damage d = base(statement_pos_, statement_time_);
      d.target = name;
      d.statement = cut(annotation_);
      d.rows = n;
      if (annotated && (*annotated == A::kDelete || *annotated == A::kUpdate)) {
        if (where_kind(annotation_) != WhereKind::kNone) continue;  // many rows: end_unit
        d.what = verb + " without WHERE";
        d.severity = Severity::kCertainLoss;
        d.why = "every row of the table (" + with_commas(n) + ")";
        consider(std::move(d));
      } else if (!annotated && n >= 2) {
        const std::optional<std::int64_t> held = table_rows(name);
        if (!held || static_cast<std::uint64_t>(*held) != n) continue;
        d.what = verb + " of all " + with_commas(n) + " rows";
        d.severity = Severity::kCertainLoss;
        d.why = "every row the table held (the dump's, and the changes since): " +
                std::string(deletes ? "a DELETE" : "an UPDATE") +
                " without WHERE (the log has no statement text)";
        consider(std::move(d));
      }
    }
    TableRows& t = tables_[name];
    t.net += static_cast<std::int64_t>(s.inserted) - static_cast<std::int64_t>(s.deleted);
  }
  statement_rows_.clear();
  annotation_.clear();
}

std::optional<std::int64_t> DamageFinder::table_rows(const std::string& name) {
  TableRows t;
  if (const auto it = tables_.find(name); it != tables_.end()) t = it->second;
  if (t.unknown) return std::nullopt;
  if (!t.from_dump) return t.base + t.net;
  if (!opts_.dump_rows || dropped_dbs_.count(db_of(name)) > 0) return std::nullopt;
  if (!dump_counted_) {
    dump_counted_ = true;
    try {
      dump_counts_ = count_dump_rows(*opts_.dump_rows);
    } catch (const Error&) {
      // (no counts: the statement is judged by its size alone)
    }
  }
  if (!dump_counts_) return std::nullopt;
  const auto it = dump_counts_->find(name);
  if (it == dump_counts_->end()) return std::nullopt;
  return static_cast<std::int64_t>(it->second) + t.net;
}

Damage DamageFinder::base(std::uint64_t event_pos, std::uint32_t timestamp) const {
  Damage d;
  d.event_pos = event_pos;
  d.timestamp = timestamp;
  d.thread_id = thread_id_;
  return d;
}

void DamageFinder::consider(Damage d) {
  // One listing per transaction: its first certain loss, else its first suspect.
  if (found_ && (found_->severity == Severity::kCertainLoss || d.severity == Severity::kSuspect))
    return;
  found_ = std::move(d);
}

void DamageFinder::end_unit(const UnitInfo& u) {
  if (!active_) return;
  end_row_statement();
  if (!found_) {
    // Many rows of one table changed in one transaction, with a WHERE or without statement text.
    for (const auto& [name, c] : unit_.tables)
      for (const auto& [n, verb] :
           {std::pair{c.deleted, "DELETE"}, std::pair{c.updated, "UPDATE"}}) {
        if (n < opts_.rows_threshold || found_) continue;
        Damage d = base(u.first_pos, u.head.timestamp);
        d.what = std::string(verb) + " of " + std::to_string(n) + " rows";
        d.target = name;
        d.rows = n;
        d.severity = Severity::kSuspect;
        d.why = with_commas(n) + " rows of the table in one transaction (--rows-threshold=" +
                std::to_string(opts_.rows_threshold) + "): a batch job looks the same";
        found_ = std::move(d);
      }
  }
  if (opts_.named_gtid && u.gtid == *opts_.named_gtid) named_ = true;
  unit_.transactions = 1;
  if (named_ && !found_) {
    Damage d = base(u.first_pos, u.head.timestamp);
    d.what = "the transaction --incident names";
    d.target = unit_.tables.empty() ? std::string() : unit_.tables.begin()->first;
    d.severity = Severity::kSuspect;
    d.why = "named with --incident";
    found_ = std::move(d);
  }
  if (found_) {
    Damage& d = *found_;
    d.named = named_;
    d.file = *u.file;
    d.pos = u.first_pos;
    d.end_pos = u.end_pos;
    d.gtid = u.gtid;
    d.before = total_;
    d.own = unit_;
    if (d.severity == Severity::kSuspect && !d.named && suspects_ >= opts_.max_suspects) {
      ++suspects_not_listed_;
    } else {
      if (d.severity == Severity::kSuspect) ++suspects_;
      out_.push_back(std::move(d));
    }
    found_.reset();
  }
  total_.add(unit_);
}

void DamageFinder::left_out(const UnitInfo& u, LeftOut why) {
  if (why == LeftOut::kSkipEvent && u.file != nullptr) skipped_.emplace_back(*u.file, u.first_pos);
}

}  // namespace binrecover::recovery
