// Every event kind's truncated prefixes, headers, format descriptions, rotations and the other
// events (binlog/events.cc).
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

class PrefixTest : public ::testing::TestWithParam<Fixture> {};

TEST_P(PrefixTest, EveryTruncatedPrefixDecodesOrThrows) {
  const Fixture& f = GetParam();
  ASSERT_LE(f.throw_below, f.bytes.size());
  ASSERT_GE(f.throw_below, kHeader);
  for (std::size_t len = 0; len <= f.bytes.size(); ++len) {
    const Outcome out = decode_prefix(f.bytes, len, f.ctx);
    if (len < f.throw_below) {
      EXPECT_EQ(out, Outcome::kThrew) << "prefix of " << len << " bytes decoded";
    }
    if (len >= f.decode_from) {
      EXPECT_EQ(out, Outcome::kDecoded) << "prefix of " << len << " bytes threw";
    }
  }
  EXPECT_EQ(decode_prefix(f.bytes, f.bytes.size(), f.ctx), Outcome::kDecoded);
}

INSTANTIATE_TEST_SUITE_P(AllFixtures, PrefixTest, ::testing::ValuesIn(all_fixtures()),
                         [](const ::testing::TestParamInfo<Fixture>& info) {
                           return info.param.name;
                         });

// ---------------------------------------------------------------------------------------------
// Decoded values

TEST(EventsTest, HeaderFieldsAndRawView) {
  const Fixture f = xid();
  const Event ev = decode(f);
  EXPECT_EQ(ev.pos, kPos);
  EXPECT_EQ(ev.header.timestamp, kTimestamp);
  EXPECT_EQ(ev.header.type, static_cast<std::uint8_t>(EventType::kXid));
  EXPECT_EQ(ev.type(), EventType::kXid);
  EXPECT_EQ(ev.header.server_id, kServerId);
  EXPECT_EQ(ev.header.event_size, 27u);
  EXPECT_EQ(ev.header.log_pos, kPos + 27);
  EXPECT_EQ(ev.header.flags, 0u);
  EXPECT_EQ(ev.raw.data(), f.bytes.data());
  EXPECT_EQ(ev.raw.size(), 27u);
  EXPECT_EQ(ev.end_pos(), kPos + 27);
}

TEST(EventsTest, FormatDescriptionMariaDbWithCrc32) {
  const Fixture f = fde_mariadb();
  ASSERT_EQ(f.bytes.size(), 252u);  // what MariaDB 10.x writes: the first event ends at 256
  const Event ev = decode(f);
  const auto* fde = std::get_if<FormatDescription>(&ev.body);
  ASSERT_NE(fde, nullptr);
  EXPECT_EQ(fde->binlog_version, 4u);
  EXPECT_EQ(fde->server_version, "10.11.6-MariaDB-log");
  EXPECT_EQ(fde->created, kTimestamp);
  const FormatContext& c = fde->context;
  EXPECT_EQ(c.binlog_version, 4u);
  EXPECT_EQ(c.header_length, 19u);
  EXPECT_TRUE(c.mariadb);
  EXPECT_EQ(c.server_version, (std::array<int, 3>{10, 11, 6}));
  EXPECT_EQ(c.checksum, ChecksumAlg::kCrc32);
  EXPECT_EQ(c.post_header(EventType::kStartV3), 56u);
  EXPECT_EQ(c.post_header(EventType::kQuery), 13u);
  EXPECT_EQ(c.post_header(EventType::kRotate), 8u);
  EXPECT_EQ(c.post_header(EventType::kExecuteLoadQuery), 26u);
  EXPECT_EQ(c.post_header(EventType::kTableMap), 8u);
  EXPECT_EQ(c.post_header(EventType::kWriteRowsV1), 8u);
  EXPECT_EQ(c.post_header(EventType::kWriteRowsV2), 10u);
  EXPECT_EQ(c.post_header(EventType::kMariaGtid), 19u);
  EXPECT_EQ(c.post_header(EventType::kMariaGtidList), 4u);
  EXPECT_EQ(c.post_header(EventType::kMariaDeleteRowsCompressed), 10u);
  // The algorithm byte and the trailer are not post-header lengths.
  EXPECT_EQ(c.post_header_len[172], 0u);
  EXPECT_EQ(c.post_header_len[173], 0u);
}

TEST(EventsTest, FormatDescriptionChecksumAlgorithmOff) {
  const Fixture f = fde_mariadb(0, "FdeAlgOff");
  const Event ev = decode(f);
  const auto& fde = std::get<FormatDescription>(ev.body);
  EXPECT_EQ(fde.context.checksum, ChecksumAlg::kOff);
  EXPECT_EQ(fde.context.post_header(EventType::kMariaDeleteRowsCompressed), 10u);
}

TEST(EventsTest, FormatDescriptionUnknownChecksumAlgorithmIsBadEvent) {
  const Fixture f = fde_mariadb(7, "FdeAlg7");
  try {
    (void)decode(f);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kBadEvent);
    EXPECT_TRUE(e.has_offset());
  }
}

TEST(EventsTest, FormatDescriptionHeaderLengthBelow19IsBadEvent) {
  Fixture f = fde_mariadb();
  f.bytes[kHeader + 56] = std::byte{13};  // common header length
  try {
    (void)decode(f);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kBadEvent);
  }
}

TEST(EventsTest, FormatDescriptionMySql55HasNoChecksum) {
  const Fixture f = fde_mysql55();
  ASSERT_EQ(f.bytes.size(), 103u);
  const Event ev = decode(f);
  const auto* fde = std::get_if<FormatDescription>(&ev.body);
  ASSERT_NE(fde, nullptr);
  EXPECT_EQ(fde->server_version, "5.5.62-log");
  const FormatContext& c = fde->context;
  EXPECT_FALSE(c.mariadb);
  EXPECT_EQ(c.server_version, (std::array<int, 3>{5, 5, 62}));
  EXPECT_EQ(c.checksum, ChecksumAlg::kOff);
  EXPECT_EQ(c.post_header(EventType::kQuery), 13u);
  EXPECT_EQ(c.post_header(EventType::kFormatDescription), 84u);
  EXPECT_EQ(c.post_header(EventType::kTableMap), 8u);
  EXPECT_EQ(c.post_header(EventType::kDeleteRowsV1), 8u);
  EXPECT_EQ(c.post_header(EventType::kIncident), 2u);
  EXPECT_EQ(c.post_header(EventType::kHeartbeat), 0u);
  EXPECT_EQ(c.post_header(EventType::kIgnorable), 0u);  // type 28 is past the 27 listed
}

TEST(EventsTest, Rotate) {
  const Fixture f = rotate();
  const Event r_ev = decode(f);
  const auto& r = std::get<Rotate>(r_ev.body);
  EXPECT_EQ(r.position, 4u);
  EXPECT_EQ(r.next_file, "mysql-bin.000002");
}

TEST(EventsTest, RotateInBinlogV1HasNoPosition) {
  FormatContext ctx = mariadb_context();
  ctx.post_header_len[static_cast<std::uint8_t>(EventType::kRotate)] = 0;  // as in binlog v1
  Wire w = header(EventType::kRotate);
  w.str("old-bin.002");  // next file name only: no position in front
  const Fixture f = make("RotateV1", std::move(w), kHeader, kHeader, ctx);
  const Event r_ev = decode(f);
  const auto& r = std::get<Rotate>(r_ev.body);
  EXPECT_EQ(r.position, 4u);
  EXPECT_EQ(r.next_file, "old-bin.002");
}

TEST(EventsTest, Stop) {
  const Fixture f = stop();
  EXPECT_TRUE(std::holds_alternative<Stop>(decode(f).body));
}

TEST(EventsTest, BinlogCheckpoint) {
  const Fixture f = binlog_checkpoint();
  EXPECT_EQ(std::get<BinlogCheckpoint>(decode(f).body).file, "mysql-bin.000001");
}

TEST(EventsTest, AnnotateRows) {
  const Fixture f = annotate_rows();
  EXPECT_EQ(std::get<RowsQuery>(decode(f).body).query, "INSERT INTO t VALUES (1)");
}

TEST(EventsTest, XaPrepare) {
  const Fixture f = xa_prepare();
  const Event x_ev = decode(f);
  const auto& x = std::get<XaPrepare>(x_ev.body);
  EXPECT_FALSE(x.one_phase);
  EXPECT_EQ(x.format_id, 1u);
  EXPECT_EQ(x.gtrid_len, 3u);
  EXPECT_EQ(x.bqual_len, 2u);
  EXPECT_EQ(text(x.data), "abcde");
}

TEST(EventsTest, XaPreparePartLongerThan64IsBadEvent) {
  Wire w = header(EventType::kXaPrepare);
  w.u8(1)           // one_phase
      .u32le(1)     // format_id
      .u32le(1000)  // gtrid_length: over 64
      .u32le(0)     // bqual_length
      .zeros(8);    // some data
  const Fixture f = make("Bad", std::move(w), 0, kNever);
  try {
    (void)decode(f);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kBadEvent);
  }
}

TEST(EventsTest, Incident) {
  const Fixture f = incident();
  const Event i_ev = decode(f);
  const auto& i = std::get<Incident>(i_ev.body);
  EXPECT_EQ(i.type, 1u);
  EXPECT_EQ(i.message, "lost events");
}

TEST(EventsTest, IncidentWithoutMessage) {
  const Fixture f = incident();
  const Event i_ev = decode_event(Bytes(f.bytes).first(kHeader + 2), kPos, f.ctx);
  const auto& i = std::get<Incident>(i_ev.body);
  EXPECT_EQ(i.type, 1u);
  EXPECT_EQ(i.message, "");
}

TEST(EventsTest, Heartbeat) {
  const Fixture f = heartbeat();
  EXPECT_EQ(std::get<Heartbeat>(decode(f).body).log_ident, "mysql-bin.000003");
}

TEST(EventsTest, BeginLoadQueryAndAppendBlock) {
  const Fixture begin = begin_load_query();
  const Event b_ev = decode(begin);
  const auto& b = std::get<LoadBlock>(b_ev.body);
  EXPECT_EQ(b.file_id, 5u);
  EXPECT_EQ(text(b.data), "1,a\n2,b\n");
  const Fixture append = append_block();
  const Event ev = decode(append);
  EXPECT_EQ(ev.type(), EventType::kAppendBlock);
  const auto& a = std::get<LoadBlock>(ev.body);
  EXPECT_EQ(a.file_id, 5u);
  EXPECT_EQ(text(a.data), "3,c\n");
}

TEST(EventsTest, CreateFileAndExecLoad) {
  const Fixture f = create_file();
  const Event ev = decode(f);
  const auto& l = std::get<LoadData>(ev.body);
  EXPECT_EQ(l.thread_id, 1u);
  EXPECT_EQ(l.skip_lines, 2u);
  EXPECT_EQ(l.file_id, 7u);
  EXPECT_EQ(l.field_term, "\t");
  EXPECT_EQ(l.enclosed, "\"");
  EXPECT_EQ(l.line_term, "\n");
  EXPECT_EQ(l.line_start, "");
  EXPECT_EQ(l.escaped, "\\");
  EXPECT_EQ(l.opt_flags, LoadData::kOptEnclosed | LoadData::kReplace);
  EXPECT_EQ(l.num_fields, 2u);
  EXPECT_EQ(text(l.field_names), std::string("a\0bcd\0", 6));
  EXPECT_EQ(l.table, "t3");
  EXPECT_EQ(l.db, "test");
  EXPECT_EQ(l.fname, "big_file.dat");
  EXPECT_EQ(text(l.block), "Aarhus\nAaron\n");
  EXPECT_EQ(std::get<LoadFileRef>(decode(exec_load()).body).file_id, 7u);
}

TEST(EventsTest, DropTreeServersPermuteEventTypes) {
  // A 5.2.2-a_drop6p13 format description with 22 event types: code 16 is a table map, 17-19
  // pre-GA rows, 20 Xid, 21-22 the LOAD DATA query events (ver_5_1-wl2325_r.001 in the corpus).
  Wire w = header(EventType::kFormatDescription);
  w.u16le(4).padded("5.2.2-a_drop6p13-debug-log", 50).u32le(kTimestamp).u8(19);
  for (int t = 1; t <= 22; ++t) w.u8(static_cast<std::uint8_t>(t == 16 ? 8 : t == 20 ? 0 : 30 + t));
  const Fixture fde =
      make("DropFde", std::move(w), kHeader, kHeader, FormatContext::for_version(4));
  const FormatContext ctx = std::get<FormatDescription>(decode(fde).body).context;
  EXPECT_TRUE(ctx.drop_tree_types);
  EXPECT_EQ(ctx.event_type(16), static_cast<std::uint8_t>(EventType::kTableMap));
  EXPECT_EQ(ctx.event_type(17), static_cast<std::uint8_t>(EventType::kPreGaWriteRows));
  EXPECT_EQ(ctx.event_type(20), static_cast<std::uint8_t>(EventType::kXid));
  EXPECT_EQ(ctx.event_type(22), static_cast<std::uint8_t>(EventType::kExecuteLoadQuery));
  EXPECT_EQ(ctx.event_type(2), static_cast<std::uint8_t>(EventType::kQuery));
  EXPECT_EQ(ctx.post_header(EventType::kTableMap), 8);  // the length listed 16th
  EXPECT_EQ(ctx.post_header(EventType::kXid), 0);       // the length listed 20th
  // Any other version keeps the numbering.
  Wire v = header(EventType::kFormatDescription);
  v.u16le(4).padded("5.1.23-rc-debug-log", 50).u32le(kTimestamp).u8(19);
  for (int t = 1; t <= 22; ++t) v.u8(0);
  const Fixture plain =
      make("PlainFde", std::move(v), kHeader, kHeader, FormatContext::for_version(4));
  EXPECT_FALSE(std::get<FormatDescription>(decode(plain).body).context.drop_tree_types);
}

TEST(EventsTest, StartEncryption) {
  const Fixture f = start_encryption();
  const Event s_ev = decode(f);
  const auto& s = std::get<StartEncryption>(s_ev.body);
  EXPECT_EQ(s.scheme, 1u);
  EXPECT_EQ(s.key_version, 7u);
}

TEST(EventsTest, StartEncryptionShortNonceIsRejected) {
  // DEVIATION (binlog/events.cc decode_event, case kMariaStartEncryption): MariaDB's
  // Start_encryption_log_event accepts only an event of exactly 19 + 17 bytes (scheme,
  // key_version, 12-byte nonce); the decoder never reads the nonce, so an event cut inside it
  // decodes. Fix: `cur.skip(12);` after key_version (or keep the nonce in the struct).
  const Fixture f = start_encryption();
  for (std::size_t len = kHeader + 5; len < f.bytes.size(); ++len)
    EXPECT_EQ(decode_prefix(f.bytes, len, f.ctx), Outcome::kThrew) << len;
}

TEST(EventsTest, StartV3) {
  const Fixture f = start_v3();
  const Event s_ev = decode(f);
  const auto& s = std::get<StartV3>(s_ev.body);
  EXPECT_EQ(s.binlog_version, 3u);
  EXPECT_EQ(s.server_version, "4.0.30-log");
  EXPECT_EQ(s.created, kTimestamp);
}

TEST(EventsTest, TransactionPayloadDecodes) {
  const Fixture f = transaction_payload();
  const Event ev = decode(f);
  EXPECT_TRUE(std::holds_alternative<TransactionPayload>(ev.body));
  EXPECT_EQ(ev.raw.size(), kHeader + 7 + 4);
}

TEST(EventsTest, UnknownTypeKeepsRawBytes) {
  const Fixture f = unknown_type();
  const Event ev = decode(f);
  EXPECT_TRUE(std::holds_alternative<Unknown>(ev.body));
  EXPECT_EQ(ev.header.type, 99u);
  EXPECT_EQ(ev.raw.size(), kHeader + 4);
}

TEST(EventsTest, KnownUndecodedTypeIsUnknown) {
  const Fixture f = ignorable();
  const Event ev = decode(f);
  EXPECT_TRUE(std::holds_alternative<Unknown>(ev.body));
  EXPECT_EQ(ev.header.flags, 0x80u);
}

TEST(EventsTest, ParseServerVersion) {
  EXPECT_EQ(parse_server_version("10.11.19-MariaDB-log"), (std::array<int, 3>{10, 11, 19}));
  EXPECT_EQ(parse_server_version("8.0.36"), (std::array<int, 3>{8, 0, 36}));
  EXPECT_EQ(parse_server_version("5.1"), (std::array<int, 3>{5, 1, 0}));
  EXPECT_EQ(parse_server_version(""), (std::array<int, 3>{0, 0, 0}));
  EXPECT_TRUE(version_has_checksum({5, 6, 1}, false));
  EXPECT_FALSE(version_has_checksum({5, 6, 0}, false));
  EXPECT_TRUE(version_has_checksum({5, 3, 0}, true));
  EXPECT_FALSE(version_has_checksum({5, 2, 9}, true));
}

}  // namespace
}  // namespace binrecover::binlog
