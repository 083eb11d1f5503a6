// binrecover backup (and backup --list) and binrecover restore: base backups in the archive,
// and a restore to a point from them.
#include <unistd.h>

#include <filesystem>
#include <memory>

#include "binlog/error.h"
#include "binlog/index_file.h"
#include "cli/commands.h"
#include "cli/option_groups.h"
#include "cli/option_groups_servers.h"
#include "cli/option_readers.h"
#include "recovery/backups/listing.h"
#include "recovery/backups/make_backup.h"
#include "recovery/backups/restore.h"
#include "recovery/storage/private_file.h"
#include "recovery/storage/s3.h"
#include "recovery/storage/s3_archive.h"

namespace binrecover::cli {

// The options of `binrecover backup` (a dump, not events) and `binrecover restore` (the range
// is the point; the inputs are the archive's).
namespace {

Group backup_group() {
  Group grp("Backup");
  po::options_description& g = grp.d;
  g.add_options()("dir", po::value<std::string>(),
                  "the archive folder (as archive --dir makes it): the backup goes to "
                  "DIR/backups/ID/")(
      "to", po::value<std::string>(),
      "the bucket instead: s3://BUCKET/PREFIX/, into the server's folder PREFIX/SERVER/backups/ID/ "
      "(SERVER as archive --to names it: server_uuid, or server-ID)")(
      "s3-folder", po::value<std::string>(), "with --to: the server's folder under PREFIX")(
      "database,d", po::value<std::vector<std::string>>(),
      "back up this database (repeatable; default: every database but mysql, sys, "
      "information_schema and performance_schema)")(
      "dump-tool", po::value<std::string>(),
      "the dump program to run (default: mariadb-dump for MariaDB, mysqldump for MySQL, from "
      "PATH)")("compress-level", po::value<std::string>(),
               "zstd level of the stored dump, 1 (fastest) to 19 (default 3)")(
      "list",
      "list the backups of an archive instead: LOCATION is its folder or s3://BUCKET/PREFIX/ "
      "(every server's folder below it)")("format", po::value<std::string>(),
                                          "with --list: table (default) or json");
  return grp;
}

Group restore_group() {
  Group grp("Restore");
  po::options_description& g = grp.d;
  g.add_options()("from", po::value<std::string>(),
                  "the archive: its folder (as archive --dir and backup --dir make it), or "
                  "s3://BUCKET/PREFIX/ (every server's folder below it, read as one history "
                  "across failovers)")(
      "server", po::value<std::string>(),
      "only the backups of this server: its folder's name in the bucket (server-ID, "
      "server_uuid, --s3-folder) or its host name")(
      "backup", po::value<std::string>(), "this backup (its ID, as backup --list shows it)")(
      "to-time", po::value<std::string>(),
      "the point: the state just before 'YYYY-MM-DD HH:MM:SS' (local time, see --timezone; or "
      "with a zone): replayed up to the first event at or after it, from the newest backup "
      "whose content is all before it")(
      "before-incident",
      "the point: just before the incident (the latest certain loss since the oldest backup, "
      "as plan chooses it; --incident and --allow choose otherwise), from the newest backup "
      "before it")("to-end", "the point: the end of the archive's binlogs")(
      "stop-position", po::value<std::string>(),
      "the point: this position of the last binlog (an event's start)")(
      "stop-gtid", po::value<std::string>(),
      "the point: just before the transaction with this GTID")(
      "timezone", po::value<std::string>(),
      "time zone of --to-time and of printed times: UTC, +HH:MM, Europe/Berlin, SYSTEM")(
      "incident", po::value<std::string>(),
      "with --before-incident: the event to recover to just before: N (its number in plan's "
      "list), a GTID, or FILE:POS")(
      "allow", po::value<std::vector<std::string>>(),
      "a known job, never taken for the incident (as plan's --allow; repeatable)")(
      "rows-threshold", po::value<std::string>(),
      "row format: a transaction deleting or updating this many rows of a table is a suspect "
      "(default 1000)")("report", po::value<std::string>(), "write a JSON report here")(
      "expect", po::value<std::string>(),
      "compare the restored tables with this file of 'db.table<TAB>rows<TAB>checksum' lines")(
      "write-expect", po::value<std::string>(), "write the verified tables in that form")(
      "result-file,r", po::value<std::string>(), "write the summary to this file");
  add_parallel_options(g, "4");
  g.add_options()("server-applier",
                  "MariaDB: the target applies the binlogs with its own (parallel) replication "
                  "applier, binrecover serving them as its replication source");
  return grp;
}

}  // namespace

std::vector<Group> backup_option_groups(bool for_option_files) {
  std::vector<Group> d;
  d.push_back(backup_group());
  d.push_back(s3_group());
  if (!for_option_files) d.push_back(connection_group(ConnectionFor::kBackup));
  d.push_back(misc_group());
  return d;
}

std::vector<Group> restore_option_groups(bool for_option_files) {
  std::vector<Group> d;
  d.push_back(restore_group());
  d.push_back(s3_group());
  d.push_back(filter_group());
  if (!for_option_files) d.push_back(connection_group(ConnectionFor::kRestore));
  d.push_back(misc_group());
  return d;
}

namespace {

// The backups of an archive: its folder, or a bucket prefix.
std::unique_ptr<recovery::BackupStore> open_store(const std::string& where) {
  if (recovery::s3::is_url(where))
    return recovery::s3_backup_store(recovery::s3::reader_client(), recovery::s3::parse_url(where));
  return recovery::folder_backup_store(where);
}

// The archive's binlogs: a folder's index (the one .index file there), or every server folder
// below a bucket prefix (read as one history across failovers).
std::vector<recovery::InputFile> archive_binlogs(const std::string& where) {
  std::vector<recovery::InputFile> inputs;
  if (recovery::s3::is_url(where)) {
    std::string url = where;
    if (url.back() != '/') url += '/';
    add_input_paths({url}, inputs);
    return inputs;
  }
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(where, ec))
    throw Error(ErrorCode::kUsage, where + " is not an archive folder");
  const std::string index = binlog::index_in_folder(where);
  if (index.empty()) return inputs;  // (backups only)
  add_input_paths(binlog::read_index_file(index, ""), inputs);
  return inputs;
}

void write_report(const std::string& path, const recovery::RestoreResult& r,
                  const recovery::RestoreOptions& opts) {
  recovery::PrivateFile file(path);
  {
    recovery::Output report(file.fd(), path);
    recovery::write_restore_report(r, opts, report);
    report.flush();
  }
  file.commit();
}

}  // namespace

int backup_command(Options& o) {
  if (o.backup_list) {
    const auto store = open_store(*o.backup_list);
    const auto inputs = archive_binlogs(*o.backup_list);
    return with_output(o, [&](recovery::Output& out) {
      std::vector<std::string> problems;
      const auto rows = recovery::backup_rows(*store, inputs, o.decode, &problems);
      for (const auto& p : problems) warn("a backup left out: " + p);
      if (o.backup_list_json)
        recovery::write_backup_list_json(rows, out);
      else
        recovery::write_backup_list_text(rows, out);
      out.flush();
      return 0;
    });
  }
  if (o.password_prompt) o.backup.server.password = read_password();
  if (o.progress && ::isatty(2))
    o.backup.progress = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  const recovery::BackupEntry e = recovery::run_backup(o.backup, warn);
  return with_output(o, [&](recovery::Output& out) {
    out.append(recovery::backup_made_text(e));
    out.flush();
    return 0;
  });
}

int restore_command(Options& o) {
  if (o.password_prompt) {
    o.connection.password = read_password();
    o.restore.drill.server = o.connection;
  }
  const auto store = open_store(o.restore_from);
  const auto inputs = archive_binlogs(o.restore_from);
  return with_output(o, [&](recovery::Output& out) {
    const recovery::RestoreResult r =
        recovery::run_restore(*store, inputs, o.restore, o.decode, warn);
    if (o.restore.drill.report_file) write_report(*o.restore.drill.report_file, r, o.restore);
    out.append(recovery::restore_summary(r));
    out.flush();
    return r.drill.passed ? 0 : 7;
  });
}

// Reading the backup and restore options (parse_options calls read_backup and read_restore,
// cli/option_readers.h).

namespace {

// --to s3://... or --dir (backup), --from (restore): a bucket URL is checked here.
void check_store_url(const std::string& option, const std::string& v) {
  if (!recovery::s3::is_url(v)) return;
  const recovery::s3::Url u = recovery::s3::parse_url(v);
  if (u.bucket.empty())
    usage_error("--" + option + " needs s3://BUCKET/[PREFIX/], not '" + v + "'");
}

// The --s3-* options apply only where a bucket is reached.
void s3_options_need(const Given& g, bool store) {
  for (const char* n : kS3Options)
    if (g.has(n) && !store) usage_error(std::string("--") + n + " applies with s3://");
}

}  // namespace

void read_backup(const Given& g, Command cmd, Options& o) {
  if (cmd != Command::kBackup) return;
  recovery::BackupOptions& b = o.backup;
  const std::vector<std::string> files =
      g.has("files") ? g.list("files") : std::vector<std::string>{};
  if (g.has("list")) {
    for (const char* n : {"dir", "to", "s3-folder", "database", "dump-tool", "compress-level"})
      if (g.has(n)) usage_error(std::string("--") + n + " makes a backup: not with --list");
    if (connection_given(g))
      usage_error("--list reads the archive, not a server: no -h, -u, -p ...");
    if (files.size() != 1)
      usage_error("backup --list needs the archive: its folder or s3://BUCKET/PREFIX/");
    o.backup_list = files[0];
    check_store_url("list", files[0]);
    if (auto f = g.text("format")) {
      if (*f != "table" && *f != "json")
        usage_error("--format must be table or json, not '" + *f + "'");
      o.backup_list_json = *f == "json";
    }
    s3_options_need(g, recovery::s3::is_url(files[0]));
    if (g.has("encryption-key-file") && !recovery::s3::is_url(files[0]))
      usage_error(
          "--encryption-key-file: --list reads a folder archive's binlogs, which are byte for "
          "byte, and no dump");
    return;
  }
  if (g.has("format")) usage_error("--format applies to backup --list");
  if (!files.empty())
    usage_error("backup takes no file: where the backup goes is --dir or --to (unknown '" +
                files[0] + "')");
  b.server = o.connection;
  b.dir = g.text("dir");
  b.to = g.text("to");
  b.folder = g.text("s3-folder");
  if (b.dir && b.to) usage_error("give either --dir or --to, not both");
  if (!b.dir && !b.to)
    usage_error("backup needs --dir=DIR or --to=s3://BUCKET/PREFIX/ (the archive it goes into)");
  if (b.dir && (b.dir->empty() || recovery::s3::is_url(*b.dir)))
    usage_error("--dir takes a folder (for a bucket: --to=s3://...)");
  if (b.to) {
    if (!recovery::s3::is_url(*b.to))
      usage_error("--to takes s3://BUCKET/PREFIX/, not '" + *b.to + "'");
    check_store_url("to", *b.to);
  }
  if (b.folder && !b.to) usage_error("--s3-folder applies with --to s3://...");
  if (b.folder &&
      (b.folder->empty() || b.folder->find('/') != std::string::npos || (*b.folder)[0] == '.'))
    usage_error("--s3-folder takes a name without '/', not '" + *b.folder + "'");
  s3_options_need(g, b.to.has_value());
  b.s3 = o.archive.s3;
  b.databases = g.list("database");
  for (const std::string& d : b.databases)
    if (d.empty() || d.size() > 64 || d[0] == '-')
      usage_error("--database takes a database name, not '" + d + "'");
  if (auto t = g.text("dump-tool")) b.dump_tool = *t;
  if (auto n = g.u64("compress-level")) {
    if (*n < 1 || *n > 19) usage_error("--compress-level must be 1 to 19");
    b.level = static_cast<int>(*n);
  }
}

void read_restore(const Given& g, Command cmd, Options& o) {
  if (cmd != Command::kRestore) return;
  if (g.has("files"))
    usage_error("restore reads the archive --from names: no binlog files (unknown '" +
                g.list("files")[0] + "')");
  const auto from = g.text("from");
  if (!from || from->empty())
    usage_error("restore needs --from=DIR or --from=s3://BUCKET/PREFIX/ (the archive)");
  check_store_url("from", *from);
  s3_options_need(g, recovery::s3::is_url(*from));
  o.restore_from = *from;
  recovery::RestoreOptions& r = o.restore;
  r.server = g.text("server");
  r.backup_id = g.text("backup");
  r.before_incident = g.has("before-incident");
  if (r.backup_id && !recovery::valid_backup_id(*r.backup_id))
    usage_error("--backup takes a backup's ID (20261205T040000Z, as backup --list shows), not '" +
                *r.backup_id + "'");
  const int points = (g.has("to-time") ? 1 : 0) + (g.has("stop-position") ? 1 : 0) +
                     (g.has("stop-gtid") ? 1 : 0) + (r.before_incident ? 1 : 0) +
                     (g.has("to-end") ? 1 : 0);
  if (points == 0)
    usage_error(
        "restore needs its point: --to-time='YYYY-MM-DD HH:MM:SS', --before-incident, "
        "--stop-position, --stop-gtid or --to-end");
  if (points > 1)
    usage_error(
        "give one point: --to-time, --before-incident, --stop-position, --stop-gtid or "
        "--to-end");
  if ((g.has("incident") || g.has("allow")) && !r.before_incident)
    usage_error("--incident and --allow choose the incident: give --before-incident");
  if (!connection_given(g) && !o.connection.read_defaults)
    usage_error("restore loads the backup into a server: give -h/-P/-u or -S");
  r.drill = o.drill;
}

}  // namespace binrecover::cli
