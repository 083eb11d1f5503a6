#pragma once

#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include "recovery/backups/catalog.h"
#include "recovery/reading/walker.h"
#include "recovery/recover/drill.h"

namespace binrecover::recovery {

// binrecover restore: the newest backup of the archive before the target point loaded into the
// given server, then the archive's binlogs replayed from the backup's coordinates to the point
// (the drill's engine, recovery/recover/drill.h, on that server), then verified.
struct RestoreOptions {
  std::optional<std::string> server;     // --server: only backups in this server's folder
  std::optional<std::string> backup_id;  // --backup: this one
  bool before_incident = false;          // the point: just before the incident plan chooses
  // The rest of the point and everything of the replay: drill.filter's stop position, time
  // (--to-time) or GTID, drill.to_end; drill.server is the target.
  DrillOptions drill;
};

struct RestoreResult {
  BackupEntry backup;
  std::string why;                          // why this backup, in words
  std::optional<std::time_t> backup_point;  // the time its content reaches (see choose_backup)
  DrillResult drill;
  bool ran = false;  // the drill ran (else: chosen only)
  // The target's GTID state after the restore (MariaDB gtid_binlog_pos and gtid_slave_pos,
  // MySQL gtid_executed), for the replica or the next restore that starts from it.
  std::string target_gtids;
};

// The time a backup's content reaches: the latest event time in its binlog before its
// coordinates (the file's format description included: a file is begun after everything of the
// files before it), read from `inputs`; nullopt when that binlog is not among them.
std::optional<std::time_t> backup_point(const BackupEntry& b, const std::vector<InputFile>& inputs,
                                        const DecodeOptions& decode);

// A backup's dump as the dump program wrote it, a block at a time into `out`: decrypted (with
// the reader's key) and decompressed, then checked against the manifest's SHA-256 and size
// (Error kIo naming the backup when it differs: `out` has had bytes that are not the dump).
void read_dump(BackupStore& store, const BackupEntry& b, const ByteSink& out);

// The time of the archive's last event (of its last binlog; 0: none).
std::time_t last_event_time(const std::vector<InputFile>& inputs, const DecodeOptions& decode);

// Chooses the backup and runs the restore; never throws for a failed step (the result says),
// only for a point no backup can reach, a damaged backup or bad options (Error).
RestoreResult run_restore(BackupStore& store, const std::vector<InputFile>& inputs,
                          const RestoreOptions& opts, const DecodeOptions& decode,
                          const binlog::WarningSink& warn);

void write_restore_report(const RestoreResult& r, const RestoreOptions& opts, Output& out);
std::string restore_summary(const RestoreResult& r);

}  // namespace binrecover::recovery
