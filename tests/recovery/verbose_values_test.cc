// The -v / -vv writers of recovery/sql/verbose_values.h: each tool's escapes, the C1 escape
// (so no byte of a log reaches a terminal as a command), integers, TIMESTAMP, raw metadata.
// (tests/integration/verbose_parity.sh compares whole outputs with the tools themselves.)
#include "recovery/sql/verbose_values.h"

#include <gtest/gtest.h>

#include <random>
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

namespace binrecover::recovery::verbose {
namespace {

// The rules of my_b_write_quoted, a byte at a time (and the C1 escape), to hold the 16-byte
// loop and the escape table against.
std::string reference_quoted(std::string_view s, bool mariadb) {
  std::string out = "'";
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
        static_cast<unsigned char>(s[i + 1]) <= 0x9F) {
      out += fmt::format("\\xc2\\x{:02x}", static_cast<unsigned char>(s[++i]));
      continue;
    }
    const std::string_view mysql_two = !mariadb ? std::string_view("\b\f\n\r\t\\'") : "";
    const std::size_t k = mysql_two.find(static_cast<char>(c));
    if (k != std::string_view::npos) {
      out += '\\';
      out += "bfnrt\\'"[k];
    } else if (c < 0x20) {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "'";
}

TEST(VerboseValuesTest, QuotingMatchesTheRulesOnRandomBytes) {
  std::mt19937 rng(33);
  // bytes that matter more often than chance gives them
  static constexpr char kInteresting[] = "\x00\x1f '\\\xc2\x80\x9f\xa0\n\t\b\f\r";
  const std::string interesting(kInteresting, sizeof kInteresting - 1);
  int mismatches = 0;
  for (int round = 0; round < 20000; ++round) {
    const std::size_t n = rng() % 70;
    std::string buf(n + 40, 'z');  // the value, then bytes of its "event" after it
    for (std::size_t i = 0; i < buf.size(); ++i)
      buf[i] =
          rng() % 3 == 0 ? interesting[rng() % interesting.size()] : static_cast<char>(rng() % 256);
    const std::string_view value(buf.data(), n);
    for (const bool mariadb : {true, false}) {
      const std::string want = reference_quoted(value, mariadb);
      for (const std::size_t slack : {std::size_t{0}, std::size_t{40}}) {
        fmt::memory_buffer b;
        {
          Writer out(b);
          put_quoted(out, bytes(value), mariadb, slack);
        }
        if (std::string(b.data(), b.size()) != want && ++mismatches <= 5)
          ADD_FAILURE() << "n=" << n << " mariadb=" << mariadb << " slack=" << slack;
      }
    }
  }
  EXPECT_EQ(mismatches, 0);
}

}  // namespace
}  // namespace binrecover::recovery::verbose
