#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "binlog/error.h"
#include "cli/options.h"
#include "recovery/drill.h"
#include "recovery/event_table.h"
#include "recovery/flashback.h"
#include "recovery/output.h"
#include "recovery/pipeline.h"
#include "recovery/plan.h"
#include "recovery/replay.h"
#include "recovery/sql_sink.h"
#include "recovery/stats.h"

namespace {

using binrecover::Error;
using binrecover::ErrorCode;

void warn(const std::string& msg) {
  std::fprintf(stderr, "binrecover: warning: %s\n", msg.c_str());
}

// binrecover replay: connect (asking for the password when -p had none), apply, and show a
// progress line on a terminal.
int replay(binrecover::cli::Options& o) {
  using namespace binrecover;
  if (o.password_prompt) {
    const char* pw = ::getpass("Enter password: ");
    if (pw == nullptr) throw Error(ErrorCode::kUsage, "-p: cannot read a password from a terminal");
    o.connection.password = pw;
  }
  recovery::Session session(o.connection);
  const bool tty = o.progress && ::isatty(STDERR_FILENO) != 0;
  bool shown = false;
  recovery::ReplayProgressFn progress;
  if (tty) {
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    auto last = start;
    progress = [=, &shown](const recovery::ReplayProgress& p) mutable {
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
      std::fprintf(stderr, "\rbinrecover: %s:%llu, %llu events, %.1f MB%s, %.1f MB/s%s   ",
                   p.file.c_str(), static_cast<unsigned long long>(p.position),
                   static_cast<unsigned long long>(p.events), mb, total.c_str(), rate, eta.c_str());
      shown = true;
    };
  }
  recovery::ReplayResult r;
  try {
    r = recovery::run_replay(o.inputs, o.decode, o.filter, o.sql, o.replay, session, warn,
                             progress);
  } catch (...) {
    if (shown) std::fputs("\n", stderr);
    throw;
  }
  if (shown) std::fputs("\n", stderr);
  if (tty)
    std::fprintf(stderr, "binrecover: %llu transactions applied to %s%s%s\n",
                 static_cast<unsigned long long>(r.transactions_applied), session.where().c_str(),
                 r.last ? ", up to " : "",
                 r.last ? (r.last->file + ":" + std::to_string(r.last->position)).c_str() : "");
  return 0;
}

int run(const std::vector<std::string>& args) {
  using namespace binrecover;
  cli::Options o = cli::parse_options(args, ::isatty(STDIN_FILENO) != 0);
  switch (o.command) {
    case cli::Command::kHelp:
      std::fputs(o.help_text.c_str(), stdout);
      return 0;
    case cli::Command::kVersion:
      std::printf("binrecover %s\n", BINRECOVER_VERSION);
      return 0;
    case cli::Command::kReplay:
      return replay(o);
    default:
      break;
  }
  const int fd = o.result_file ? recovery::Output::open_file(*o.result_file) : STDOUT_FILENO;
  recovery::Output out(fd, o.result_file.value_or("standard output"));
  if (o.command == cli::Command::kStats) {
    const recovery::Stats st = recovery::collect_stats(o.inputs, o.decode, o.filter, warn);
    if (o.stats_json)
      recovery::write_stats_json(st, out);
    else
      recovery::write_stats_table(st, out);
    return 0;
  }
  if (o.command == cli::Command::kDrill) {
    if (o.password_prompt && o.drill.server) {
      const char* pw = ::getpass("Enter password: ");
      if (pw == nullptr)
        throw Error(ErrorCode::kUsage, "-p: cannot read a password from a terminal");
      o.drill.server->password = pw;
    }
    const recovery::DrillResult r = recovery::run_drill(o.inputs, o.drill, o.decode, warn);
    if (o.drill.report_file) {
      recovery::Output report(recovery::Output::open_file(*o.drill.report_file),
                              *o.drill.report_file);
      recovery::write_drill_report(r, o.drill, report);
    }
    out.append(recovery::drill_summary(r));
    out.flush();
    return r.passed ? 0 : 7;
  }
  if (o.command == cli::Command::kPlan) {
    const recovery::Plan plan = recovery::make_plan(o.inputs, o.plan, o.decode, warn);
    if (o.plan_json)
      recovery::write_plan_json(plan, o.plan, out);
    else
      recovery::write_plan_text(plan, o.plan, out);
    return 0;
  }
  if (o.command == cli::Command::kEvents) {
    recovery::run_event_list(o.inputs, o.decode, o.events, out, warn);
    out.flush();
    return 0;
  }
  // Column names for logs without metadata: --schema, kept current by the binlog's DDL.
  // Only the modes that write column names use it (and follow the DDL).
  if (o.schema_file && !o.flashback && !o.sql.rows_as_sql)
    throw Error(ErrorCode::kUsage, "--schema names columns for --rows-as-sql and --flashback");
  recovery::Schema schema(warn);
  if (o.schema_file) schema.load_file(*o.schema_file);
  if (o.flashback) {
    recovery::run_flashback(o.inputs, o.decode, o.filter, out, warn,
                            o.schema_file ? &schema : nullptr);
    out.flush();
    return 0;
  }
  const bool tty = o.progress && ::isatty(STDERR_FILENO) != 0;
  recovery::ProgressFn progress;
  bool progress_shown = false;
  if (tty) {
    // At most two updates a second: file, share done, MB read, rate, time left for the file.
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    auto last = start;
    std::uint64_t done_before = 0;  // bytes of the files already finished
    std::string current;
    std::uint64_t current_pos = 0;
    progress = [=, &progress_shown](const std::string& file, std::uint64_t pos,
                                    std::optional<std::uint64_t> size) mutable {
      if (file != current) {
        done_before += current_pos;
        current = file;
      }
      current_pos = pos;
      const auto now = Clock::now();
      if (now - last < std::chrono::milliseconds(500)) return;
      last = now;
      const double secs = std::chrono::duration<double>(now - start).count();
      const double mb = static_cast<double>(done_before + pos) / 1e6;
      const double rate = secs > 0 ? mb / secs : 0;
      std::string share = "", eta = "";
      if (size && *size > 0) {
        share = std::to_string(pos * 100 / *size) + "% ";
        if (rate > 0)
          eta = ", " +
                std::to_string(
                    static_cast<long long>((static_cast<double>(*size - pos) / 1e6) / rate)) +
                " s left";
      }
      std::fprintf(stderr, "\rbinrecover: %s %s%.0f MB, %.0f MB/s%s   ", file.c_str(),
                   share.c_str(), mb, rate, eta.c_str());
      progress_shown = true;
    };
  }
  recovery::SqlSink sink(out, o.sql);
  if (o.sql.rows_as_sql) sink.set_schema(&schema);  // names from the log's own CREATE TABLEs too
  try {
    recovery::run_sql(o.inputs, o.decode, o.filter, sink, warn, progress);
  } catch (...) {
    if (progress_shown) std::fputs("\n", stderr);
    try {
      out.flush();  // whole transactions and the footer: the output stays replayable
    } catch (...) {
    }
    throw;
  }
  if (progress_shown) std::fputs("\n", stderr);
  out.flush();
  if (!sink.load_dir().empty() && o.sql.local_load_dir.empty())
    std::fprintf(stderr,
                 "binrecover: note: LOAD DATA files are in %s; replay with "
                 "`mysql --local-infile=1`, then remove the folder\n",
                 sink.load_dir().c_str());
  if (o.result_file) ::close(fd);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    return run(args);
  } catch (const Error& e) {
    std::fprintf(stderr, "binrecover: %s\n", e.describe().c_str());
    return binrecover::exit_status(e.code());
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "binrecover: out of memory\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "binrecover: internal error: %s\n", e.what());
    return 1;
  }
}
