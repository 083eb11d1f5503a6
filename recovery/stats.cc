#include "recovery/stats.h"

#include <algorithm>

#include "binlog/error.h"
#include "binlog/maria_compression.h"
#include "binlog/payload.h"
#include "binlog/row_layout.h"
#include "recovery/event_info.h"
#include "recovery/event_table.h"
#include "recovery/filter.h"
#include "recovery/statement_dbs.h"
#include "recovery/walk.h"

namespace binrecover::recovery {

using binlog::Event;

namespace {

void keep_top(std::vector<TransactionStats>& list, const TransactionStats& t, std::size_t top,
              bool by_bytes) {
  auto less = [by_bytes](const TransactionStats& a, const TransactionStats& b) {
    return by_bytes ? a.bytes > b.bytes : a.seconds > b.seconds;
  };
  if (list.size() == top && !less(t, list.back())) return;
  list.insert(std::upper_bound(list.begin(), list.end(), t, less), t);
  if (list.size() > top) list.pop_back();
}

}  // namespace

Stats collect_stats(const std::vector<InputFile>& inputs, const DecodeOptions& decode,
                    const FilterOptions& fopts, const binlog::WarningSink& warn, std::size_t top) {
  Stats st;
  ContentFilter filter(fopts);
  struct Map {
    std::string name;
    bool keep;
    std::vector<binlog::ColumnLayout> layout;
  };
  std::map<std::uint64_t, Map> maps;
  binlog::EventArena scratch;
  WalkRange range;
  range.start_position = fopts.start_position;
  range.stop_position = fopts.stop_position;
  walk_units(inputs, decode, range, warn, [&](const std::string& file, const Transaction& t) {
    for (const Event& ev : t.events) {
      ++st.events;
      ++st.event_types[std::string(binlog::event_type_name(ev.header.type))];
      if (!ev.in_payload) st.bytes += ev.raw.size();
    }
    if (t.kind != UnitKind::kTransaction || !t.complete) return true;
    TransactionStats ts;
    ts.file = file;
    ts.pos = t.first_pos();
    ts.gtid = transaction_gtid(t);
    std::uint32_t first_ts = t.events.front().header.timestamp, last_ts = first_ts;
    bool any = false;
    for (const Event& ev : t.events) {
      if (!ev.in_payload) ts.bytes += ev.raw.size();
      last_ts = std::max(last_ts, ev.header.timestamp);
      if (const auto* tm = std::get_if<binlog::TableMap>(&ev.body)) {
        maps[tm->table_id] = {std::string(tm->db) + "." + std::string(tm->table),
                              filter.keep_table(tm->db, tm->table), binlog::column_layout(*tm)};
      } else if (const auto* rows = std::get_if<binlog::Rows>(&ev.body)) {
        const auto it = maps.find(rows->table_id);
        if (it == maps.end())
          throw Error(
              ErrorCode::kMissingTableMap,
              "rows event for table id " + std::to_string(rows->table_id) + " has no table map",
              ev.pos);
        if (!it->second.keep) continue;
        binlog::Bytes data = rows->rows;
        if (rows->compressed) {
          scratch.reset();
          data = binlog::maria_uncompress(rows->rows, scratch, ev.pos);
        }
        const std::uint64_t n = binlog::count_rows(*rows, data, it->second.layout, ev.pos);
        TableStats& tsx = st.tables[it->second.name];
        (rows->kind == binlog::RowsKind::kWrite    ? tsx.inserted
         : rows->kind == binlog::RowsKind::kDelete ? tsx.deleted
                                                   : tsx.updated) += n;
        ts.rows += n;
        any = true;
      } else if (const auto* q = std::get_if<binlog::Query>(&ev.body)) {
        if (is_begin(q->query) || is_commit_or_rollback(q->query)) continue;
        if (!filter.keep_query(*q)) continue;
        any = true;
        const StatementTargets targets = statement_targets(q->query);
        for (std::uint8_t k = 0; k < targets.count; ++k) {
          const TableRef& r = targets.refs[k];
          if (targets.kind != StatementTargets::Kind::kTables ||
              targets.action == StatementTargets::Action::kOther)
            break;
          ++st.tables[std::string(r.db.empty() ? q->db : r.db) + "." + std::string(r.table)]
                .statements;
        }
      }
    }
    if (!any && filter.active()) return true;
    ts.seconds = last_ts - first_ts;
    ++st.transactions;
    st.rows += ts.rows;
    keep_top(st.largest, ts, top, true);
    keep_top(st.longest, ts, top, false);
    return true;
  });
  return st;
}

void write_stats_table(const Stats& s, Output& out) {
  auto& b = out.buf();
  auto it = std::back_inserter(b);
  fmt::format_to(it, "{} events, {} transactions, {} rows changed, {:.1f} MB\n\n", s.events,
                 s.transactions, s.rows, static_cast<double>(s.bytes) / 1e6);
  std::size_t w = 5;
  for (const auto& [name, t] : s.tables) w = std::max(w, name.size());
  fmt::format_to(it, "{:<{}}  {:>12}  {:>12}  {:>12}  {:>10}\n", "Table", w, "Inserted", "Updated",
                 "Deleted", "Statements");
  for (const auto& [name, t] : s.tables)
    fmt::format_to(it, "{:<{}}  {:>12}  {:>12}  {:>12}  {:>10}\n", name, w, t.inserted, t.updated,
                   t.deleted, t.statements);
  append(b, "\nEvents by type\n");
  for (const auto& [type, n] : s.event_types) fmt::format_to(it, "  {:<24} {:>12}\n", type, n);
  auto list = [&](const char* title, const std::vector<TransactionStats>& l) {
    fmt::format_to(it, "\n{}\n", title);
    for (const auto& t : l)
      fmt::format_to(it, "  {}:{}  {} bytes  {} s  {} rows{}{}\n", t.file, t.pos, t.bytes,
                     t.seconds, t.rows, t.gtid.empty() ? "" : "  GTID ", t.gtid);
  };
  list("Largest transactions", s.largest);
  list("Longest transactions", s.longest);
  out.flush();
}

void write_stats_json(const Stats& s, Output& out) {
  auto& b = out.buf();
  auto it = std::back_inserter(b);
  fmt::format_to(it, "{{\"events\":{},\"transactions\":{},\"rows\":{},\"bytes\":{},\"tables\":[",
                 s.events, s.transactions, s.rows, s.bytes);
  bool first = true;
  for (const auto& [name, t] : s.tables) {
    if (!first) append(b, ",");
    first = false;
    append(b, "{\"table\":");
    append_json_string(b, name);
    fmt::format_to(it, ",\"inserted\":{},\"updated\":{},\"deleted\":{},\"statements\":{}}}",
                   t.inserted, t.updated, t.deleted, t.statements);
  }
  append(b, "],\"event_types\":{");
  first = true;
  for (const auto& [type, n] : s.event_types) {
    if (!first) append(b, ",");
    first = false;
    append_json_string(b, type);
    fmt::format_to(it, ":{}", n);
  }
  append(b, "}");
  auto list = [&](const char* key, const std::vector<TransactionStats>& l) {
    fmt::format_to(it, ",\"{}\":[", key);
    for (std::size_t i = 0; i < l.size(); ++i) {
      if (i) append(b, ",");
      append(b, "{\"file\":");
      append_json_string(b, l[i].file);
      fmt::format_to(it, ",\"pos\":{},\"bytes\":{},\"seconds\":{},\"rows\":{},\"gtid\":", l[i].pos,
                     l[i].bytes, l[i].seconds, l[i].rows);
      append_json_string(b, l[i].gtid);
      append(b, "}");
    }
    append(b, "]");
  };
  list("largest", s.largest);
  list("longest", s.longest);
  append(b, "}\n");
  out.flush();
}

}  // namespace binrecover::recovery
