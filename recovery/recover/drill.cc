#include "recovery/recover/drill.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "binlog/error.h"
#include "recovery/apply/replay.h"
#include "recovery/apply/server_applier.h"
#include "recovery/emit/event_list.h"
#include "recovery/reading/local_time.h"
#include "recovery/recover/backup_text.h"
#include "recovery/recover/drill_server.h"
#include "recovery/server/programs.h"
#include "recovery/sql/event_info.h"
#include "recovery/sql/sql_quote.h"
#include "recovery/storage/private_file.h"

namespace binrecover::recovery {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Where the replay starts and stops: the plan's start, the stop asked for, or just before the
// plan's incident (the last inputs read then end at its file). Fills the result's start, stop
// point and incident; returns the step's words.
std::string choose_range(const Plan& plan, const DrillOptions& opts, FilterOptions& filter,
                         std::vector<InputFile>& replay_inputs, DrillResult& r) {
  filter.start_position = plan.start.position;
  // (a backup that names GTIDs only: its own transactions left out by GTID, as plan's commands)
  if (!plan.start.mysql_gtids.empty()) filter.exclude_gtids.add_mysql_set(plan.start.mysql_gtids);
  if (!plan.start.maria_gtids.empty())
    filter.exclude_gtids.add_maria_position(plan.start.maria_gtids);
  replay_inputs = plan.files;
  r.start = plan.files.front().display_name +
            (plan.start.position ? ":" + std::to_string(*plan.start.position) : "") + " (" +
            plan.start.why + ")";
  if (filter.stop_position) {
    r.stop_file = replay_inputs.back().display_name;
    r.stop_pos = *filter.stop_position;
    r.target = "position " + std::to_string(*filter.stop_position) + " of " + r.stop_file;
  } else if (filter.stop_gtid) {
    r.stop_gtid = *filter.stop_gtid;
    r.target = "the transaction with GTID " + *filter.stop_gtid;
  } else if (filter.stop_datetime) {
    r.stop_time = static_cast<std::time_t>(*filter.stop_datetime);
    r.target = "the first event at or after " + local_time_text(r.stop_time, true);
  } else if (!opts.to_end && plan.incident) {
    const Damage& d = plan.damage[*plan.incident];
    filter.stop_position = d.pos;
    while (!replay_inputs.empty() && replay_inputs.back().display_name != d.file)
      replay_inputs.pop_back();
    r.stop_file = d.file;
    r.stop_pos = d.pos;
    r.stop_gtid = d.gtid;
    r.stop_time = d.timestamp;
    r.incident = "#" + std::to_string(d.number) + " " + d.what + " " + d.target + " (" +
                 std::string(severity_name(d.severity)) + "; " + plan.incident_why + ")";
    r.left_out = plan.after_incident();
    r.target = "the incident " + r.incident + " at " + d.file + ":" + std::to_string(d.pos) +
               (d.gtid.empty() ? "" : " (GTID " + d.gtid + ")") + ", " +
               local_time_text(d.timestamp, true);
  } else {
    r.target = "the end of the binlogs";
    if (!opts.to_end && !plan.damage.empty())
      r.target += " (no incident: " + plan.incident_why + ")";
  }
  return "from " + r.start + " to just before " + r.target;
}

// Every table of the chosen databases (the replay's progress table, database binrecover, left
// out): rows and CHECKSUM TABLE, compared with --expect, written to --write-expect.
std::string verify_tables(const ThrowawayServer& server, const DrillOptions& opts, DrillResult& r) {
  // (binrecover: the replay's progress table)
  std::string where =
      "table_type = 'BASE TABLE' AND table_schema NOT IN ('mysql', 'information_schema', "
      "'performance_schema', 'sys', 'binrecover')";
  if (!opts.plan.databases.empty()) {
    where += " AND table_schema IN (";
    for (std::size_t i = 0; i < opts.plan.databases.size(); ++i)
      where += (i ? "," : "") + quoted_string(opts.plan.databases[i]);
    where += ")";
  }
  std::string list;
  if (server.query("SELECT table_schema, table_name FROM information_schema.tables WHERE " + where +
                       " ORDER BY 1, 2",
                   &list) != 0)
    throw Error(ErrorCode::kServer, "listing the tables failed: " + last_lines(list, 3));
  std::istringstream lines(list);
  std::string script;
  std::vector<std::string> names;
  for (std::string line; std::getline(lines, line);) {
    const auto tab = line.find('\t');
    if (tab == std::string::npos) continue;
    const std::string q =
        quoted_ident(line.substr(0, tab)) + "." + quoted_ident(line.substr(tab + 1));
    names.push_back(line.substr(0, tab) + "." + line.substr(tab + 1));
    script += "SELECT COUNT(*) FROM " + q + "; CHECKSUM TABLE " + q + ";\n";
  }
  std::string values;
  if (!script.empty() && server.query(script, &values) != 0)
    throw Error(ErrorCode::kServer, "checking the tables failed: " + last_lines(values, 3));
  std::istringstream vs(values);
  for (const auto& name : names) {
    TableResult t;
    t.table = name;
    std::string count, checksum_line;
    std::getline(vs, count);
    std::getline(vs, checksum_line);
    t.rows = std::strtoull(count.c_str(), nullptr, 10);
    const auto tab = checksum_line.rfind('\t');
    t.checksum = tab == std::string::npos ? checksum_line : checksum_line.substr(tab + 1);
    r.tables.push_back(t);
  }
  if (opts.expect_file) {
    std::ifstream in(*opts.expect_file);
    if (!in) throw Error(ErrorCode::kIo, "cannot read " + *opts.expect_file);
    std::vector<std::string> seen;
    std::size_t mismatches = 0;
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream f(line);
      std::string table, rows, checksum;
      std::getline(f, table, '\t');
      std::getline(f, rows, '\t');
      std::getline(f, checksum, '\t');
      table = tsv_field(table);
      seen.push_back(table);
      auto it = std::find_if(r.tables.begin(), r.tables.end(),
                             [&](const TableResult& t) { return t.table == table; });
      if (it == r.tables.end()) {
        TableResult missing;
        missing.table = table;
        missing.ok = false;
        missing.expected_rows = std::strtoull(rows.c_str(), nullptr, 10);
        missing.expected_checksum = checksum;
        r.tables.push_back(missing);
        ++mismatches;
        continue;
      }
      it->expected_rows = std::strtoull(rows.c_str(), nullptr, 10);
      it->expected_checksum = checksum;
      it->ok = it->rows == *it->expected_rows && (checksum.empty() || checksum == it->checksum);
      if (!it->ok) ++mismatches;
    }
    for (auto& t : r.tables)
      if (std::find(seen.begin(), seen.end(), t.table) == seen.end()) {
        t.ok = false;  // a table the expectation does not know
        ++mismatches;
      }
    if (mismatches > 0)
      throw Error(ErrorCode::kServer,
                  std::to_string(mismatches) + " table(s) differ from " + *opts.expect_file);
  }
  if (opts.write_expect_file) {
    // (a table's name as the mysql client's batch mode writes it: no byte of it ends a field)
    fmt::memory_buffer text;
    fmt::format_to(std::back_inserter(text), "# table\trows\tchecksum (binrecover drill)\n");
    for (const auto& t : r.tables) {
      append_tsv_field(text, t.table);
      fmt::format_to(std::back_inserter(text), "\t{}\t{}\n", t.rows, t.checksum);
    }
    write_private_file(*opts.write_expect_file, std::string_view(text.data(), text.size()));
  }
  return std::to_string(r.tables.size()) + " tables";
}

}  // namespace

DrillResult run_drill(const std::vector<InputFile>& inputs, const DrillOptions& opts,
                      const DecodeOptions& decode, const binlog::WarningSink& warn) {
  DrillResult r;
  auto step = [&](const std::string& name, auto&& fn) {
    const auto t = Clock::now();
    DrillStep s{name, 0, true, {}};
    try {
      s.detail = fn();
    } catch (const Error& e) {
      s.ok = false;
      s.detail = e.describe();
    } catch (const std::exception& e) {
      s.ok = false;
      s.detail = e.what();
    }
    s.seconds = since(t);
    r.steps.push_back(s);
    if (!s.ok && r.error.empty()) r.error = name + ": " + s.detail;
    return s.ok;
  };

  // 0. A backup the drill cannot restore (the mysql client restores SQL dumps) is refused
  // before anything starts.
  PlanOptions plan_opts = opts.plan;
  {
    const BackupCoordinates& b =
        *(plan_opts.backup = read_backup_coordinates(*opts.plan.dump, true));
    if (b.source != "mysqldump")
      throw Error(ErrorCode::kUsage,
                  *opts.plan.dump + " is a " + b.source +
                      " backup: drill restores SQL dumps (mysqldump / mariadb-dump) with the "
                      "mysql client; restore this one on a server of your own, then apply the "
                      "binlogs with the command `binrecover plan` prints (or binrecover replay)");
  }

  // 1. Where to start (the backup) and where to stop (before the incident, or as asked). A bad
  // option or target is an error of the command (exit 2) before any server starts.
  Plan plan;
  FilterOptions filter = opts.filter;
  std::vector<InputFile> replay_inputs;
  try {
    plan = make_plan(inputs, plan_opts, decode, opts.filter, warn);
  } catch (const Error& e) {
    if (e.code() == ErrorCode::kUsage || e.code() == ErrorCode::kNotFound) throw;
    r.steps.push_back({"plan", 0, false, e.describe()});
    r.error = "plan: " + e.describe();
    return r;
  }
  const bool nothing = plan.total.transactions == 0;  // (PlanOptions::allow_empty)
  if (nothing) {
    r.start = plan.start.why;
    r.target = "the point (no transaction after the backup's coordinates before it)";
    r.steps.push_back({"plan", 0, true, "nothing to replay after the backup"});
  } else {
    step("plan", [&] { return choose_range(plan, opts, filter, replay_inputs, r); });
  }

  ThrowawayServer server(opts);
  SignalWatch watch([&server] { server.abandon(); });
  if (!step("start server", [&]() -> std::string {
        server.start();
        if (opts.server) return std::string("the given server");
        return server.binary() + " as " + server.account() + ", socket " + server.socket() +
               " only (no TCP), data in " + server.dir();
      }))
    return r;
  if (!step("restore backup", [&]() -> std::string {
        std::string err;
        if (server.source_file(*opts.plan.dump, &err) != 0)
          throw Error(ErrorCode::kServer, "the client failed to load the backup: " + err);
        return *opts.plan.dump;
      }))
    return r;
  // The target's own applier starts after the backup's GTIDs (as a replica seeded from this
  // dump would be told), not after what an earlier run left in its gtid_slave_pos.
  const std::string& seed = plan_opts.backup->mariadb_gtid_pos;
  if (opts.server_applier && !nothing && coords::is_mariadb_gtid_list(seed) &&
      !step("set gtid_slave_pos", [&]() -> std::string {
        std::string out;
        if (server.query("SET GLOBAL gtid_slave_pos = '" + seed + "'", &out) != 0)
          throw Error(ErrorCode::kServer, "SET GLOBAL gtid_slave_pos failed: " + out);
        return seed + " (the backup's)";
      }))
    return r;
  if (!step("replay binlogs", [&]() -> std::string {
        if (nothing) return std::string("nothing after the backup");
        // The replay engine, as `binrecover replay --parallel N` (its state and progress on
        // the drill server, which has no binary log: the progress table).
        const ConnectionOptions conn = server.connection();
        Session session(conn);
        ReplayOptions ro;
        ro.state_file = server.dir() + "/replay.state";
        ro.parallel = opts.parallel;
        ro.preserve_commit_order = opts.preserve_commit_order;
        ro.server_applier = opts.server_applier;
        ro.merge_transactions = opts.merge_transactions;
        const ReplayResult rr =
            opts.server_applier
                ? run_server_applier(replay_inputs, decode, filter, false, ro, conn, session, warn)
                : run_replay(replay_inputs, decode, filter, SqlOptions{}, ro, conn, session, warn);
        r.server_applier = opts.server_applier;
        r.replay = rr.stats;
        r.workers = rr.workers;
        r.replay_seconds = rr.seconds;
        r.replay_transactions = rr.transactions_applied;
        r.replay_barriers = rr.barriers;
        r.replay_merged = rr.merged_transactions;
        r.replay_merged_into = rr.merged_groups;
        return std::to_string(r.replay.events) + " events, " +
               std::to_string(rr.transactions_applied) + " transactions, " +
               std::to_string(rr.workers) + (rr.workers == 1 ? " worker" : " workers") +
               (opts.server_applier ? " of the server's own replication applier" : "");
      }))
    return r;

  // 4. Verify: every table of the chosen databases, rows and CHECKSUM TABLE.
  step("verify", [&] { return verify_tables(server, opts, r); });
  r.passed = r.error.empty();
  return r;
}

// (every name and text in it may come from the binlogs or a server: terminal_text() for the
// terminal)
std::string drill_summary(const DrillResult& r) {
  std::ostringstream o;
  for (const auto& s : r.steps)
    o << (s.ok ? "ok    " : "FAILED") << "  " << s.name << " (" << std::fixed
      << std::setprecision(1) << s.seconds << " s): " << terminal_text(s.detail) << "\n";
  for (const auto& t : r.tables) {
    o << (t.ok ? "  " : "! ") << terminal_text(t.table) << "  rows " << t.rows << "  checksum "
      << terminal_text(t.checksum);
    if (t.expected_rows)
      o << "  (expected rows " << *t.expected_rows << ", checksum "
        << terminal_text(t.expected_checksum) << ")";
    o << "\n";
  }
  if (!r.start.empty()) o << "start: " << terminal_text(r.start) << "\n";
  if (!r.stop_file.empty() || !r.stop_gtid.empty() || r.stop_time != 0) {
    o << "stop point: just before";
    if (!r.stop_file.empty()) o << " " << terminal_text(r.stop_file) << ":" << r.stop_pos;
    if (!r.stop_gtid.empty()) o << " (GTID " << terminal_text(r.stop_gtid) << ")";
    if (r.stop_time != 0) o << ", " << local_time_text(r.stop_time, true);
    o << "\n";
  }
  if (!r.incident.empty()) {
    o << "incident: " << terminal_text(r.incident) << "\n";
    o << "left out after it: " << with_commas(r.left_out.transactions) << " transaction(s)";
    if (!r.left_out.tables.empty()) o << ": " << terminal_text(counts_text(r.left_out));
    o << "\n";
  }
  o << (r.passed ? "PASS" : "FAIL") << ": drill " << (r.passed ? "restored" : "did not restore")
    << " the backup and replayed "
    << (r.target.empty() ? std::string("nothing (the plan failed)")
                         : "to just before " + terminal_text(r.target))
    << "\n";
  return o.str();
}

void write_drill_report(const DrillResult& r, const DrillOptions&, Output& out) {
  auto& b = out.buf();
  auto it = std::back_inserter(b);
  fmt::format_to(it, "{{\"passed\":{},\"target\":", r.passed ? "true" : "false");
  append_json_string(b, r.target);
  append(b, ",\"start\":");
  append_json_string(b, r.start);
  append(b, ",\"stop\":{\"file\":");
  append_json_string(b, r.stop_file);
  fmt::format_to(it, ",\"position\":{},\"gtid\":", r.stop_pos);
  append_json_string(b, r.stop_gtid);
  append(b, ",\"time\":");
  append_json_string(b, r.stop_time != 0 ? local_time_text(r.stop_time, true) : std::string());
  fmt::format_to(it, ",\"timestamp\":{}}},\"incident\":", static_cast<long long>(r.stop_time));
  append_json_string(b, r.incident);
  append(b, ",\"left_out\":");
  append_counts_json(b, r.left_out);
  append(b, ",\"error\":");
  append_json_string(b, r.error);
  append(b, ",\"steps\":[");
  for (std::size_t i = 0; i < r.steps.size(); ++i) {
    const auto& s = r.steps[i];
    if (i) append(b, ",");
    append(b, "{\"name\":");
    append_json_string(b, s.name);
    fmt::format_to(it, ",\"ok\":{},\"seconds\":{:.3f},\"detail\":", s.ok ? "true" : "false",
                   s.seconds);
    append_json_string(b, s.detail);
    append(b, "}");
  }
  fmt::format_to(
      it,
      "],\"replay\":{{\"events\":{},\"transactions\":{},\"bytes\":{}}},"
      "\"parallel\":{{\"workers\":{},\"applier\":\"{}\",\"seconds\":{:.3f},"
      "\"transactions\":{},\"alone\":{},\"merged\":{},\"merged_into\":{},\"rate\":{:.1f}}},"
      "\"tables\":[",
      r.replay.events, r.replay_transactions, r.replay.bytes_read, r.workers,
      r.server_applier ? "server" : "sessions", r.replay_seconds, r.replay_transactions,
      r.replay_barriers, r.replay_merged, r.replay_merged_into,
      r.replay_seconds > 0 ? static_cast<double>(r.replay_transactions) / r.replay_seconds : 0.0);
  for (std::size_t i = 0; i < r.tables.size(); ++i) {
    const auto& t = r.tables[i];
    if (i) append(b, ",");
    append(b, "{\"table\":");
    append_json_string(b, t.table);
    fmt::format_to(it, ",\"rows\":{},\"checksum\":", t.rows);
    append_json_string(b, t.checksum);
    if (t.expected_rows) {
      fmt::format_to(it, ",\"expected_rows\":{},\"expected_checksum\":", *t.expected_rows);
      append_json_string(b, t.expected_checksum);
    }
    fmt::format_to(it, ",\"ok\":{}}}", t.ok ? "true" : "false");
  }
  append(b, "]}\n");
  out.flush();
}

}  // namespace binrecover::recovery
