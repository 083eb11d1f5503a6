// GTID events, GTID lists, Previous_gtids (binlog/events_gtid.cc).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "tests/binlog/event_fixtures.h"

namespace binrecover::binlog {
namespace {

using namespace event_fixtures;  // NOLINT(google-build-using-namespace): the fixtures

TEST(EventsTest, GtidMySql8FullLayout) {
  const Fixture f = gtid_mysql8();
  const Event g_ev = decode(f);
  const auto* g = std::get_if<Gtid>(&g_ev.body);
  ASSERT_NE(g, nullptr);
  EXPECT_FALSE(g->anonymous);
  EXPECT_EQ(g->flags, 1u);
  EXPECT_EQ(g->sid, kSid);
  EXPECT_EQ(g->gno, 23);
  EXPECT_EQ(g->last_committed, 5);
  EXPECT_EQ(g->sequence_number, 6);
  EXPECT_EQ(g->immediate_commit_ts, kImmediateTs);
  EXPECT_EQ(g->original_commit_ts, kOriginalTs);
  EXPECT_EQ(g->transaction_length, 300u);
  EXPECT_EQ(g->immediate_server_version, 80036u);
  EXPECT_EQ(g->original_server_version, 80035u);
}

TEST(EventsTest, GtidMySql57LogicalClockOnly) {
  const Fixture f = gtid_mysql57();
  const Event g_ev = decode(f);
  const auto& g = std::get<Gtid>(g_ev.body);
  EXPECT_EQ(g.gno, 9);
  EXPECT_EQ(g.last_committed, 3);
  EXPECT_EQ(g.sequence_number, 4);
  EXPECT_FALSE(g.immediate_commit_ts.has_value());
  EXPECT_FALSE(g.original_commit_ts.has_value());
  EXPECT_FALSE(g.transaction_length.has_value());
  EXPECT_FALSE(g.immediate_server_version.has_value());
}

TEST(EventsTest, AnonymousGtidOriginalsDefaultToImmediate) {
  const Fixture f = anonymous_gtid();
  const Event g_ev = decode(f);
  const auto& g = std::get<Gtid>(g_ev.body);
  EXPECT_TRUE(g.anonymous);
  EXPECT_EQ(g.sid, (std::array<std::uint8_t, 16>{}));
  EXPECT_EQ(g.gno, 0);
  EXPECT_EQ(g.last_committed, 10);
  EXPECT_EQ(g.sequence_number, 11);
  EXPECT_EQ(g.immediate_commit_ts, kImmediateTs);
  EXPECT_EQ(g.original_commit_ts, kImmediateTs);
  EXPECT_EQ(g.transaction_length, 200u);
  EXPECT_EQ(g.immediate_server_version, 80036u);
  EXPECT_EQ(g.original_server_version, 80036u);
}

TEST(EventsTest, PreviousGtidsKeepsTheWholeBody) {
  const Fixture f = previous_gtids();
  const Event p_ev = decode(f);
  const auto& p = std::get<PreviousGtids>(p_ev.body);
  ASSERT_EQ(p.data.size(), 8u + 2 * (16 + 8) + 3 * 16);
  EXPECT_EQ(p.data.data(), f.bytes.data() + kHeader);
}

TEST(EventsTest, PreviousGtidsIntervalCountPastEndIsBadEvent) {
  Wire w = header(EventType::kPreviousGtids);
  w.u64le(1)              // n_sids
      .raw(kSid)          // sid
      .u64le(1ULL << 60)  // n_intervals: absurd
      .u64le(1)           // start
      .u64le(2);          // end
  const Fixture f = make("Bad", std::move(w), 0, kNever);
  try {
    (void)decode(f);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kBadEvent);
  }
}

// A tagged Previous_gtids (MySQL 8.4+): a tag is letters, digits and '_' (MySQL's rule);
// anything else, which would be written into SQL literals and comments, is a damaged event.
Fixture tagged_previous_gtids(std::string_view tag) {
  Wire w = header(EventType::kPreviousGtids);
  w.u64le((1ULL << 56) | (1ULL << 8))                  // tagged format, one sid
      .raw(kSid)                                       // sid
      .u8(static_cast<std::uint8_t>(tag.size() << 1))  // varlen tag length
      .str(tag)                                        // the tag
      .u64le(1)                                        // n_intervals
      .u64le(1)                                        // start
      .u64le(2);                                       // end
  return make("TaggedPrevious", std::move(w), 0, kNever);
}

TEST(EventsTest, PreviousGtidsTagsAreMySqlTagsOnly) {
  EXPECT_NO_THROW((void)decode(tagged_previous_gtids("night_job_2")));
  for (const std::string_view bad :
       {std::string_view("a';DROP DATABASE x;--"), std::string_view("tag\nDROP"),
        std::string_view("9lives"), std::string_view("t\x1b]0;x")}) {
    try {
      (void)decode(tagged_previous_gtids(bad));
      FAIL() << "expected an error for " << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kBadEvent) << bad;
    }
  }
}

TEST(EventsTest, MariaGtidStandalone) {
  const Fixture f = maria_gtid_standalone();
  const Event g_ev = decode(f);
  const auto& g = std::get<MariaGtid>(g_ev.body);
  EXPECT_EQ(g.seq_no, 42u);
  EXPECT_EQ(g.domain_id, 3u);
  EXPECT_EQ(g.flags, MariaGtid::kStandalone | MariaGtid::kDdl);
  EXPECT_EQ(g.commit_id, 0u);
  EXPECT_TRUE(g.xa_data.empty());
}

TEST(EventsTest, MariaGtidWithCommitId) {
  const Fixture f = maria_gtid_commit_id();
  const Event g_ev = decode(f);
  const auto& g = std::get<MariaGtid>(g_ev.body);
  EXPECT_EQ(g.seq_no, 43u);
  EXPECT_EQ(g.domain_id, 0u);
  EXPECT_EQ(g.flags,
            MariaGtid::kGroupCommitId | MariaGtid::kTransactional | MariaGtid::kAllowParallel);
  EXPECT_EQ(g.commit_id, 987654321u);
}

TEST(EventsTest, MariaGtidWithXa) {
  const Fixture f = maria_gtid_xa();
  const Event g_ev = decode(f);
  const auto& g = std::get<MariaGtid>(g_ev.body);
  EXPECT_EQ(g.seq_no, 44u);
  EXPECT_EQ(g.flags, MariaGtid::kPreparedXa | MariaGtid::kTransactional);
  EXPECT_EQ(g.xa_format_id, 1u);
  EXPECT_EQ(g.xa_gtrid_len, 3u);
  EXPECT_EQ(g.xa_bqual_len, 2u);
  EXPECT_EQ(text(g.xa_data), "abcde");
}

TEST(EventsTest, MariaGtidXaPartLongerThan64IsBadEvent) {
  Wire w = header(EventType::kMariaGtid);
  w.u64le(1)       // seq_no
      .u32le(0)    // domain_id
      .u8(64)      // flags2: FL_PREPARED_XA
      .u32le(1)    // format_id
      .u8(65)      // gtrid_length: over the 64-byte limit
      .u8(0)       // bqual_length
      .zeros(65);  // data
  const Fixture f = make("Bad", std::move(w), 0, kNever);
  try {
    (void)decode(f);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kBadEvent);
  }
}

TEST(EventsTest, MariaGtidShorterThanPostHeaderIsRejected) {
  // DEVIATION (binlog/events.cc decode_event, case kMariaGtid): MariaDB's
  // Gtid_log_event reader rejects an event shorter than header + post_header_len[GTID_EVENT]
  // (GTID_HEADER_LEN = 19); decode_maria_gtid reads only 13 bytes, so a standalone GTID cut
  // inside its 6 padding bytes decodes as if whole. Fix, in the same style as the
  // PREVIOUS_GTIDS check: before decoding,
  //   { ByteCursor check = cur; check.skip(ctx.post_header(type)); }  // throws kTruncated
  const Fixture f = maria_gtid_standalone();
  for (std::size_t len = kHeader + 13; len < kHeader + 19; ++len)
    EXPECT_EQ(decode_prefix(f.bytes, len, f.ctx), Outcome::kThrew) << len;
}

TEST(EventsTest, MariaGtidList) {
  const Fixture f = maria_gtid_list();
  const Event l_ev = decode(f);
  const auto& l = std::get<MariaGtidList>(l_ev.body);
  EXPECT_EQ(l.count, 2u);
  EXPECT_EQ(l.flags, 1u);
  ASSERT_EQ(l.entries.size(), 32u);
  EXPECT_EQ(static_cast<int>(l.entries[4]), 1);    // first server_id
  EXPECT_EQ(static_cast<int>(l.entries[8]), 100);  // first seq_no
  EXPECT_EQ(static_cast<int>(l.entries[16]), 1);   // second domain_id
}

TEST(EventsTest, MariaGtidListCountPastEndIsBadEvent) {
  Wire w = header(EventType::kMariaGtidList);
  w.u32le(0x0fffffff)  // count: 268 million entries
      .zeros(16);      // one entry
  const Fixture f = make("Bad", std::move(w), 0, kNever);
  try {
    (void)decode(f);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kBadEvent);
  }
}

}  // namespace
}  // namespace binrecover::binlog
