#pragma once

#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include "recovery/backups/catalog.h"
#include "recovery/reading/walker.h"
#include "recovery/sql/output.h"

namespace binrecover::recovery {

// backup --list: each backup with the time range it can restore to from the binlogs present.
struct BackupRow {
  BackupEntry backup;
  // The time its content reaches (restore.h backup_point), when its binlog is in the archive.
  std::optional<std::time_t> point;
  // The latest time a restore from it reaches: the archive's last event, when its binlog and
  // everything after it are there (nullopt: only the backup itself).
  std::optional<std::time_t> restorable_to;
};

// `problems`: manifests refused (listed as warnings by the caller).
std::vector<BackupRow> backup_rows(BackupStore& store, const std::vector<InputFile>& inputs,
                                   const DecodeOptions& decode, std::vector<std::string>* problems);
void write_backup_list_text(const std::vector<BackupRow>& rows, Output& out);
void write_backup_list_json(const std::vector<BackupRow>& rows, Output& out);
// "backup ID stored in LOCATION: ..." after a backup.
std::string backup_made_text(const BackupEntry& e);

}  // namespace binrecover::recovery
