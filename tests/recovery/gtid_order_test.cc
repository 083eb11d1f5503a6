// --gtid-strict-mode's order check and the MariaDB GTID lists of --include/--exclude-gtids.
#include "recovery/reading/gtid_order.h"

#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "binlog/error.h"
#include "recovery/reading/gtid_set.h"

namespace binrecover::recovery {
namespace {

// A Gtid_list body's entries: domain, server (u32 LE), seq_no (u64 LE).
std::vector<std::byte> list_entries(std::initializer_list<std::array<std::uint64_t, 3>> gtids) {
  std::vector<std::byte> out;
  for (const auto& g : gtids) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::byte>((g[0] >> (8 * i)) & 0xff));
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::byte>((g[1] >> (8 * i)) & 0xff));
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::byte>((g[2] >> (8 * i)) & 0xff));
  }
  return out;
}

TEST(GtidOrderTest, SeqNoMustGrowPerDomainWhateverTheServer) {
  GtidOrder o;
  EXPECT_FALSE(o.record(0, 1, 1));
  EXPECT_FALSE(o.record(0, 1, 2));
  EXPECT_FALSE(o.record(2, 1, 1));  // another domain has its own sequence
  EXPECT_FALSE(o.record(0, 5, 12));
  const auto bad = o.record(0, 1, 3);
  ASSERT_TRUE(bad);
  EXPECT_EQ(*bad, "0-1-3 after 0-5-12");
  EXPECT_TRUE(o.record(0, 1, 12));  // equal is out of order too
  EXPECT_FALSE(o.record(0, 1, 13));
}

TEST(GtidOrderTest, FirstGtidListSeedsAndOnlyTheFirst) {
  const auto entries = list_entries({{0, 5, 12}, {0, 1, 14}, {2, 1, 1}});
  binlog::MariaGtidList list;
  list.count = 3;
  list.entries = binlog::Bytes(entries.data(), entries.size());
  GtidOrder o;
  o.seed(list);
  EXPECT_FALSE(o.record(0, 1, 5));  // below the list's state: passes (mariadb-binlog's rule)
  EXPECT_FALSE(o.record(0, 1, 15));
  GtidOrder equal;
  equal.seed(list);
  EXPECT_TRUE(equal.record(0, 1, 14));  // equal to the state: out of order
  GtidOrder late;
  EXPECT_FALSE(late.record(0, 1, 20));
  late.seed(list);  // after a GTID: seeds nothing
  EXPECT_TRUE(late.record(0, 1, 20));
  GtidOrder none;
  none.no_seed();
  none.seed(list);
  EXPECT_FALSE(none.record(0, 1, 14));
}

TEST(AppliedGtidsTest, MariaDbGtidListIsExactlyThoseTransactions) {
  AppliedGtids g;
  g.add_maria_gtids("0-1-42,2-5-7");
  EXPECT_TRUE(g.contains("0-1-42"));
  EXPECT_TRUE(g.contains("2-5-7"));
  EXPECT_FALSE(g.contains("0-1-41"));  // not a position: nothing below is in it
  EXPECT_FALSE(g.contains("0-2-42"));  // another server's 42
  EXPECT_FALSE(g.contains("3e11fa47-71ca-11e1-9e33-c80aa9429562:42"));
  EXPECT_FALSE(g.empty());
  const auto intervals = g.maria_gtid_intervals();
  ASSERT_EQ(intervals.size(), 2U);
  EXPECT_EQ(intervals[0].source, "0");
  EXPECT_EQ(intervals[0].first, 42U);
  EXPECT_THROW(g.add_maria_gtids("0-1"), Error);
  EXPECT_THROW(g.add_maria_gtids("0-1-x"), Error);
}

}  // namespace
}  // namespace binrecover::recovery
