// binrecover backup (and backup --list) and binrecover restore: base backups in the archive,
// and a restore to a point from them.
#include <unistd.h>

#include <filesystem>
#include <memory>

#include "binlog/error.h"
#include "binlog/index_file.h"
#include "cli/commands.h"
#include "cli/option_readers.h"
#include "recovery/backups/listing.h"
#include "recovery/backups/make_backup.h"
#include "recovery/backups/restore.h"
#include "recovery/storage/private_file.h"
#include "recovery/storage/s3_archive.h"

namespace binrecover::cli {

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

}  // namespace binrecover::cli
