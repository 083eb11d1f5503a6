#include "recovery/sql/schema.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "binlog/error.h"

namespace binrecover::recovery {
namespace {

std::vector<std::string> names(const TableDef* t) {
  std::vector<std::string> out;
  if (t != nullptr)
    for (const auto& c : t->columns) out.push_back(c.name);
  return out;
}

using V = std::vector<std::string>;

// The CREATE TABLE layout mariadb-dump and mysqldump write.
constexpr std::string_view kCreate = R"(CREATE TABLE `t` (
  `id` int(10) unsigned NOT NULL AUTO_INCREMENT,
  `name` varchar(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci DEFAULT 'a,b',
  `sex` enum('m','w','it''s') DEFAULT NULL,
  `tags` set('x','y') NOT NULL DEFAULT '',
  `n` bigint(20) DEFAULT (1 + 2) COMMENT 'a (tricky), comment',
  `g` int GENERATED ALWAYS AS (`n` * 2) VIRTUAL,
  PRIMARY KEY (`id`,`name`(4)) USING BTREE,
  UNIQUE KEY `u` (`n`),
  KEY `k` (`name`),
  CONSTRAINT `c` CHECK (`n` > 0)
) ENGINE=InnoDB AUTO_INCREMENT=3 DEFAULT CHARSET=utf8mb4 /*!50100 PARTITION BY HASH (`id`) */)";

TEST(SchemaTest, CreateTableAsDumped) {
  Schema s;
  s.apply("shop", kCreate);
  const TableDef* t = s.find("shop", "t");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(names(t), (V{"id", "name", "sex", "tags", "n", "g"}));
  EXPECT_TRUE(t->columns[0].is_unsigned);
  EXPECT_FALSE(t->columns[4].is_unsigned);
  EXPECT_EQ(t->columns[2].enum_values, (V{"m", "w", "it's"}));
  EXPECT_EQ(t->columns[3].set_values, (V{"x", "y"}));
  EXPECT_EQ(t->primary_key, (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(s.find("other", "t"), nullptr);
  // Generated columns: the server computes them, and refuses a value for them.
  for (std::size_t k = 0; k < 5; ++k) EXPECT_FALSE(t->columns[k].generated) << k;
  EXPECT_TRUE(t->columns[5].generated);
  s.apply("shop", "CREATE TABLE v (a INT, b INT AS (a + 1) STORED, c INT DEFAULT (a))");
  const TableDef* v = s.find("shop", "v");
  ASSERT_NE(v, nullptr);
  EXPECT_FALSE(v->columns[0].generated);
  EXPECT_TRUE(v->columns[1].generated);
  EXPECT_FALSE(v->columns[2].generated);
  s.apply("shop",
          "ALTER TABLE v ADD COLUMN d JSON GENERATED ALWAYS AS (JSON_OBJECT('a', a)) VIRTUAL");
  EXPECT_TRUE(s.find("shop", "v")->columns[3].generated);
}

// Triggers, as the binlog logs them and as mysqldump writes them: by table, until dropped (by
// name, or with their table or database).
TEST(SchemaTest, TriggersByTable) {
  Schema s;
  s.apply("w1",
          "CREATE DEFINER=`root`@`localhost` TRIGGER acct_ai AFTER INSERT ON acct FOR EACH ROW "
          "INSERT INTO audit (acct_id) VALUES (NEW.id)");
  EXPECT_TRUE(s.has_triggers("w1", "acct"));
  EXPECT_FALSE(s.has_triggers("w1", "audit"));
  s.apply("other",
          "/*!50003 CREATE*/ /*!50017 DEFINER=`root`@`localhost`*/ /*!50003 TRIGGER `w1`.`t2` "
          "BEFORE UPDATE ON `audit` FOR EACH ROW SET NEW.what = 'u' */");
  EXPECT_TRUE(s.has_triggers("w1", "audit"));
  EXPECT_FALSE(s.has_triggers("other", "audit"));
  s.apply("w1", "DROP TRIGGER IF EXISTS ACCT_AI");
  EXPECT_FALSE(s.has_triggers("w1", "acct"));
  s.apply("w1", "RENAME TABLE audit TO audit2");
  EXPECT_TRUE(s.has_triggers("w1", "audit2"));
  s.apply("w1", "DROP TABLE audit2");
  EXPECT_FALSE(s.has_triggers("w1", "audit2"));
  s.apply("w1", "CREATE TRIGGER x BEFORE DELETE ON t FOR EACH ROW SET @a = 1");
  s.apply("", "DROP DATABASE w1");
  EXPECT_FALSE(s.has_triggers("w1", "t"));
}

TEST(SchemaTest, AlterAddDropReorderRename) {
  Schema s;
  s.apply("shop", "CREATE TABLE t (a INT PRIMARY KEY, b INT, c INT)");
  const std::uint64_t g = s.generation();
  s.apply("shop", "ALTER TABLE t ADD COLUMN z INT UNSIGNED FIRST, ADD y TEXT AFTER b");
  EXPECT_EQ(names(s.find("shop", "t")), (V{"z", "a", "b", "y", "c"}));
  EXPECT_GT(s.generation(), g);
  EXPECT_TRUE(s.find("shop", "t")->columns[0].is_unsigned);
  EXPECT_EQ(s.find("shop", "t")->primary_key, (std::vector<std::uint32_t>{1}));
  s.apply("shop", "ALTER TABLE `shop`.`t` DROP COLUMN b, MODIFY c INT AFTER z");
  EXPECT_EQ(names(s.find("shop", "t")), (V{"z", "c", "a", "y"}));
  EXPECT_EQ(s.find("shop", "t")->primary_key, (std::vector<std::uint32_t>{2}));
  s.apply("shop", "ALTER TABLE t CHANGE a a2 BIGINT FIRST, RENAME COLUMN y TO y2");
  EXPECT_EQ(names(s.find("shop", "t")), (V{"a2", "z", "c", "y2"}));
  EXPECT_EQ(s.find("shop", "t")->primary_key, (std::vector<std::uint32_t>{0}));
  s.apply("shop", "ALTER TABLE t DROP PRIMARY KEY, ADD PRIMARY KEY (c, z), ADD INDEX i (y2)");
  EXPECT_EQ(s.find("shop", "t")->primary_key, (std::vector<std::uint32_t>{2, 1}));
  s.apply("shop", "ALTER TABLE t RENAME TO t2");
  EXPECT_EQ(s.find("shop", "t"), nullptr);
  EXPECT_EQ(names(s.find("shop", "t2")), (V{"a2", "z", "c", "y2"}));
  s.apply("other", "RENAME TABLE shop.t2 TO shop.t3");
  EXPECT_NE(s.find("shop", "t3"), nullptr);
  s.apply("x", "CREATE TABLE shop.t4 LIKE shop.t3");
  EXPECT_EQ(names(s.find("shop", "t4")), (V{"a2", "z", "c", "y2"}));
  s.apply("shop", "DROP TABLE IF EXISTS t3, `t4`");
  EXPECT_EQ(s.find("shop", "t3"), nullptr);
  EXPECT_EQ(s.find("shop", "t4"), nullptr);
  s.apply("shop", "CREATE TABLE u (a INT)");
  s.apply("shop", "DROP DATABASE shop");
  EXPECT_EQ(s.tables(), 0u);
}

TEST(SchemaTest, AlterClausesResolveAgainstTheTableBeforeTheStatement) {
  Schema s;
  s.apply("d", "CREATE TABLE t (a INT, b INT, c INT, PRIMARY KEY (a))");
  s.apply("d", "ALTER TABLE t RENAME COLUMN a TO b, RENAME COLUMN b TO a");  // a swap
  EXPECT_EQ(names(s.find("d", "t")), (V{"b", "a", "c"}));
  EXPECT_EQ(s.find("d", "t")->primary_key, (std::vector<std::uint32_t>{0}));  // still the 1st
  s.apply("d", "ALTER TABLE t CHANGE b a INT, CHANGE a b INT");
  EXPECT_EQ(names(s.find("d", "t")), (V{"a", "b", "c"}));
  // A key on a column added later in the same statement.
  s.apply("d", "ALTER TABLE t DROP PRIMARY KEY, ADD PRIMARY KEY (a, x), ADD COLUMN x INT NOT NULL");
  EXPECT_EQ(names(s.find("d", "t")), (V{"a", "b", "c", "x"}));
  EXPECT_EQ(s.find("d", "t")->primary_key, (std::vector<std::uint32_t>{0, 3}));
  // DDL after a comment, on several lines.
  s.apply("d", "/* migration 42 */ ALTER\nTABLE t DROP COLUMN c");
  EXPECT_EQ(names(s.find("d", "t")), (V{"a", "b", "x"}));
}

TEST(SchemaTest, WhatCannotBeResolvedDropsTheDefinition) {
  Schema s;
  s.apply("d", "CREATE TABLE t (a INT, b INT)");
  s.apply("d", "ALTER TABLE t ADD COLUMN c INT AFTER nosuch");
  EXPECT_EQ(s.find("d", "t"), nullptr);  // positional with a warning, never a wrong order
  s.apply("d", "CREATE TABLE t (a INT, b INT, PRIMARY KEY (a, nosuch))");
  EXPECT_TRUE(s.find("d", "t")->primary_key.empty());     // no partial key
  s.apply("d", "ALTER TABLE t ADD (1c INT, \"q\" INT)");  // terminates
  EXPECT_EQ(names(s.find("d", "t")), (V{"a", "b", "1c"}));
}

TEST(SchemaTest, IfNotExistsTemporaryAndAnyDatabaseEntries) {
  Schema s;
  s.apply("d", "CREATE TABLE t (a INT, b INT)");
  s.apply("d", "CREATE TABLE IF NOT EXISTS t (old INT, shape INT)");  // exists: no change
  EXPECT_EQ(names(s.find("d", "t")), (V{"a", "b"}));
  s.apply("d", "CREATE TEMPORARY TABLE t (tmp INT)");
  s.apply("d", "DROP TEMPORARY TABLE t");
  EXPECT_EQ(names(s.find("d", "t")), (V{"a", "b"}));
  s.apply("d", "CREATE TABLE z (n INT ZEROFILL, id SERIAL)");
  EXPECT_TRUE(s.find("d", "z")->columns[0].is_unsigned);
  EXPECT_TRUE(s.find("d", "z")->columns[1].is_unsigned);
  // A dump without USE: tables for any database; an ALTER in one database leaves the others.
  s.apply("", "CREATE TABLE u (a INT)");
  s.apply("db1", "ALTER TABLE u ADD COLUMN b INT");
  EXPECT_EQ(names(s.find("db1", "u")), (V{"a", "b"}));
  EXPECT_EQ(names(s.find("db2", "u")), (V{"a"}));
  s.apply("db2", "RENAME TABLE u TO u2");
  EXPECT_EQ(names(s.find("db2", "u2")), (V{"a"}));
}

TEST(SchemaTest, UnknownStatementsChangeNothing) {
  Schema s;
  s.apply("d", "CREATE TABLE t (a INT)");
  const std::uint64_t g = s.generation();
  s.apply("d", "INSERT INTO t VALUES (1)");
  s.apply("d", "ALTER TABLE missing ADD COLUMN b INT");
  s.apply("d", "CREATE TABLE s AS SELECT 1");
  EXPECT_EQ(names(s.find("d", "t")), (V{"a"}));
  EXPECT_EQ(s.find("d", "s"), nullptr);
  EXPECT_GE(s.generation(), g);
}

TEST(SchemaTest, LoadFileStreamsADumpWithDataAndTriggers) {
  const auto dir = std::filesystem::temp_directory_path() / "binrecover-schema-test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "dump.sql").string();
  {
    std::ofstream f(path);
    f << "-- MySQL dump 10.19\n/*!40101 SET NAMES utf8mb4 */;\n"
         "CREATE DATABASE /*!32312 IF NOT EXISTS*/ `shop` /*!40100 DEFAULT CHARACTER SET utf8mb4 "
         "*/;\n"
         "USE `shop`;\nDROP TABLE IF EXISTS `t`;\n"
      << kCreate
      << ";\n/*!40000 ALTER TABLE `t` DISABLE KEYS */;\n"
         "INSERT INTO `t` VALUES (1,'a;b','m','x',1,2),(2,'CREATE TABLE x (q INT);','w','',2,4);\n"
         "DELIMITER ;;\n/*!50003 CREATE*/ /*!50003 TRIGGER `tr` BEFORE INSERT ON `t` FOR EACH ROW "
         "BEGIN SET NEW.n = 1; END */;;\nDELIMITER ;\n"
         "USE `crm`;\nCREATE TABLE `c` (`k` tinyint unsigned NOT NULL, PRIMARY KEY (`k`));\n"
         "-- routines\nDELIMITER //\nCREATE TABLE `d` (`x` int)//\nDELIMITER ;\n";
  }
  Schema s;
  s.load_file(path);
  EXPECT_EQ(s.tables(), 3u);
  EXPECT_EQ(names(s.find("crm", "d")), (V{"x"}));
  EXPECT_EQ(names(s.find("shop", "t")), (V{"id", "name", "sex", "tags", "n", "g"}));
  EXPECT_EQ(names(s.find("crm", "c")), (V{"k"}));
  EXPECT_TRUE(s.find("crm", "c")->columns[0].is_unsigned);
  EXPECT_EQ(s.find("shop", "x"), nullptr);  // text inside a string is not a statement
  std::filesystem::remove_all(dir);
}

TEST(SchemaTest, LoadFileErrors) {
  Schema s;
  EXPECT_THROW(s.load_file("/nonexistent/dump.sql"), Error);
  const auto path = std::filesystem::temp_directory_path() / "binrecover-schema-empty.sql";
  { std::ofstream(path) << "INSERT INTO t VALUES (1);\n"; }
  try {
    s.load_file(path.string());
    FAIL() << "a file without CREATE TABLE was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUsage);
  }
  std::filesystem::remove(path);
}

TEST(SchemaTest, CompleteFillsNamesOrPositions) {
  Schema s;
  s.apply("d", "CREATE TABLE t (a INT UNSIGNED, b ENUM('x','y'), PRIMARY KEY (b))");
  binlog::TableInfo info;
  info.db = "d";
  info.table = "t";
  info.layout.resize(2);
  info.is_unsigned.assign(2, 0);
  info.enum_values.resize(2);
  info.set_values.resize(2);
  EXPECT_TRUE(s.complete(info, 100, true));
  EXPECT_EQ(info.names, (V{"a", "b"}));
  EXPECT_EQ(info.is_unsigned[0], 1);
  EXPECT_EQ(info.enum_values[1], (V{"x", "y"}));
  EXPECT_EQ(info.primary_key, (std::vector<std::uint32_t>{1}));

  std::vector<std::string> warnings;
  Schema w([&](const std::string& m) { warnings.push_back(m); });
  binlog::TableInfo other = info;
  other.names.clear();
  other.layout.resize(3);
  EXPECT_FALSE(w.complete(other, 200, false));
  EXPECT_TRUE(other.names.empty());
  EXPECT_FALSE(w.complete(other, 200, true));
  EXPECT_EQ(other.names, (V{"@1", "@2", "@3"}));
  other.names.clear();
  EXPECT_FALSE(w.complete(other, 300, true));
  ASSERT_EQ(warnings.size(), 1u);  // once per table
  EXPECT_NE(warnings[0].find("d.t is not in the schema"), std::string::npos) << warnings[0];
}

}  // namespace
}  // namespace binrecover::recovery
