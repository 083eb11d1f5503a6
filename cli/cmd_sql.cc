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
#include "cli/option_groups.h"
#include "cli/option_groups_servers.h"
#include "cli/option_values.h"
#include "recovery/emit/row_changes.h"
#include "recovery/emit/run_sql.h"
#include "recovery/recover/flashback.h"
#include "recovery/sql/output.h"
#include "recovery/sql/schema.h"
#include "recovery/sql/sql_sink.h"
#include "recovery/text/escape.h"

namespace binrecover::cli {

// The options of SQL output (and of --help and --version alone).
namespace {

// SQL output: where it goes, and the comments it writes or leaves out.
void add_sql_output_options(po::options_description& g) {
  g.add_options()("result-file,r", po::value<std::string>(),
                  "write to this file instead of stdout (with --raw: the prefix of the copies)")(
      "split-by", po::value<std::string>(),
      "table: one file per table changed, in --output-dir, named DATABASE.TABLE and .sql, "
      ".undo.sql (--flashback), .jsonl or .csv (--format), each what --table=DATABASE.TABLE "
      "writes (the binlogs are read once more per table)")(
      "output-dir", po::value<std::string>(),
      "with --split-by: the folder for the files (made if missing, mode 0700); names from the "
      "log are encoded (any byte but letters, digits, _ $ - as %XX), files are new and "
      "private (0600)")(
      "format", po::value<std::string>(),
      "sql (default), or the row changes as data: jsonl (one JSON object per changed row: "
      "time, GTID, file, position, database, table, type, the row before and after by column "
      "name, values as JSON types) or csv (the same fields, before/after as JSON)")(
      "raw",
      "with -R: copy the server's binlogs byte for byte to files named --result-file=PREFIX "
      "plus their names, as mysqlbinlog --raw does (binrecover archive, with resume)")(
      "stop-never",
      "with -R: follow the server: wait at the end of its logs for more, go on with each new "
      "file (with --raw: binrecover archive --stop-never)")(
      "disable-log-bin,D", "add SET sql_log_bin=0 so the replay is not binlogged again")(
      "skip-gtids", "leave out GTID statements (replay gets new GTIDs)")(
      "short-form,s", "statements only: no comments, no row events")(
      "print-row-count",
      "'# Number of rows: N' after each statement's row events (the default with -v for "
      "MariaDB logs, as mariadb-binlog; without -v counting costs a walk over every row)")(
      "skip-print-row-count", "no '# Number of rows' lines")(
      "print-row-event-positions", "'# at N' before each event (the default)")(
      "skip-print-row-event-positions", "no '# at N' lines (as mariadb-binlog: for every event)")(
      "skip-annotate-row-events",
      "leave out the statements the server logged with the row events (Annotate_rows, "
      "Rows_query)");
}

// SQL output: how events and rows are written.
void add_sql_row_options(po::options_description& g) {
  g.add_options()("hexdump,H", "hex dump of each event as comments")(
      "verbose,v", "row events as ### comments too (-vv: with column types)")(
      "base64-output", po::value<std::string>(),
      "AUTO (default): row events as BINLOG statements; DECODE-ROWS: only the -v comments "
      "(not replayable); NEVER: no BINLOG statement at all (an error at the first row event)")(
      "flashback,B",
      "undo SQL: the reverse of the selected range, newest transaction first (row format "
      "with binlog_row_image=FULL); plain SQL where the column names are known "
      "(binlog_row_metadata=FULL or --schema), reversed row events as BINLOG elsewhere")(
      "rows-as-sql",
      "row events as executable INSERT/UPDATE/DELETE with real column names (from the log's "
      "binlog_row_metadata=FULL, else from --schema); generated columns (known from --schema "
      "and the log's CREATE/ALTER TABLE) are left out, the server computes them")(
      "target-flavor", po::value<std::string>(),
      "the server the SQL is for: mysql or mariadb (default: the one that wrote the log). "
      "mariadb, for a MySQL log: no GTID_NEXT statements, sql_mode mapped as a MariaDB "
      "replica maps it (fractional seconds rounded, as MySQL did), MySQL 8's utf8mb4 "
      "collations as utf8mb4_unicode_520_ci (replay finds this out from its server)")(
      "trigger-tables", po::value<std::string>(),
      "with --rows-as-sql, the rows of tables with triggers (known from --schema and the log's "
      "CREATE TRIGGER): sql (default; plain statements fire the target's triggers again, "
      "warned) or binlog (BINLOG statements, which fire none: the log already holds what the "
      "triggers did)")(
      "schema", po::value<std::string>(),
      "a dump's CREATE TABLE statements (mysqldump/mariadb-dump, with or without data) naming "
      "the columns of logs without metadata, for --rows-as-sql and --flashback; the binlog's "
      "own DDL keeps it current")(
      "set-charset", po::value<std::string>(),
      "SET NAMES this character set at the start, the client's restored at the end (as "
      "mysqlbinlog; each statement still sets the character set it was logged with)")(
      "idempotent",
      "MySQL targets: row events apply over what is there (an insert of a key that exists "
      "overwrites the row, an update or delete of a missing row is skipped): "
      "SET @@SESSION.RBR_EXEC_MODE=IDEMPOTENT at the start; refused for MariaDB, which "
      "ignores it, and with --rows-as-sql")(
      "require-row-format",
      "SET @@SESSION.REQUIRE_ROW_FORMAT=1 at the start (MySQL 8.0.19+), and an error (exit 5) "
      "at the first event a row-format-only session refuses: DML in statement format, a "
      "temporary table, LOAD DATA, INSERT_ID, RAND seeds, user variables")(
      "print-table-metadata",
      "each table map's comment goes on with '# Columns(...)' (names, types, NOT NULL, "
      "character sets) and '# Primary Key(...)' from the log's binlog_row_metadata, as "
      "mysqlbinlog (MySQL logs) or mariadb-binlog (MariaDB logs) prints them")(
      "local-load,l", po::value<std::string>(),
      "write the data of LOAD DATA statements here, replayed as LOAD DATA LOCAL INFILE "
      "(default: a new folder under $TMPDIR; replay with mysql --local-infile=1)");
}

Group sql_group() {
  Group grp("SQL output");
  add_sql_output_options(grp.d);
  add_sql_row_options(grp.d);
  return grp;
}

}  // namespace

std::vector<Group> sql_option_groups(bool for_option_files) {
  std::vector<Group> d = reading_groups();
  d.push_back(sql_group());
  d.push_back(remote_group());
  if (!for_option_files) d.push_back(connection_group(ConnectionFor::kSource));
  d.push_back(misc_group());
  return d;
}

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
