// The base64 lines of BINLOG statements: the SSSE3 and AVX-512 encoders write exactly what the
// table one does, for every length around the line and step boundaries (each kernel this CPU
// has; the others are said to be skipped).
#include "recovery/text/base64.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace binrecover::recovery {
namespace {

std::string encode(const std::vector<std::byte>& data, bool simd,
                   Base64Kernel k = Base64Kernel::kTable) {
  fmt::memory_buffer out;
  out.append(std::string_view("x"));  // appended after what is there
  const binlog::Bytes b(data.data(), data.size());
  if (simd)
    append_base64(out, b);
  else
    append_base64_with(out, b, k);
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
    const std::string table = encode(data, false);
    ASSERT_EQ(simd, table) << n;
    for (Base64Kernel k : {Base64Kernel::kSsse3, Base64Kernel::kAvx512Vbmi}) {
      if (base64_kernel_available(k)) {
        ASSERT_EQ(encode(data, false, k), table) << n;
      }
    }
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

// Every byte value in every position of a line and of each step (the alphabet's ranges, and
// the 6-bit fields that straddle bytes).
TEST(Base64Test, EveryKernelOnEveryByteValue) {
  std::vector<std::byte> data(57 * 40 + 31);
  for (std::size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<std::byte>((i * 7 + i / 57) & 0xff);
  const std::string table = encode(data, false);
  for (Base64Kernel k : {Base64Kernel::kSsse3, Base64Kernel::kAvx512Vbmi}) {
    if (!base64_kernel_available(k)) {
      std::printf("kernel %d: not on this CPU, not tested here\n", static_cast<int>(k));
      continue;
    }
    EXPECT_EQ(encode(data, false, k), table) << static_cast<int>(k);
  }
}

}  // namespace
}  // namespace binrecover::recovery
