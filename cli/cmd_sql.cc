// binrecover [options] FILE...: SQL for `| mysql`, -v comments, plain SQL from rows
// (--rows-as-sql), or undo SQL (--flashback).
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>

#include "binlog/error.h"
#include "cli/commands.h"
#include "cli/option_values.h"
#include "recovery/emit/row_changes.h"
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

namespace {

// A name from the log as part of a file name: letters, digits, _ $ - kept, every other byte
// (a dot, a slash, a control byte, UTF-8) as %XX; never empty, never a path, never a dot name.
std::string file_part(std::string_view name) {
  std::string out;
  for (unsigned char c : name) {
    if (std::isalnum(c) != 0 || c == '_' || c == '$' || c == '-') {
      out += static_cast<char>(c);
    } else {
      static constexpr char kHex[] = "0123456789ABCDEF";
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out.empty() ? "%" : out;
}

// --split-by=table: the tables the range changes, then for each one what --table=DB.T writes,
// into a file of its own.
int split_by_table(Options& o) {
  for (const auto& in : o.inputs)
    if (in.path == "-" || in.open)
      usage_error("--split-by reads the binlogs once per table: give files, not standard input");
  const std::string& dir = *o.split_dir;
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    throw Error(ErrorCode::kIo, std::string("cannot make the folder: ") + std::strerror(errno))
        .with_file(dir);
  const auto tables = recovery::tables_changed(o.inputs, o.decode, o.filter, warn);
  if (tables.empty()) {
    warn(nothing_kept_text());
    return 0;
  }
  const char* ext = o.row_changes
                        ? (*o.row_changes == recovery::RowChangeFormat::kJsonl ? ".jsonl" : ".csv")
                    : o.flashback ? ".undo.sql"
                                  : ".sql";
  for (const auto& [db, table] : tables) {
    Options one = o;
    one.filter.tables = {{db, table}};
    one.progress = false;
    std::string name = file_part(db) + "." + file_part(table);
    if (name.size() > 200)  // (NAME_MAX): the start and a digest of the whole
      name = name.substr(0, 180) + "." + std::to_string(std::hash<std::string>{}(db + "." + table));
    const std::string path = dir + "/" + name + ext;
    with_file_output(path, one, [&](recovery::Output& out) { return write_sql(one, out); });
    std::fprintf(stderr, "binrecover: %s\n", recovery::terminal_text(path).c_str());
  }
  return 0;
}

}  // namespace

int sql_command(Options& o) {
  if (o.split_dir) return split_by_table(o);
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
