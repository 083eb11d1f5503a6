#include "recovery/recover/timeline.h"

#include <algorithm>
#include <ctime>

#include "binlog/error.h"
#include "recovery/emit/event_list.h"
#include "recovery/reading/row_counter.h"
#include "recovery/reading/statement_dbs.h"
#include "recovery/sql/event_info.h"

namespace binrecover::recovery {

using binlog::Event;

void TimelineCounts::add(const TimelineCounts& o) {
  inserted += o.inserted;
  updated += o.updated;
  deleted += o.deleted;
  ddl += o.ddl;
  statements += o.statements;
}

class TimelineCollector : public WalkConsumer {
 public:
  explicit TimelineCollector(Timeline& t) : t_(t) {}

  void begin_unit(const UnitInfo& u, const binlog::FormatContext& /*ctx*/) override {
    // A transaction the input or the stop point cuts did not happen in the range.
    active_ = u.complete && !u.crosses_stop;
  }

  void event(const Event& ev, std::uint8_t /*marks*/,
             const binlog::FormatContext& /*ctx*/) override {
    if (!active_) return;
    if (const auto* tm = std::get_if<binlog::TableMap>(&ev.body)) {
      counter_.note(*tm);
    } else if (const auto* rows = std::get_if<binlog::Rows>(&ev.body)) {
      const RowCounter::Count c = counter_.count(ev, *rows);
      TimelineCounts& n = at(ev, c.table->db, c.table->table);
      (rows->kind == binlog::RowsKind::kWrite    ? n.inserted
       : rows->kind == binlog::RowsKind::kDelete ? n.deleted
                                                 : n.updated) += c.rows;
    } else if (const auto* q = std::get_if<binlog::Query>(&ev.body)) {
      if (is_transaction_control(q->query)) return;
      using A = StatementTargets::Action;
      const StatementTargets t = statement_targets(q->query);
      const bool dml = t.action == A::kInsert || t.action == A::kUpdate || t.action == A::kDelete ||
                       t.action == A::kLoad;
      const bool ddl = t.kind == StatementTargets::Kind::kDatabase || t.action == A::kCreate ||
                       t.action == A::kAlter || t.action == A::kRename ||
                       t.action == A::kDropTable || t.action == A::kDropDatabase ||
                       t.action == A::kTruncate;
      if (!dml && !ddl) return;
      std::string db_buf, table_buf;
      const std::uint8_t n = std::max<std::uint8_t>(t.count, 1);
      for (std::uint8_t k = 0; k < n; ++k) {
        const TableRef r = t.count > 0 ? t.refs[k] : TableRef{};
        const std::string db(r.db.empty() ? q->db : ident_name(r.db, db_buf));
        const std::string table(r.table.empty() ? "" : ident_name(r.table, table_buf));
        TimelineCounts& c = at(ev, db, table);
        ++(dml ? c.statements : c.ddl);
      }
    }
  }

 private:
  TimelineCounts& at(const Event& ev, const std::string& db, const std::string& table) {
    const std::string key = t_.by_table && !table.empty() ? db + "." + table : db;
    return t_.minutes[ev.header.timestamp / 60][key.empty() ? "(no database)" : key];
  }

  Timeline& t_;
  RowCounter counter_;
  bool active_ = false;
};

std::unique_ptr<WalkConsumer> timeline_collector(Timeline& t) {
  return std::make_unique<TimelineCollector>(t);
}

std::uint32_t timeline_bucket_seconds(const Timeline& t, std::uint32_t seconds) {
  if (seconds != 0) return seconds;
  std::uint32_t first = 0, last = 0;
  if (!t.minutes.empty()) {
    first = t.minutes.begin()->first * 60;
    last = t.minutes.rbegin()->first * 60;
  }
  for (const Damage& d : t.damage) {
    if (first == 0 || d.timestamp < first) first = d.timestamp;
    last = std::max(last, d.timestamp);
  }
  const std::uint32_t span = last - first;
  if (span <= 3 * 3600) return 60;
  if (span <= 86400) return 600;
  if (span <= 10 * 86400) return 3600;
  return 86400;
}

std::vector<TimelineBucket> timeline_buckets(const Timeline& t, std::uint32_t seconds) {
  std::vector<TimelineBucket> out;
  const std::uint32_t step = timeline_bucket_seconds(t, seconds);
  std::uint32_t first = UINT32_MAX, last = 0;
  for (const auto& [minute, keys] : t.minutes) {
    first = std::min(first, minute * 60);
    last = std::max(last, minute * 60);
  }
  for (const Damage& d : t.damage) {
    first = std::min(first, d.timestamp);
    last = std::max(last, d.timestamp);
  }
  if (first > last) return out;
  // Buckets start at multiples of the step in local time (an hour starts at :00 wherever).
  std::tm tm{};
  const std::time_t f = first;
  localtime_r(&f, &tm);
  const std::int64_t offset = tm.tm_gmtoff;
  auto bucket_of = [&](std::uint32_t ts) {
    const std::int64_t local = static_cast<std::int64_t>(ts) + offset;
    return static_cast<std::uint32_t>(local - local % step - offset);
  };
  const std::uint32_t b0 = bucket_of(first), b1 = bucket_of(last);
  // (every bucket of the range is held: a bucket of a second over a year of log is refused)
  constexpr std::uint32_t kMaxBuckets = 20000;
  if ((b1 - b0) / step + 1 > kMaxBuckets)
    throw Error(ErrorCode::kUsage, "--bucket=" + std::to_string(step) + " makes " +
                                       std::to_string((b1 - b0) / step + 1) +
                                       " buckets of this range; at most " +
                                       std::to_string(kMaxBuckets) + ": a larger --bucket");
  out.resize((b1 - b0) / step + 1);
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i].start = b0 + static_cast<std::uint32_t>(i) * step;
  for (const auto& [minute, keys] : t.minutes) {
    TimelineBucket& b = out[(bucket_of(minute * 60) - b0) / step];
    for (const auto& [key, c] : keys) {
      b.keys[key].add(c);
      b.total.add(c);
    }
  }
  return out;
}

namespace {

std::string clock_text(std::uint32_t ts, const char* format) {
  std::time_t t = ts;
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

std::string step_text(std::uint32_t s) {
  if (s % 86400 == 0) return s == 86400 ? "day" : std::to_string(s / 86400) + " days";
  if (s % 3600 == 0) return s == 3600 ? "hour" : std::to_string(s / 3600) + " hours";
  if (s % 60 == 0) return s == 60 ? "minute" : std::to_string(s / 60) + " minutes";
  return std::to_string(s) + " seconds";
}

// "ins 700, upd 100, del 12, 1 DDL, 3 statements"
std::string counts_text(const TimelineCounts& c) {
  std::string s;
  auto add = [&](std::uint64_t n, const char* what, bool before) {
    if (n == 0) return;
    if (!s.empty()) s += ", ";
    s += before ? std::string(what) + " " + std::to_string(n) : std::to_string(n) + " " + what;
  };
  add(c.inserted, "ins", true);
  add(c.updated, "upd", true);
  add(c.deleted, "del", true);
  add(c.ddl, "DDL", false);
  add(c.statements, c.statements == 1 ? "statement" : "statements", false);
  return s;
}

std::string damage_line(const Damage& d) {
  std::string s = "!! " + clock_text(d.timestamp, "%Y-%m-%d %H:%M:%S") + "  " + d.what;
  if (!d.target.empty()) s += " " + terminal_text(d.target);
  s += "  at " + terminal_text(d.file) + ":" + std::to_string(d.pos) + "-" +
       std::to_string(d.end_pos);
  if (!d.gtid.empty()) s += "  GTID " + terminal_text(d.gtid);
  return s;
}

// Text for HTML (recovery/text/escape.h).
void html(fmt::memory_buffer& b, std::string_view text) { append_html_text(b, text); }

}  // namespace

void write_timeline_text(const Timeline& t, std::uint32_t seconds, Output& out) {
  auto& b = out.buf();
  auto it = std::back_inserter(b);
  const std::uint32_t step = timeline_bucket_seconds(t, seconds);
  const std::vector<TimelineBucket> buckets = timeline_buckets(t, step);
  if (buckets.empty()) {
    append(b, "Timeline: no change in the range.\n");
    out.flush();
    return;
  }
  std::uint64_t max_rows = 1;
  std::size_t key_w = 8;
  for (const TimelineBucket& bk : buckets)
    for (const auto& [key, c] : bk.keys) {
      max_rows = std::max(max_rows, c.rows());
      key_w = std::max(key_w, key.size());
    }
  fmt::format_to(it,
                 "Timeline per {}, by {}: # inserted, = updated, - deleted rows (a bar of 40 is "
                 "{} rows); D DDL, S statement-format DML; !! destructive\n",
                 step_text(step), t.by_table ? "table" : "database", max_rows);
  constexpr std::size_t kWidth = 40;
  std::size_t next_damage = 0;
  std::vector<const Damage*> damage;
  for (const Damage& d : t.damage) damage.push_back(&d);
  std::stable_sort(damage.begin(), damage.end(),
                   [](const Damage* a, const Damage* c) { return a->timestamp < c->timestamp; });
  bool gap = false;
  for (const TimelineBucket& bk : buckets) {
    const bool has_damage =
        next_damage < damage.size() && damage[next_damage]->timestamp < bk.start + step;
    if (bk.keys.empty() && !has_damage) {
      gap = true;
      continue;
    }
    if (gap) append(b, "                  ...\n");
    gap = false;
    bool first = true;
    for (const auto& [key, c] : bk.keys) {
      std::string bar;
      auto chars = [&](std::uint64_t n, char ch) {
        if (n == 0) return;
        const std::size_t k =
            std::max<std::size_t>(1, static_cast<std::size_t>(n * kWidth / max_rows));
        bar.append(k, ch);
      };
      chars(c.inserted, '#');
      chars(c.updated, '=');
      chars(c.deleted, '-');
      bar.append(static_cast<std::size_t>(std::min<std::uint64_t>(c.ddl, 5)), 'D');
      bar.append(static_cast<std::size_t>(std::min<std::uint64_t>(c.statements, 5)), 'S');
      fmt::format_to(it, "{:<16}  {:<{}}  {:<{}}  {}\n",
                     first ? clock_text(bk.start, "%Y-%m-%d %H:%M") : "", terminal_text(key), key_w,
                     bar, kWidth + 10, counts_text(c));
      first = false;
    }
    while (next_damage < damage.size() && damage[next_damage]->timestamp < bk.start + step)
      fmt::format_to(it, "{}\n", damage_line(*damage[next_damage++]));
  }
  out.flush();
}

namespace {

// The page's head, style and title, and the table of facts.
void html_head(fmt::memory_buffer& b, const HtmlPage& page) {
  append(b,
         "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"generator\" content=\"binrecover\">\n<title>");
  html(b, page.title);
  append(b,
         "</title>\n<style>\n"
         "body{font-family:sans-serif;margin:24px;color:#222}\n"
         "h1{font-size:20px}h2{font-size:16px;margin-top:28px}\n"
         "table{border-collapse:collapse;font-size:13px}\n"
         "td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}\n"
         "pre{background:#f4f4f4;padding:10px;white-space:pre-wrap;word-break:break-all}\n"
         ".ins{fill:#3a9d5d}.upd{fill:#e0a030}.del{fill:#c0392b}.ddl{fill:#5b5bd6}\n"
         ".damage line{stroke:#d00;stroke-width:2}.damage text{fill:#d00;font-size:12px;"
         "font-weight:bold}\n"
         ".axis{stroke:#888}.label{font-size:11px;fill:#555}\n"
         ".legend span{display:inline-block;width:12px;height:12px;margin:0 4px 0 14px}\n"
         "</style>\n</head>\n<body>\n<h1>");
  html(b, page.title);
  append(b, "</h1>\n<table class=\"facts\">\n");
  for (const auto& [label, value] : page.facts) {
    append(b, "<tr><th>");
    html(b, label);
    append(b, "</th><td>");
    html(b, value);
    append(b, "</td></tr>\n");
  }
}

// The chart: stacked rows per bucket, DDL as a dot, destructive events as red lines; its legend.
void html_chart(fmt::memory_buffer& b, const Timeline& t, std::uint32_t step,
                const std::vector<TimelineBucket>& buckets) {
  auto it = std::back_inserter(b);
  constexpr int kW = 1000, kH = 320, kLeft = 60, kRight = 20, kTop = 40, kBottom = 50;
  const int plot_w = kW - kLeft - kRight, plot_h = kH - kTop - kBottom;
  std::uint64_t max_rows = 1;
  for (const TimelineBucket& bk : buckets) max_rows = std::max(max_rows, bk.total.rows());
  const std::size_t n = std::max<std::size_t>(buckets.size(), 1);
  const double bw = static_cast<double>(plot_w) / static_cast<double>(n);
  fmt::format_to(it,
                 "<svg id=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" "
                 "height=\"{1}\" viewBox=\"0 0 {0} {1}\" role=\"img\" "
                 "aria-label=\"changes over time\">\n",
                 kW, kH);
  fmt::format_to(it,
                 "<line class=\"axis\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>\n"
                 "<line class=\"axis\" x1=\"{0}\" y1=\"{3}\" x2=\"{0}\" y2=\"{1}\"/>\n"
                 "<text class=\"label\" x=\"{4}\" y=\"{5}\" text-anchor=\"end\">{6}</text>\n"
                 "<text class=\"label\" x=\"{4}\" y=\"{1}\" text-anchor=\"end\">0</text>\n",
                 kLeft, kTop + plot_h, kLeft + plot_w, kTop, kLeft - 6, kTop + 4, max_rows);
  const std::size_t label_every = std::max<std::size_t>(1, n / 10);
  for (std::size_t i = 0; i < buckets.size(); ++i) {
    const TimelineBucket& bk = buckets[i];
    const double x = kLeft + bw * static_cast<double>(i);
    double y = kTop + plot_h;
    const double w = std::max(1.0, bw - 1.0);
    for (const auto& [count, cls] :
         {std::pair{bk.total.inserted, "ins"}, std::pair{bk.total.updated, "upd"},
          std::pair{bk.total.deleted, "del"}}) {
      if (count == 0) continue;
      const double h =
          std::max(1.0, static_cast<double>(count) * plot_h / static_cast<double>(max_rows));
      y -= h;
      fmt::format_to(it,
                     "<rect class=\"{}\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" "
                     "height=\"{:.1f}\"><title>",
                     cls, x, y, w, h);
      html(b, clock_text(bk.start, "%Y-%m-%d %H:%M") + ": " + counts_text(bk.total));
      append(b, "</title></rect>\n");
    }
    if (bk.total.ddl > 0) {
      fmt::format_to(it, "<circle class=\"ddl\" cx=\"{:.1f}\" cy=\"{}\" r=\"4\"><title>", x + w / 2,
                     kTop + plot_h - 6);
      html(b,
           clock_text(bk.start, "%Y-%m-%d %H:%M") + ": " + std::to_string(bk.total.ddl) + " DDL");
      append(b, "</title></circle>\n");
    }
    if (i % label_every == 0) {
      fmt::format_to(it, "<text class=\"label\" x=\"{:.1f}\" y=\"{}\">", x, kTop + plot_h + 16);
      html(b, clock_text(bk.start, step >= 86400 ? "%m-%d" : "%H:%M"));
      append(b, "</text>\n");
    }
  }
  if (!buckets.empty()) {
    fmt::format_to(it, "<text class=\"label\" x=\"{}\" y=\"{}\">", kLeft, kTop + plot_h + 34);
    html(b, clock_text(buckets.front().start, "%Y-%m-%d") + " (" +
                clock_text(buckets.front().start, "%Z") + ")");
    append(b, "</text>\n");
  }
  const std::uint32_t t0 = buckets.empty() ? 0 : buckets.front().start;
  const double span = static_cast<double>(n) * step;
  for (std::size_t i = 0; i < t.damage.size(); ++i) {
    const Damage& d = t.damage[i];
    const double x = kLeft + plot_w * (static_cast<double>(d.timestamp - t0) / std::max(span, 1.0));
    fmt::format_to(it, "<g class=\"damage\" id=\"damage-{}\" data-pos=\"", i);
    html(b, d.file + ":" + std::to_string(d.pos));
    append(b, "\" data-gtid=\"");
    html(b, d.gtid);
    fmt::format_to(it,
                   "\"><line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\"/>"
                   "<text x=\"{3:.1f}\" y=\"{4}\" text-anchor=\"{5}\">",
                   x, kTop - 8, kTop + plot_h, x + (x > kW / 2.0 ? -4 : 4),
                   kTop - 12 + 14 * static_cast<int>(i % 3), x > kW / 2.0 ? "end" : "start");
    html(b, d.what + (d.target.empty() ? "" : " " + d.target));
    append(b, "</text><title>");
    html(b, damage_line(d));
    append(b, "</title></g>\n");
  }
  append(b,
         "</svg>\n<p class=\"legend\"><span style=\"background:#3a9d5d\"></span>inserted"
         "<span style=\"background:#e0a030\"></span>updated<span "
         "style=\"background:#c0392b\"></span>deleted<span style=\"background:#5b5bd6;"
         "border-radius:6px\"></span>DDL<span style=\"background:#d00;width:3px\"></span>"
         "destructive</p>\n");
}

// The destructive events as a table.
void html_damage(fmt::memory_buffer& b, const Timeline& t) {
  auto it = std::back_inserter(b);
  append(b, "<h2>Destructive events</h2>\n");
  if (t.damage.empty()) {
    append(b, "<p>None found.</p>\n");
  } else {
    append(b,
           "<table id=\"damage\">\n<tr><th>time</th><th>what</th><th>where</th><th>file:position"
           "</th><th>GTID</th><th>thread</th><th>statement</th></tr>\n");
    for (const Damage& d : t.damage) {
      append(b, "<tr><td>");
      html(b, clock_text(d.timestamp, "%Y-%m-%d %H:%M:%S"));
      append(b, "</td><td>");
      html(b, d.what);
      append(b, "</td><td>");
      html(b, d.target);
      append(b, "</td><td>");
      html(b, d.file + ":" + std::to_string(d.pos) + "-" + std::to_string(d.end_pos));
      append(b, "</td><td>");
      html(b, d.gtid);
      fmt::format_to(it, "</td><td>{}</td><td><code>", d.thread_id);
      html(b, d.statement.substr(0, 300) + (d.statement.size() > 300 ? " ..." : ""));
      append(b, "</code></td></tr>\n");
    }
    append(b, "</table>\n");
  }
}

// Rows changed per database (or table) over the whole range.
void html_totals(fmt::memory_buffer& b, const Timeline& t) {
  auto it = std::back_inserter(b);
  std::map<std::string, TimelineCounts> totals;
  for (const auto& [minute, keys] : t.minutes)
    for (const auto& [key, c] : keys) totals[key].add(c);
  fmt::format_to(it,
                 "<h2>By {}</h2>\n<table id=\"totals\">\n<tr><th>{}</th><th>inserted</th>"
                 "<th>updated</th><th>deleted</th><th>DDL</th><th>statements</th></tr>\n",
                 t.by_table ? "table" : "database", t.by_table ? "table" : "database");
  for (const auto& [key, c] : totals) {
    append(b, "<tr><td>");
    html(b, key);
    fmt::format_to(it, "</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                   c.inserted, c.updated, c.deleted, c.ddl, c.statements);
  }
}

}  // namespace

void write_timeline_html(const Timeline& t, std::uint32_t seconds, const HtmlPage& page,
                         Output& out) {
  auto& b = out.buf();
  const std::uint32_t step = timeline_bucket_seconds(t, seconds);
  const std::vector<TimelineBucket> buckets = timeline_buckets(t, step);
  html_head(b, page);
  append(b, "</table>\n<h2>Changes over time</h2>\n");
  fmt::format_to(std::back_inserter(b),
                 "<p>Per {}, rows changed (all {}s) and DDL; destructive events in red.</p>\n",
                 step_text(step), t.by_table ? "table" : "database");
  html_chart(b, t, step, buckets);
  html_damage(b, t);
  for (const auto& [what, command] : page.commands) {
    append(b, "<h2>");
    html(b, what);
    append(b, "</h2>\n<pre>");
    html(b, command);
    append(b, "</pre>\n");
  }
  html_totals(b, t);
  append(b, "</table>\n</body>\n</html>\n");
  out.flush();
}

}  // namespace binrecover::recovery
