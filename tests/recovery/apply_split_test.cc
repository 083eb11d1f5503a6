#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "binlog/error.h"
#include "recovery/apply.h"
#include "recovery/gtid_set.h"
#include "recovery/replay.h"

namespace binrecover::recovery {
namespace {

using Kind = SqlItem::Kind;

std::vector<SqlItem> split_all(StatementSplitter& s, std::string_view text) {
  std::vector<SqlItem> out;
  s.split(text, out);
  return out;
}

std::vector<std::string> texts(const std::vector<SqlItem>& items) {
  std::vector<std::string> out;
  for (const SqlItem& i : items)
    out.push_back((i.kind == Kind::kCharset ? "\\C " : "") + std::string(i.text));
  return out;
}

TEST(StatementSplitterTest, SqlSinkHeaderTransactionAndFooter) {
  StatementSplitter s;
  const std::string text =
      "/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=1*/;\n"
      "/*!40019 SET @@session.max_delayed_threads=0*/;\n"
      "DELIMITER /*!*/;\n"
      "# at 4\n"
      "#261129 23:56:43 server id 1  end_log_pos 256 CRC32 0x0\tStart: binlog v 4\n"
      "ROLLBACK/*!*/;\n"
      "BINLOG '\nu7sMaw8BAAAA\nAAAA\n'/*!*/;\n"
      "# at 451\n"
      "/*M!100001 SET @@session.gtid_seq_no=2*//*!*/;\n"
      "START TRANSACTION\n/*!*/;\n"
      "# at 493\n"
      "/*!\\C utf8mb4 *//*!*/;\n"
      "SET @@session.character_set_client=utf8mb4/*!*/;\n"
      "INSERT INTO t VALUES (1)\n/*!*/;\n"
      "COMMIT/*!*/;\n"
      "DELIMITER ;\n"
      "# End of log file\n"
      "ROLLBACK /* added by binrecover */;\n";
  const std::vector<SqlItem> items = split_all(s, text);
  EXPECT_EQ(texts(items),
            (std::vector<std::string>{
                "/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=1*/",
                "/*!40019 SET @@session.max_delayed_threads=0*/", "ROLLBACK",
                "BINLOG '\nu7sMaw8BAAAA\nAAAA\n'", "/*M!100001 SET @@session.gtid_seq_no=2*/",
                "START TRANSACTION", "\\C utf8mb4", "SET @@session.character_set_client=utf8mb4",
                "INSERT INTO t VALUES (1)", "COMMIT", "ROLLBACK /* added by binrecover */"}));
  EXPECT_FALSE(items[0].at);
  EXPECT_EQ(items[2].at, 4u);
  EXPECT_EQ(items[4].at, 451u);
  EXPECT_EQ(items[8].at, 493u);
  EXPECT_EQ(s.delimiter(), ";");
}

TEST(StatementSplitterTest, DelimiterInsideQuotesAndCommentsDoesNotEnd) {
  StatementSplitter s;
  std::vector<SqlItem> items;
  s.split("DELIMITER /*!*/;\n", items);
  const std::string text =
      "INSERT INTO t VALUES ('a/*!*/;\n# not a comment\nb', \"q\\\"/*!*/;\", `c/*!*/;`)\n/*!*/;\n"
      "UPDATE t SET v = 'it''s/*!*/;' # a comment /*!*/; ignored\n"
      "WHERE id = 1 -- also /*!*/;\n/*!*/;\n"
      "SELECT /* plain comment /*!*/; */ 1/*!*/;\n";
  s.split(text, items);
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[0].text,
            "INSERT INTO t VALUES ('a/*!*/;\n# not a comment\nb', \"q\\\"/*!*/;\", `c/*!*/;`)");
  EXPECT_EQ(items[1].text,
            "UPDATE t SET v = 'it''s/*!*/;' # a comment /*!*/; ignored\nWHERE id = 1 -- also "
            "/*!*/;");
  EXPECT_EQ(items[2].text, "SELECT /* plain comment /*!*/; */ 1");
}

TEST(StatementSplitterTest, NoBackslashEscapesFollowsSqlMode) {
  StatementSplitter s;
  std::vector<SqlItem> items;
  s.split(
      "DELIMITER /*!*/;\nSET @@session.sql_mode=1048576/*!*/;\n"
      "INSERT INTO t VALUES ('C:\\')/*!*/;\n"
      "SET @@session.sql_mode=0/*!*/;\n"
      "INSERT INTO t VALUES ('it\\'s')/*!*/;\n",
      items);
  EXPECT_EQ(texts(items), (std::vector<std::string>{
                              "SET @@session.sql_mode=1048576", "INSERT INTO t VALUES ('C:\\')",
                              "SET @@session.sql_mode=0", "INSERT INTO t VALUES ('it\\'s')"}));
}

TEST(StatementSplitterTest, UnterminatedStatementThrows) {
  StatementSplitter s;
  std::vector<SqlItem> items;
  EXPECT_THROW(s.split("DELIMITER /*!*/;\nINSERT INTO t VALUES (1)\n", items), Error);
  StatementSplitter q;
  EXPECT_THROW(q.split("INSERT INTO t VALUES ('open);\n", items), Error);
}

TEST(StatementSplitterTest, DelimiterWithoutValueThrows) {
  StatementSplitter s;
  std::vector<SqlItem> items;
  EXPECT_THROW(s.split("DELIMITER \n", items), Error);
}

TEST(BinlogFragmentsTest, SplitsBase64InTwoHalves) {
  EXPECT_FALSE(binlog_base64("SELECT 'x'"));
  EXPECT_FALSE(binlog_base64("BINLOG @binlog_fragment_0, @binlog_fragment_1"));
  const auto b64 = binlog_base64("BINLOG '\nAAAABBBB\nCC==\n'");
  ASSERT_TRUE(b64);
  EXPECT_EQ(*b64, "\nAAAABBBB\nCC==\n");
  const auto parts = binlog_fragments(*b64, 64);
  ASSERT_TRUE(parts);
  ASSERT_EQ(parts->size(), 4u);
  EXPECT_EQ((*parts)[0], "SET @binlog_fragment_0='\nAAAABBB'");
  EXPECT_EQ((*parts)[1], "SET @binlog_fragment_1='B\nCC==\n'");
  EXPECT_EQ((*parts)[2], "BINLOG @binlog_fragment_0, @binlog_fragment_1");
  // Halves that still do not fit: no fragments.
  EXPECT_FALSE(binlog_fragments(std::string(200, 'A'), 100));
  EXPECT_TRUE(binlog_fragments(std::string(150, 'A'), 100));
}

TEST(AppliedGtidsTest, MariaDbPositionsBySeqNoPerDomain) {
  AppliedGtids g;
  EXPECT_TRUE(g.empty());
  g.add_maria_position("0-1-42,1-2-7");
  g.add_maria_position("0-3-40");  // a lower seq_no of the same domain does not lower it
  EXPECT_TRUE(g.contains("0-1-42"));
  EXPECT_TRUE(g.contains("0-9-10"));  // another server id, same domain
  EXPECT_FALSE(g.contains("0-1-43"));
  EXPECT_TRUE(g.contains("1-2-7"));
  EXPECT_FALSE(g.contains("2-1-1"));
  EXPECT_FALSE(g.contains(""));
  EXPECT_THROW(g.add_maria_position("0-1"), Error);
}

TEST(AppliedGtidsTest, MySqlSetsWithRangesAndTags) {
  AppliedGtids g;
  g.add_mysql_set(
      "3E11FA47-71CA-11E1-9E33-C80AA9429562:1-5:11,\n"
      "2174b383-5441-11e8-b90a-c80aa9429562:1-3:tag_a:7-9");
  EXPECT_TRUE(g.contains("3e11fa47-71ca-11e1-9e33-c80aa9429562:5"));
  EXPECT_FALSE(g.contains("3e11fa47-71ca-11e1-9e33-c80aa9429562:6"));
  EXPECT_TRUE(g.contains("3e11fa47-71ca-11e1-9e33-c80aa9429562:11"));
  EXPECT_TRUE(g.contains("2174b383-5441-11e8-b90a-c80aa9429562:2"));
  EXPECT_FALSE(g.contains("2174b383-5441-11e8-b90a-c80aa9429562:8"));
  EXPECT_TRUE(g.contains("2174b383-5441-11e8-b90a-c80aa9429562:tag_a:8"));
  EXPECT_FALSE(g.contains("0-1-1"));
  EXPECT_THROW(g.add_mysql_set("nonsense:1"), Error);
}

TEST(ReplayStateTest, WritesAtomicallyAndReadsBack) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("binrecover-state-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "replay.state").string();
  EXPECT_FALSE(read_replay_state(path));
  write_replay_state(path, {"mysql-bin.000002", 1437, "0-1-9", "127.0.0.1:3306"});
  write_replay_state(path, {"mysql-bin.000003", 385, "", ""});
  const auto st = read_replay_state(path);
  ASSERT_TRUE(st);
  EXPECT_EQ(st->file, "mysql-bin.000003");
  EXPECT_EQ(st->position, 385u);
  EXPECT_EQ(st->gtid, "");
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  std::ofstream(path) << "something else\n";
  EXPECT_THROW(read_replay_state(path), Error);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace binrecover::recovery
