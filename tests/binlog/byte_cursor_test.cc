#include "binlog/byte_cursor.h"

#include <gtest/gtest.h>

#include <vector>

#include "binlog/error.h"

namespace binrecover::binlog {
namespace {

std::vector<std::byte> bytes(std::initializer_list<int> v) {
  std::vector<std::byte> out;
  for (int x : v) out.push_back(static_cast<std::byte>(x));
  return out;
}

TEST(ByteCursorTest, U24ReadsLittleEndian) {
  auto b = bytes({0x01, 0x02, 0x03});
  ByteCursor c(b, 100);
  EXPECT_EQ(c.u24le(), 0x030201u);
  EXPECT_EQ(c.offset(), 103u);
}

TEST(ByteCursorTest, ShortReadThrowsWithAbsoluteOffset) {
  auto b = bytes({0x01, 0x02});
  ByteCursor c(b, 1000);
  c.u8();
  try {
    c.u32le();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kTruncated);
    EXPECT_EQ(e.offset(), 1001u);
  }
}

}  // namespace
}  // namespace binrecover::binlog
