// What a plan says: its commands, as text and as JSON.
#include <algorithm>
#include <iterator>

#include "recovery/emit/event_list.h"
#include "recovery/reading/local_time.h"
#include "recovery/recover/plan.h"
#include "recovery/sql/event_info.h"

namespace binrecover::recovery {

namespace {

std::string shell_quote(const std::string& s) {
  if (!s.empty() &&
      s.find_first_not_of(
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

std::size_t file_index(const Plan& plan, const std::string& name) {
  for (std::size_t i = 0; i < plan.files.size(); ++i)
    if (plan.files[i].display_name == name) return i;
  return plan.files.size();
}

struct Stop {
  std::string file;
  std::uint64_t pos;
};

// binrecover -D [--start-position] [filters] [--skip-event...] [--stop-position] FILES | mysql
std::string command(const Plan& plan, const PlanOptions& opts, const std::optional<Stop>& stop,
                    const Damage* skip) {
  std::string cmd = "binrecover";
  for (const auto& a : opts.command_prefix) cmd += " " + shell_quote(a);
  cmd += " -D";
  if (plan.start.position) cmd += " --start-position=" + std::to_string(*plan.start.position);
  if (!plan.start.maria_gtids.empty())
    cmd += " " + shell_quote("--start-position=" + plan.start.maria_gtids);
  bool excluded = false;  // the backup's GTIDs join the --exclude-gtids given
  for (const auto& a : opts.filter_args) {
    if (!plan.start.mysql_gtids.empty() && a.rfind("--exclude-gtids=", 0) == 0) {
      cmd += " " + shell_quote(a + "," + plan.start.mysql_gtids);
      excluded = true;
    } else {
      cmd += " " + shell_quote(a);
    }
  }
  if (!plan.start.mysql_gtids.empty() && !excluded)
    cmd += " " + shell_quote("--exclude-gtids=" + plan.start.mysql_gtids);
  const std::size_t stop_file = stop ? file_index(plan, stop->file) : plan.files.size();
  // The transactions --skip-event left out, where the command still reads them.
  for (const auto& [f, p] : plan.skipped) {
    const std::size_t fi = file_index(plan, f);
    if (stop && (fi > stop_file || (fi == stop_file && p >= stop->pos))) continue;
    cmd += " --skip-event=" + shell_quote(f + ":" + std::to_string(p));
  }
  if (skip != nullptr)
    cmd += " --skip-event=" + shell_quote(skip->file + ":" + std::to_string(skip->pos));
  std::size_t last = plan.files.size();
  if (stop) {
    cmd += " --stop-position=" + std::to_string(stop->pos);
    last = std::min(stop_file + 1, plan.files.size());
  } else if (opts.stop_position) {
    cmd += " --stop-position=" + std::to_string(*opts.stop_position);
  }
  for (std::size_t i = 0; i < last; ++i) cmd += " " + shell_quote(plan.files[i].path);
  return cmd + " | mysql";
}

std::string start_text(const Plan& plan) {
  std::string s = plan.files.front().display_name;
  if (plan.start.position) s += ":" + std::to_string(*plan.start.position);
  return s;
}

std::string damage_label(const Damage& d) {
  std::string s = std::string(severity_name(d.severity));
  if (d.routine()) s += ", routine (" + std::to_string(d.repeats) + " alike in the range)";
  if (!d.allowed_by.empty()) s += ", allowed by --allow=" + d.allowed_by;
  return s;
}

void append_kv(fmt::memory_buffer& out, std::string_view key, std::string_view value) {
  append(out, "\"");
  append(out, key);
  append(out, "\":");
  append_json_string(out, value);
}

}  // namespace

void append_tables_json(fmt::memory_buffer& b, const std::map<std::string, TableCounts>& tables) {
  append(b, "[");
  bool first = true;
  for (const auto& [name, t] : tables) {
    if (!first) append(b, ",");
    first = false;
    append(b, "{\"table\":");
    append_json_string(b, name);
    fmt::format_to(std::back_inserter(b),
                   ",\"inserted\":{},\"updated\":{},\"deleted\":{},\"statements\":{}}}", t.inserted,
                   t.updated, t.deleted, t.statements);
  }
  append(b, "]");
}

void append_counts_json(fmt::memory_buffer& b, const RangeCounts& c) {
  fmt::format_to(std::back_inserter(b), "{{\"transactions\":{},\"tables\":", c.transactions);
  append_tables_json(b, c.tables);
  append(b, "}");
}

std::string recovery_command(const Plan& plan, const PlanOptions& opts) {
  if (!plan.incident) return command(plan, opts, std::nullopt, nullptr);
  const Damage& d = plan.damage[*plan.incident];
  return command(plan, opts, Stop{d.file, d.pos}, nullptr);
}

std::string stop_before_command(const Plan& plan, const PlanOptions& opts, std::size_t i) {
  return command(plan, opts, Stop{plan.damage[i].file, plan.damage[i].pos}, nullptr);
}

std::string skip_command(const Plan& plan, const PlanOptions& opts) {
  if (!plan.incident) return {};
  return command(plan, opts, std::nullopt, &plan.damage[*plan.incident]);
}

std::string left_out_text(const Plan& plan, std::size_t i) {
  const RangeCounts c = plan.left_out(i);
  const std::string tables = c.tables.empty() ? "" : ": " + terminal_text(counts_text(c));
  if (plan.incident && i == *plan.incident) return "";
  if (plan.incident && i > *plan.incident)
    return "stop just before it: replays the incident (#" +
           std::to_string(plan.damage[*plan.incident].number) + ") and " +
           with_commas(c.transactions) + " transaction(s) after it" + tables;
  return "stop just before it: leaves out " + with_commas(c.transactions) +
         " transaction(s) up to " + (plan.incident ? "the incident" : "the end of the binlogs") +
         tables;
}

void write_plan_text(const Plan& plan, const PlanOptions& opts, Output& out) {
  auto& b = out.buf();
  auto it = std::back_inserter(b);
  if (!plan.backup.source.empty()) {
    if (!plan.backup.file.empty())
      fmt::format_to(it, "Backup ({}): {}:{}\n", plan.backup.source,
                     terminal_text(plan.backup.file), plan.backup.position.value_or(0));
    else
      fmt::format_to(it, "Backup ({}): no binlog coordinates\n", plan.backup.source);
  }
  fmt::format_to(it, "Start: {} ({})\n", terminal_text(start_text(plan)),
                 terminal_text(plan.start.why));
  fmt::format_to(it, "Scanned from {} through {}: {} transaction(s)\n",
                 terminal_text(start_text(plan)), terminal_text(plan.files.back().display_name),
                 with_commas(plan.total.transactions));
  if (plan.damage.empty()) {
    append(b, "No destructive event found.\n\nReplay everything since the backup:\n  ");
    append(b, terminal_text(recovery_command(plan, opts)));
    append(b, "\n");
    out.flush();
    return;
  }
  fmt::format_to(it,
                 "\n{} destructive transaction(s) (certain loss: data is gone for sure; suspect: "
                 "may be a legitimate job):\n",
                 plan.damage.size());
  for (std::size_t i = 0; i < plan.damage.size(); ++i) {
    const Damage& d = plan.damage[i];
    const bool incident = plan.incident && *plan.incident == i;
    fmt::format_to(it, "  #{} {}:{}-{}  {}  {}  {}", d.number, terminal_text(d.file), d.pos,
                   d.end_pos, local_time_text(d.timestamp), d.what, terminal_text(d.target));
    if (d.rows > 0 && d.what.find("rows") == std::string::npos)
      fmt::format_to(it, " ({} rows)", with_commas(d.rows));
    if (!d.gtid.empty()) fmt::format_to(it, "  GTID {}", terminal_text(d.gtid));
    if (d.thread_id) fmt::format_to(it, "  thread {}", d.thread_id);
    append(b, incident ? "   <== the incident\n" : "\n");
    fmt::format_to(it, "      [{}] {}\n", terminal_text(damage_label(d)), terminal_text(d.why));
    if (!d.statement.empty()) {
      const std::string s = terminal_text(d.statement.substr(0, 200));
      fmt::format_to(it, "      {}{}\n", s, d.statement.size() > 200 ? " ..." : "");
    }
    if (!incident) {
      fmt::format_to(it, "      {}\n        {}\n", left_out_text(plan, i),
                     terminal_text(stop_before_command(plan, opts, i)));
    }
  }
  append(b, "\n");
  if (plan.incident) {
    const Damage& d = plan.damage[*plan.incident];
    fmt::format_to(it, "The incident: #{} {} {} at {} ({}; --incident=N chooses another).\n",
                   d.number, d.what, terminal_text(d.target), local_time_text(d.timestamp, true),
                   terminal_text(plan.incident_why));
    std::string replayed;  // certain losses before the incident that its command replays
    for (std::size_t i = 0; i < *plan.incident; ++i) {
      const Damage& e = plan.damage[i];
      if (e.severity != Severity::kCertainLoss) continue;
      replayed += (replayed.empty() ? "#" : ", #") + std::to_string(e.number) + " " + e.what + " " +
                  terminal_text(e.target) + (e.routine() ? " (routine)" : "") +
                  (e.allowed_by.empty() ? "" : " (allowed)");
    }
    if (!replayed.empty())
      fmt::format_to(it,
                     "Replayed before it, as legitimate: {} (--incident=N stops before one, "
                     "--database chooses the databases).\n",
                     replayed);
    const RangeCounts after = plan.after_incident();
    if (after.transactions > 0)
      fmt::format_to(it,
                     "After it the binlogs hold {} more transaction(s), not replayed below{}.\n",
                     with_commas(after.transactions),
                     after.tables.empty() ? "" : ": " + terminal_text(counts_text(after)));
    fmt::format_to(it, "\nRecover to just before the incident (#{}):\n  ", d.number);
    append(b, terminal_text(recovery_command(plan, opts)));
    fmt::format_to(it, "\n\nOr replay everything except the incident (#{}):\n  ", d.number);
    append(b, terminal_text(skip_command(plan, opts)));
    append(b, "\n");
  } else {
    fmt::format_to(it,
                   "No incident chosen ({}): nothing is certain to be lost; each event listed has "
                   "its own command above, --incident=N makes it the incident.\n\nReplay "
                   "everything since the backup:\n  ",
                   terminal_text(plan.incident_why));
    append(b, terminal_text(recovery_command(plan, opts)));
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
  append(b, "},\"start\":{");
  append_kv(b, "file", plan.files.front().display_name);
  if (plan.start.position)
    fmt::format_to(it, ",\"position\":{}", *plan.start.position);
  else
    append(b, ",\"position\":null");
  append(b, ",");
  append_kv(b, "why", plan.start.why);
  fmt::format_to(it, "}},\"start_position\":{},\"files\":[", plan.start.position.value_or(4));
  for (std::size_t i = 0; i < plan.files.size(); ++i) {
    if (i) append(b, ",");
    append_json_string(b, plan.files[i].path);
  }
  fmt::format_to(it, "],\"transactions\":{},\"destructive\":[", plan.total.transactions);
  for (std::size_t i = 0; i < plan.damage.size(); ++i) {
    const Damage& d = plan.damage[i];
    if (i) append(b, ",");
    fmt::format_to(it, "{{\"number\":{},", d.number);
    append_kv(b, "file", d.file);
    fmt::format_to(it, ",\"pos\":{},\"event_pos\":{},\"end_pos\":{},\"timestamp\":{},", d.pos,
                   d.event_pos, d.end_pos, d.timestamp);
    append_kv(b, "time", local_time_text(d.timestamp, true));
    append(b, ",");
    append_kv(b, "gtid", d.gtid);
    if (d.thread_id)
      fmt::format_to(it, ",\"thread_id\":{},", d.thread_id);
    else
      append(b, ",\"thread_id\":null,");
    append_kv(b, "what", d.what);
    append(b, ",");
    append_kv(b, "target", d.target);
    fmt::format_to(it, ",\"rows\":{},", d.rows);
    append_kv(b, "severity", severity_name(d.severity));
    append(b, ",");
    append_kv(b, "why", d.why);
    fmt::format_to(it, ",\"routine\":{},\"repeats\":{},", d.routine() ? "true" : "false",
                   d.repeats);
    append_kv(b, "allowed_by", d.allowed_by);
    fmt::format_to(it, ",\"incident\":{},",
                   plan.incident && *plan.incident == i ? "true" : "false");
    append_kv(b, "statement", d.statement);
    append(b, ",");
    append_kv(b, "stop_command", stop_before_command(plan, opts, i));
    append(b, ",");
    append_kv(b, "left_out_until",
              !plan.incident        ? "end"
              : i < *plan.incident  ? "incident"
              : i == *plan.incident ? ""
                                    : "after_incident");
    append(b, ",\"left_out\":");
    append_counts_json(b, plan.left_out(i));
    append(b, "}");
  }
  append(b, "],\"incident\":");
  if (plan.incident) {
    const Damage& d = plan.damage[*plan.incident];
    fmt::format_to(it, "{{\"number\":{},", d.number);
    append_kv(b, "why", plan.incident_why);
    append(b, ",\"after\":");
    append_counts_json(b, plan.after_incident());
    append(b, "}");
  } else {
    append(b, "null");
  }
  append(b, ",");
  append_kv(b, "incident_why", plan.incident_why);
  append(b, ",");
  append_kv(b, "recovery_command", recovery_command(plan, opts));
  append(b, ",");
  append_kv(b, "skip_command", skip_command(plan, opts));
  append(b, "}\n");
  out.flush();
}

}  // namespace binrecover::recovery
