// binrecover replay: apply to a server, one transaction at a time, resumable.
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "cli/commands.h"
#include "recovery/apply/replay.h"
#include "recovery/apply/server_applier.h"
#include "recovery/sql/schema.h"
#include "recovery/storage/private_file.h"
#include "recovery/text/escape.h"

namespace binrecover::cli {

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
    fmt::format_to(std::back_inserter(out.buf()),
                   "{{\"transactions\":{},\"events\":{},\"workers\":{},\"max_busy\":{},"
                   "\"parallel\":{},\"alone\":{},\"held_whole\":{},\"retries\":{},\"merged\":{},"
                   "\"merged_into\":{},\"seconds\":{:.3f},\"rate\":{:.1f}}}\n",
                   r.transactions_applied, r.events_applied, r.workers, r.max_busy,
                   r.parallel_units, r.barriers, r.held_whole, r.retries, r.merged_transactions,
                   r.merged_groups, r.seconds,
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

}  // namespace binrecover::cli
