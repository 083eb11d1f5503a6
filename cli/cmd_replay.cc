// binrecover replay: apply to a server, one transaction at a time, resumable.
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "cli/commands.h"
#include "cli/option_groups.h"
#include "cli/option_groups_servers.h"
#include "cli/option_readers.h"
#include "recovery/apply/replay.h"
#include "recovery/apply/server_applier.h"
#include "recovery/sql/schema.h"
#include "recovery/storage/private_file.h"
#include "recovery/text/escape.h"

namespace binrecover::cli {

// The options of `binrecover replay`.
namespace {

Group replay_group() {
  Group grp("Replay");
  po::options_description& g = grp.d;
  add_parallel_options(g, "1");
  g.add_options()("report", po::value<std::string>(),
                  "write a JSON summary here: transactions, workers, units applied alone, "
                  "units that held a table whole, retries, transactions merged, seconds")(
      "server-applier",
      "MariaDB targets: apply with the target's own replication applier (with --parallel N "
      "its parallel applier, slave_parallel_threads=N), binrecover serving the kept "
      "transactions as its replication source; exactly once by the target's gtid_slave_pos")(
      "listen", po::value<std::string>(),
      "with --server-applier: HOST[:PORT] of this machine that the target connects to "
      "(default 127.0.0.1 and a free port, for a target on this machine)")(
      "window", po::value<std::string>(),
      "with --server-applier: MiB sent ahead of what the target has applied (default 64; "
      "its relay log holds about this much)");
  g.add_options()("state-file", po::value<std::string>(),
                  "where the end of the last applied transaction is kept (default "
                  "./binrecover-replay.state; beside it F.journal, its durable copy, and "
                  "F.lock)")("resume",
                             "continue after the state file's position; nothing is applied twice")(
      "progress-table", po::value<std::string>(),
      "what records on the target, atomically with each transaction, how far the replay got: "
      "auto (default): the target's own GTIDs when it records those of the replay (GTIDs kept, "
      "binary log on for MariaDB, gtid_mode=ON for MySQL), else the table "
      "binrecover.replay_progress; DB.TABLE: that table; none: only the state file, synced "
      "after every transaction")(
      "in-doubt", po::value<std::string>(),
      "with --resume, for a DDL or other non-transactional statement that was running when the "
      "replay stopped and that the target's GTIDs cannot settle: applied (go on after it) or "
      "not-applied (apply it)")(

      "gtids", po::value<std::string>(),
      "keep (default): apply with the original GTIDs; skip-applied: also leave out the "
      "transactions the server already has; strip: new GTIDs, as --skip-gtids")(
      "disable-log-bin,D", "SET sql_log_bin=0 in the session: the replay is not binlogged")(
      "skip-gtids", "apply without the GTIDs (as --gtids=strip)")(
      "rows-as-sql", "apply row events as INSERT/UPDATE/DELETE instead of BINLOG statements")(
      "idempotent",
      "MySQL targets: row events apply over what is there (an insert of a key that exists "
      "overwrites the row, an update or delete of a missing row is skipped; each session's "
      "rbr_exec_mode=IDEMPOTENT); refused for a MariaDB target (it has no such session "
      "setting) and with --rows-as-sql")(
      "trigger-tables", po::value<std::string>(),
      "with --rows-as-sql: sql (default, warned) or binlog: the rows of tables with triggers "
      "as BINLOG statements, which fire no trigger again")(
      "schema", po::value<std::string>(),
      "a dump's CREATE TABLE statements naming the columns for --rows-as-sql")(
      "local-load,l", po::value<std::string>(),
      "where the data of LOAD DATA statements waits while it is applied");
  return grp;
}

}  // namespace

std::vector<Group> replay_option_groups(bool for_option_files) {
  std::vector<Group> d = reading_groups();
  d.push_back(replay_group());
  d.push_back(remote_group(true));
  if (!for_option_files) d.push_back(connection_group(ConnectionFor::kReplay));
  d.push_back(misc_group());
  return d;
}

namespace {

// The progress line on a terminal: where the replay is, its rate, the time left, the workers.
recovery::ReplayProgressFn progress_line(bool& shown) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto last = start;
  return [=, &shown](const recovery::ReplayProgress& p) mutable {
    const auto now = Clock::now();
    if (now - last < std::chrono::milliseconds(500)) return;
    last = now;
    const double secs = std::chrono::duration<double>(now - start).count();
    const double mb = static_cast<double>(p.bytes_done) / 1e6;
    const double rate = secs > 0 ? mb / secs : 0;
    std::string total, eta;
    if (p.bytes_total > 0) {
      total = " of " + std::to_string(p.bytes_total / 1000000) + " MB";
      if (rate > 0 && p.bytes_total > p.bytes_done)
        eta = ", " +
              std::to_string(static_cast<long long>(
                  static_cast<double>(p.bytes_total - p.bytes_done) / 1e6 / rate)) +
              " s left";
    }
    std::string busy;
    if (p.server_applier)
      busy = ", " + std::to_string(p.in_flight) + " sent, not yet applied";
    else if (p.workers > 1)
      busy = ", " + std::to_string(p.busy) + "/" + std::to_string(p.workers) + " workers busy";
    std::fprintf(
        stderr, "\rbinrecover: %s:%llu, %llu transactions (%.0f/s), %.1f MB%s, %.1f MB/s%s%s   ",
        recovery::terminal_text(p.file).c_str(), static_cast<unsigned long long>(p.position),
        static_cast<unsigned long long>(p.transactions),
        secs > 0 ? static_cast<double>(p.transactions) / secs : 0.0, mb, total.c_str(), rate,
        eta.c_str(), busy.c_str());
    shown = true;
  };
}

// --report=FILE: the run's figures as one JSON object (a private file).
void write_report(const std::string& path, const recovery::ReplayResult& r) {
  recovery::PrivateFile file(path);
  {
    recovery::Output out(file.fd(), path);
    fmt::format_to(
        std::back_inserter(out.buf()),
        "{{\"transactions\":{},\"events\":{},\"workers\":{},\"max_busy\":{},"
        "\"sessions\":{},\"narrowed\":{},\"width_changes\":{},\"parallel\":{},\"alone\":{},\"held_"
        "whole\":{},\"retries\":{},\"pipelined\":{},"
        "\"lock_watch\":\"{}\",\"lock_watch_yields\":{},\"merged\":{},"
        "\"merged_into\":{},\"seconds\":{:.3f},\"rate\":{:.1f}}}\n",
        r.transactions_applied, r.events_applied, r.workers, r.max_busy, r.sessions, r.narrowed,
        r.width_changes, r.parallel_units, r.barriers, r.held_whole, r.retries, r.pipelined,
        r.lock_watch, r.watch_yields, r.merged_transactions, r.merged_groups, r.seconds,
        r.seconds > 0 ? static_cast<double>(r.transactions_applied) / r.seconds : 0.0);
    out.flush();
  }
  file.commit();
}

// The last line on a terminal: how many transactions went to which server, up to where.
void say_done(const recovery::ReplayResult& r, const recovery::Session& session) {
  const std::string merged = r.merged_groups == 0 ? std::string()
                                                  : " (" + std::to_string(r.merged_transactions) +
                                                        " of them merged into " +
                                                        std::to_string(r.merged_groups) + ")";
  std::fprintf(
      stderr, "binrecover: %llu transactions applied to %s%s%s%s\n",
      static_cast<unsigned long long>(r.transactions_applied), session.where().c_str(),
      r.last ? ", up to " : "",
      r.last
          ? recovery::terminal_text(r.last->file + ":" + std::to_string(r.last->position)).c_str()
          : "",
      merged.c_str());
}

}  // namespace

int replay_command(Options& o) {
  if (o.password_prompt) o.connection.password = read_password();
  recovery::Session session(o.connection);
  const bool tty = o.progress && ::isatty(STDERR_FILENO) != 0;
  bool shown = false;
  const recovery::ReplayProgressFn progress = tty ? progress_line(shown) : nullptr;
  recovery::Schema schema(warn);
  if (o.schema_file) schema.load_file(*o.schema_file);
  recovery::ReplayResult r;
  try {
    if (o.replay.server_applier)
      r = recovery::run_server_applier(o.inputs, o.decode, o.filter, o.sql.disable_log_bin,
                                       o.replay, o.connection, session, warn, progress);
    else
      r = recovery::run_replay(o.inputs, o.decode, o.filter, o.sql, o.replay, o.connection, session,
                               warn, progress, o.sql.rows_as_sql ? &schema : nullptr);
  } catch (...) {
    if (shown) std::fputs("\n", stderr);
    throw;
  }
  if (shown) std::fputs("\n", stderr);
  const bool kept_any =
      o.replay.server_applier ? r.transactions_applied > 0 : r.stats.transactions_written > 0;
  if (!kept_any && r.stats.transactions_already_applied == 0 && !o.replay.resume)
    throw Error(ErrorCode::kNotFound, "nothing was applied: " + nothing_kept_text());
  if (o.replay_report) write_report(*o.replay_report, r);
  if (tty) say_done(r, session);
  return 0;
}

// Reading the replay options (parse_options calls read_replay, cli/option_readers.h).

namespace {

// --server-applier and what goes with it (--window, --listen).
void read_server_applier(const Given& g, Options& o) {
  if (g.has("server-applier")) {
    o.replay.server_applier = true;
    // What the target's replication cannot honour: it applies the log's events as they are.
    for (const char* n :
         {"rows-as-sql", "idempotent", "skip-gtids", "progress-table", "in-doubt",
          "no-preserve-commit-order", "trigger-tables", "schema", "local-load", "rewrite-db"})
      if (g.has(n))
        usage_error(std::string("--") + n +
                    " does not apply with --server-applier (the target's replication applies "
                    "the log's events as they are, and records them in its gtid_slave_pos)");
    if (auto gm = g.text("gtids"); gm && *gm == "strip")
      usage_error(
          "--gtids=strip does not apply with --server-applier (the target's "
          "replication keeps the log's GTIDs)");
  }
  if (auto w = g.text("window")) {
    if (w->empty() || w->size() > 6 || w->find_first_not_of("0123456789") != std::string::npos ||
        std::stoul(*w) < 1 || std::stoul(*w) > 65536)
      usage_error("--window needs MiB from 1 to 65536, not '" + *w + "'");
    o.replay.window_bytes = std::uint64_t{std::stoul(*w)} << 20;
  }
  if (auto l = g.text("listen")) {
    std::string host = *l;
    if (const auto colon = host.rfind(':');
        colon != std::string::npos && host.find(':') == colon) {  // (an IPv6 address: no port)
      const std::string port = host.substr(colon + 1);
      if (port.empty() || port.size() > 5 ||
          port.find_first_not_of("0123456789") != std::string::npos || std::stoul(port) > 65535)
        usage_error("--listen needs HOST[:PORT], not '" + *l + "'");
      o.replay.listen_port = static_cast<unsigned>(std::stoul(port));
      host = host.substr(0, colon);
    }
    if (host.empty() || host.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV"
                                               "WXYZ0123456789.-:_") != std::string::npos)
      usage_error("--listen needs a host name or address of this machine, not '" + host + "'");
    o.replay.listen_host = host;
  }
}

}  // namespace

// replay's own options: report, state, resume, progress table, in-doubt, GTIDs.
void read_replay(const Given& g, Command cmd, Options& o) {
  if (cmd == Command::kReplay) {
    o.replay_report = g.text("report");
    if (auto f = g.text("state-file")) o.replay.state_file = *f;
    o.replay.resume = g.has("resume");
    o.replay.idempotent = g.has("idempotent");
    o.sql.idempotent = false;  // (the sessions' setting, not a statement of the stream)
    if (auto t = g.text("progress-table")) {
      if (*t == "none") {
        o.replay.progress_table.clear();
      } else if (*t == "auto") {
        o.replay.progress_table = "auto";
      } else {
        const auto dot = t->find('.');
        if (dot == std::string::npos || dot == 0 || dot + 1 == t->size() ||
            t->find('.', dot + 1) != std::string::npos)
          usage_error("--progress-table needs auto, none or DB.TABLE, not '" + *t + "'");
        o.replay.progress_table = *t;
      }
    }
    if (!o.replay.preserve_commit_order && o.replay.progress_table.empty())
      usage_error(
          "--no-preserve-commit-order needs the progress table (not --progress-table=none)");
    if (auto v = g.text("in-doubt")) {
      if (*v == "applied")
        o.replay.in_doubt = recovery::InDoubt::kApplied;
      else if (*v == "not-applied")
        o.replay.in_doubt = recovery::InDoubt::kNotApplied;
      else
        usage_error("--in-doubt must be applied or not-applied, not '" + *v + "'");
    }
    read_server_applier(g, o);
    if (auto gm = g.text("gtids")) {
      if (*gm == "keep")
        o.replay.gtids = recovery::GtidMode::kKeep;
      else if (*gm == "skip-applied")
        o.replay.gtids = recovery::GtidMode::kSkipApplied;
      else if (*gm == "strip")
        o.replay.gtids = recovery::GtidMode::kStrip;
      else
        usage_error("--gtids must be keep, skip-applied or strip, not '" + *gm + "'");
      if (o.sql.skip_gtids && o.replay.gtids != recovery::GtidMode::kStrip)
        usage_error("--skip-gtids contradicts --gtids=" + *gm);
    } else if (o.sql.skip_gtids) {
      o.replay.gtids = recovery::GtidMode::kStrip;
    }
  }
}

}  // namespace binrecover::cli
