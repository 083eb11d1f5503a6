#include "recovery/reading/gtid_history.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "binlog/error.h"

namespace binrecover::recovery {
namespace {

TEST(GtidHistory, MariaDbMissingPastIsPerDomainAndServer) {
  History read(true);
  read.add("0-1-63");
  History next(true);
  next.add("0-1-63,0-2-69");
  // (a domain's sequence numbers go on whatever server wrote them)
  EXPECT_EQ(next.missing_past(read), (std::vector<std::string>{"0-2-64..0-2-69"}));
  History cut(true);  // (read up to 0-1-43: the domain went on to 63 with server 1, then 2)
  cut.add("0-1-43");
  EXPECT_EQ(next.missing_past(cut), (std::vector<std::string>{"0-1-44..0-1-63", "0-2-64..0-2-69"}));
  read.add("0-2-64");
  EXPECT_EQ(next.missing_past(read), (std::vector<std::string>{"0-2-65..0-2-69"}));
  read.add("0-2-68");
  EXPECT_EQ(next.missing_past(read), (std::vector<std::string>{"0-2-69"}));
  read.add("0-2-69");
  EXPECT_TRUE(next.missing_past(read).empty());
  // What was read past the next file's start is no gap (set aside, or read again there).
  read.add("0-1-70");
  EXPECT_TRUE(next.missing_past(read).empty());
  EXPECT_TRUE(next.contains("0-1-10"));
  EXPECT_FALSE(next.contains("0-1-64"));
  EXPECT_FALSE(next.contains("1-1-1"));
}

TEST(GtidHistory, MySqlMissingPastIsAboveTheLastReadOfEachSource) {
  const std::string a = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
  const std::string b = "2174b383-5441-11e8-b90a-c80aa9429562";
  History read(false);
  read.add(a + ":1-100");
  History next(false);
  next.add(a + ":1-100:102-120," + b + ":1-5");
  EXPECT_EQ(next.missing_past(read), (std::vector<std::string>{a + ":102-120", b + ":1-5"}));
  // A hole below what was read (a start in the middle of a file) is not taken for a gap.
  History from_middle(false);
  from_middle.add(a + ":50-130," + b + ":5");
  EXPECT_TRUE(next.missing_past(from_middle).empty());
}

TEST(GtidHistory, OriginsAreWhereTransactionsComeFrom) {
  History maria(true);
  maria.add("0-1-63,0-2-69,1-1-4");
  EXPECT_EQ(maria.origins(), (std::set<std::string>{"0-1", "0-2", "1-1"}));
  History mysql(false);
  mysql.add("3e11fa47-71ca-11e1-9e33-c80aa9429562:1-100:102");
  EXPECT_EQ(mysql.origins(), (std::set<std::string>{"3e11fa47-71ca-11e1-9e33-c80aa9429562"}));
  EXPECT_TRUE(History(true).origins().empty());
}

TEST(GtidHistory, RefusesTextThatIsNotAGtid) {
  History h(true);
  EXPECT_THROW(h.add("0-x-1"), Error);
  EXPECT_THROW(h.add("nonsense"), Error);
}

}  // namespace
}  // namespace binrecover::recovery
