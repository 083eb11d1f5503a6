// Fixtures of the backup-coordinates tests: real dump headers and trailers, a temporary folder,
// and helpers that read a text as a backup.
#pragma once

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
#include "recovery/recover/backup_coords.h"

namespace binrecover::recovery::coords_test {

// ---------------------------------------------------------------------------------------------
// Real mariadb-dump 10.19 (MariaDB 10.11.19) output, from a throwaway server
// (scripts/mariadb_server.sh) holding database `d` with one table and one row:
//   mariadb-dump --master-data=2 --flush-logs --gtid -B d
//   mariadb-dump --master-data=1 -B d
//   mariadb-dump --master-data=1 --gtid -B d
//   mariadb-dump -B d
// Each header is kMariadbDumpPreamble followed by the lines up to the first CREATE; 10.11 writes
// the GTID position after the data, in the trailer quoted below.

inline constexpr std::string_view kMariadbDumpPreamble =
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
inline constexpr std::string_view kMariadbDumpMasterData2Gtid =
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
inline constexpr std::string_view kMariadbDumpMasterData1 =
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
inline constexpr std::string_view kMariadbDumpMasterData1Gtid =
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
inline constexpr std::string_view kMariadbDumpPlain =
    "\n"
    "--\n"
    "-- Current Database: `d`\n"
    "--\n"
    "\n"
    "CREATE DATABASE /*!32312 IF NOT EXISTS*/ `d` /*!40100 DEFAULT CHARACTER SET utf8mb4 COLLATE "
    "utf8mb4_general_ci */;\n";

// Abbreviated body between header and trailer.
inline constexpr std::string_view kDumpBody =
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
inline constexpr std::string_view kMariadbDumpTrailer =
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
inline constexpr std::string_view kMysqldumpPreamble =
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

inline constexpr std::string_view kMysqlTableStart =
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

inline BackupCoordinates read_text(std::string_view text, const std::string& name = "backup") {
  TempDir dir;
  return read_backup_coordinates(dir.write(name, text));
}

// The error read_backup_coordinates throws for `path`; fails the test if there is none.
inline Error error_for(const std::string& path) {
  try {
    read_backup_coordinates(path);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "no error for " << path;
  return Error(ErrorCode::kBadEvent, "none");
}

inline Error error_for_text(std::string_view text, const std::string& name = "backup.sql") {
  TempDir dir;
  return error_for(dir.write(name, text));
}

inline std::string cat(std::string_view a, std::string_view b, std::string_view c = {},
                       std::string_view d = {}) {
  return std::string(a) + std::string(b) + std::string(c) + std::string(d);
}

}  // namespace binrecover::recovery::coords_test
