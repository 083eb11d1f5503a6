#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "binlog/error.h"
#include "recovery/apply/replay.h"
#include "recovery/apply/replay_common.h"
#include "recovery/emit/run_sql.h"
#include "recovery/reading/gtid_set.h"
#include "recovery/server/apply.h"
#include "recovery/sql/sql_sink.h"

namespace binrecover::recovery {
namespace {

// What replay applies is what the SQL writer marks as it writes, not a second reading of its
// text: every statement of the text output (in order, with its delimiter after it), no comment,
// the client's charset commands as such, and each statement knowing its event.
TEST(SqlStatementsTest, ReplayGetsTheStatementsOfTheTextOutput) {
  const std::string path = std::string(BINRECOVER_TESTDATA) + "/row/mysql-bin.000001";
  InputFile in{path, "mysql-bin.000001", std::nullopt, {}, {}, std::nullopt};
  char name[] = "/tmp/binrecover-stmt-XXXXXX";
  const int fd = ::mkstemp(name);
  ASSERT_GE(fd, 0);
  ::unlink(name);
  {
    Output text_out(fd, "text");
    SqlSink text_sink(text_out, SqlOptions{});
    run_sql({in}, DecodeOptions{}, FilterOptions{}, text_sink, {});
    text_out.flush();
  }
  std::string text(static_cast<std::size_t>(::lseek(fd, 0, SEEK_END)), '\0');
  ASSERT_EQ(::pread(fd, text.data(), text.size(), 0), static_cast<ssize_t>(text.size()));
  ::close(fd);

  std::vector<std::pair<Output::Statement, std::string>> got;
  Output stmt_out(
      [&](std::string_view t, const std::vector<Output::Statement>& st) {
        for (const Output::Statement& s : st)
          got.emplace_back(s, std::string(t.substr(s.begin, s.end - s.begin)));
      },
      "session");
  SqlOptions apply;
  apply.apply = true;
  SqlSink sink(stmt_out, apply);
  run_sql({in}, DecodeOptions{}, FilterOptions{}, sink, {});
  stmt_out.flush();

  ASSERT_GT(got.size(), 40u);
  std::size_t at = 0, charsets = 0, binlogs = 0, with_event = 0;
  for (const auto& [st, s] : got) {
    ASSERT_FALSE(s.empty());
    EXPECT_NE(s.front(), '#') << s;
    EXPECT_EQ(s.find("\n#"), std::string::npos) << s;
    const std::size_t found = text.find(s, at);
    ASSERT_NE(found, std::string::npos) << "not in the text output, in order: " << s;
    const std::string_view after = std::string_view(text).substr(found + s.size());
    EXPECT_TRUE(after.starts_with("/*!*/;\n") || after.starts_with(";\n")) << s;
    at = found + s.size();
    if (st.kind == Output::Statement::Kind::kCharset) {
      ++charsets;
      EXPECT_TRUE(s.starts_with("/*!\\C ")) << s;
    }
    if (s.starts_with("BINLOG '")) ++binlogs;
    if (st.at && st.event_type != 0) ++with_event;
  }
  EXPECT_GT(charsets, 0u);
  EXPECT_GT(binlogs, 5u);
  EXPECT_GT(with_event, got.size() - 10);  // all but the header and footer statements
  // Every statement the text holds is there: one per delimiter (but the DELIMITER command's).
  std::size_t delimiters = 0;
  for (std::size_t p = text.find("/*!*/;\n"); p != std::string::npos;
       p = text.find("/*!*/;\n", p + 1))
    ++delimiters;
  EXPECT_EQ(got.size(), delimiters - 1 + 6);  // + the header's 3 and the footer's 3 `;` ones
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

// Sets compared as sets: intervals merged and sorted (archive --verify), and inclusion
// (BINLOG-DUMP-GTID's start file).
TEST(AppliedGtidsTest, CanonicalFormAndSubsets) {
  const std::string u = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
  const std::string v = "2174b383-5441-11e8-b90a-c80aa9429562";
  AppliedGtids a, b;
  a.add_mysql_set(u + ":1-3:7," + v + ":tag:5");
  a.add_mysql_set(u + ":4-6");
  b.add_mysql_set(v + ":TAG:5,\n" + u + ":1-7");
  EXPECT_EQ(a.canonical(), b.canonical());
  AppliedGtids small, big, holed, empty;
  small.add_mysql_set(u + ":2-3");
  big.add_mysql_set(u + ":1-2," + u + ":3-9");
  holed.add_mysql_set(u + ":1:5-9");
  EXPECT_TRUE(small.subset_of(big));
  EXPECT_FALSE(big.subset_of(small));
  EXPECT_FALSE(small.subset_of(holed));
  EXPECT_TRUE(empty.subset_of(small));
  EXPECT_FALSE(a.subset_of(big));  // the tagged GTID is not in it
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

// STATE.journal: the later of STATE and the journal is the state; a torn slot leaves the
// other; a journal without STATE is an earlier run's.
TEST(ReplayStateTest, JournalHoldsTheDurableState) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("binrecover-journal-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "r.state").string();
  {
    StateStore store(path);
    EXPECT_FALSE(store.read());
    store.reset();
    store.keep_target_gtids_at_start("0-1-5,0-2-9");
    store.write({"mysql-bin.000001", 300, "", "srv"}, true);  // (STATE made durably)
    ReplayState doubt{"mysql-bin.000001", 300, "", "srv"};
    doubt.in_doubt_begin = 300;
    doubt.in_doubt_end = 900;
    doubt.in_doubt_gtid = "0-1-7";
    store.write(doubt, true);                                  // the journal's slot 0
    store.write({"mysql-bin.000001", 900, "", "srv"}, false);  // STATE only
  }
  // What a crash of the machine may leave: STATE as it was before the last writes.
  const std::string journal = path + ".journal";
  write_replay_state(path, {"mysql-bin.000001", 300, "", "srv"});
  {
    StateStore store(path);
    auto st = store.read();
    ASSERT_TRUE(st);
    EXPECT_EQ(st->in_doubt_begin, 300u);
    EXPECT_EQ(st->in_doubt_end, 900u);
    EXPECT_EQ(st->in_doubt_gtid, "0-1-7");
    EXPECT_EQ(st->target_gtids_at_start, std::optional<std::string>("0-1-5,0-2-9"));
    // The next durable state goes to the other slot; a crash tearing it leaves this one.
    store.write({"mysql-bin.000001", 1200, "", "srv"}, true);
    {
      std::fstream f(journal, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(4096 + 20);
      f.write("XXXX", 4);
    }
    write_replay_state(path, {"mysql-bin.000001", 300, "", "srv"});
    st = store.read();
    ASSERT_TRUE(st);
    EXPECT_EQ(st->in_doubt_end, 900u);  // (slot 1 fails its sum)
    // A STATE left empty by a crash: the journal's state.
    std::ofstream(path, std::ios::trunc).flush();
    st = store.read();
    ASSERT_TRUE(st);
    EXPECT_EQ(st->in_doubt_gtid, "0-1-7");
    // Later in STATE than in the journal: STATE's.
    store.write({"mysql-bin.000002", 4, "", "srv"}, false);
    st = store.read();
    ASSERT_TRUE(st);
    EXPECT_EQ(st->file, "mysql-bin.000002");
    EXPECT_EQ(st->in_doubt_end, 0u);
  }
  std::filesystem::remove(path);
  {
    StateStore store(path);
    EXPECT_FALSE(store.read());  // (a journal alone: an earlier run's, whose STATE was removed)
    store.reset();
    EXPECT_EQ(std::filesystem::file_size(journal), 0u);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace binrecover::recovery
