// Query, User_var, Intvar, Rand, Xid and LOAD DATA events (binlog/events_query.cc).
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

TEST(EventsTest, QueryClassicStatusVariables) {
  const Fixture f = query();
  const Event q_ev = decode(f);
  const auto* q = std::get_if<Query>(&q_ev.body);
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->thread_id, 77u);
  EXPECT_EQ(q->exec_time, 3u);
  EXPECT_EQ(q->error_code, 0u);
  EXPECT_EQ(q->db, "shop");
  EXPECT_EQ(q->query, kQueryText);
  EXPECT_FALSE(q->compressed);
  const QueryStatus& st = q->status;
  EXPECT_EQ(st.flags2, 0x0c000000u);
  EXPECT_EQ(st.sql_mode, 0x54200000u);
  EXPECT_EQ(st.catalog, std::string_view("std"));
  EXPECT_EQ(st.auto_increment, (std::pair<std::uint16_t, std::uint16_t>{2, 1}));
  EXPECT_EQ(st.charset, (std::array<std::uint16_t, 3>{33, 45, 8}));
  EXPECT_EQ(st.time_zone, std::string_view("SYSTEM"));
  EXPECT_EQ(st.lc_time_names, 2u);
  EXPECT_EQ(st.charset_database, 46u);
  EXPECT_EQ(st.invoker_user, std::string_view("root"));
  EXPECT_EQ(st.invoker_host, std::string_view("localhost"));
  EXPECT_TRUE(st.has_updated_dbs);
  EXPECT_FALSE(st.updated_dbs_over_max);
  ASSERT_EQ(st.updated_db_count, 2u);
  EXPECT_EQ(st.updated_dbs[0], "shop");
  EXPECT_EQ(st.updated_dbs[1], "crm");
  EXPECT_EQ(st.microseconds, 123456u);
  EXPECT_EQ(st.unknown_code, 0u);
  EXPECT_FALSE(st.ddl_xid.has_value());
  EXPECT_FALSE(st.table_map_for_update.has_value());
}

TEST(EventsTest, QueryMariaDbStatusVariables) {
  const Fixture f = query_mariadb();
  const Event q_ev = decode(f);
  const auto* q = std::get_if<Query>(&q_ev.body);
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->query, "ALTER TABLE t ENGINE=InnoDB");
  const QueryStatus& st = q->status;
  EXPECT_EQ(st.flags2, 0u);
  EXPECT_EQ(st.microseconds, 654321u);
  EXPECT_EQ(st.ddl_xid, 0x1122334455u);
  EXPECT_EQ(st.gtid_flags3, 4u);
  EXPECT_EQ(ints(st.character_set_collations), (std::vector<int>{33, 0, 192, 0, 45, 0, 224, 0}));
  EXPECT_EQ(st.charset_database, 46u);  // the 8-byte sa_seq_no was skipped correctly
  EXPECT_EQ(st.unknown_code, 0u);
}

TEST(EventsTest, QueryGtidFlags3WithoutSequenceNumber) {
  Wire s;
  s.u8(130).u8(2);    // Q_GTID_FLAGS3 / FL_START_ALTER_E1: no sa_seq_no follows
  s.u8(8).u16le(46);  // Q_CHARSET_DATABASE_CODE
  const Fixture f = query_with("StartAlter", EventType::kQuery, s, "shop", "ALTER TABLE t");
  const Event q_ev = decode(f);
  const auto& q = std::get<Query>(q_ev.body);
  EXPECT_EQ(q.status.gtid_flags3, 2u);
  EXPECT_EQ(q.status.charset_database, 46u);
}

TEST(EventsTest, QueryMySql8StatusVariables) {
  const Fixture f = query_mysql8();
  const Event q_ev = decode(f);
  const auto* q = std::get_if<Query>(&q_ev.body);
  ASSERT_NE(q, nullptr);
  const QueryStatus& st = q->status;
  EXPECT_EQ(st.catalog, std::string_view("def"));
  EXPECT_EQ(st.table_map_for_update, 5u);
  EXPECT_EQ(st.explicit_defaults_ts, 1u);
  EXPECT_EQ(st.ddl_xid, 999u);
  EXPECT_EQ(st.default_collation_utf8mb4, 255u);
  EXPECT_EQ(st.sql_require_primary_key, 1u);
  EXPECT_EQ(st.default_table_encryption, 1u);
  EXPECT_TRUE(st.has_updated_dbs);
  EXPECT_TRUE(st.updated_dbs_over_max);
  EXPECT_EQ(st.updated_db_count, 0u);
  EXPECT_EQ(st.unknown_code, 0u);
  EXPECT_EQ(q->query, "CREATE TABLE t (a INT)");
}

TEST(EventsTest, QueryUnknownStatusCodeStopsParsingButFindsQuery) {
  const Fixture f = query_unknown_status();
  const Event q_ev = decode(f);
  const auto* q = std::get_if<Query>(&q_ev.body);
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->status.flags2, 0x4000u);
  EXPECT_EQ(q->status.unknown_code, 250u);
  EXPECT_FALSE(q->status.charset_database.has_value());
  EXPECT_EQ(q->db, "shop");
  EXPECT_EQ(q->query, "DELETE FROM t");
}

TEST(EventsTest, QueryMoreThan16UpdatedDbsSetsOverMax) {
  Wire s;
  s.u8(12).u8(17);                                                    // Q_UPDATED_DB_NAMES / count
  for (int i = 0; i < 17; ++i) s.str("d" + std::to_string(i)).u8(0);  // names
  const Fixture f = query_with("ManyDbs", EventType::kQuery, s, "", "DROP TABLE a");
  const Event q_ev = decode(f);
  const auto& q = std::get<Query>(q_ev.body);
  EXPECT_EQ(q.status.updated_db_count, 16u);
  EXPECT_TRUE(q.status.updated_dbs_over_max);
  EXPECT_EQ(q.status.updated_dbs[15], "d15");
  EXPECT_EQ(q.db, "");
  EXPECT_EQ(q.query, "DROP TABLE a");
}

TEST(EventsTest, QueryDatabaseNotNulTerminatedIsBadEvent) {
  Fixture f = query();
  const std::size_t nul_at = f.bytes.size() - kQueryText.size() - 1;
  ASSERT_EQ(f.bytes[nul_at], std::byte{0});
  f.bytes[nul_at] = std::byte{'x'};
  try {
    (void)decode(f);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kBadEvent);
  }
}

TEST(EventsTest, QueryChecksumTrailerIsNotPartOfTheText) {
  const Fixture f = query_checksummed();
  const Event q_ev = decode(f);
  const auto& q = std::get<Query>(q_ev.body);
  EXPECT_EQ(q.query, "BEGIN");
  EXPECT_EQ(q.db, "shop");
}

TEST(EventsTest, QueryCompressedKeepsCompressedBytes) {
  const Fixture f = query_compressed();
  const Event q_ev = decode(f);
  const auto& q = std::get<Query>(q_ev.body);
  EXPECT_TRUE(q.compressed);
  EXPECT_EQ(q.query, std::string_view("\x81\x05\x78\x9c\x73", 5));
}

TEST(EventsTest, ExecuteLoadQuery) {
  const Fixture f = execute_load_query();
  const Event q_ev = decode(f);
  const auto& q = std::get<Query>(q_ev.body);
  EXPECT_EQ(q.thread_id, 77u);
  EXPECT_EQ(q.file_id, 5u);
  EXPECT_EQ(q.fn_pos_start, kLoadQuery.find("INFILE"));
  EXPECT_EQ(q.fn_pos_end, kLoadQuery.find("' ") + 1);
  EXPECT_EQ(q.dup_handling, 2u);
  EXPECT_EQ(q.status.flags2, 0u);
  EXPECT_EQ(q.db, "shop");
  EXPECT_EQ(q.query, kLoadQuery);
}

TEST(EventsTest, Xid) {
  const Fixture f = xid();
  EXPECT_EQ(std::get<Xid>(decode(f).body).xid, 0x0102030405060708u);
}

TEST(EventsTest, Intvar) {
  const Fixture f = intvar();
  const Event iv_ev = decode(f);
  const auto& iv = std::get<Intvar>(iv_ev.body);
  EXPECT_EQ(iv.type, 2u);
  EXPECT_EQ(iv.value, 101u);
}

TEST(EventsTest, Rand) {
  const Fixture f = rand_event();
  const Event r_ev = decode(f);
  const auto& r = std::get<Rand>(r_ev.body);
  EXPECT_EQ(r.seed1, 0x1111222233334444u);
  EXPECT_EQ(r.seed2, 0x5555666677778888u);
}

TEST(EventsTest, UserVarString) {
  const Fixture f = user_var_string();
  const Event v_ev = decode(f);
  const auto& v = std::get<UserVar>(v_ev.body);
  EXPECT_EQ(v.name, "name");
  EXPECT_FALSE(v.is_null);
  EXPECT_EQ(v.value_type, 0u);
  EXPECT_EQ(v.charset, 33u);
  EXPECT_EQ(text(v.value), "hello");
  EXPECT_EQ(v.flags, 0u);
}

TEST(EventsTest, UserVarIntUnsigned) {
  const Fixture f = user_var_int();
  const Event v_ev = decode(f);
  const auto& v = std::get<UserVar>(v_ev.body);
  EXPECT_EQ(v.name, "big");
  EXPECT_FALSE(v.is_null);
  EXPECT_EQ(v.value_type, 2u);
  EXPECT_EQ(v.charset, 63u);
  EXPECT_EQ(ints(v.value), (std::vector<int>(8, 0xff)));
  EXPECT_EQ(v.flags, 1u);
}

TEST(EventsTest, UserVarNull) {
  const Fixture f = user_var_null();
  const Event v_ev = decode(f);
  const auto& v = std::get<UserVar>(v_ev.body);
  EXPECT_EQ(v.name, "n");
  EXPECT_TRUE(v.is_null);
  EXPECT_TRUE(v.value.empty());
}

}  // namespace
}  // namespace binrecover::binlog
