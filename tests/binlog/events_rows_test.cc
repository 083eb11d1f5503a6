// Table_map and rows events (binlog/events_rows.cc).
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

TEST(EventsTest, TableMap) {
  const Fixture f = table_map();
  const Event tm_ev = decode(f);
  const auto* tm = std::get_if<TableMap>(&tm_ev.body);
  ASSERT_NE(tm, nullptr);
  EXPECT_EQ(tm->table_id, 0x010203040506u);
  EXPECT_EQ(tm->flags, 1u);
  EXPECT_EQ(tm->db, "shop");
  EXPECT_EQ(tm->table, "tags");
  EXPECT_EQ(tm->column_count, 3u);
  EXPECT_EQ(ints(tm->column_types), (std::vector<int>{3, 15, 246}));
  EXPECT_EQ(ints(tm->metadata), (std::vector<int>{0xfc, 0x03, 10, 2}));
  EXPECT_EQ(ints(tm->null_bits), (std::vector<int>{0x06}));
  EXPECT_EQ(ints(tm->optional_metadata), (std::vector<int>{1, 1, 0}));
}

TEST(EventsTest, TableMapWithoutMetadataFromMySql5115) {
  const Fixture f = table_map();
  const std::size_t after_types = kHeader + 8 + 6 + 6 + 1 + 3;
  const Event ev = decode_event(Bytes(f.bytes).first(after_types), kPos, f.ctx);
  const auto& tm = std::get<TableMap>(ev.body);
  EXPECT_EQ(tm.table, "tags");
  EXPECT_EQ(tm.column_count, 3u);
  EXPECT_EQ(ints(tm.column_types), (std::vector<int>{3, 15, 246}));
  EXPECT_TRUE(tm.metadata.empty());
  EXPECT_TRUE(tm.null_bits.empty());
  EXPECT_TRUE(tm.optional_metadata.empty());
}

TEST(EventsTest, TableMapCutInsideMetadataThrows) {
  const Fixture f = table_map();
  const std::size_t after_types = kHeader + 8 + 6 + 6 + 1 + 3;
  const std::size_t after_null_bits = after_types + 1 + 4 + 1;
  for (std::size_t len = after_types + 1; len < after_null_bits; ++len)
    EXPECT_EQ(decode_prefix(f.bytes, len, f.ctx), Outcome::kThrew) << len;
  EXPECT_EQ(decode_prefix(f.bytes, after_types, f.ctx), Outcome::kDecoded);
}

TEST(EventsTest, TableMapFourByteTableId) {
  const Fixture f = table_map_4byte_id();
  const Event tm_ev = decode(f);
  const auto& tm = std::get<TableMap>(tm_ev.body);
  EXPECT_EQ(tm.table_id, 0x01020304u);
  EXPECT_EQ(tm.flags, 1u);
  EXPECT_EQ(tm.db, "shop");
  EXPECT_EQ(tm.table, "tags");
  EXPECT_TRUE(tm.optional_metadata.empty());
}

TEST(EventsTest, TableMapColumnCountPastEndIsAnError) {
  Wire w = header(EventType::kTableMap);
  w.u48le(1).u16le(0);     // table_id / flags
  w.u8(1).str("d").u8(0);  // db
  w.u8(1).str("t").u8(0);  // table
  w.u8(0xfe);              // column_count: packed, u64 follows
  w.u64le(1ULL << 40);     //   2^40 columns
  w.u8(3);                 // one column type
  const Fixture f = make("Bad", std::move(w), 0, kNever);
  EXPECT_THROW((void)decode(f), Error);
}

TEST(EventsTest, WriteRowsV1) {
  const Fixture f = write_rows_v1();
  const Event r_ev = decode(f);
  const auto* r = std::get_if<Rows>(&r_ev.body);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->kind, RowsKind::kWrite);
  EXPECT_EQ(r->version, 1);
  EXPECT_FALSE(r->compressed);
  EXPECT_EQ(r->table_id, 0x010203040506u);
  EXPECT_EQ(r->flags, kStmtEndFlag);
  EXPECT_TRUE(r->extra.empty());
  EXPECT_EQ(r->column_count, 3u);
  EXPECT_EQ(ints(r->columns_before), (std::vector<int>{0x07}));
  EXPECT_TRUE(r->columns_after.empty());
  EXPECT_EQ(r->rows.size(), 1u + 4 + 1 + 3 + 5);
  EXPECT_EQ(static_cast<int>(r->rows[5]), 3);  // the name's length byte
}

TEST(EventsTest, UpdateRowsV1HasTwoBitmaps) {
  const Fixture f = update_rows_v1();
  const Event r_ev = decode(f);
  const auto& r = std::get<Rows>(r_ev.body);
  EXPECT_EQ(r.kind, RowsKind::kUpdate);
  EXPECT_EQ(r.version, 1);
  EXPECT_EQ(r.table_id, 42u);
  EXPECT_EQ(r.column_count, 2u);
  EXPECT_EQ(ints(r.columns_before), (std::vector<int>{0x03}));
  EXPECT_EQ(ints(r.columns_after), (std::vector<int>{0x01}));
  EXPECT_EQ(r.rows.size(), 9u + 5u);
  EXPECT_EQ(static_cast<int>(r.rows[1]), 1);  // before image: id
}

TEST(EventsTest, WriteRowsV2SkipsExtraData) {
  const Fixture f = write_rows_v2_extra();
  const Event r_ev = decode(f);
  const auto& r = std::get<Rows>(r_ev.body);
  EXPECT_EQ(r.kind, RowsKind::kWrite);
  EXPECT_EQ(r.version, 2);
  EXPECT_EQ(r.table_id, 42u);
  EXPECT_EQ(r.flags, 1u);
  EXPECT_EQ(r.column_count, 1u);
  EXPECT_EQ(ints(r.columns_before), (std::vector<int>{0x01}));
  EXPECT_EQ(ints(r.rows), (std::vector<int>{0, 5, 0, 0, 0}));
}

TEST(EventsTest, WriteRowsV2ExposesExtraData) {
  // BUG (binlog/events.cc decode_rows, the v2 extra-data branch): with the post-header length every
  // server writes for v2 rows events (10), the extra data lies after the post-header, so the
  // `else` branch runs: it skips the bytes and sets `r.extra = {}`. Rows::extra is therefore
  // always empty for real events although events.h documents it as the extra data.
  // Fix: after `post` is consumed, take the part not inside the post-header from `cur`, e.g.
  //   if (post.remaining() >= extra) r.extra = post.bytes(extra);
  //   else { post.skip(post.remaining()); r.extra = cur.bytes(extra); }  // ph == 10 case
  // (for ph > 10 the post-header's extra bytes are unknown future fields, not extra data).
  const Fixture f = write_rows_v2_extra();
  const Event r_ev = decode(f);
  const auto& r = std::get<Rows>(r_ev.body);
  EXPECT_EQ(ints(r.extra), (std::vector<int>{0, 3, 1, 0xab, 0xcd}));
}

TEST(EventsTest, DeleteRowsV2WithoutExtraData) {
  const Fixture f = delete_rows_v2();
  const Event r_ev = decode(f);
  const auto& r = std::get<Rows>(r_ev.body);
  EXPECT_EQ(r.kind, RowsKind::kDelete);
  EXPECT_EQ(r.version, 2);
  EXPECT_EQ(r.table_id, 43u);
  EXPECT_EQ(r.flags, 0u);
  EXPECT_TRUE(r.extra.empty());
  EXPECT_EQ(r.column_count, 1u);
  EXPECT_EQ(ints(r.rows), (std::vector<int>{0, 6, 0, 0, 0}));
}

TEST(EventsTest, RowsV2ExtraLengthBelowTwoIsBadEvent) {
  Wire w = header(EventType::kWriteRowsV2);
  w.u48le(42)    // table_id
      .u16le(0)  // flags
      .u16le(1)  // extra_len: 1 cannot count its own two bytes
      .u8(1)     // column_count
      .u8(1);    // columns bitmap
  const Fixture f = make("Bad", std::move(w), 0, kNever);
  try {
    (void)decode(f);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kBadEvent);
  }
}

TEST(EventsTest, RowsFourByteTableId) {
  const Fixture f = write_rows_4byte_id();
  const Event r_ev = decode(f);
  const auto& r = std::get<Rows>(r_ev.body);
  EXPECT_EQ(r.table_id, 0x01020304u);
  EXPECT_EQ(r.flags, 1u);
  EXPECT_EQ(r.column_count, 1u);
  EXPECT_EQ(ints(r.rows), (std::vector<int>{0, 7, 0, 0, 0}));
}

TEST(EventsTest, RowsCompressedV1) {
  const Fixture f = update_rows_compressed_v1();
  const Event r_ev = decode(f);
  const auto& r = std::get<Rows>(r_ev.body);
  EXPECT_EQ(r.kind, RowsKind::kUpdate);
  EXPECT_EQ(r.version, 1);
  EXPECT_TRUE(r.compressed);
  EXPECT_EQ(r.table_id, 44u);
  EXPECT_EQ(ints(r.rows), (std::vector<int>{0x81, 0x0a, 0x78, 0x9c}));
}

TEST(EventsTest, RowsPreGaAndPartialUpdate) {
  const Fixture pre_ga = pre_ga_write_rows();
  const Event r0_ev = decode(pre_ga);
  const auto& r0 = std::get<Rows>(r0_ev.body);
  EXPECT_EQ(r0.kind, RowsKind::kWrite);
  EXPECT_EQ(r0.version, 0);
  EXPECT_EQ(r0.table_id, 45u);
  EXPECT_EQ(ints(r0.rows), (std::vector<int>{0, 8, 0, 0, 0}));
  const Fixture partial = partial_update_rows();
  const Event r_ev = decode(partial);
  const auto& r = std::get<Rows>(r_ev.body);
  EXPECT_EQ(r.kind, RowsKind::kPartialUpdate);
  EXPECT_EQ(r.version, 2);
  EXPECT_EQ(r.table_id, 46u);
  EXPECT_EQ(ints(r.columns_before), (std::vector<int>{0x03}));
  EXPECT_EQ(ints(r.columns_after), (std::vector<int>{0x02}));
  EXPECT_EQ(ints(r.rows), (std::vector<int>{0x11, 0x22}));
}

TEST(EventsTest, RowsBitmapPastEndIsAnError) {
  Wire w = header(EventType::kWriteRowsV1);
  w.u48le(1)         // table_id
      .u16le(0)      // flags
      .u8(0xfc)      // column_count: packed, u16 follows
      .u16le(4000);  //   4000 columns: a 500-byte bitmap that is not there
  const Fixture f = make("Bad", std::move(w), 0, kNever);
  EXPECT_THROW((void)decode(f), Error);
}

TEST(EventsTest, RowsQuerySkipsItsLengthByte) {
  const Fixture f = rows_query();
  EXPECT_EQ(std::get<RowsQuery>(decode(f).body).query, "INSERT INTO t VALUES (2)");
}

}  // namespace
}  // namespace binrecover::binlog
