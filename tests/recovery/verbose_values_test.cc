// The -v / -vv writers of recovery/sql/verbose_values.h: each tool's escapes, the C1 escape
// (so no byte of a log reaches a terminal as a command), integers, TIMESTAMP, raw metadata.
// (tests/integration/verbose_parity.sh compares whole outputs with the tools themselves.)
#include "recovery/sql/verbose_values.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "binlog/row_values_inl.h"

namespace binrecover::recovery::verbose {
namespace {

binlog::Bytes bytes(std::string_view s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

std::string quoted(std::string_view s, bool mariadb) {
  fmt::memory_buffer b;
  {
    Writer out(b);
    put_quoted(out, bytes(s), mariadb);
  }
  return std::string(b.data(), b.size());
}

TEST(VerboseValuesTest, MariadbEscapesControlBytesOnly) {
  // mariadb-binlog: every byte below 0x20 as \xNN; quote and backslash as they are
  EXPECT_EQ(quoted(std::string_view("a\nb\0c'\\\x1b[2J", 11), true), "'a\\x0ab\\x00c'\\\\x1b[2J'");
}

TEST(VerboseValuesTest, MysqlEscapesAsMysqlbinlog) {
  EXPECT_EQ(quoted(std::string_view("a\nb\0c'\\\t\x1b", 9), false), "'a\\nb\\x00c\\'\\\\\\t\\x1b'");
}

TEST(VerboseValuesTest, TextAndC1Controls) {
  EXPECT_EQ(quoted("张三", true), "'张三'");
  // U+009B (CSI as a C1 control) escaped; U+00A9 and a lone C2 kept
  EXPECT_EQ(quoted("\xc2\x9b"
                   "31m\xc2\xa9\xc2",
                   true),
            "'\\xc2\\x9b31m\xc2\xa9\xc2'");
}

std::string value_of(binlog::ColumnType type, std::uint16_t meta, std::string_view data,
                     bool is_unsigned = false) {
  binlog::TableInfo info;
  info.layout = {binlog::ColumnLayout{type, meta}};
  info.is_unsigned = {static_cast<char>(is_unsigned)};
  info.collation = {0};
  info.enum_values.resize(1);
  info.set_values.resize(1);
  info.vector_dimensions = {0};
  fmt::memory_buffer b;
  {
    Writer out(b);
    binlog::ByteCursor cur(bytes(data), 0);
    if (!put_raw_timestamp(out, info.layout[0], cur))
      binlog::visit_value(info, 0, cur, ToolValue{out, info, 0});
  }
  return std::string(b.data(), b.size());
}

TEST(VerboseValuesTest, IntegersWithTheirUnsignedReading) {
  using binlog::ColumnType;
  EXPECT_EQ(value_of(ColumnType::kTiny, 0, "\xff"), "-1 (255)");
  EXPECT_EQ(value_of(ColumnType::kTiny, 0, "\xff", true), "-1 (255)");  // as both tools
  EXPECT_EQ(value_of(ColumnType::kShort, 0, std::string_view("\x00\x80", 2)), "-32768 (32768)");
  EXPECT_EQ(value_of(ColumnType::kLong, 0, std::string_view("\x05\x00\x00\x00", 4)), "5");
  EXPECT_EQ(value_of(ColumnType::kLongLong, 0, "\xff\xff\xff\xff\xff\xff\xff\xff", true),
            "-1 (18446744073709551615)");
  EXPECT_EQ(value_of(ColumnType::kYear, 0, std::string_view("\x00", 1)), "1900");
}

TEST(VerboseValuesTest, TimestampsAsEpochSeconds) {
  using binlog::ColumnType;
  // TIMESTAMP(2): 4 bytes big-endian seconds, 1 byte of hundredths
  EXPECT_EQ(value_of(ColumnType::kTimestamp2, 2, std::string_view("\x6a\x43\x3f\xc0\x01", 5)),
            "1782792128.01");
  EXPECT_EQ(value_of(ColumnType::kTimestamp2, 0, std::string_view("\x00\x00\x00\x01", 4)), "1");
  EXPECT_EQ(value_of(ColumnType::kTimestamp, 0, std::string_view("\x02\x00\x00\x00", 4)), "2");
}

TEST(VerboseValuesTest, BitsSetAndStringWithoutPadding) {
  using binlog::ColumnType;
  // BIT(10): meta bits%8=2 / whole bytes=1 -> (2 << 8) | 1
  EXPECT_EQ(value_of(ColumnType::kBit, 0x0201, std::string_view("\x02\xaa", 2)), "b'1010101010'");
  EXPECT_EQ(value_of(ColumnType::kSet, 1, "\x05"), "b'00000101'");
  EXPECT_EQ(value_of(ColumnType::kString, 8,
                     "\x02"
                     "AB"),
            "'AB'");
}

TEST(VerboseValuesTest, MetadataAsTheToolsHoldIt) {
  using binlog::ColumnLayout;
  using binlog::ColumnType;
  EXPECT_EQ(tool_meta(ColumnLayout{ColumnType::kEnum, 1}), 63233u);     // F7 01
  EXPECT_EQ(tool_meta(ColumnLayout{ColumnType::kString, 24}), 65048u);  // FE 18
  // CHAR(300) in utf8: 900 bytes, two length bits folded into the type byte
  EXPECT_EQ(tool_meta(ColumnLayout{ColumnType::kString, 900}), (0xFEu ^ 0x30u) << 8 | 0x84u);
  EXPECT_EQ(tool_meta(ColumnLayout{ColumnType::kBit, 0x0202}), 0x0202u);
  EXPECT_EQ(tool_meta(ColumnLayout{ColumnType::kBit, 0x0301}), 0x0103u);
}

}  // namespace
}  // namespace binrecover::recovery::verbose
