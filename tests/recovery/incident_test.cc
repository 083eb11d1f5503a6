#include "recovery/decisions/incident.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "binlog/error.h"
#include "recovery/decisions/dump_rows.h"

namespace binrecover::recovery {
namespace {

TEST(WhereKind, NoneLookupOrBatch) {
  EXPECT_EQ(where_kind("DELETE FROM orders"), WhereKind::kNone);
  EXPECT_EQ(where_kind("UPDATE customers SET balance = balance * 1.01"), WhereKind::kNone);
  // A WHERE inside a subquery is not the statement's.
  EXPECT_EQ(where_kind("UPDATE t SET a = (SELECT MAX(b) FROM u WHERE u.id = 3)"), WhereKind::kNone);
  EXPECT_EQ(where_kind("DELETE FROM orders WHERE id = 5"), WhereKind::kPinned);
  EXPECT_EQ(where_kind("DELETE FROM `o` WHERE `o`.`id`=-5 LIMIT 1"), WhereKind::kPinned);
  EXPECT_EQ(where_kind("UPDATE o SET s='x' WHERE 'k1' = code"), WhereKind::kPinned);
  EXPECT_EQ(where_kind("UPDATE o SET s='x' WHERE id IN (1, 2, 3) AND created < NOW()"),
            WhereKind::kPinned);
  EXPECT_EQ(where_kind("DELETE FROM o WHERE (id = 1) OR (id = 2)"), WhereKind::kPinned);
  EXPECT_EQ(where_kind("DELETE FROM o WHERE name = _utf8mb4'x' COLLATE utf8mb4_bin"),
            WhereKind::kOpen);
  EXPECT_EQ(where_kind("DELETE FROM orders WHERE created < NOW()"), WhereKind::kOpen);
  EXPECT_EQ(where_kind("DELETE FROM o WHERE id = 1 OR created < NOW()"), WhereKind::kOpen);
  EXPECT_EQ(where_kind("DELETE FROM o WHERE name LIKE 'a%'"), WhereKind::kOpen);
  EXPECT_EQ(where_kind("DELETE FROM o WHERE 1 = 1"), WhereKind::kOpen);
  EXPECT_EQ(where_kind("DELETE FROM o WHERE id = id"), WhereKind::kOpen);
  EXPECT_EQ(where_kind("UPDATE o SET v = 1 WHERE status = 'new' ORDER BY id LIMIT 10"),
            WhereKind::kPinned);
}

TEST(StatementShape, LiteralsAndSpacing) {
  EXPECT_EQ(statement_shape("delete from  t where id = 5"),
            statement_shape("DELETE FROM t WHERE id=77"));
  EXPECT_NE(statement_shape("DELETE FROM t WHERE id = 5"),
            statement_shape("DELETE FROM u WHERE id = 5"));
  EXPECT_EQ(statement_shape("TRUNCATE `stage`"), "TRUNCATE `stage`");
}

TEST(AllowRules, TargetsAndStatements) {
  const AllowRules rules({"zyyshop.customers", "etl.*", "UPDATE  stats SET hits"});
  EXPECT_NE(rules.match("zyyshop.customers", "UPDATE customers SET balance = balance * 1.01"),
            nullptr);
  EXPECT_EQ(rules.match("zyyshop.orders", "DELETE FROM orders"), nullptr);
  EXPECT_NE(rules.match("etl.stage", "TRUNCATE etl.stage"), nullptr);
  EXPECT_EQ(rules.match("etl", "DROP DATABASE etl"), nullptr);  // db.* is not the database
  EXPECT_NE(rules.match("web.stats", "update stats\n set hits = hits + 1"), nullptr);
  EXPECT_EQ(rules.match("web.stats", "UPDATE stats2 SET hits = 0"), nullptr);
}

Damage certain(const std::string& what, const std::string& target, const std::string& stmt) {
  Damage d;
  d.what = what;
  d.target = target;
  d.statement = stmt;
  d.severity = Severity::kCertainLoss;
  return d;
}

TEST(ChooseIncident, LatestCertainLossNotRoutineNorAllowed) {
  std::vector<Damage> d;
  d.push_back(
      certain("UPDATE without WHERE", "shop.customers", "UPDATE customers SET b = b * 1.01"));
  Damage s;
  s.what = "DELETE of 1500 rows";
  s.target = "shop.orders";
  s.severity = Severity::kSuspect;
  d.push_back(s);
  d.push_back(certain("DROP DATABASE", "shop", "DROP DATABASE shop"));
  // A job: the same TRUNCATE twice, after the DROP.
  d.push_back(certain("TRUNCATE", "etl.stage", "TRUNCATE etl.stage"));
  d.push_back(certain("TRUNCATE", "etl.stage", "TRUNCATE  etl.stage"));
  weigh_damage(d, AllowRules());
  EXPECT_EQ(d[0].number, 1u);
  EXPECT_EQ(d[4].number, 5u);
  EXPECT_TRUE(d[3].routine());
  EXPECT_FALSE(d[2].routine());
  IncidentChoice c = choose_incident(d, std::nullopt);
  ASSERT_TRUE(c.index);
  EXPECT_EQ(*c.index, 2u);
  EXPECT_NE(c.why.find("2 later one(s) passed over"), std::string::npos);
  // --allow the DROP (say, a nightly rebuild): the interest UPDATE is then the latest.
  weigh_damage(d, AllowRules({"shop"}));
  c = choose_incident(d, std::nullopt);
  ASSERT_TRUE(c.index);
  EXPECT_EQ(*c.index, 0u);
  // Never a suspect by default; --incident=2 picks it.
  c = choose_incident(d, std::string("2"));
  ASSERT_TRUE(c.index);
  EXPECT_EQ(*c.index, 1u);
  EXPECT_THROW(choose_incident(d, std::string("9")), Error);
  EXPECT_THROW(choose_incident(d, std::string("0-1-5")), Error);  // no event named
  d[1].named = true;
  EXPECT_EQ(*choose_incident(d, std::string("0-1-5")).index, 1u);
  // Only suspects: no incident.
  std::vector<Damage> only{s};
  weigh_damage(only, AllowRules());
  EXPECT_FALSE(choose_incident(only, std::nullopt).index);
}

TEST(RangeCounts, SinceAndText) {
  RangeCounts a, b;
  a.transactions = 10;
  a.tables["shop.orders"].inserted = 5;
  b = a;
  b.transactions = 1210;
  b.tables["shop.orders"].inserted = 1205;
  b.tables["shop.customers"].updated = 2000;
  const RangeCounts d = b.since(a);
  EXPECT_EQ(d.transactions, 1200u);
  EXPECT_EQ(counts_text(d), "shop.customers 2,000 updated; shop.orders 1,200 inserted");
  EXPECT_EQ(with_commas(1234567), "1,234,567");
  EXPECT_EQ(with_commas(12), "12");
}

TEST(DumpRows, CountsTuplesOfExtendedInserts) {
  char path[] = "/tmp/binrecover-dumprows-XXXXXX";
  const int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  ::close(fd);
  {
    std::ofstream o(path);
    o << "-- MySQL dump 10.13\n-- Host: localhost    Database: solo\n"
         "CREATE TABLE `t` (`id` int);\n"
         "INSERT INTO `t` VALUES (1),(2);\n"
         "USE `shop`;\n"
         "CREATE TABLE `orders` (\n  `id` int NOT NULL\n) ENGINE=InnoDB;\n"
         "CREATE TABLE `empty` (`id` int);\n"
         "INSERT INTO `orders` VALUES (1,'a (b), \\'c\\');(','x'),(2,'it''s ( ',NULL),"
         "(3,'\\\\',\"q\"\"(\");\n"
         "INSERT INTO `orders` (`id`, `note`) VALUES (4,'x');\n"
         "REPLACE INTO `orders` VALUES (5,'');\n"
         "INSERT IGNORE INTO `other`.`x` VALUES (1),(2),(3);\n";
  }
  const auto rows = count_dump_rows(path);
  ::unlink(path);
  ASSERT_TRUE(rows);
  EXPECT_EQ(rows->at("solo.t"), 2u);
  EXPECT_EQ(rows->at("shop.orders"), 5u);
  EXPECT_EQ(rows->at("shop.empty"), 0u);
  EXPECT_EQ(rows->at("other.x"), 3u);
}

}  // namespace
}  // namespace binrecover::recovery
