#include <algorithm>
#include <cctype>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "binlog/error.h"
#include "binlog/index_file.h"
#include "cli/command_table.h"
#include "cli/option_readers.h"
#include "recovery/reading/local_time.h"
#include "recovery/storage/s3_archive.h"
#include "recovery/storage/s3_source.h"
#include "recovery/text/escape.h"

namespace binrecover::cli {

namespace {

// --include-gtids / --exclude-gtids: MySQL GTID sets, or lists of MariaDB GTIDs.
void read_gtid_sets(const Given& g, Options& o) {
  static const std::regex kMariaList("^[0-9]+-[0-9]+-[0-9]+(,[0-9]+-[0-9]+-[0-9]+)*$");
  for (const char* name : {"include-gtids", "exclude-gtids"}) {
    const auto set = g.text(name);
    if (!set) continue;
    const bool maria = std::regex_match(*set, kMariaList);
    const auto add = [&](recovery::AppliedGtids& to) {
      if (maria)
        to.add_maria_gtids(*set);
      else
        to.add_mysql_set(*set);
    };
    recovery::AppliedGtids gtids;
    try {
      add(gtids);
    } catch (const Error&) {
      usage_error(std::string("--") + name +
                  " needs a MySQL GTID set (uuid:1-5:7 or uuid:tag:1-3, comma-separated) or " +
                  "MariaDB GTIDs (0-1-42,0-1-43), not '" + *set + "'");
    }
    if (gtids.empty()) usage_error(std::string("--") + name + " is empty");
    if (name[0] == 'i') {
      o.filter.include_gtids = std::move(gtids);
    } else {
      add(o.filter.exclude_gtids);
      o.filter.exclude_gtids_given = true;
    }
  }
}

// "1,2,3": server or domain ids (mariadb-binlog's lists: no spaces, no empty item).
std::vector<std::uint32_t> id_list(const std::string& text, const char* option) {
  std::vector<std::uint32_t> ids;
  std::size_t at = 0;
  for (;;) {
    const std::size_t comma = text.find(',', at);
    const std::string item = text.substr(at, comma == std::string::npos ? comma : comma - at);
    if (item.empty() || item.size() > 10 ||
        item.find_first_not_of("0123456789") != std::string::npos ||
        std::stoull(item) > 0xffffffffULL)
      usage_error(std::string("--") + option +
                  " needs a list of ids from 0 to 4294967295, separated by commas, not '" + text +
                  "'");
    ids.push_back(static_cast<std::uint32_t>(std::stoull(item)));
    if (comma == std::string::npos) return ids;
    at = comma + 1;
  }
}

// --server-id / --do-server-ids, --ignore-server-ids, --do-domain-ids, --ignore-domain-ids,
// --gtid-strict-mode (mariadb-binlog's; a do and an ignore list of one kind together are
// refused, as there).
void read_id_lists(const Given& g, Options& o) {
  if (g.has("server-id") && g.has("do-server-ids"))
    usage_error("--server-id is --do-server-ids: give one of them");
  for (const char* name : {"server-id", "do-server-ids"})
    if (auto v = g.text(name)) o.filter.server_ids = id_list(*v, name);
  if (auto v = g.text("ignore-server-ids"))
    o.filter.ignore_server_ids = id_list(*v, "ignore-server-ids");
  if (auto v = g.text("do-domain-ids")) o.filter.domain_ids = id_list(*v, "do-domain-ids");
  if (auto v = g.text("ignore-domain-ids"))
    o.filter.ignore_domain_ids = id_list(*v, "ignore-domain-ids");
  if (!o.filter.server_ids.empty() && !o.filter.ignore_server_ids.empty())
    usage_error("--ignore-server-ids and --server-id/--do-server-ids: give one of them");
  if (!o.filter.domain_ids.empty() && !o.filter.ignore_domain_ids.empty())
    usage_error("--ignore-domain-ids and --do-domain-ids: give one of them");
  if (g.has("gtid-strict-mode") && g.has("skip-gtid-strict-mode"))
    usage_error("--gtid-strict-mode and --skip-gtid-strict-mode: give one of them");
  o.filter.gtid_strict = g.has("gtid-strict-mode");
  if (auto v = g.text("sql-type")) {
    std::size_t at = 0;
    for (;;) {
      const std::size_t comma = v->find(',', at);
      std::string item = v->substr(at, comma == std::string::npos ? comma : comma - at);
      for (char& c : item) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (item == "insert")
        o.filter.sql_types |= recovery::FilterOptions::kSqlInsert;
      else if (item == "update")
        o.filter.sql_types |= recovery::FilterOptions::kSqlUpdate;
      else if (item == "delete")
        o.filter.sql_types |= recovery::FilterOptions::kSqlDelete;
      else
        usage_error("--sql-type takes insert, update and delete, comma-separated, not '" + *v +
                    "'");
      if (comma == std::string::npos) break;
      at = comma + 1;
    }
  }
}

// --skip-event=GTID | [FILE:]POSITION, as often as given.
void read_skip_events(const Given& g, Options& o) {
  if (g.has("skip-event"))
    for (const auto& v : g.list("skip-event")) {
      if (valid_gtid(v)) {
        o.filter.skip_gtids.push_back(v);
        continue;
      }
      const auto colon = v.rfind(':');
      if (colon == std::string::npos)
        o.filter.skip_positions.emplace_back("", parse_u64(v, "skip-event"));
      else
        o.filter.skip_positions.emplace_back(
            std::filesystem::path(v.substr(0, colon)).filename().string(),
            parse_u64(v.substr(colon + 1), "skip-event"));
    }
}

// How events are decoded: --force-read, checksums, --offset, --transaction-memory.
void read_decoding(const Given& g, Options& o) {
  o.decode.reader.force_read = g.has("force-read");
  if (auto v = g.text("verify-binlog-checksum"))
    o.decode.reader.verify_checksum =
        !(*v == "0" || *v == "OFF" || *v == "off" || *v == "FALSE" || *v == "false");
  if (g.has("skip-verify-binlog-checksum")) o.decode.reader.verify_checksum = false;
  if (auto n = g.u64("offset")) o.decode.skip_events = *n;
  if (g.has("force-if-open") && g.has("skip-force-if-open"))
    usage_error("--force-if-open and --skip-force-if-open: give one of them");
  o.decode.refuse_open_files = g.has("skip-force-if-open");
  if (auto t = g.text("transaction-memory"))
    o.decode.max_unit_memory = parse_size(*t, "transaction-memory");
}

}  // namespace

// The reading path's range and filters: the same for every command. Returns a MariaDB GTID
// --start-position when one was given (its transactions are left out by the filter).
std::optional<std::string> read_range_and_filters(const Given& g, Options& o) {
  std::optional<std::string> start_gtids;
  if (auto tz = g.text("timezone")) apply_timezone(*tz);
  // --start-position=0-1-42[,1-2-7]: a MariaDB GTID position (as mariadb-binlog 10.8+ takes
  // it): what comes after it, per domain; the transactions at or before it are left out.
  if (auto v = g.text("start-position"); v && maria_gtid_list(*v)) {
    start_gtids = *v;
    o.filter.exclude_gtids.add_maria_position(*v);
  } else {
    o.filter.start_position = g.u64("start-position");
  }
  // (restore's --from names its archive: cli/read_backups.cc)
  if (auto from = o.command == Command::kRestore ? std::nullopt : g.u64("from")) {
    if (o.filter.start_position) usage_error("--from and --start-position are the same: give one");
    o.filter.start_position = from;
  }
  o.filter.stop_position = g.u64("stop-position");
  if (o.filter.start_position && *o.filter.start_position < 4)
    usage_error("--start-position must be at least 4 (the first event follows the magic)");
  if (o.filter.start_position && o.filter.stop_position &&
      *o.filter.stop_position <= *o.filter.start_position && !g.has("index-file") &&
      g.has("files") && g.list("files").size() == 1)
    usage_error("--stop-position must be past --start-position for a single file");
  if (auto t = g.text("start-datetime"))
    o.filter.start_datetime = recovery::parse_datetime(*t, "--start-datetime").first_whole_second();
  if (auto t = g.text("stop-datetime"))
    o.filter.stop_datetime = recovery::parse_datetime(*t, "--stop-datetime").first_whole_second();
  if (auto gtid = g.text("stop-gtid")) {
    if (!valid_gtid(*gtid))
      usage_error(
          "--stop-gtid needs a GTID (0-1-42, or 3e11fa47-71ca-11e1-9e33-c80aa9429562:42 "
          "with an optional :tag before the number), not '" +
          *gtid + "'");
    o.filter.stop_gtid = *gtid;
  }
  read_id_lists(g, o);
  if (g.has("rewrite-db"))
    for (const auto& r : g.list("rewrite-db")) o.filter.rewrite_db.push_back(parse_rewrite(r));
  o.sql.rewrite_db = o.filter.rewrite_db;
  if (g.has("database")) o.filter.databases = g.list("database");
  // -T NAME (mariadb-binlog's form): the table in each --database, or in any database.
  if (g.has("table"))
    for (const auto& t : g.list("table")) {
      auto dt = parse_table(t);
      if (!dt.first.empty() || o.filter.databases.empty())
        o.filter.tables.push_back(std::move(dt));
      else
        for (const auto& db : o.filter.databases) o.filter.tables.emplace_back(db, dt.second);
    }
  read_gtid_sets(g, o);
  read_skip_events(g, o);
  read_decoding(g, o);
  o.progress = !g.has("no-progress");
  o.result_file = g.text("result-file");
  return start_gtids;
}

// plan and drill: the backup, where to start, the incident, the filters repeated in the
// commands printed, and the drill's own options.
void read_plan_and_drill(const Given& g, Command cmd, Options& o) {
  if (auto d = g.text("dump")) o.plan.dump = *d;
  if (auto n = g.u64("rows-threshold")) o.plan.rows_threshold = std::max<std::uint64_t>(*n, 1);
  o.plan.databases = o.filter.databases;
  // The filters plan repeats in the commands it prints.
  for (const char* name : {"database", "table", "rewrite-db"})
    if (g.has(name))
      for (const auto& v : g.list(name))
        o.plan.filter_args.push_back(std::string("--") + name + "=" + v);
  for (const char* name :
       {"server-id", "do-server-ids", "ignore-server-ids", "do-domain-ids", "sql-type",
        "ignore-domain-ids", "start-datetime", "stop-datetime", "stop-gtid", "include-gtids",
        "exclude-gtids", "offset", "transaction-memory"})
    if (auto v = g.text(name)) o.plan.filter_args.push_back(std::string("--") + name + "=" + *v);
  if (g.has("force-read")) o.plan.filter_args.emplace_back("--force-read");
  if (g.has("gtid-strict-mode")) o.plan.filter_args.emplace_back("--gtid-strict-mode");
  if (g.has("read-from-remote-server") || g.has("read-from-remote-source")) {
    // The commands plan prints read from the same server (never with its password: the
    // option files or the prompt give it, as they gave it here).
    if (!o.connection.read_defaults) o.plan.command_prefix.emplace_back("--no-defaults");
    if (o.connection.defaults_file)
      o.plan.command_prefix.push_back("--defaults-file=" + *o.connection.defaults_file);
    o.plan.filter_args.emplace_back("-R");
    for (const char* name :
         {"host", "port", "user", "socket", "connection-server-id", "ssl-mode", "ssl-ca",
          "ssl-capath", "ssl-cert", "ssl-key", "ssl-cipher", "protocol", "bind-address",
          "compression-algorithms", "ssl-crl", "ssl-crlpath", "tls-version"})
      if (auto v = g.text(name)) o.plan.filter_args.push_back(std::string("--") + name + "=" + *v);
    for (const char* name : {"ssl", "ssl-verify-server-cert"})
      if (g.has(name)) o.plan.filter_args.push_back(std::string("--") + name);
    if (g.has("password")) o.plan.filter_args.emplace_back("-p");
  }
  if (!o.decode.reader.verify_checksum)
    o.plan.filter_args.emplace_back("--skip-verify-binlog-checksum");
  o.plan.stop_position = o.filter.stop_position;
  if (cmd == Command::kPlan || cmd == Command::kDrill || cmd == Command::kRestore) {
    o.plan.start_position = o.filter.start_position;
    o.plan.start_file = g.text("start-file");
    o.plan.start_datetime = o.filter.start_datetime.has_value();
    o.plan.incident = g.text("incident");
    if (g.has("allow")) o.plan.allow = g.list("allow");
    if (o.plan.incident && o.plan.incident->empty()) usage_error("--incident is empty");
  }
  if (cmd == Command::kPlan && !o.plan.dump && !o.plan.start_position && !o.plan.start_file &&
      !o.plan.start_datetime)
    usage_error(
        "plan needs to know where the backup stands: --dump=BACKUP, or --start-file / "
        "--start-position / --start-datetime");
  if (cmd == Command::kDrill || cmd == Command::kRestore) {
    if (!o.plan.dump && cmd == Command::kDrill)
      usage_error("drill needs --dump=BACKUP (a mysqldump/mariadb-dump file)");
    if (o.plan.incident && (o.filter.stop_position || o.filter.stop_datetime || o.filter.stop_gtid))
      usage_error(
          "--incident chooses the stop point: not with --stop-position, --stop-datetime "
          "or --stop-gtid");
    o.drill.plan = o.plan;
    o.drill.filter = o.filter;
    o.drill.to_end = g.has("to-end");
    o.drill.keep = g.has("keep");
    o.drill.expect_file = g.text("expect");
    o.drill.write_expect_file = g.text("write-expect");
    o.drill.report_file = g.text("report");
    if (auto b = g.text("server-binary")) o.drill.server_binary = *b;
    o.drill.server_applier = g.has("server-applier");
    if (o.drill.server_applier && g.has("no-preserve-commit-order"))
      usage_error(
          "--no-preserve-commit-order does not apply with --server-applier (the "
          "server's applier commits in the log's order)");
  }
}

// The inputs: files, an index (its names, or --binlog-dir), stdin, s3:// objects; with -R the
// server's files by name (listed once connected).
void read_inputs(const Given& g, bool stdin_is_tty, Options& o) {
  // (backup reads a server; restore reads the archive --from names: cli/read_backups.cc)
  if (o.command == Command::kBackup || o.command == Command::kRestore) return;
  std::vector<std::string> paths;
  if (g.has("files")) paths = g.list("files");
  if (o.remote) {  // the server's binlogs by name: listed once connected (cli/remote.cc)
    o.remote_files = paths;
    return;
  }
  if (auto index = g.text("index-file")) {
    if (!paths.empty()) usage_error("give either binlog files or --index-file, not both");
    if (recovery::s3::is_url(*index)) {
      if (g.has("binlog-dir")) usage_error("--binlog-dir applies to an index file, not s3://");
      paths.push_back(*index);  // (an index object: its files below)
    } else {
      paths = binlog::read_index_file(*index, g.text("binlog-dir").value_or(""));
    }
  } else if (g.has("binlog-dir")) {
    usage_error("--binlog-dir names where the files of an --index-file are: give --index-file");
  }
  if (paths.empty()) {
    if (stdin_is_tty)
      usage_error(
          "no binlog given: name files, --index-file, or pipe one into standard input "
          "(see binrecover --help)");
    paths.push_back("-");
  }
  // The --s3-* options mean something only where a store is read.
  if (std::none_of(paths.begin(), paths.end(),
                   [](const std::string& p) { return recovery::s3::is_url(p); })) {
    for (const char* n : kS3Options)
      if (g.has(n)) usage_error(std::string("--") + n + " applies to s3:// inputs");
    if (g.has("encryption-key-file")) usage_error("--encryption-key-file applies to s3:// inputs");
  }
  add_input_paths(paths, o.inputs);
}

void add_input_paths(const std::vector<std::string>& paths, std::vector<recovery::InputFile>& out) {
  for (const auto& p : paths) {
    if (!recovery::s3::is_url(p)) {
      out.push_back({p, base_name(p), std::nullopt, {}, {}, std::nullopt});
      continue;
    }
    // An object, an index object or an archive folder of a bucket: read by ranged GETs
    // (recovery/storage/s3_archive.h).
    const recovery::s3::Url url = recovery::s3::parse_url(p);
    const auto client = recovery::s3::reader_client();
    // Each folder's manifest (a prefix above several servers' folders gives files of each).
    using ManifestPtr = std::shared_ptr<std::optional<recovery::s3::Manifest>>;
    std::map<std::string, ManifestPtr> manifests;
    for (const recovery::s3::Url& u : recovery::s3::expand_inputs(*client, url)) {
      const std::string name = recovery::s3::base_name_of(u.key);
      const recovery::s3::Url folder = recovery::s3::folder_of(u);
      ManifestPtr& manifest = manifests[folder.key];
      if (!manifest)
        manifest = std::make_shared<std::optional<recovery::s3::Manifest>>(
            recovery::s3::read_manifest(*client, folder));
      recovery::InputFile in{u.text(), name, std::nullopt, {}, {}, std::nullopt};
      if (*manifest)
        for (const auto& f : (*manifest)->files)
          if (f.name == name) in.size = f.size;
      if (!in.size)
        if (auto info = client->head(u)) in.size = info->size;
      in.open = [u, name, manifest]() -> std::unique_ptr<binlog::Source> {
        return std::make_unique<recovery::s3::S3Source>(recovery::s3::reader_client(), u, name,
                                                        manifest.get());
      };
      out.push_back(std::move(in));
    }
  }
}

namespace {

// What SQL output writes: -s, -H, --skip-gtids, -v, --rows-as-sql, --flashback, the target
// flavor, the character set.
void read_sql_writing(const Given& g, int verbose, Options& o) {
  o.sql.short_form = g.has("short-form");
  o.sql.hexdump = g.has("hexdump");
  o.sql.skip_gtids = g.has("skip-gtids");
  o.sql.disable_log_bin = g.has("disable-log-bin");
  if (auto d = g.text("local-load")) o.sql.local_load_dir = *d;
  o.sql.verbose = verbose;
  o.sql.rows_as_sql = g.has("rows-as-sql");
  o.schema_file = g.text("schema");
  o.flashback = g.has("flashback");
  if (auto t = g.text("target-flavor")) {
    if (*t != "mysql" && *t != "mariadb")
      usage_error("--target-flavor must be mysql or mariadb, not '" + *t + "'");
    o.sql.target_mariadb = *t == "mariadb";
    o.sql.target_mysql = *t == "mysql";
  }
  if (auto cs = g.text("set-charset")) {
    if (cs->empty() || cs->size() > 32 ||
        cs->find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") !=
            std::string::npos)
      usage_error("--set-charset needs a character set name (letters, digits, _), not '" + *cs +
                  "'");
    o.sql.set_charset = *cs;
  }
}

// mariadb-binlog's comment switches (--[skip-]print-row-count, its row event positions and
// annotations), --idempotent, --require-row-format, --print-table-metadata.
void read_sql_comments(const Given& g, Options& o) {
  if (g.has("print-row-count") && g.has("skip-print-row-count"))
    usage_error("--print-row-count and --skip-print-row-count: give one of them");
  if (g.has("print-row-count")) o.sql.row_count = true;
  if (g.has("skip-print-row-count")) o.sql.row_count = false;
  if (g.has("print-row-event-positions") && g.has("skip-print-row-event-positions"))
    usage_error(
        "--print-row-event-positions and --skip-print-row-event-positions: give one of them");
  o.sql.event_positions = !g.has("skip-print-row-event-positions");
  o.sql.annotations = !g.has("skip-annotate-row-events");
  o.sql.idempotent = g.has("idempotent");
  o.sql.require_row_format = g.has("require-row-format");
  o.sql.print_table_metadata = g.has("print-table-metadata");
  if (o.sql.print_table_metadata && o.sql.short_form)
    usage_error("--print-table-metadata adds comments, which -s (--short-form) leaves out");
  if (o.sql.idempotent && o.sql.rows_as_sql)
    usage_error(
        "--idempotent makes the server apply row events over what is there "
        "(RBR_EXEC_MODE): plain statements of --rows-as-sql are not row events");
  if (o.sql.idempotent && o.flashback) usage_error("--idempotent does not apply to --flashback");
}

// How rows are written: options taken for mysqlbinlog's sake, --trigger-tables, --base64-output.
void read_rows_encoding(const Given& g, Options& o) {
  for (const char* n : {"binlog-row-event-max-size", "open-files-limit"})
    if (g.has(n)) parse_u64(*g.text(n), n);  // accepted, checked, no effect here (see --help)
  if (auto t = g.text("trigger-tables")) {
    if (*t != "sql" && *t != "binlog")
      usage_error("--trigger-tables must be sql or binlog, not '" + *t + "'");
    if (!o.sql.rows_as_sql) usage_error("--trigger-tables applies to --rows-as-sql");
    o.sql.trigger_tables_binlog = *t == "binlog";
  }
  if (auto b = g.text("base64-output")) {
    std::string v = *b;
    for (char& c : v) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (v == "AUTO" || v == "UNSPEC")
      o.sql.base64_output = recovery::Base64Output::kAuto;
    else if (v == "DECODE-ROWS")
      o.sql.base64_output = recovery::Base64Output::kDecodeRows;
    else if (v == "NEVER")
      o.sql.base64_output = recovery::Base64Output::kNever;
    else
      usage_error("--base64-output must be AUTO, DECODE-ROWS or NEVER, not '" + *b + "'");
  }
}

// --flashback writes its own undo SQL: no option that shapes SQL output goes with it.
void check_flashback_alone(const Given& g, const Options& o) {
  if (o.flashback &&
      (o.sql.rows_as_sql || o.sql.hexdump || o.sql.verbose || o.sql.short_form ||
       g.has("base64-output") || o.sql.skip_gtids || g.has("local-load") ||
       g.has("target-flavor") || g.has("set-charset") || g.has("require-row-format") ||
       o.sql.print_table_metadata || g.has("print-row-count") ||
       g.has("skip-print-row-event-positions") || g.has("skip-annotate-row-events")))
    usage_error(
        "--flashback writes undo SQL of its own: -v, -s, -H, --rows-as-sql, --skip-gtids, "
        "--base64-output, --local-load, --target-flavor, --set-charset, --require-row-format, "
        "--print-table-metadata, --print-row-count, --skip-print-row-event-positions and "
        "--skip-annotate-row-events do not apply to it");
}

// --split-by=table --output-dir=DIR.
void read_split_by(const Given& g, Options& o) {
  if (auto by = g.text("split-by")) {
    if (*by != "table") usage_error("--split-by takes table, not '" + *by + "'");
    if (!g.has("output-dir")) usage_error("--split-by=table needs --output-dir=DIR");
    if (g.has("result-file")) usage_error("--split-by writes files of its own: not with -r");
    if (g.has("read-from-remote-server") || g.has("read-from-remote-source") || g.has("stop-never"))
      usage_error("--split-by reads the binlogs once per table: files, not -R");
    o.split_dir = *g.text("output-dir");
  } else if (g.has("output-dir")) {
    usage_error("--output-dir applies with --split-by=table");
  }
}

// --schema and --rewrite-db, where they apply.
void check_schema_and_rewrite(const Given& g, Command cmd, const Options& o) {
  const bool data_format = g.text("format") && *g.text("format") != "sql";
  if (o.schema_file && cmd == Command::kSql && !o.flashback && !o.sql.rows_as_sql && !data_format)
    usage_error("--schema names columns for --rows-as-sql, --flashback and --format=jsonl/csv");
  if (o.schema_file && cmd == Command::kReplay && !o.sql.rows_as_sql)
    usage_error("--schema names columns for --rows-as-sql");
  if (!o.filter.rewrite_db.empty() && (cmd == Command::kEvents || cmd == Command::kStats ||
                                       cmd == Command::kDrill || cmd == Command::kRestore))
    usage_error("--rewrite-db does not apply to " + command_label(cmd) +
                " (it changes the SQL that SQL output, plan's commands and replay write)");
}

}  // namespace

// SQL output's own options, and which of them apply together.
void read_sql_output(const Given& g, Command cmd, int verbose, Options& o) {
  read_sql_writing(g, verbose, o);
  read_sql_comments(g, o);
  read_rows_encoding(g, o);
  check_flashback_alone(g, o);
  read_split_by(g, o);
  check_schema_and_rewrite(g, cmd, o);
}

// SQL output's --format: sql (the default), or the row changes as jsonl / csv, which no option
// of the SQL text applies to.
void read_row_change_format(const Given& g, const std::string& f, Options& o) {
  if (f == "sql") return;
  if (f == "table" || f == "tsv" || f == "json")
    usage_error("--format=" + f +
                " is a format of `binrecover events` (and stats): SQL output takes sql, jsonl or "
                "csv");
  if (f != "jsonl" && f != "csv")
    usage_error("--format must be sql, jsonl or csv, not '" + f + "'");
  o.row_changes =
      f == "jsonl" ? recovery::RowChangeFormat::kJsonl : recovery::RowChangeFormat::kCsv;
  for (const char* n : {"rows-as-sql", "flashback", "short-form", "hexdump", "base64-output",
                        "skip-gtids", "disable-log-bin", "local-load", "target-flavor",
                        "set-charset", "idempotent", "require-row-format", "print-table-metadata",
                        "print-row-count", "skip-print-row-event-positions",
                        "skip-annotate-row-events", "trigger-tables", "raw", "stop-never"})
    if (g.has(n))
      usage_error(std::string("--") + n + " is an option of the SQL text: not with --format=" + f);
  if (o.sql.verbose > 0) usage_error("-v is an option of the SQL text: not with --format=" + f);
}

// --timeline, --html and their buckets; --format and --limit of the listing commands.
void read_timeline_and_format(const Given& g, Command cmd, Options& o) {
  o.timeline = g.has("timeline");
  if (auto tl = g.text("bucket")) {  // (with --timeline or --html: option_rules.cc)
    std::string v = *tl;
    std::uint64_t unit = 1;
    if (v == "auto") v = "0";
    if (v == "minute") v = "60";
    if (v == "hour") v = "3600";
    if (v == "day") v = "86400";
    if (!v.empty() && (v.back() == 'm' || v.back() == 'h' || v.back() == 's')) {
      unit = v.back() == 'm' ? 60 : v.back() == 'h' ? 3600 : 1;
      v.pop_back();
    }
    if (v.empty() || v.size() > 7 || v.find_first_not_of("0123456789") != std::string::npos)
      usage_error("--bucket takes auto, minute, hour, day or N (seconds), Nm, Nh, not '" + *tl +
                  "'");
    o.timeline_bucket = static_cast<std::uint32_t>(std::stoull(v) * unit);
  }
  if (auto by = g.text("by")) {
    if (*by != "database" && *by != "table")
      usage_error("--by must be database or table, not '" + *by + "'");
    o.timeline_by_table = *by == "table";
  }
  o.html_file = g.text("html");

  if (auto n = g.u64("transactions")) {
    if (*n < 1 || *n > 10000) usage_error("--transactions takes 1 to 10000");
    o.stats_top = static_cast<std::size_t>(*n);
  }
  if (auto f = g.text("format")) {
    if (cmd == Command::kSql) {
      read_row_change_format(g, *f, o);
    } else if (cmd == Command::kStats) {
      if (*f != "table" && *f != "json")
        usage_error("stats --format must be table or json, not '" + *f + "'");
      o.stats_json = *f == "json";
    } else if (cmd == Command::kPlan) {
      if (*f != "text" && *f != "json")
        usage_error("plan --format must be text or json, not '" + *f + "'");
      o.plan_json = *f == "json";
    } else if (*f == "table") {
      o.events.format = recovery::TableFormat::kTable;
    } else if (*f == "tsv") {
      o.events.format = recovery::TableFormat::kTsv;
    } else if (*f == "json") {
      o.events.format = recovery::TableFormat::kJson;
    } else {
      usage_error("--format must be table, tsv or json, not '" + *f + "'");
    }
  }
  if (o.timeline && (o.stats_json || o.plan_json))
    usage_error("--timeline is a picture: not with --format=json");

  if (auto l = g.text("limit")) {
    const auto comma = l->find(',');
    if (comma == std::string::npos) {
      o.events.limit_count = parse_u64(*l, "limit");
    } else {
      o.events.limit_offset = parse_u64(trim(l->substr(0, comma)), "limit");
      o.events.limit_count = parse_u64(trim(l->substr(comma + 1)), "limit");
    }
  }
}

}  // namespace binrecover::cli
