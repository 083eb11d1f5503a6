#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace binrecover::recovery {

// Where a backup stands in the binary log: the point from which binlogs must be replayed on top
// of it.
struct BackupCoordinates {
  std::string source;  // the format recognised: "mysqldump", "mydumper" or "xtrabackup"
  std::string file;    // binlog file name as the backup wrote it, e.g. "mysql-bin.000023"
                       // (empty if only GTIDs are known)
  std::optional<std::uint64_t> position;
  std::string mysql_gtid_set;    // MySQL executed GTID set, whitespace removed; "" if none
  std::string mariadb_gtid_pos;  // MariaDB GTID position ("0-1-5,1-2-9"); "" if none
};

// Reads the binlog coordinates a logical or physical backup recorded, recognising the format by
// content, not by name:
//   - mysqldump / mariadb-dump with --master-data / --source-data / --dump-slave: the
//     CHANGE MASTER TO / CHANGE REPLICATION SOURCE TO statement (commented or not),
//     SET @@GLOBAL.GTID_PURGED (MySQL) and SET GLOBAL gtid_slave_pos (MariaDB);
//   - mydumper `metadata`, old text form (SHOW MASTER STATUS: / Log: / Pos: / GTID:) and INI form
//     ([source] or [master] with File, Position, Executed_Gtid_Set);
//   - xtrabackup_binlog_info / mariadb_backup_binlog_info (file, position, optional GTIDs).
// Only the head of the file is read (up to the first CREATE/INSERT/DROP/USE of a dump, 1 MiB at
// most) plus, for dumps, its last 64 KiB, where mariadb-dump 10.11+ defers gtid_slave_pos: a 50 GB
// dump costs two small reads. A directory is looked into for `metadata`, `xtrabackup_binlog_info`
// or `mariadb_backup_binlog_info`. GTID sets from mydumper and xtrabackup go to `mariadb_gtid_pos`
// when they have MariaDB's domain-server-sequence form, else to `mysql_gtid_set`.
// Coordinates written by --dump-slave name the binlog of the dumped server's master.
// Throws binrecover::Error: kIo when the file cannot be read; kUsage, with the path in the
// message, when it holds no coordinates, is compressed, or names several different positions.
// With `allow_none`, a mysqldump / mariadb-dump without coordinates is returned with its source
// and no file, position or GTIDs (made with --flush-logs, its start is found otherwise).
BackupCoordinates read_backup_coordinates(const std::string& path, bool allow_none = false);

}  // namespace binrecover::recovery
