// The text writers under every row value: integers (binlog/digits.h), DECIMAL
// (binlog/decimal.h), TIMESTAMP dates (decode_value) and doubles (recovery/text_writer.h), each
// against an independent reference: std::to_string, snprintf, gmtime_r, DECIMAL bytes worked out
// by hand from MySQL's decimal2bin layout, and fmt's own "{}".
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "binlog/decimal.h"
#include "binlog/digits.h"
#include "binlog/error.h"
#include "binlog/row_values.h"
#include "recovery/sql/text_writer.h"

namespace binrecover::binlog {
namespace {

std::string uint_text(std::uint64_t v) {
  char b[32];
  return std::string(b, put_uint(b, v));
}

std::string int_text(std::int64_t v) {
  char b[32];
  return std::string(b, put_int(b, v));
}

TEST(DigitsTest, IntegersEqualToString) {
  std::vector<std::uint64_t> values;
  for (std::uint64_t v = 0; v < 20000; ++v) values.push_back(v);
  std::uint64_t p = 1;
  for (int i = 0; i < 20; ++i, p *= 10)
    for (std::uint64_t d = 0; d < 4; ++d) values.insert(values.end(), {p + d, p - d});
  values.insert(values.end(), {0xffffffffULL, 0x100000000ULL, 0x7fffffffffffffffULL,
                               0x8000000000000000ULL, ~0ULL, ~0ULL - 1});
  std::mt19937_64 random(5);
  for (int i = 0; i < 200000; ++i) values.push_back(random() >> (random() % 64));
  for (std::uint64_t v : values) {
    ASSERT_EQ(uint_text(v), std::to_string(v));
    const auto s = static_cast<std::int64_t>(v);
    ASSERT_EQ(int_text(s), std::to_string(s));
  }
}

TEST(DigitsTest, PaddedKeepsEveryDigitOfWiderValues) {
  for (int width = 1; width <= 10; ++width)
    for (std::uint64_t v : {0ULL, 7ULL, 42ULL, 12345ULL, 9999999999ULL, 123456789012ULL}) {
      char b[32];
      char ref[32];
      std::snprintf(ref, sizeof ref, "%0*llu", width, static_cast<unsigned long long>(v));
      EXPECT_EQ(std::string(b, put_padded(b, v, width)), ref) << v << " in " << width;
    }
}

std::string decimal_text(std::initializer_list<int> raw, int precision, int scale) {
  std::vector<std::byte> b;
  for (int x : raw) b.push_back(static_cast<std::byte>(x));
  ByteCursor cur(b, 0);
  char text[kMaxDecimalText];
  std::string out(text, put_decimal(text, cur, precision, scale));
  EXPECT_TRUE(cur.empty());
  return out;
}

// DECIMAL(10,2): 8 integer digits in 4 bytes, 2 fraction digits in 1 byte; the top bit of the
// first byte flipped, negative values with every bit inverted.
TEST(DecimalTest, HandEncodedValues) {
  // 1234567.89: 01234567 = 0x0012D687 (0x8012D687 with the sign bit), 89 = 0x59.
  EXPECT_EQ(decimal_text({0x80, 0x12, 0xD6, 0x87, 0x59}, 10, 2), "1234567.89");
  EXPECT_EQ(decimal_text({0x7F, 0xED, 0x29, 0x78, 0xA6}, 10, 2), "-1234567.89");
  EXPECT_EQ(decimal_text({0x80, 0x00, 0x00, 0x00, 0x05}, 10, 2), "0.05");
  EXPECT_EQ(decimal_text({0x80, 0x00, 0x00, 0x00, 0x00}, 10, 2), "0.00");
  // DECIMAL(5,0): 5 digits in 3 bytes; 99999 = 0x01869F.
  EXPECT_EQ(decimal_text({0x81, 0x86, 0x9F}, 5, 0), "99999");
  // DECIMAL(38,38) (MariaDB allows 38 after the point): 4 groups of 9 in 16 bytes, then 2 digits
  // in 1 byte; 0.000...01 at the last digit.
  EXPECT_EQ(decimal_text({0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01}, 38, 38),
            "0.00000000000000000000000000000000000001");
}

TEST(DecimalTest, DigitGroupOutOfRangeAndBadDeclarationsThrow) {
  // A 9-digit group of 1000000000 is not a decimal digit group.
  EXPECT_THROW(decimal_text({0xBB, 0x9A, 0xCA, 0x00}, 9, 0), Error);
  EXPECT_THROW(decimal_text({0x80}, 2, 3), Error);    // scale above precision
  EXPECT_THROW(decimal_text({0x80}, 66, 0), Error);   // more than 65 digits
  EXPECT_THROW(decimal_text({0x80}, 40, 39), Error);  // more than 38 after the point
}

// TIMESTAMP2 with microseconds: the date from the day count equals gmtime_r's for seconds
// spread over the whole u32 range, with the fraction appended.
TEST(TemporalTest, Timestamp2EqualsGmtime) {
  TableInfo info;
  info.layout = {ColumnLayout{ColumnType::kTimestamp2, 6}};
  info.is_unsigned = {0};
  info.collation = {0};
  info.enum_values.resize(1);
  info.set_values.resize(1);
  for (std::uint64_t s = 1; s <= 0xffffffffULL; s += 104729) {
    const auto sec = static_cast<std::uint32_t>(s);
    const std::uint32_t micros = sec % 1000000;
    const std::vector<std::byte> raw = {
        std::byte(sec >> 24),    std::byte(sec >> 16),   std::byte(sec >> 8), std::byte(sec),
        std::byte(micros >> 16), std::byte(micros >> 8), std::byte(micros)};
    ByteCursor cur(raw, 0);
    const Value v = decode_value(info, 0, cur);
    std::time_t t = sec;
    std::tm tm{};
    gmtime_r(&t, &tm);
    char ref[64];
    std::snprintf(ref, sizeof ref, "%04d-%02d-%02d %02d:%02d:%02d.%06u", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, micros);
    ASSERT_EQ(v.text.view(), ref) << sec;
  }
}

// put_double lays out fmt's shortest digits itself; its text must be fmt::format("{}")'s
// exactly (the output of every DOUBLE and FLOAT). Every exponent-notation boundary, subnormals,
// the extremes, the non-finite values, and two million random bit patterns and floats.
TEST(DoubleTextTest, EqualsFmtsShortestText) {
  auto check = [](double d) {
    char b[64];
    const std::string mine(b, recovery::put_double(b, d));
    ASSERT_EQ(mine, fmt::format("{}", d)) << std::hexfloat << d;
  };
  std::vector<double> values = {0.0,
                                -0.0,
                                1.0,
                                -1.0,
                                0.1,
                                0.5,
                                123.456,
                                1e15,
                                9.999999999999998e15,
                                1e16,
                                1.2345678901234567e16,
                                1e17,
                                1e-4,
                                1.5e-4,
                                9.99e-5,
                                1e-5,
                                1e100,
                                1e-100,
                                1e300,
                                std::numeric_limits<double>::max(),
                                std::numeric_limits<double>::min(),
                                std::numeric_limits<double>::denorm_min(),
                                std::numeric_limits<double>::epsilon(),
                                std::numeric_limits<double>::infinity(),
                                -std::numeric_limits<double>::infinity(),
                                std::numeric_limits<double>::quiet_NaN(),
                                static_cast<double>(std::numeric_limits<float>::max()),
                                static_cast<double>(0.1f),
                                static_cast<double>(3.4028234e38f)};
  for (int e = -330; e <= 310; ++e) {
    const double p = std::pow(10.0, e);
    values.insert(values.end(), {p, std::nextafter(p, 0.0), std::nextafter(p, 1e308), -p, 3 * p});
  }
  for (double d : values) check(d);
  std::mt19937_64 random(13);
  for (int i = 0; i < 1000000; ++i) {
    const std::uint64_t bits = random();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    check(d);
    const auto f32 = static_cast<std::uint32_t>(random());
    float f;
    std::memcpy(&f, &f32, sizeof f);
    check(static_cast<double>(f));  // FLOAT columns are printed as the double they widen to
  }
}

}  // namespace
}  // namespace binrecover::binlog
