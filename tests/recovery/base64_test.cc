// The base64 lines of BINLOG statements: the SSSE3 encoder writes exactly what the table one
// does, for every length around the line and step boundaries.
#include "recovery/text/base64.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace binrecover::recovery {
namespace {

std::string encode(const std::vector<std::byte>& data, bool simd) {
  fmt::memory_buffer out;
  out.append(std::string_view("x"));  // appended after what is there
  const binlog::Bytes b(data.data(), data.size());
  if (simd)
    append_base64(out, b);
  else
    append_base64_scalar(out, b);
  return std::string(out.data(), out.size());
}

TEST(Base64Test, KnownText) {
  const std::string text = "Many hands make light work.";
  std::vector<std::byte> data;
  for (char c : text) data.push_back(static_cast<std::byte>(c));
  EXPECT_EQ(encode(data, true), "xTWFueSBoYW5kcyBtYWtlIGxpZ2h0IHdvcmsu");
  data.resize(2);
  EXPECT_EQ(encode(data, true), "xTWE=");
  data.resize(1);
  EXPECT_EQ(encode(data, true), "xTQ==");
  data.clear();
  EXPECT_EQ(encode(data, true), "x");
}

TEST(Base64Test, LinesOf76AndTheSameTextEitherWay) {
  std::mt19937 rng(42);
  for (std::size_t n = 0; n < 700; ++n) {
    std::vector<std::byte> data(n);
    for (auto& b : data) b = static_cast<std::byte>(rng());
    const std::string simd = encode(data, true);
    ASSERT_EQ(simd, encode(data, false)) << n;
    std::size_t line = 0;
    for (std::size_t i = 1; i < simd.size(); ++i) {
      if (simd[i] == '\n') {
        EXPECT_EQ(line, 76U) << n;
        line = 0;
      } else {
        ++line;
      }
    }
    EXPECT_LE(line, 76U);
    EXPECT_NE(simd.back(), '\n');
  }
}

}  // namespace
}  // namespace binrecover::recovery
