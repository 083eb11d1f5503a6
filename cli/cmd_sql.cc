// binrecover [options] FILE...: SQL for `| mysql`, -v comments, plain SQL from rows
// (--rows-as-sql), or undo SQL (--flashback).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "cli/commands.h"
#include "recovery/emit/run_sql.h"
#include "recovery/recover/flashback.h"
#include "recovery/sql/output.h"
#include "recovery/sql/schema.h"
#include "recovery/sql/sql_sink.h"
#include "recovery/text/escape.h"

namespace binrecover::cli {

namespace {

// At most two updates a second on a terminal: file, share done, MB read, rate, time left.
recovery::ProgressFn progress_line(bool* shown) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto last = start;
  std::uint64_t done_before = 0;  // bytes of the files already finished
  std::string current;
  std::uint64_t current_pos = 0;
  return
      [=](const std::string& file, std::uint64_t pos, std::optional<std::uint64_t> size) mutable {
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
        std::string share, eta;
        if (size && *size > 0) {
          share = std::to_string(pos * 100 / *size) + "% ";
          if (rate > 0)
            eta = ", " +
                  std::to_string(
                      static_cast<long long>((static_cast<double>(*size - pos) / 1e6) / rate)) +
                  " s left";
        }
        std::fprintf(stderr, "\rbinrecover: %s %s%.0f MB, %.0f MB/s%s   ",
                     recovery::terminal_text(file).c_str(), share.c_str(), mb, rate, eta.c_str());
        *shown = true;
      };
}

}  // namespace

static int write_sql(Options& o, recovery::Output& out);

int sql_command(Options& o) {
  return with_output(o, [&](recovery::Output& out) { return write_sql(o, out); });
}

static int write_sql(Options& o, recovery::Output& out) {
  // Column names for logs without metadata: --schema, kept current by the binlog's DDL.
  recovery::Schema schema(warn);
  if (o.schema_file) schema.load_file(*o.schema_file);
  if (o.row_changes) {
    bool shown = false;
    recovery::ProgressFn progress;
    if (o.progress && ::isatty(STDERR_FILENO) != 0) progress = progress_line(&shown);
    const recovery::RunStats stats = recovery::write_row_changes(
        o.inputs, o.decode, o.filter, &schema, *o.row_changes, out, warn, progress);
    if (shown) std::fputs("\n", stderr);
    if (stats.transactions_written == 0) warn(nothing_kept_text());
    return 0;
  }
  if (o.flashback) {
    const recovery::RunStats stats =
        recovery::run_flashback(o.inputs, o.decode, o.filter, out, warn, &schema);
    out.flush();
    if (stats.transactions_written == 0) warn(nothing_kept_text());
    return 0;
  }
  bool shown = false;
  recovery::ProgressFn progress;
  if (o.progress && ::isatty(STDERR_FILENO) != 0) progress = progress_line(&shown);
  recovery::SqlSink sink(out, o.sql);
  if (o.follow)  // -R --stop-never: each transaction reaches the pipe as it comes
    sink.set_unit_hook([&out](const recovery::UnitInfo&) { out.flush(); });
  if (o.sql.rows_as_sql) sink.set_schema(&schema);  // names from the log's own CREATE TABLEs too
  recovery::RunStats stats;
  try {
    stats = recovery::run_sql(o.inputs, o.decode, o.filter, sink, warn, progress);
  } catch (...) {
    if (shown) std::fputs("\n", stderr);
    try {
      out.flush();  // whole transactions and the footer: the output stays replayable
    } catch (...) {
    }
    throw;
  }
  if (shown) std::fputs("\n", stderr);
  out.flush();
  if (stats.transactions_written == 0 && !o.follow) warn(nothing_kept_text());
  if (!sink.load_dir().empty())
    std::fprintf(stderr,
                 "binrecover: note: LOAD DATA files are in %s; replay with "
                 "`mysql --local-infile=1`, then remove the folder\n",
                 sink.load_dir().c_str());
  return 0;
}

}  // namespace binrecover::cli
