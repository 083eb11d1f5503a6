#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "binlog/reader.h"
#include "recovery/backups/catalog.h"
#include "recovery/server/session.h"
#include "recovery/storage/envelope.h"
#include "recovery/storage/s3.h"

namespace binrecover::recovery {

// binrecover backup: the server's own logical dump (mariadb-dump / mysqldump,
// --single-transaction with its binlog coordinates and GTIDs) streamed, zstd-compressed, into
// the archive beside the server's binlogs, with its manifest (catalog.h).
struct BackupOptions {
  ConnectionOptions server;
  std::optional<std::string> dir;     // a folder archive
  std::optional<std::string> to;      // s3://BUCKET/PREFIX/ (the server's folder below it)
  std::optional<std::string> folder;  // --s3-folder: that folder's name
  s3::ConfigOverrides s3;
  std::vector<std::string> databases;  // none: every database but the system ones
  std::string dump_tool;               // "": mariadb-dump (MariaDB) or mysqldump on PATH
  int level = 3;                       // zstd level
  Codec codec;                         // its key: the dump stored encrypted (envelopes)
  std::function<void(const std::string&)> progress;  // a status line (on a terminal)
};

// Makes one backup; returns its manifest (location set). Throws Error: kServer when the server
// or the dump program fails (nothing is left in the archive then), kUsage for bad options.
BackupEntry run_backup(const BackupOptions& opts, const binlog::WarningSink& warn);

// The archive folder of a bucket a server's binlogs and backups go to: PREFIX/NAME/ (NAME the
// --s3-folder, the MySQL server_uuid, or server-ID for MariaDB), as archive --to names it.
s3::Url server_folder(const std::string& to, const std::optional<std::string>& folder,
                      const std::string& uuid, std::uint32_t server_id);

}  // namespace binrecover::recovery
