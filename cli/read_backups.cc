// backup and restore: where a backup goes (or which archive --list shows), and what a restore
// reads and where it stops.
#include <string>
#include <vector>

#include "cli/option_readers.h"
#include "recovery/storage/s3.h"

namespace binrecover::cli {

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
