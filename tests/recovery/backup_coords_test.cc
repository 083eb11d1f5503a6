// Backup coordinates from mysqldump and mariadb-dump output.
#include <gtest/gtest.h>

#include <string>

#include "binlog/error.h"
#include "tests/recovery/backup_coords_fixtures.h"

namespace binrecover::recovery {
namespace {

using namespace coords_test;

// ---------------------------------------------------------------------------------------------
// mysqldump / mariadb-dump

TEST(BackupCoordsTest, RealMariadbDumpMasterData2Gtid) {
  const BackupCoordinates c = read_text(
      cat(kMariadbDumpPreamble, kMariadbDumpMasterData2Gtid, kDumpBody, kMariadbDumpTrailer));
  EXPECT_EQ(c.source, "mysqldump");
  EXPECT_EQ(c.file, "mysql-bin.000002");
  EXPECT_EQ(c.position, 385u);
  EXPECT_EQ(c.mariadb_gtid_pos, "0-1-3");  // from the trailer, after the data
  EXPECT_EQ(c.mysql_gtid_set, "");
}

TEST(BackupCoordsTest, RealMariadbDumpMasterData1) {
  const BackupCoordinates c =
      read_text(cat(kMariadbDumpPreamble, kMariadbDumpMasterData1, kDumpBody, kMariadbDumpTrailer));
  EXPECT_EQ(c.source, "mysqldump");
  EXPECT_EQ(c.file, "mysql-bin.000002");
  EXPECT_EQ(c.position, 385u);
  EXPECT_EQ(c.mariadb_gtid_pos, "0-1-3");
}

TEST(BackupCoordsTest, RealMariadbDumpMasterData1GtidUncommentedTrailer) {
  std::string trailer(kMariadbDumpTrailer);
  const std::string commented = "-- SET GLOBAL gtid_slave_pos='0-1-3';";
  trailer.replace(trailer.find(commented), commented.size(), "SET GLOBAL gtid_slave_pos='0-1-3';");
  const BackupCoordinates c =
      read_text(cat(kMariadbDumpPreamble, kMariadbDumpMasterData1Gtid, kDumpBody, trailer));
  EXPECT_EQ(c.file, "mysql-bin.000002");
  EXPECT_EQ(c.position, 385u);
  EXPECT_EQ(c.mariadb_gtid_pos, "0-1-3");
}

TEST(BackupCoordsTest, DumpCutBeforeItsTrailerStillHasThePosition) {
  const BackupCoordinates c =
      read_text(cat(kMariadbDumpPreamble, kMariadbDumpMasterData2Gtid, kDumpBody));
  EXPECT_EQ(c.file, "mysql-bin.000002");
  EXPECT_EQ(c.position, 385u);
  EXPECT_EQ(c.mariadb_gtid_pos, "");
}

TEST(BackupCoordsTest, RealMariadbDumpWithoutMasterDataIsAUsageErrorNamingTheFile) {
  TempDir dir;
  const std::string path = dir.write("nightly.sql", cat(kMariadbDumpPreamble, kMariadbDumpPlain,
                                                        kDumpBody, "\n-- Dump completed\n"));
  const Error e = error_for(path);
  EXPECT_EQ(e.code(), ErrorCode::kUsage);
  EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("--master-data"), std::string::npos) << e.what();
}

// mariadb-dump before 10.11 (client/mysqldump.c do_show_master_status) printed the GTID block
// right after the position.
TEST(BackupCoordsTest, OlderMariadbDumpGtidBlockInTheHeader) {
  const BackupCoordinates c =
      read_text(cat(kMariadbDumpPreamble,
                    "\n"
                    "--\n"
                    "-- Position to start replication or point-in-time "
                    "recovery from\n"
                    "--\n"
                    "\n"
                    "-- CHANGE MASTER TO MASTER_LOG_FILE='mariadb-bin.000007',"
                    " MASTER_LOG_POS=1234;\n"
                    "\n"
                    "--\n"
                    "-- GTID to start replication from\n"
                    "--\n"
                    "\n"
                    "CHANGE MASTER TO MASTER_USE_GTID=slave_pos;\n"
                    "SET GLOBAL gtid_slave_pos='0-1-5,1-2-40';\n",
                    kDumpBody));
  EXPECT_EQ(c.file, "mariadb-bin.000007");
  EXPECT_EQ(c.position, 1234u);
  EXPECT_EQ(c.mariadb_gtid_pos, "0-1-5,1-2-40");
}

TEST(BackupCoordsTest, MysqlDumpSourceDataWithMultiLineGtidPurged) {
  // MySQL 8.0.23+ --source-data=2 with --set-gtid-purged=ON and two server UUIDs.
  const BackupCoordinates c = read_text(
      cat(kMysqldumpPreamble,
          "\n"
          "--\n"
          "-- GTID state at the beginning of the backup \n"
          "--\n"
          "\n"
          "SET @@GLOBAL.GTID_PURGED=/*!80000 '+'*/ '916941de-9c55-11f1-8057-926cb20853d9:1-761,\n"
          "a849f9cd-9d43-11f1-b163-f2b10cab70b0:1-17';\n"
          "\n"
          "--\n"
          "-- Position to start replication or point-in-time recovery from\n"
          "--\n"
          "\n"
          "-- CHANGE REPLICATION SOURCE TO SOURCE_LOG_FILE='binlog.000042', SOURCE_LOG_POS=157;\n",
          kMysqlTableStart));
  EXPECT_EQ(c.source, "mysqldump");
  EXPECT_EQ(c.file, "binlog.000042");
  EXPECT_EQ(c.position, 157u);
  EXPECT_EQ(c.mysql_gtid_set,
            "916941de-9c55-11f1-8057-926cb20853d9:1-761,a849f9cd-9d43-11f1-b163-f2b10cab70b0:1-17");
  EXPECT_EQ(c.mariadb_gtid_pos, "");
}

TEST(BackupCoordsTest, MysqlDumpOldGtidPurgedFormAndUncommentedChangeMaster) {
  // MySQL 5.6/5.7: no '+' comment; --master-data=1 leaves the statement effective.
  const BackupCoordinates c =
      read_text(cat(kMysqldumpPreamble,
                    "SET @@GLOBAL.GTID_PURGED='3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5,\n"
                    "4491380c-5966-11ec-b318-005056afa0b8:1-8500511';\n"
                    "\n"
                    "CHANGE MASTER TO MASTER_LOG_FILE='mysql-bin.000023', MASTER_LOG_POS=4;\n",
                    kMysqlTableStart));
  EXPECT_EQ(c.file, "mysql-bin.000023");
  EXPECT_EQ(c.position, 4u);
  EXPECT_EQ(
      c.mysql_gtid_set,
      "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5,4491380c-5966-11ec-b318-005056afa0b8:1-8500511");
}

TEST(BackupCoordsTest, MysqlDumpCommentedGtidPurged) {
  // --set-gtid-purged=COMMENTED (MySQL 8.0.32+).
  const BackupCoordinates c =
      read_text(cat(kMysqldumpPreamble,
                    "/* SET @@GLOBAL.GTID_PURGED='+3e11fa47-71ca-11e1-9e33-c80aa9429562:1-9';*/\n",
                    kMysqlTableStart));
  EXPECT_EQ(c.file, "");
  EXPECT_FALSE(c.position.has_value());
  EXPECT_EQ(c.mysql_gtid_set, "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-9");
}

TEST(BackupCoordsTest, ChangeMasterSpreadOverLinesWithExtraSpacesAndAPath) {
  const BackupCoordinates c =
      read_text(cat(kMysqldumpPreamble,
                    "CHANGE   MASTER  TO\n"
                    "   MASTER_LOG_FILE =  '/var/lib/mysql/binlog/mysql-bin.000023' ,\n"
                    "\n"
                    "   MASTER_LOG_POS  =   98765 ;\n",
                    kMysqlTableStart));
  EXPECT_EQ(c.file, "/var/lib/mysql/binlog/mysql-bin.000023");
  EXPECT_EQ(c.position, 98765u);
}

TEST(BackupCoordsTest, CommentedStatementContinuedOnCommentedLines) {
  const BackupCoordinates c = read_text(cat(kMysqldumpPreamble,
                                            "-- CHANGE REPLICATION SOURCE TO\n"
                                            "--   SOURCE_LOG_FILE='binlog.000003',\n"
                                            "--   SOURCE_LOG_POS=4711;\n",
                                            kMysqlTableStart));
  EXPECT_EQ(c.file, "binlog.000003");
  EXPECT_EQ(c.position, 4711u);
}

TEST(BackupCoordsTest, WindowsLineEndings) {
  const BackupCoordinates c = read_text(
      "-- MySQL dump 10.13\r\n"
      "-- CHANGE MASTER TO MASTER_LOG_FILE='mysql-bin.000009', MASTER_LOG_POS=120;\r\n"
      "SET @@GLOBAL.GTID_PURGED='3e11fa47-71ca-11e1-9e33-c80aa9429562:1-2';\r\n"
      "CREATE DATABASE `x`;\r\n");
  EXPECT_EQ(c.file, "mysql-bin.000009");
  EXPECT_EQ(c.position, 120u);
  EXPECT_EQ(c.mysql_gtid_set, "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-2");
}

TEST(BackupCoordsTest, MariadbDumpSlaveWithConnectionNameAndHost) {
  // --dump-slave --include-master-host-port on a MariaDB replica: the master's coordinates.
  const BackupCoordinates c =
      read_text(cat(kMariadbDumpPreamble,
                    "-- SET GLOBAL gtid_slave_pos='0-1-12';\n"
                    "CHANGE MASTER '' TO MASTER_HOST='10.0.0.5', MASTER_PORT=3306, "
                    "MASTER_LOG_FILE='master-bin.000001', MASTER_LOG_POS=329;\n",
                    kMariadbDumpPlain));
  EXPECT_EQ(c.file, "master-bin.000001");
  EXPECT_EQ(c.position, 329u);
  EXPECT_EQ(c.mariadb_gtid_pos, "0-1-12");
}

TEST(BackupCoordsTest, SeveralDifferentPositionsAreAmbiguous) {
  // A multi-source --dump-slave dump: one CHANGE MASTER per connection.
  TempDir dir;
  const std::string path = dir.write(
      "multi.sql", cat(kMariadbDumpPreamble,
                       "CHANGE MASTER 'a' TO MASTER_LOG_FILE='a-bin.000001', MASTER_LOG_POS=4;\n"
                       "CHANGE MASTER 'b' TO MASTER_LOG_FILE='b-bin.000002', MASTER_LOG_POS=8;\n",
                       kMariadbDumpPlain));
  const Error e = error_for(path);
  EXPECT_EQ(e.code(), ErrorCode::kUsage);
  EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("a-bin.000001:4"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("b-bin.000002:8"), std::string::npos) << e.what();
}

TEST(BackupCoordsTest, SameStatementTwiceIsNotAmbiguous) {
  // --dump-slave with --apply-slave-statements repeats nothing, but a hand-merged dump might.
  const BackupCoordinates c =
      read_text(cat(kMysqldumpPreamble,
                    "-- CHANGE MASTER TO MASTER_LOG_FILE='mysql-bin.000002', MASTER_LOG_POS=385;\n"
                    "CHANGE MASTER TO MASTER_LOG_FILE='mysql-bin.000002', MASTER_LOG_POS=385;\n",
                    kMysqlTableStart));
  EXPECT_EQ(c.file, "mysql-bin.000002");
}

TEST(BackupCoordsTest, NothingAfterTheFirstCreateCounts) {
  const Error e = error_for_text(cat(kMysqldumpPreamble, kMysqlTableStart,
                                     "CHANGE MASTER TO MASTER_LOG_FILE='late.000001', "
                                     "MASTER_LOG_POS=4;\n"));
  EXPECT_EQ(e.code(), ErrorCode::kUsage);
}

TEST(BackupCoordsTest, ACommentSayingSetIsNotAStatement) {
  // "-- Set ..." must not swallow the following lines while looking for a ';'.
  const BackupCoordinates c =
      read_text(cat(kMysqldumpPreamble,
                    "-- Set up from the nightly job\n"
                    "-- CHANGE MASTER TO MASTER_LOG_FILE='mysql-bin.000002', MASTER_LOG_POS=385;\n",
                    kMysqlTableStart));
  EXPECT_EQ(c.file, "mysql-bin.000002");
}

TEST(BackupCoordsTest, BadPositionIsAUsageErrorWithTheLine) {
  TempDir dir;
  const std::string path = dir.write(
      "bad.sql", cat(kMysqldumpPreamble,
                     "CHANGE MASTER TO MASTER_LOG_FILE='mysql-bin.000002', MASTER_LOG_POS=12x;\n",
                     kMysqlTableStart));
  const Error e = error_for(path);
  EXPECT_EQ(e.code(), ErrorCode::kUsage);
  EXPECT_NE(std::string(e.what()).find(path + ":13:"), std::string::npos) << e.what();
}

}  // namespace
}  // namespace binrecover::recovery
