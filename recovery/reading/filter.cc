#include "recovery/reading/filter.h"

#include <algorithm>

#include "recovery/reading/gtid_set.h"
#include "recovery/reading/statement_dbs.h"

namespace binrecover::recovery {

using binlog::Event;
using binlog::EventType;

ContentFilter::ContentFilter(const FilterOptions& opts)
    : dbs_(opts.databases),
      exclude_dbs_(opts.exclude_databases),
      exclude_tables_(opts.exclude_tables),
      tables_(opts.tables),
      rewrites_(opts.rewrite_db),
      sql_types_(opts.sql_types) {
  // (a table without its database, -T NAME with no --database: that table in any database)
  for (const auto& [db, table] : tables_)
    if (!db.empty() && std::find(dbs_.begin(), dbs_.end(), db) == dbs_.end()) dbs_.push_back(db);
  narrowed_ = !dbs_.empty();
  active_ = narrowed_ || !tables_.empty() || !exclude_dbs_.empty() || !exclude_tables_.empty() ||
            sql_types_ != 0;
}

bool ContentFilter::keep_kind(binlog::RowsKind kind) const {
  if (sql_types_ == 0) return true;
  const std::uint8_t bit = kind == binlog::RowsKind::kWrite    ? FilterOptions::kSqlInsert
                           : kind == binlog::RowsKind::kDelete ? FilterOptions::kSqlDelete
                                                               : FilterOptions::kSqlUpdate;
  return (sql_types_ & bit) != 0;
}

bool ContentFilter::keep_database(std::string_view db) const {
  if (!active_) return true;
  db = rewritten_database(db, rewrites_);  // the rules name the new database
  if (std::find(exclude_dbs_.begin(), exclude_dbs_.end(), db) != exclude_dbs_.end()) return false;
  return !narrowed_ || std::find(dbs_.begin(), dbs_.end(), db) != dbs_.end();
}

bool ContentFilter::keep_table(std::string_view db, std::string_view table) const {
  if (!active_) return true;
  if (!keep_database(db)) return false;
  db = rewritten_database(db, rewrites_);
  for (const auto& [xdb, xt] : exclude_tables_)
    if (xdb == db && xt == table) return false;
  bool db_narrowed = false;
  for (const auto& [tdb, tt] : tables_) {
    if (!tdb.empty() && tdb != db) continue;
    db_narrowed = true;
    if (tt == table) return true;
  }
  return !db_narrowed;
}

bool ContentFilter::keep_query(const binlog::Query& q) const {
  if (!active_) return true;
  if (sql_types_ != 0) {  // statement-format DML of another kind
    std::uint8_t bit = 0;
    if (starts_with_keyword(q.query, "INSERT") || starts_with_keyword(q.query, "REPLACE") ||
        starts_with_keyword(q.query, "LOAD"))
      bit = FilterOptions::kSqlInsert;
    else if (starts_with_keyword(q.query, "UPDATE"))
      bit = FilterOptions::kSqlUpdate;
    else if (starts_with_keyword(q.query, "DELETE"))
      bit = FilterOptions::kSqlDelete;
    if (bit != 0 && (sql_types_ & bit) == 0) return false;
  }
  const binlog::QueryStatus& st = q.status;
  const StatementTargets targets = statement_targets(q.query);
  if (targets.overflow) return true;
  std::string db_buf, table_buf;
  switch (targets.kind) {
    case StatementTargets::Kind::kDatabase: {
      const TableRef& r = targets.refs[0];
      return keep_database(r.db.empty() ? q.db : ident_name(r.db, db_buf));
    }
    case StatementTargets::Kind::kTables:
      for (std::uint8_t i = 0; i < targets.count; ++i) {
        const TableRef& r = targets.refs[i];
        if (keep_table(r.db.empty() ? q.db : ident_name(r.db, db_buf),
                       ident_name(r.table, table_buf)))
          return true;
      }
      return false;
    case StatementTargets::Kind::kAccount:
      // MySQL names `mysql` as the database an account statement updates; the statements of
      // one account (CREATE USER, GRANT ON db.*, GRANT role, ALTER USER) follow the session's
      // database instead, all alike, as mysqlbinlog --database keeps them.
      return keep_database(q.db);
    case StatementTargets::Kind::kUnknown:
      break;
  }
  // Statements we do not parse: MySQL names the databases it changed; else the default one.
  if (st.has_updated_dbs && !st.updated_dbs_over_max && st.updated_db_count > 0) {
    for (std::uint8_t i = 0; i < st.updated_db_count; ++i)
      if (keep_database(st.updated_dbs[i])) return true;
    return false;
  }
  if (st.updated_dbs_over_max) return true;
  return keep_database(q.db);
}

std::string_view xa_statement_xid(std::string_view q) {
  if (!starts_with_keyword(q, "XA")) return {};
  std::size_t i = 0;
  for (int word = 0; word < 2; ++word) {  // "XA" and the verb
    while (i < q.size() && (q[i] == ' ' || q[i] == '\t' || q[i] == '\n' || q[i] == '\r')) ++i;
    while (i < q.size() && q[i] != ' ' && q[i] != '\t' && q[i] != '\n' && q[i] != '\r') ++i;
  }
  while (i < q.size() && (q[i] == ' ' || q[i] == '\t' || q[i] == '\n' || q[i] == '\r')) ++i;
  std::string_view rest = q.substr(i);
  // XA END ... SUSPEND, XA COMMIT ... ONE PHASE: the XID is everything before a keyword that
  // follows it; the canonical X'..',X'..',N form has no spaces.
  const auto space = rest.find_first_of(" \t\n\r;");
  if (space != std::string_view::npos) rest = rest.substr(0, space);
  return rest;
}

namespace {

std::string normalized_xid(std::string_view xid) {
  std::string out;
  for (char c : xid) {
    if (c == ' ') continue;
    out.push_back(c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c);
  }
  return out;
}

}  // namespace

bool UnitSelector::table_id_kept(std::uint64_t id) const {
  for (auto it = maps_.rbegin(); it != maps_.rend(); ++it)
    if (it->id == id) return it->keep;
  return !rules_.active();
}

std::optional<bool> UnitSelector::load_file_kept(std::uint32_t file_id) const {
  for (auto it = load_files_.rbegin(); it != load_files_.rend(); ++it)
    if (it->first == file_id) return it->second;
  return std::nullopt;
}

void UnitSelector::begin_unit() {
  marks_.clear();
  maps_.clear();
  pending_context_.clear();
  annotation_.reset();
  annotation_used_ = false;
  stmt_end_candidate_.reset();
  any_ = false;
  unit_xid_.clear();
}

void UnitSelector::resolve_context(bool keep) {
  for (const std::size_t k : pending_context_) marks_[k] = keep ? kMarkKeep : std::uint8_t{0};
  pending_context_.clear();
}

void UnitSelector::resolve_annotation() {
  if (annotation_) marks_[*annotation_] = annotation_used_ ? kMarkKeep : std::uint8_t{0};
  annotation_.reset();
  annotation_used_ = false;
}

void UnitSelector::push(const Event& ev) {
  const std::size_t i = marks_.size();
  marks_.push_back(kMarkKeep);
  if (!rules_.active()) return;
  const EventType t = ev.type();
  const auto* rows = std::get_if<binlog::Rows>(&ev.body);
  const bool is_map = t == EventType::kTableMap;
  // An annotation belongs to the rows events up to the next annotation or statement.
  if (rows == nullptr && !is_map) resolve_annotation();
  // A kept rows event without STMT_END_F needs the flag when the statement's flagged event is
  // dropped; any other event (but a table map) ends the statement.
  if (rows == nullptr && !is_map) stmt_end_candidate_.reset();

  if (const auto* q = std::get_if<binlog::Query>(&ev.body)) {
    bool keep = true;
    if (is_transaction_control(q->query)) {
      // Always with its transaction; an XA COMMIT / ROLLBACK of its own follows its XA PREPARE.
      const std::string_view xid = xa_statement_xid(q->query);
      if (!xid.empty() && (starts_with_keyword(q->query, "XA START") ||
                           starts_with_keyword(q->query, "XA BEGIN"))) {
        unit_xid_ = normalized_xid(xid);
      } else if (!xid.empty() &&
                 (starts_with_keyword(q->query, "XA COMMIT") ||
                  starts_with_keyword(q->query, "XA ROLLBACK")) &&
                 unit_xid_.empty()) {
        // The second phase of an XA transaction prepared in an earlier unit follows what the
        // filters did with that unit; one prepared before the range follows its database.
        const std::string n = normalized_xid(xid);
        const auto it =
            std::find_if(xids_.rbegin(), xids_.rend(), [&](const auto& x) { return x.first == n; });
        keep = it != xids_.rend() ? it->second : rules_.keep_query(*q);
        any_ |= keep;
      }
    } else {
      keep = rules_.keep_query(*q);
      any_ |= keep;
    }
    marks_[i] = keep ? kMarkKeep : std::uint8_t{0};
    resolve_context(keep);
  } else if (const auto* g = std::get_if<binlog::MariaGtid>(&ev.body)) {
    if (g->flags & binlog::MariaGtid::kPreparedXa) {
      fmt::memory_buffer x;
      append_xid(x, g->xa_format_id, g->xa_data, g->xa_gtrid_len, g->xa_bqual_len);
      unit_xid_ = normalized_xid(std::string_view(x.data(), x.size()));
    }
  } else if (const auto* tm = std::get_if<binlog::TableMap>(&ev.body)) {
    const bool keep = rules_.keep_table(tm->db, tm->table);
    marks_[i] = keep ? kMarkKeep : std::uint8_t{0};
    maps_.push_back({tm->table_id, keep});
  } else if (rows != nullptr) {
    const bool keep = table_id_kept(rows->table_id) && rules_.keep_kind(rows->kind);
    const bool flagged = (rows->flags & binlog::kStmtEndFlag) != 0;
    marks_[i] = keep ? kMarkKeep : std::uint8_t{0};
    any_ |= keep;
    annotation_used_ |= keep;
    if (keep) {
      stmt_end_candidate_ = flagged ? std::nullopt : std::optional<std::size_t>(i);
    } else if (flagged) {
      if (stmt_end_candidate_) marks_[*stmt_end_candidate_] |= kMarkStmtEnd;
      stmt_end_candidate_.reset();
    }
  } else if (const auto* load = std::get_if<binlog::LoadData>(&ev.body)) {
    const bool keep = rules_.keep_table(load->db, load->table);  // 4.x LOAD DATA names its table
    marks_[i] = keep ? kMarkKeep : std::uint8_t{0};
    any_ |= keep;
    std::erase_if(load_files_, [&](const auto& f) { return f.first == load->file_id; });
    if (load_files_.size() >= 64) load_files_.erase(load_files_.begin());
    load_files_.emplace_back(load->file_id, keep);
  } else if (const auto* ref = std::get_if<binlog::LoadFileRef>(&ev.body)) {
    // EXEC_LOAD / DELETE_FILE follow the CREATE_FILE of their file (unknown: not kept)
    const bool keep = load_file_kept(ref->file_id).value_or(false);
    marks_[i] = keep ? kMarkKeep : std::uint8_t{0};
    any_ |= keep;
    resolve_context(keep);
  } else if (const auto* block = std::get_if<binlog::LoadBlock>(&ev.body)) {
    if (t == EventType::kBeginLoadQuery) {  // 5.0+: a new file under this id
      std::erase_if(load_files_, [&](const auto& f) { return f.first == block->file_id; });
      pending_context_.push_back(i);
    } else if (const auto k = load_file_kept(block->file_id)) {
      marks_[i] = *k ? kMarkKeep : std::uint8_t{0};  // a 4.x block: decided by its CREATE_FILE
    } else {
      pending_context_.push_back(i);  // a 5.0 block: belongs to its EXECUTE_LOAD_QUERY
    }
  } else if (t == EventType::kIntvar || t == EventType::kRand || t == EventType::kUserVar) {
    pending_context_.push_back(i);  // belongs to the next statement
  } else if (t == EventType::kMariaAnnotateRows || t == EventType::kRowsQuery) {
    annotation_ = i;
    annotation_used_ = false;
  }
}

bool UnitSelector::finish_unit() {
  if (!rules_.active()) return true;
  resolve_annotation();
  resolve_context(false);
  if (!unit_xid_.empty()) {
    if (xids_.size() >= 1024) xids_.erase(xids_.begin());
    xids_.emplace_back(unit_xid_, any_);
  }
  return any_;
}

}  // namespace binrecover::recovery
