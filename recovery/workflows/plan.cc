#include "recovery/workflows/plan.h"

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <map>

#include "binlog/error.h"
#include "binlog/maria_compression.h"
#include "binlog/payload.h"
#include "binlog/row_layout.h"
#include "recovery/reading/row_counter.h"
#include "recovery/reading/statement_dbs.h"
#include "recovery/reading/walker.h"
#include "recovery/sql/event_info.h"
#include "recovery/workflows/event_table.h"

namespace binrecover::recovery {

using binlog::Event;
using binlog::EventType;

namespace {

// "mysql-bin.000023" -> 23 (nullopt without a numeric extension).
std::optional<std::uint64_t> sequence_number(const std::string& name) {
  const auto dot = name.rfind('.');
  if (dot == std::string::npos || dot + 1 == name.size()) return std::nullopt;
  std::uint64_t n = 0;
  for (std::size_t i = dot + 1; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return std::nullopt;
    n = n * 10 + static_cast<std::uint64_t>(name[i] - '0');
  }
  return n;
}

std::string shell_quote(const std::string& s) {
  if (s.find_first_not_of(
          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:=,+@") ==
      std::string::npos)
    return s;
  std::string out = "'";
  for (char c : s) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

std::string time_text(std::uint32_t ts) {
  std::time_t t = ts;
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

std::string action_text(StatementTargets::Action a, bool has_where) {
  using A = StatementTargets::Action;
  switch (a) {
    case A::kDropDatabase:
      return "DROP DATABASE";
    case A::kDropTable:
      return "DROP TABLE";
    case A::kTruncate:
      return "TRUNCATE";
    case A::kDelete:
      return has_where ? "" : "DELETE without WHERE";
    case A::kUpdate:
      return has_where ? "" : "UPDATE without WHERE";
    default:
      return "";
  }
}

// Rows deleted or rewritten per table within one transaction.
struct TableCount {
  std::string db, table;
  std::uint64_t deleted = 0, updated = 0;
  std::uint64_t first_pos = 0;
  std::uint32_t first_timestamp = 0;
};

// Finds the destructive transactions among the units the reading path hands over (the filters
// have already left out what is not asked for).
class DamageFinder : public WalkConsumer {
 public:
  DamageFinder(const PlanOptions& opts, std::vector<Damage>& out) : opts_(opts), out_(out) {}

  bool wants_gtid() const override { return true; }

  void begin_unit(const UnitInfo& u, const binlog::FormatContext& /*ctx*/) override {
    active_ = u.kind == UnitKind::kTransaction && u.complete;
    found_.reset();
    counts_.clear();
    annotation_.clear();
    thread_id_ = 0;
  }

  void event(const Event& ev, std::uint8_t /*marks*/,
             const binlog::FormatContext& /*ctx*/) override {
    if (!active_ || found_) return;
    if (const auto* q = std::get_if<binlog::Query>(&ev.body)) {
      thread_id_ = q->thread_id;
      if (is_transaction_control(q->query)) return;
      const StatementTargets t = statement_targets(q->query);
      const std::string what = action_text(t.action, t.has_where);
      if (what.empty()) return;
      Damage d = base(ev.pos, ev.header.timestamp);
      d.what = what;
      d.statement.assign(q->query);
      if (t.count > 0) {
        const TableRef& r = t.refs[0];
        std::string db_buf, table_buf;
        const std::string_view db = r.db.empty() ? q->db : ident_name(r.db, db_buf);
        d.target = t.kind == StatementTargets::Kind::kDatabase
                       ? std::string(db)
                       : std::string(db) + "." + std::string(ident_name(r.table, table_buf));
      }
      found_ = std::move(d);
    } else if (const auto* rq = std::get_if<binlog::RowsQuery>(&ev.body)) {
      annotation_.assign(rq->query);
    } else if (const auto* tm = std::get_if<binlog::TableMap>(&ev.body)) {
      counter_.note(*tm);
    } else if (const auto* rows = std::get_if<binlog::Rows>(&ev.body)) {
      if (rows->kind == binlog::RowsKind::kWrite) return;
      const RowCounter::Count n = counter_.count(ev, *rows);
      TableCount& c = count_for(n.table->db, n.table->table, ev.pos, ev.header.timestamp);
      (rows->kind == binlog::RowsKind::kDelete ? c.deleted : c.updated) += n.rows;
    }
  }

  void end_unit(const UnitInfo& u) override {
    if (!active_) return;
    if (!found_) {
      for (const TableCount& c : counts_) {
        for (const auto& [n, verb] :
             {std::pair{c.deleted, "DELETE"}, std::pair{c.updated, "UPDATE"}}) {
          if (n < opts_.rows_threshold || found_) continue;
          Damage d = base(c.first_pos, c.first_timestamp);
          d.what = std::string(verb) + " of " + std::to_string(n) + " rows";
          d.target = c.db + "." + c.table;
          d.statement = annotation_;
          found_ = std::move(d);
        }
        if (found_) break;
      }
    }
    if (!found_) return;
    found_->file = *u.file;
    found_->pos = u.first_pos;
    found_->end_pos = u.end_pos;
    found_->gtid = u.gtid;
    out_.push_back(std::move(*found_));
    found_.reset();
  }

 private:
  TableCount& count_for(const std::string& db, const std::string& table, std::uint64_t pos,
                        std::uint32_t timestamp) {
    for (TableCount& c : counts_)
      if (c.db == db && c.table == table) return c;
    counts_.push_back({db, table, 0, 0, pos, timestamp});
    return counts_.back();
  }

  Damage base(std::uint64_t event_pos, std::uint32_t timestamp) const {
    Damage d;
    d.event_pos = event_pos;
    d.timestamp = timestamp;
    d.thread_id = thread_id_;
    return d;
  }

  const PlanOptions& opts_;
  std::vector<Damage>& out_;
  bool active_ = false;
  std::optional<Damage> found_;
  RowCounter counter_;
  std::vector<TableCount> counts_;
  std::string annotation_;
  std::uint32_t thread_id_ = 0;
};

void append_kv(fmt::memory_buffer& out, std::string_view key, std::string_view value) {
  append(out, "\"");
  append(out, key);
  append(out, "\":");
  append_json_string(out, value);
}

}  // namespace

Plan make_plan(const std::vector<InputFile>& inputs, const PlanOptions& opts,
               const DecodeOptions& decode, const FilterOptions& filter,
               const binlog::WarningSink& warn, WalkConsumer* also) {
  Plan plan;
  std::size_t first = 0;
  if (opts.dump) {
    plan.backup = read_backup_coordinates(*opts.dump);
    if (plan.backup.file.empty() || !plan.backup.position)
      throw Error(ErrorCode::kUsage,
                  "the backup names no binlog file and position (GTID-only "
                  "coordinates are not supported yet)")
          .with_file(*opts.dump);
    const std::string want = std::filesystem::path(plan.backup.file).filename().string();
    auto it = std::find_if(inputs.begin(), inputs.end(),
                           [&](const InputFile& in) { return in.display_name == want; });
    if (it == inputs.end())
      throw Error(ErrorCode::kUsage,
                  "the backup's coordinates " + want + ":" + std::to_string(*plan.backup.position) +
                      " are not in any of the binlogs given (first: " +
                      inputs.front().display_name + ", last: " + inputs.back().display_name + ")")
          .with_file(*opts.dump);
    first = static_cast<std::size_t>(it - inputs.begin());
    plan.start_position = *plan.backup.position;
  } else if (opts.start_position) {
    plan.start_position = *opts.start_position;
  }
  plan.files.assign(inputs.begin() + static_cast<std::ptrdiff_t>(first), inputs.end());
  // A recovery needs every file of the chain: name the gap rather than replay around it.
  for (std::size_t i = 1; i < plan.files.size(); ++i) {
    const auto a = sequence_number(plan.files[i - 1].display_name);
    const auto b = sequence_number(plan.files[i].display_name);
    if (a && b && *b != *a + 1)
      throw Error(ErrorCode::kUsage,
                  "the binlog chain has a gap: " + plan.files[i - 1].display_name +
                      " is followed by " + plan.files[i].display_name + " (" +
                      std::to_string(*b - *a - 1) + " file(s) missing)");
  }

  DamageFinder finder(opts, plan.damage);
  WalkOptions wo;
  wo.decode = decode;
  wo.filter = filter;
  wo.filter.start_position = plan.start_position;
  if (also != nullptr) {
    TeeConsumer tee({&finder, also});
    walk(plan.files, wo, tee, warn);
  } else {
    walk(plan.files, wo, finder, warn);
  }
  return plan;
}

std::unique_ptr<WalkConsumer> damage_finder(const PlanOptions& opts, std::vector<Damage>& out) {
  return std::make_unique<DamageFinder>(opts, out);
}

std::string local_time_text(std::uint32_t ts) { return time_text(ts); }

std::string recovery_command(const Plan& plan, const PlanOptions& opts) {
  std::string cmd = "binrecover";
  for (const auto& a : opts.command_prefix) cmd += " " + shell_quote(a);
  cmd += " -D --start-position=" + std::to_string(plan.start_position);
  for (const auto& a : opts.filter_args) cmd += " " + shell_quote(a);
  std::size_t last = plan.files.size();
  if (plan.damage.empty() && opts.stop_position) {
    cmd += " --stop-position=" + std::to_string(*opts.stop_position);
  } else if (!plan.damage.empty()) {
    const Damage& d = plan.damage.front();
    cmd += " --stop-position=" + std::to_string(d.pos);
    for (std::size_t i = 0; i < plan.files.size(); ++i)
      if (plan.files[i].display_name == d.file) last = i + 1;
  }
  for (std::size_t i = 0; i < last; ++i) cmd += " " + shell_quote(plan.files[i].path);
  return cmd + " | mysql";
}

std::string skip_command(const Plan& plan, const PlanOptions& opts) {
  std::string cmd = "binrecover";
  for (const auto& a : opts.command_prefix) cmd += " " + shell_quote(a);
  cmd += " -D --start-position=" + std::to_string(plan.start_position);
  for (const auto& a : opts.filter_args) cmd += " " + shell_quote(a);
  for (const Damage& d : plan.damage)
    cmd += " --skip-event=" + shell_quote(d.file + ":" + std::to_string(d.pos));
  if (opts.stop_position) cmd += " --stop-position=" + std::to_string(*opts.stop_position);
  for (const auto& f : plan.files) cmd += " " + shell_quote(f.path);
  return cmd + " | mysql";
}

void write_plan_text(const Plan& plan, const PlanOptions& opts, Output& out) {
  auto& b = out.buf();
  auto it = std::back_inserter(b);
  if (!plan.backup.source.empty())
    fmt::format_to(it, "Backup ({}): {}:{}\n", plan.backup.source, plan.backup.file,
                   plan.backup.position.value_or(0));
  fmt::format_to(it, "Scanned from {}:{} through {}\n", plan.files.front().display_name,
                 plan.start_position, plan.files.back().display_name);
  if (plan.damage.empty()) {
    append(b, "No destructive event found.\n\nReplay everything since the backup:\n  ");
  } else {
    fmt::format_to(it, "\n{} destructive transaction(s):\n", plan.damage.size());
    for (const Damage& d : plan.damage) {
      fmt::format_to(it, "  {}:{}-{}  {}  {}  {}", d.file, d.pos, d.end_pos, time_text(d.timestamp),
                     d.what, d.target);
      if (!d.gtid.empty()) fmt::format_to(it, "  GTID {}", d.gtid);
      if (d.thread_id) fmt::format_to(it, "  thread {}", d.thread_id);
      append(b, "\n");
      if (!d.statement.empty()) {
        std::string s = d.statement.substr(0, 200);
        std::replace(s.begin(), s.end(), '\n', ' ');
        fmt::format_to(it, "      {}{}\n", s, d.statement.size() > 200 ? " ..." : "");
      }
    }
    append(b, "\nRecover to just before the first one:\n  ");
  }
  append(b, recovery_command(plan, opts));
  append(b, "\n");
  if (!plan.damage.empty()) {
    append(b, "\nOr replay everything except the destructive transactions:\n  ");
    append(b, skip_command(plan, opts));
    append(b, "\n");
  }
  out.flush();
}

void write_plan_json(const Plan& plan, const PlanOptions& opts, Output& out) {
  auto& b = out.buf();
  auto it = std::back_inserter(b);
  append(b, "{\"backup\":{");
  append_kv(b, "source", plan.backup.source);
  append(b, ",");
  append_kv(b, "file", plan.backup.file);
  fmt::format_to(it, ",\"position\":{}", plan.backup.position.value_or(0));
  append(b, ",");
  append_kv(b, "gtid",
            plan.backup.mysql_gtid_set.empty() ? plan.backup.mariadb_gtid_pos
                                               : plan.backup.mysql_gtid_set);
  fmt::format_to(it, "}},\"start_position\":{},\"files\":[", plan.start_position);
  for (std::size_t i = 0; i < plan.files.size(); ++i) {
    if (i) append(b, ",");
    append_json_string(b, plan.files[i].path);
  }
  append(b, "],\"destructive\":[");
  for (std::size_t i = 0; i < plan.damage.size(); ++i) {
    const Damage& d = plan.damage[i];
    if (i) append(b, ",");
    append(b, "{");
    append_kv(b, "file", d.file);
    fmt::format_to(it, ",\"pos\":{},\"event_pos\":{},\"end_pos\":{},\"timestamp\":{},", d.pos,
                   d.event_pos, d.end_pos, d.timestamp);
    append_kv(b, "time", time_text(d.timestamp));
    append(b, ",");
    append_kv(b, "gtid", d.gtid);
    fmt::format_to(it, ",\"thread_id\":{},", d.thread_id);
    append_kv(b, "what", d.what);
    append(b, ",");
    append_kv(b, "target", d.target);
    append(b, ",");
    append_kv(b, "statement", d.statement);
    append(b, "}");
  }
  append(b, "],");
  append_kv(b, "recovery_command", recovery_command(plan, opts));
  append(b, ",");
  append_kv(b, "skip_command", plan.damage.empty() ? "" : skip_command(plan, opts));
  append(b, "}\n");
  out.flush();
}

}  // namespace binrecover::recovery
