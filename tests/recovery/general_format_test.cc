// put_general (recovery/sql/general_format.h) against std::to_chars(general, P), printf's
// "%.Pg", on values of every kind: random bit patterns, values of a table's usual range,
// decimal fractions, integers, exact ties, carries (9.99..), floats, and both ends of the range
// it computes itself.
#include "recovery/sql/general_format.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>

namespace binrecover::recovery {
namespace {

std::string ours(double d, int precision) {
  char buf[400];
  return std::string(buf, put_general(buf, d, precision));
}

std::string library(double d, int precision) {
  char buf[400];
  return std::string(
      buf, std::to_chars(buf, buf + sizeof buf, d, std::chars_format::general, precision).ptr);
}

// Every mismatch counted; the first few printed.
void expect_same(double d, int& mismatches) {
  for (const int precision : {1, 2, 6, 15, 17, 20, 24}) {
    const std::string a = ours(d, precision);
    const std::string b = library(d, precision);
    if (a != b && ++mismatches <= 10)
      ADD_FAILURE() << "%." << precision << "g of " << std::bit_cast<std::uint64_t>(d) << ": " << a
                    << " vs " << b;
  }
}

TEST(GeneralFormatTest, KnownValues) {
  EXPECT_EQ(ours(-4.1701965119412137491e-06, 20), "-4.1701965119412137491e-06");
  EXPECT_EQ(ours(0.1, 20), "0.10000000000000000555");
  EXPECT_EQ(ours(265.512f, 6), "265.512");
  EXPECT_EQ(ours(100000, 6), "100000");
  EXPECT_EQ(ours(1000000, 6), "1e+06");
  EXPECT_EQ(ours(0.0001, 6), "0.0001");
  EXPECT_EQ(ours(0.00001, 6), "1e-05");
  EXPECT_EQ(ours(9.9999999, 6), "10");
  EXPECT_EQ(ours(2.5, 1), "2");  // a tie: to even
  EXPECT_EQ(ours(3.5, 1), "4");
  EXPECT_EQ(ours(-0.0, 20), "-0");
  EXPECT_EQ(ours(std::numeric_limits<double>::infinity(), 20), "inf");
}

TEST(GeneralFormatTest, RandomBitPatterns) {
  std::mt19937_64 rng(20261205);
  int mismatches = 0;
  for (int i = 0; i < 300000; ++i) expect_same(std::bit_cast<double>(rng()), mismatches);
  EXPECT_EQ(mismatches, 0);
}

TEST(GeneralFormatTest, UsualRangeAndEdges) {
  std::mt19937_64 rng(7);
  int mismatches = 0;
  for (int i = 0; i < 300000; ++i) {
    // mantissa random, exponent over the range computed here and just past both ends
    const std::uint64_t mant = rng() & ((std::uint64_t{1} << 52) - 1);
    const std::uint64_t exp = 1075 - 125 + rng() % 145;  // e from -125 to 19
    const std::uint64_t sign = (rng() & 1) << 63;
    expect_same(std::bit_cast<double>(sign | exp << 52 | mant), mismatches);
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(GeneralFormatTest, DecimalsIntegersTiesAndFloats) {
  std::mt19937_64 rng(11);
  int mismatches = 0;
  for (int i = 0; i < 200000; ++i) {
    const auto k = static_cast<std::int64_t>(rng() % 2000000000) - 1000000000;
    expect_same(static_cast<double>(k) / 1000, mismatches);     // DECIMAL-like values
    expect_same(static_cast<double>(k) / 1048576, mismatches);  // exact binary fractions
    expect_same(static_cast<double>(k), mismatches);            // integers
    expect_same(static_cast<double>(k) * 1e9, mismatches);      // large integers
    expect_same(static_cast<double>(k) + 0.5, mismatches);      // ties at every precision
    expect_same(static_cast<float>(k) / 997.0f, mismatches);    // FLOAT columns
    expect_same(std::bit_cast<float>(static_cast<std::uint32_t>(rng())), mismatches);
  }
  for (double d = 9.5; d < 1e20; d = d * 10 + 9)  // 9.5, 99.5, 999.5 ...: carries
    expect_same(d, mismatches);
  for (int x = -130; x <= 70; ++x) expect_same(std::ldexp(1.0, x), mismatches);
  EXPECT_EQ(mismatches, 0);
}

}  // namespace
}  // namespace binrecover::recovery
