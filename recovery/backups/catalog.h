#pragma once

// Base backups kept beside a server's archived binlogs (docs/usage.md, "Base backups"):
//   folder archive DIR:         DIR/backups/ID/dump.sql.zst and DIR/backups/ID/backup.json
//   bucket archive PREFIX/SRV/: PREFIX/SRV/backups/ID/dump.sql.zst and .../backup.json
// ID is the UTC time the backup began (20261205T040000Z, "-2" ... when two begin in one
// second). backup.json is written last: a backup without it is incomplete and never listed.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "recovery/storage/s3.h"
#include "recovery/storage/zstd_stream.h"

namespace binrecover::recovery {

inline constexpr const char* kBackupManifest = "backup.json";
inline constexpr const char* kBackupDump = "dump.sql.zst";

struct BackupEntry {
  int format = 1;
  std::string id;
  // The server backed up.
  std::string flavor, version, server, server_uuid;
  std::uint32_t server_id = 0;
  std::string tool, tool_version;           // the dump program and its --version line
  std::int64_t started = 0, completed = 0;  // unix seconds (the server's clock at start)
  // Where the dump stands in the server's binlogs (its --master-data/--source-data).
  std::string binlog_file;
  std::optional<std::uint64_t> binlog_pos;
  std::string mysql_gtids, mariadb_gtids;
  std::vector<std::string> databases;  // the databases dumped
  std::string compression = "zstd";
  // "aes-256-gcm": the stored bytes are envelopes of the zstd stream (storage/envelope.h),
  // 4 MiB each, sealed with the key whose id is `key_id`; "": the zstd stream itself.
  std::string encryption, key_id;
  std::uint64_t stored_bytes = 0, dump_bytes = 0;
  std::string sha256;  // of the dump's own bytes (as the dump program wrote them)
  // Not stored: where it was found (the backup's folder: a path, or s3://BUCKET/KEY/).
  std::string location;

  std::string to_json() const;
  // Throws Error(kIo) naming `where` when the text is not a backup manifest, (kServer) when it
  // names a file or ID binrecover refuses.
  static BackupEntry from_json(const std::string& text, const std::string& where);
};

// Whether `id` has the form binrecover gives backup IDs (anything else read from a folder or
// a bucket is not one of ours, never a path).
bool valid_backup_id(std::string_view id);
// A new ID for a backup beginning at `unix_seconds` ("-N" appended by the store when taken).
std::string backup_id_at(std::int64_t unix_seconds);

// Where backups are kept: an archive folder, or a bucket (a server's folder to write; any
// prefix above servers' folders to list and read).
class BackupStore {
 public:
  virtual ~BackupStore() = default;
  // The complete backups, oldest first (by start, then ID). A manifest that is refused is
  // named in *problems (and left out).
  virtual std::vector<BackupEntry> list(std::vector<std::string>* problems) = 0;
  // A new backup's dump object, streamed: begin() takes a new ID (refused when taken; the
  // name actually taken is returned), write() the stored bytes, end() completes the object.
  virtual std::string begin(const std::string& id) = 0;
  virtual void write(std::string_view bytes) = 0;
  virtual void end() = 0;
  // Removes what begin() made (a backup that failed). Never throws.
  virtual void abandon() noexcept = 0;
  // The manifest, last: the backup exists from here on.
  virtual void commit(const BackupEntry& e) = 0;
  // The stored bytes of a backup's dump, a block at a time.
  virtual void read(const BackupEntry& e, const ByteSink& sink) = 0;
  // Deletes a backup: its manifest first (it is no longer listed), then the dump.
  virtual void remove(const BackupEntry& e) = 0;
  // The store, for messages.
  virtual std::string where() const = 0;
  // Where backup `id` is (its folder: a path, or s3://BUCKET/KEY/).
  virtual std::string location_of(const std::string& id) const = 0;
};

// DIR's backups (DIR an archive folder; made 0700 when written to).
std::unique_ptr<BackupStore> folder_backup_store(const std::string& dir);
// The backups below `url` (s3://BUCKET/PREFIX/: a server's folder, or a prefix above several).
std::unique_ptr<BackupStore> s3_backup_store(std::shared_ptr<s3::Client> client,
                                             const s3::Url& url);

}  // namespace binrecover::recovery
