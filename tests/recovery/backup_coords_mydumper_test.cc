// Backup coordinates from mydumper metadata, folders and large dumps.
#include <gtest/gtest.h>

#include <string>

#include "binlog/error.h"
#include "tests/recovery/backup_coords_fixtures.h"

namespace binrecover::recovery {
namespace {

using namespace coords_test;

// ---------------------------------------------------------------------------------------------
// mydumper

TEST(BackupCoordsTest, MydumperOldTextFormatSkipsTheReplicaSection) {
  const BackupCoordinates c = read_text(
      "Started dump at: 2019-03-01 02:00:01\n"
      "SHOW MASTER STATUS:\n"
      "\tLog: mysql-bin.000031\n"
      "\tPos: 7264\n"
      "\tGTID:3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5,\n"
      "4491380c-5966-11ec-b318-005056afa0b8:1-20\n"
      "\n"
      "SHOW SLAVE STATUS:\n"
      "\tHost: 10.0.0.5\n"
      "\tLog: master-bin.000900\n"
      "\tPos: 1\n"
      "\tGTID:\n"
      "\n"
      "Finished dump at: 2019-03-01 02:10:44\n",
      "metadata");
  EXPECT_EQ(c.source, "mydumper");
  EXPECT_EQ(c.file, "mysql-bin.000031");
  EXPECT_EQ(c.position, 7264u);
  EXPECT_EQ(c.mysql_gtid_set,
            "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5,4491380c-5966-11ec-b318-005056afa0b8:1-20");
}

TEST(BackupCoordsTest, MydumperOldTextFormatMariadbGtid) {
  const BackupCoordinates c = read_text(
      "Started dump at: 2020-05-05 13:57:17\n"
      "SHOW MASTER STATUS:\n"
      "\tLog: mariadb-bin.000004\n"
      "\tPos: 642\n"
      "\tGTID:0-1-17\n"
      "\n"
      "Finished dump at: 2020-05-05 13:57:18\n");
  EXPECT_EQ(c.file, "mariadb-bin.000004");
  EXPECT_EQ(c.position, 642u);
  EXPECT_EQ(c.mariadb_gtid_pos, "0-1-17");
  EXPECT_EQ(c.mysql_gtid_set, "");
}

TEST(BackupCoordsTest, MydumperIniMasterSection) {
  // The layout mydumper documents "since version 0.14.1-1".
  const BackupCoordinates c = read_text(
      "# Started dump at: 2023-06-09 11:47:18\n"
      "[master]\n"
      "# Channel_Name = '' # It can be use to setup replication FOR CHANNEL\n"
      "File = mydumper1-bin.000017\n"
      "Position = 241149225\n"
      "Executed_Gtid_Set = 7b166a41-65a2-11ed-9de3-0800275ff74d:1-147115,"
      "7b166a41-65a2-11ed-9de3-0800275ff74e:1-61558\n"
      "\n"
      "[`sakila`.`store`]\n"
      "Rows = 2\n"
      "data_checksum = 3119812626\n"
      "\n"
      "# Finished dump at: 2023-06-09 11:47:19\n");
  EXPECT_EQ(c.source, "mydumper");
  EXPECT_EQ(c.file, "mydumper1-bin.000017");
  EXPECT_EQ(c.position, 241149225u);
  EXPECT_EQ(c.mysql_gtid_set,
            "7b166a41-65a2-11ed-9de3-0800275ff74d:1-147115,7b166a41-65a2-11ed-9de3-0800275ff74e:1-"
            "61558");
}

TEST(BackupCoordsTest, MydumperIniSourceSectionMariadb) {
  const BackupCoordinates c = read_text(
      "# Started dump at: 2024-11-02 03:00:00\n"
      "[config]\n"
      "quote_character = BACKTICK\n"
      "\n"
      "[myloader_session_variables]\n"
      "SQL_MODE='NO_AUTO_VALUE_ON_ZERO,NO_ENGINE_SUBSTITUTION' /*!40101\n"
      "\n"
      "[source]\n"
      "# Channel_Name = '' # It can be use to setup replication FOR CHANNEL\n"
      "File = mysql-bin.000002\n"
      "Position = 385\n"
      "Executed_Gtid_Set = 0-1-3\n"
      "\n"
      "[`d`.`t`]\n"
      "real_table_name=t\n"
      "rows = 1\n");
  EXPECT_EQ(c.file, "mysql-bin.000002");
  EXPECT_EQ(c.position, 385u);
  EXPECT_EQ(c.mariadb_gtid_pos, "0-1-3");
}

TEST(BackupCoordsTest, MydumperIniSourceDataKeysEvenWhenCommentedOut) {
  // --source-data with SOURCE_AUTO_POSITION: mydumper comments the file and position out, but
  // they are still where the backup stands.
  const BackupCoordinates c = read_text(
      "# Started dump at: 2026-09-19 18:15:36\n"
      "[config]\n"
      "quote-character = BACKTICK\n"
      "\n"
      "[source]\n"
      "# Channel_Name = '' # It can be use to setup replication FOR CHANNEL\n"
      "#SOURCE_HOST = \"db1\"\n"
      "executed_gtid_set = \"3e11fa47-71ca-11e1-9e33-c80aa9429562:1-77\"\n"
      "SOURCE_AUTO_POSITION = 1\n"
      "# SOURCE_LOG_FILE = \"binlog.000002\"\n"
      "# SOURCE_LOG_POS = 839\n"
      "\n"
      "# Finished dump at: 2026-09-19 18:15:36\n");
  EXPECT_EQ(c.file, "binlog.000002");
  EXPECT_EQ(c.position, 839u);
  EXPECT_EQ(c.mysql_gtid_set, "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-77");
}

TEST(BackupCoordsTest, MydumperWithoutBinlogIsAUsageError) {
  // mydumper 0.10 against MySQL 8.4 (no SHOW MASTER STATUS there): nothing recorded.
  const Error e = error_for_text(
      "Started dump at: 2026-09-19 18:14:40\n"
      "Finished dump at: 2026-09-19 18:14:40\n",
      "metadata");
  EXPECT_EQ(e.code(), ErrorCode::kUsage);
  EXPECT_NE(std::string(e.what()).find("mydumper"), std::string::npos) << e.what();
}

TEST(BackupCoordsTest, DirectoryIsLookedIntoForMetadata) {
  TempDir dir;
  dir.write("dump/metadata",
            "Started dump at: 2020-05-05 13:57:17\n"
            "SHOW MASTER STATUS:\n"
            "\tLog: mysql-bin.000004\n"
            "\tPos: 642\n"
            "\tGTID:\n");
  dir.write("dump/d.t.00000.sql", "INSERT INTO `t` VALUES (1);\n");
  const BackupCoordinates c = read_backup_coordinates(dir.path("dump"));
  EXPECT_EQ(c.source, "mydumper");
  EXPECT_EQ(c.file, "mysql-bin.000004");
  EXPECT_EQ(c.position, 642u);

  dir.write("empty/readme", "hello\n");
  EXPECT_EQ(error_for(dir.path("empty")).code(), ErrorCode::kUsage);
}

// ---------------------------------------------------------------------------------------------
// xtrabackup / mariabackup

TEST(BackupCoordsTest, XtrabackupWithMultiLineMysqlGtids) {
  const BackupCoordinates c = read_text(
      "mysql-bin.000003\t2318\t3e11fa47-71ca-11e1-9e33-c80aa9429562:1-10,\n"
      "4491380c-5966-11ec-b318-005056afa0b8:1-3\n",
      "xtrabackup_binlog_info");
  EXPECT_EQ(c.source, "xtrabackup");
  EXPECT_EQ(c.file, "mysql-bin.000003");
  EXPECT_EQ(c.position, 2318u);
  EXPECT_EQ(c.mysql_gtid_set,
            "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-10,4491380c-5966-11ec-b318-005056afa0b8:1-3");
}

TEST(BackupCoordsTest, XtrabackupWithoutGtids) {
  const BackupCoordinates c = read_text("./mysql-bin.000012\t154\n", "whatever.txt");
  EXPECT_EQ(c.source, "xtrabackup");
  EXPECT_EQ(c.file, "./mysql-bin.000012");
  EXPECT_EQ(c.position, 154u);
  EXPECT_EQ(c.mysql_gtid_set, "");
  EXPECT_EQ(c.mariadb_gtid_pos, "");
}

TEST(BackupCoordsTest, MariabackupWithMariadbGtid) {
  const BackupCoordinates c =
      read_text("mysql-bin.000002\t385\t0-1-3\n", "mariadb_backup_binlog_info");
  EXPECT_EQ(c.source, "xtrabackup");
  EXPECT_EQ(c.file, "mysql-bin.000002");
  EXPECT_EQ(c.position, 385u);
  EXPECT_EQ(c.mariadb_gtid_pos, "0-1-3");

  TempDir dir;
  dir.write("backup/mariadb_backup_binlog_info", "mysql-bin.000002\t385\t0-1-3\n");
  dir.write("backup/ibdata1", "");
  EXPECT_EQ(read_backup_coordinates(dir.path("backup")).position, 385u);
}

// ---------------------------------------------------------------------------------------------
// Files that are not (readable) backups

TEST(BackupCoordsTest, MissingFileIsAnIoError) {
  TempDir dir;
  const Error e = error_for(dir.path("nope.sql"));
  EXPECT_EQ(e.code(), ErrorCode::kIo);
  EXPECT_NE(std::string(e.what()).find("nope.sql"), std::string::npos) << e.what();
}

TEST(BackupCoordsTest, CompressedDumpIsNamedAsSuch) {
  const Error e = error_for_text(std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00", 8), "d.sql.gz");
  EXPECT_EQ(e.code(), ErrorCode::kUsage);
  EXPECT_NE(std::string(e.what()).find("gzip"), std::string::npos) << e.what();
}

TEST(BackupCoordsTest, EmptyFileIsAUsageError) {
  EXPECT_EQ(error_for_text("").code(), ErrorCode::kUsage);
}

// ---------------------------------------------------------------------------------------------
// A 200 MB dump: only its head (1 MiB at most) and its last 64 KiB are read.

TEST(BackupCoordsTest, HugeDumpReadsOnlyItsHeadAndTail) {
  TempDir dir;
  const std::string path = dir.path("huge.sql");
  // A header that never reaches a CREATE, so only the 1 MiB limit stops the reading.
  const std::string head = cat(kMariadbDumpPreamble,
                               "-- CHANGE MASTER TO MASTER_LOG_FILE='mysql-bin.000002', "
                               "MASTER_LOG_POS=385;\n");
  const std::string bogus =
      "\nCHANGE MASTER TO MASTER_LOG_FILE='bogus-bin.000666', MASTER_LOG_POS=666;\n";
  const std::string trailer(kMariadbDumpTrailer);
  constexpr std::uint64_t kSize = 200ull << 20;
  constexpr std::uint64_t kBogusAt = 2ull << 20;

  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::pwrite(fd, head.data(), head.size(), 0), static_cast<ssize_t>(head.size()));
  ASSERT_EQ(::ftruncate(fd, static_cast<off_t>(kSize)), 0);  // a hole: zeros, never written
  ASSERT_EQ(::pwrite(fd, bogus.data(), bogus.size(), static_cast<off_t>(kBogusAt)),
            static_cast<ssize_t>(bogus.size()));
  ASSERT_EQ(
      ::pwrite(fd, trailer.data(), trailer.size(), static_cast<off_t>(kSize - trailer.size())),
      static_cast<ssize_t>(trailer.size()));
  ASSERT_EQ(::close(fd), 0);

  // Had the bogus line at 2 MiB been read, two different positions would be an error.
  const BackupCoordinates c = read_backup_coordinates(path);
  EXPECT_EQ(c.file, "mysql-bin.000002");
  EXPECT_EQ(c.position, 385u);
  EXPECT_EQ(c.mariadb_gtid_pos, "0-1-3");  // from the last 64 KiB
}

}  // namespace
}  // namespace binrecover::recovery
