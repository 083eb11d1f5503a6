#include "recovery/recover/backup_coords.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

#include "binlog/error.h"

namespace binrecover::recovery {
namespace {

// ---------------------------------------------------------------------------------------------
// Real mariadb-dump 10.19 (MariaDB 10.11.19) output, from a throwaway server
// (scripts/mariadb_server.sh) holding database `d` with one table and one row:
//   mariadb-dump --master-data=2 --flush-logs --gtid -B d
//   mariadb-dump --master-data=1 -B d
//   mariadb-dump --master-data=1 --gtid -B d
//   mariadb-dump -B d
// Each header is kMariadbDumpPreamble followed by the lines up to the first CREATE; 10.11 writes
// the GTID position after the data, in the trailer quoted below.

constexpr std::string_view kMariadbDumpPreamble =
    "/*M!999999\\- enable the sandbox mode */ \n"
    "-- MariaDB dump 10.19  Distrib 10.11.19-MariaDB, for debian-linux-gnu (x86_64)\n"
    "--\n"
    "-- Host: 127.0.0.1    Database: d\n"
    "-- ------------------------------------------------------\n"
    "-- Server version\t10.11.19-MariaDB-0+deb12u1-log\n"
    "\n"
    "/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;\n"
    "/*!40101 SET @OLD_CHARACTER_SET_RESULTS=@@CHARACTER_SET_RESULTS */;\n"
    "/*!40101 SET @OLD_COLLATION_CONNECTION=@@COLLATION_CONNECTION */;\n"
    "/*!40101 SET NAMES utf8mb4 */;\n"
    "/*!40103 SET @OLD_TIME_ZONE=@@TIME_ZONE */;\n"
    "/*!40103 SET TIME_ZONE='+00:00' */;\n"
    "/*!40014 SET @OLD_UNIQUE_CHECKS=@@UNIQUE_CHECKS, UNIQUE_CHECKS=0 */;\n"
    "/*!40014 SET @OLD_FOREIGN_KEY_CHECKS=@@FOREIGN_KEY_CHECKS, FOREIGN_KEY_CHECKS=0 */;\n"
    "/*!40101 SET @OLD_SQL_MODE=@@SQL_MODE, SQL_MODE='NO_AUTO_VALUE_ON_ZERO' */;\n"
    "/*!40111 SET @OLD_SQL_NOTES=@@SQL_NOTES, SQL_NOTES=0 */;\n";

// --master-data=2 --flush-logs --gtid
constexpr std::string_view kMariadbDumpMasterData2Gtid =
    "-- CHANGE MASTER TO MASTER_USE_GTID=slave_pos;\n"
    "\n"
    "-- A corresponding to the above master-data CHANGE-MASTER settings to the slave gtid state "
    "is printed later in the file.\n"
    "\n"
    "--\n"
    "-- Alternately, following is the position of the binary logging from SHOW MASTER STATUS at "
    "point of backup.\n"
    "-- Use this when creating a slave of the master server where the backup was made.\n"
    "-- The new server will be connecting to the master server where the backup was taken.\n"
    "--\n"
    "\n"
    "-- CHANGE MASTER TO MASTER_LOG_FILE='mysql-bin.000002', MASTER_LOG_POS=385;\n"
    "\n"
    "--\n"
    "-- Current Database: `d`\n"
    "--\n"
    "\n"
    "CREATE DATABASE /*!32312 IF NOT EXISTS*/ `d` /*!40100 DEFAULT CHARACTER SET utf8mb4 COLLATE "
    "utf8mb4_general_ci */;\n";

// --master-data=1
constexpr std::string_view kMariadbDumpMasterData1 =
    "\n"
    "--\n"
    "-- Alternately, following is the position of the binary logging from SHOW MASTER STATUS at "
    "point of backup.\n"
    "-- Use this when creating a slave of the master server where the backup was made.\n"
    "-- The new server will be connecting to the master server where the backup was taken.\n"
    "--\n"
    "\n"
    "CHANGE MASTER TO MASTER_LOG_FILE='mysql-bin.000002', MASTER_LOG_POS=385;\n"
    "\n"
    "-- A corresponding to the above master-data CHANGE-MASTER settings to the slave gtid state "
    "is printed as comments later in the file.\n"
    "\n"
    "--\n"
    "-- Current Database: `d`\n"
    "--\n"
    "\n"
    "CREATE DATABASE /*!32312 IF NOT EXISTS*/ `d` /*!40100 DEFAULT CHARACTER SET utf8mb4 COLLATE "
    "utf8mb4_general_ci */;\n";

// --master-data=1 --gtid: the GTID statement is the effective one, the position a comment.
constexpr std::string_view kMariadbDumpMasterData1Gtid =
    "CHANGE MASTER TO MASTER_USE_GTID=slave_pos;\n"
    "\n"
    "-- A corresponding to the above master-data CHANGE-MASTER settings to the slave gtid state "
    "is printed later in the file.\n"
    "\n"
    "--\n"
    "-- Alternately, following is the position of the binary logging from SHOW MASTER STATUS at "
    "point of backup.\n"
    "-- Use this when creating a slave of the master server where the backup was made.\n"
    "-- The new server will be connecting to the master server where the backup was taken.\n"
    "--\n"
    "\n"
    "-- CHANGE MASTER TO MASTER_LOG_FILE='mysql-bin.000002', MASTER_LOG_POS=385;\n"
    "\n"
    "--\n"
    "-- Current Database: `d`\n"
    "--\n"
    "\n"
    "CREATE DATABASE /*!32312 IF NOT EXISTS*/ `d` /*!40100 DEFAULT CHARACTER SET utf8mb4 COLLATE "
    "utf8mb4_general_ci */;\n";

// No --master-data: nothing to find.
constexpr std::string_view kMariadbDumpPlain =
    "\n"
    "--\n"
    "-- Current Database: `d`\n"
    "--\n"
    "\n"
    "CREATE DATABASE /*!32312 IF NOT EXISTS*/ `d` /*!40100 DEFAULT CHARACTER SET utf8mb4 COLLATE "
    "utf8mb4_general_ci */;\n";

// Abbreviated body between header and trailer.
constexpr std::string_view kDumpBody =
    "\n"
    "USE `d`;\n"
    "CREATE TABLE `t` (\n"
    "  `id` int(11) NOT NULL,\n"
    "  `v` varchar(10) DEFAULT NULL,\n"
    "  PRIMARY KEY (`id`)\n"
    ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;\n"
    "INSERT INTO `t` VALUES\n"
    "(1,'a');\n"
    "UNLOCK TABLES;\n";

// The trailer of the --master-data=2 dump (--master-data=1 --gtid writes the SET uncommented).
constexpr std::string_view kMariadbDumpTrailer =
    "\n"
    "-- The deferred gtid setting for slave corresponding to the master-data CHANGE-MASTER "
    "follows\n"
    "\n"
    "-- Preferably use GTID to start replication from GTID position:\n"
    "\n"
    "-- SET GLOBAL gtid_slave_pos='0-1-3';\n"
    "/*!40103 SET TIME_ZONE=@OLD_TIME_ZONE */;\n"
    "\n"
    "/*!40101 SET SQL_MODE=@OLD_SQL_MODE */;\n"
    "/*!40014 SET FOREIGN_KEY_CHECKS=@OLD_FOREIGN_KEY_CHECKS */;\n"
    "/*!40014 SET UNIQUE_CHECKS=@OLD_UNIQUE_CHECKS */;\n"
    "/*!40101 SET CHARACTER_SET_CLIENT=@OLD_CHARACTER_SET_CLIENT */;\n"
    "/*!40101 SET CHARACTER_SET_RESULTS=@OLD_CHARACTER_SET_RESULTS */;\n"
    "/*!40101 SET COLLATION_CONNECTION=@OLD_COLLATION_CONNECTION */;\n"
    "/*!40111 SET SQL_NOTES=@OLD_SQL_NOTES */;\n"
    "\n"
    "-- Dump completed on 2026-11-29 23:40:29\n";

// MySQL 8.0 mysqldump header as client/mysqldump.cc writes it (comments on, GTIDs on).
constexpr std::string_view kMysqldumpPreamble =
    "-- MySQL dump 10.13  Distrib 8.0.36, for Linux (x86_64)\n"
    "--\n"
    "-- Host: 127.0.0.1    Database: shop\n"
    "-- ------------------------------------------------------\n"
    "-- Server version\t8.0.36\n"
    "\n"
    "/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;\n"
    "/*!50503 SET NAMES utf8mb4 */;\n"
    "/*!40103 SET @OLD_TIME_ZONE=@@TIME_ZONE */;\n"
    "/*!40103 SET TIME_ZONE='+00:00' */;\n"
    "SET @MYSQLDUMP_TEMP_LOG_BIN = @@SESSION.SQL_LOG_BIN;\n"
    "SET @@SESSION.SQL_LOG_BIN= 0;\n";

constexpr std::string_view kMysqlTableStart =
    "\n"
    "--\n"
    "-- Table structure for table `orders`\n"
    "--\n"
    "\n"
    "DROP TABLE IF EXISTS `orders`;\n";

// ---------------------------------------------------------------------------------------------

class TempDir {
 public:
  TempDir() {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "binrecover-coords-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string write(const std::string& name, std::string_view text) const {
    const std::filesystem::path p = path_ / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream out(p, std::ios::binary);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    return p.string();
  }
  std::string path(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

BackupCoordinates read_text(std::string_view text, const std::string& name = "backup") {
  TempDir dir;
  return read_backup_coordinates(dir.write(name, text));
}

// The error read_backup_coordinates throws for `path`; fails the test if there is none.
Error error_for(const std::string& path) {
  try {
    read_backup_coordinates(path);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "no error for " << path;
  return Error(ErrorCode::kBadEvent, "none");
}

Error error_for_text(std::string_view text, const std::string& name = "backup.sql") {
  TempDir dir;
  return error_for(dir.write(name, text));
}

std::string cat(std::string_view a, std::string_view b, std::string_view c = {},
                std::string_view d = {}) {
  return std::string(a) + std::string(b) + std::string(c) + std::string(d);
}

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
