#include "recovery/recover/stats.h"

#include <algorithm>

#include "binlog/error.h"
#include "binlog/maria_compression.h"
#include "binlog/payload.h"
#include "binlog/row_layout.h"
#include "recovery/emit/event_list.h"
#include "recovery/reading/local_time.h"
#include "recovery/reading/row_counter.h"
#include "recovery/reading/statement_dbs.h"
#include "recovery/reading/walker.h"
#include "recovery/recover/plan.h"
#include "recovery/sql/event_info.h"

namespace binrecover::recovery {

using binlog::Event;

namespace {

void keep_top(std::vector<TransactionStats>& list, const TransactionStats& t, std::size_t top,
              bool by_bytes) {
  // (the longest: by duration, then by size, as most transactions last under a second)
  auto less = [by_bytes](const TransactionStats& a, const TransactionStats& b) {
    if (by_bytes || a.seconds == b.seconds) return a.bytes > b.bytes;
    return a.seconds > b.seconds;
  };
  if (list.size() == top && !less(t, list.back())) return;
  list.insert(std::upper_bound(list.begin(), list.end(), t, less), t);
  if (list.size() > top) list.pop_back();
}

}  // namespace

namespace {

class StatsCollector : public WalkConsumer {
 public:
  StatsCollector(Stats& st, std::size_t top) : st_(st), top_(top) {}

  bool wants_gtid() const override { return true; }

  void begin_unit(const UnitInfo& u, const binlog::FormatContext& /*ctx*/) override {
    // A transaction the stop point cuts is outside the range; one the input cuts (a server that
    // stopped) is counted by its events only.
    counted_ = !(u.crosses_stop);
    whole_ = u.kind == UnitKind::kTransaction && u.complete;
    ts_ = TransactionStats{};
    ts_.file = *u.file;
    ts_.pos = u.first_pos;
    ts_.gtid = u.gtid;
    first_ts_ = last_ts_ = u.head.timestamp;
    started_ = false;
    tables_.clear();
  }

  void event(const Event& ev, std::uint8_t /*marks*/,
             const binlog::FormatContext& /*ctx*/) override {
    if (!counted_) return;
    ++st_.events;
    ++st_.event_types[std::string(binlog::event_type_name(ev.header.type))];
    if (!ev.in_payload) st_.bytes += ev.raw.size();
    if (!whole_) return;
    if (!ev.in_payload) ts_.bytes += ev.raw.size();
    last_ts_ = std::max(last_ts_, ev.header.timestamp);
    // Its start: the first statement's (a GTID event carries the commit's time).
    if (!started_ && !is_gtid_event(ev.type())) {
      first_ts_ = ev.header.timestamp;
      started_ = true;
    }
    if (const auto* g = std::get_if<binlog::Gtid>(&ev.body); g && g->immediate_commit_ts)
      last_ts_ = std::max(last_ts_, static_cast<std::uint32_t>(*g->immediate_commit_ts / 1000000));
    if (const auto* tm = std::get_if<binlog::TableMap>(&ev.body)) {
      counter_.note(*tm);
    } else if (const auto* rows = std::get_if<binlog::Rows>(&ev.body)) {
      const RowCounter::Count c = counter_.count(ev, *rows);
      const std::uint64_t n = c.rows;
      TableStats& tsx = st_.tables[c.table->name];
      add_table(c.table->name);
      (rows->kind == binlog::RowsKind::kWrite    ? tsx.inserted
       : rows->kind == binlog::RowsKind::kDelete ? tsx.deleted
                                                 : tsx.updated) += n;
      ts_.rows += n;
    } else if (const auto* q = std::get_if<binlog::Query>(&ev.body)) {
      if (is_transaction_control(q->query)) return;
      const StatementTargets targets = statement_targets(q->query);
      if (targets.kind != StatementTargets::Kind::kTables ||
          targets.action == StatementTargets::Action::kOther)
        return;
      std::string db_buf, table_buf;
      for (std::uint8_t k = 0; k < targets.count; ++k) {
        const TableRef& r = targets.refs[k];
        const std::string name = std::string(r.db.empty() ? q->db : ident_name(r.db, db_buf)) +
                                 "." + std::string(ident_name(r.table, table_buf));
        ++st_.tables[name].statements;
        add_table(name);
      }
    }
  }

  void end_unit(const UnitInfo& /*u*/) override {
    if (!whole_ || !counted_) return;
    ts_.start = std::min(first_ts_, last_ts_);
    ts_.end = last_ts_;
    ts_.seconds = ts_.end - ts_.start;
    std::sort(tables_.begin(), tables_.end());
    ts_.more_tables = static_cast<std::uint32_t>(tables_.size() > TransactionStats::kMaxTables
                                                     ? tables_.size() - TransactionStats::kMaxTables
                                                     : 0);
    tables_.resize(std::min(tables_.size(), TransactionStats::kMaxTables));
    ts_.tables = tables_;
    ++st_.transactions;
    st_.rows += ts_.rows;
    keep_top(st_.largest, ts_, top_, true);
    keep_top(st_.longest, ts_, top_, false);
  }

 private:
  Stats& st_;
  std::size_t top_;
  RowCounter counter_;
  bool counted_ = false, whole_ = false;
  void add_table(const std::string& name) {
    // (bounded: a transaction over thousands of tables keeps a few hundred names)
    if (tables_.size() < 256 && std::find(tables_.begin(), tables_.end(), name) == tables_.end())
      tables_.push_back(name);
  }

  TransactionStats ts_;
  std::uint32_t first_ts_ = 0, last_ts_ = 0;
  bool started_ = false;
  std::vector<std::string> tables_;
};

}  // namespace

Stats collect_stats(const std::vector<InputFile>& inputs, const DecodeOptions& decode,
                    const FilterOptions& filter, const binlog::WarningSink& warn, std::size_t top,
                    WalkConsumer* also) {
  Stats st;
  StatsCollector collector(st, top);
  WalkOptions wo;
  wo.decode = decode;
  wo.filter = filter;
  wo.incomplete_units = true;
  if (also != nullptr) {
    TeeConsumer tee({&collector, also});
    walk(inputs, wo, tee, warn);
  } else {
    walk(inputs, wo, collector, warn);
  }
  return st;
}

void write_stats_table(const Stats& s, Output& out) {
  auto& b = out.buf();
  auto it = std::back_inserter(b);
  fmt::format_to(it, "{} events, {} transactions, {} rows changed, {:.1f} MB\n\n", s.events,
                 s.transactions, s.rows, static_cast<double>(s.bytes) / 1e6);
  // Names from the log as terminal text: no byte of one ends a row or reaches the terminal.
  std::size_t w = 5;
  for (const auto& [name, t] : s.tables) w = std::max(w, terminal_text(name).size());
  fmt::format_to(it, "{:<{}}  {:>12}  {:>12}  {:>12}  {:>10}\n", "Table", w, "Inserted", "Updated",
                 "Deleted", "Statements");
  for (const auto& [name, t] : s.tables)
    fmt::format_to(it, "{:<{}}  {:>12}  {:>12}  {:>12}  {:>10}\n", terminal_text(name), w,
                   t.inserted, t.updated, t.deleted, t.statements);
  append(b, "\nEvents by type\n");
  for (const auto& [type, n] : s.event_types) fmt::format_to(it, "  {:<24} {:>12}\n", type, n);
  auto list = [&](const char* title, const std::vector<TransactionStats>& l) {
    fmt::format_to(it, "\n{}\n", title);
    for (const auto& t : l) {
      fmt::format_to(it, "  {}:{}  {} - {}  {} s  {} bytes  {} rows{}{}\n", terminal_text(t.file),
                     t.pos, local_time_text(t.start), local_time_text(t.end).substr(11), t.seconds,
                     t.bytes, t.rows, t.gtid.empty() ? "" : "  GTID ", terminal_text(t.gtid));
      if (t.tables.empty()) continue;
      append(b, "      tables: ");
      for (std::size_t k = 0; k < t.tables.size(); ++k)
        fmt::format_to(it, "{}{}", k ? ", " : "", terminal_text(t.tables[k]));
      if (t.more_tables) fmt::format_to(it, " and {} more", t.more_tables);
      append(b, "\n");
    }
  };
  list("Largest transactions", s.largest);
  list("Longest transactions", s.longest);
  out.flush();
}

void write_stats_json(const Stats& s, Output& out) {
  auto& b = out.buf();
  auto it = std::back_inserter(b);
  fmt::format_to(it, "{{\"events\":{},\"transactions\":{},\"rows\":{},\"bytes\":{},\"tables\":",
                 s.events, s.transactions, s.rows, s.bytes);
  append_tables_json(b, s.tables);
  append(b, ",\"event_types\":{");
  bool first = true;
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
      fmt::format_to(it,
                     ",\"pos\":{},\"bytes\":{},\"start\":{},\"end\":{},\"seconds\":{},"
                     "\"rows\":{},\"gtid\":",
                     l[i].pos, l[i].bytes, l[i].start, l[i].end, l[i].seconds, l[i].rows);
      append_json_string(b, l[i].gtid);
      append(b, ",\"tables\":[");
      for (std::size_t k = 0; k < l[i].tables.size(); ++k) {
        if (k) append(b, ",");
        append_json_string(b, l[i].tables[k]);
      }
      fmt::format_to(it, "],\"more_tables\":{}}}", l[i].more_tables);
    }
    append(b, "]");
  };
  list("largest", s.largest);
  list("longest", s.longest);
  append(b, "}\n");
  out.flush();
}

}  // namespace binrecover::recovery
