#include "recovery/filter.h"

#include <algorithm>

#include "recovery/statement_dbs.h"

namespace binrecover::recovery {

using binlog::Event;
using binlog::EventType;

bool skip_requested(const FilterOptions& opts, const Transaction& txn, const std::string& file) {
  for (const auto& [f, pos] : opts.skip_positions) {
    if (!f.empty() && f != file) continue;
    for (const Event& ev : txn.events)
      if (ev.pos == pos) return true;
  }
  if (!opts.skip_gtids.empty()) {
    const std::string gtid = transaction_gtid(txn);
    for (const auto& g : opts.skip_gtids)
      if (g == gtid) return true;
  }
  return false;
}

ContentFilter::ContentFilter(const FilterOptions& opts)
    : dbs_(opts.databases), tables_(opts.tables) {
  for (const auto& [db, table] : tables_)
    if (std::find(dbs_.begin(), dbs_.end(), db) == dbs_.end()) dbs_.push_back(db);
  active_ = !dbs_.empty();
}

bool ContentFilter::keep_database(std::string_view db) const {
  if (!active_) return true;
  return std::find(dbs_.begin(), dbs_.end(), db) != dbs_.end();
}

bool ContentFilter::keep_table(std::string_view db, std::string_view table) const {
  if (!active_) return true;
  if (!keep_database(db)) return false;
  bool db_narrowed = false;
  for (const auto& [tdb, tt] : tables_) {
    if (tdb != db) continue;
    db_narrowed = true;
    if (tt == table) return true;
  }
  return !db_narrowed;
}

bool ContentFilter::keep_query(const binlog::Query& q) const {
  if (!active_) return true;
  const binlog::QueryStatus& st = q.status;
  const StatementTargets targets = statement_targets(q.query);
  if (targets.overflow) return true;
  switch (targets.kind) {
    case StatementTargets::Kind::kDatabase: {
      const std::string_view db = targets.refs[0].db.empty() ? q.db : targets.refs[0].db;
      return keep_database(db);
    }
    case StatementTargets::Kind::kTables:
      for (std::uint8_t i = 0; i < targets.count; ++i) {
        const TableRef& r = targets.refs[i];
        if (keep_table(r.db.empty() ? q.db : r.db, r.table)) return true;
      }
      return false;
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

bool ContentFilter::table_id_kept(std::uint64_t id) const {
  for (auto it = maps_.rbegin(); it != maps_.rend(); ++it)
    if (it->id == id) return it->keep;
  return !active_;
}

std::optional<bool> ContentFilter::load_file_kept(std::uint32_t file_id) const {
  for (auto it = load_files_.rbegin(); it != load_files_.rend(); ++it)
    if (it->first == file_id) return it->second;
  return std::nullopt;
}

bool ContentFilter::select(const Transaction& txn, std::vector<char>& keep) {
  const auto& evs = txn.events;
  keep.assign(evs.size(), 1);
  if (!active_) return true;
  maps_.clear();
  bool any = false;
  // Pass 1: statements, table maps and rows decide for themselves.
  for (std::size_t i = 0; i < evs.size(); ++i) {
    const Event& ev = evs[i];
    if (const auto* q = std::get_if<binlog::Query>(&ev.body)) {
      if (is_begin(q->query) || is_commit_or_rollback(q->query)) continue;
      keep[i] = keep_query(*q);
      any |= keep[i] != 0;
    } else if (const auto* tm = std::get_if<binlog::TableMap>(&ev.body)) {
      keep[i] = keep_table(tm->db, tm->table);
      maps_.push_back({tm->table_id, keep[i] != 0});
    } else if (const auto* rows = std::get_if<binlog::Rows>(&ev.body)) {
      keep[i] = table_id_kept(rows->table_id);
      any |= keep[i] != 0;
    } else if (const auto* load = std::get_if<binlog::LoadData>(&ev.body)) {
      keep[i] = keep_table(load->db, load->table);  // 4.x LOAD DATA names its table
      any |= keep[i] != 0;
      std::erase_if(load_files_, [&](const auto& f) { return f.first == load->file_id; });
      if (load_files_.size() >= 64) load_files_.erase(load_files_.begin());
      load_files_.emplace_back(load->file_id, keep[i] != 0);
    } else if (const auto* ref = std::get_if<binlog::LoadFileRef>(&ev.body)) {
      // EXEC_LOAD / DELETE_FILE follow the CREATE_FILE of their file (unknown: not kept)
      keep[i] = load_file_kept(ref->file_id).value_or(false);
      any |= keep[i] != 0;
    } else if (const auto* block = std::get_if<binlog::LoadBlock>(&ev.body)) {
      if (ev.type() == binlog::EventType::kBeginLoadQuery)  // 5.0+: a new file under this id
        std::erase_if(load_files_, [&](const auto& f) { return f.first == block->file_id; });
      else if (const auto k = load_file_kept(block->file_id))
        keep[i] = *k;
    }
  }
  // Pass 2: context events follow what they belong to.
  for (std::size_t i = evs.size(); i-- > 0;) {
    const EventType t = evs[i].type();
    const auto* block = std::get_if<binlog::LoadBlock>(&evs[i].body);
    if (t == EventType::kAppendBlock && block != nullptr && load_file_kept(block->file_id))
      continue;  // a 4.x block: decided by its CREATE_FILE in pass 1
    if (t == EventType::kIntvar || t == EventType::kRand || t == EventType::kUserVar ||
        t == EventType::kBeginLoadQuery || t == EventType::kAppendBlock) {
      // belongs to the next query event (or 4.x EXEC_LOAD)
      std::size_t j = i + 1;
      while (j < evs.size() && !std::holds_alternative<binlog::Query>(evs[j].body) &&
             !std::holds_alternative<binlog::LoadFileRef>(evs[j].body))
        ++j;
      keep[i] = j < evs.size() ? keep[j] : 0;
    } else if (t == EventType::kMariaAnnotateRows || t == EventType::kRowsQuery) {
      // belongs to the rows events up to the next annotation or statement
      bool used = false;
      for (std::size_t j = i + 1; j < evs.size(); ++j) {
        if (std::holds_alternative<binlog::Rows>(evs[j].body)) {
          used |= keep[j] != 0;
        } else if (!std::holds_alternative<binlog::TableMap>(evs[j].body)) {
          break;
        }
      }
      keep[i] = used;
    }
  }
  if (!any) return false;
  for (std::size_t i = 0; i < evs.size(); ++i) {
    const EventType t = evs[i].type();
    const auto* q = std::get_if<binlog::Query>(&evs[i].body);
    if (t == EventType::kGtid || t == EventType::kAnonymousGtid || t == EventType::kMariaGtid ||
        t == EventType::kGtidTagged || t == EventType::kXid || t == EventType::kXaPrepare ||
        (q != nullptr && (is_begin(q->query) || is_commit_or_rollback(q->query))))
      keep[i] = 1;
  }
  return true;
}

}  // namespace binrecover::recovery
