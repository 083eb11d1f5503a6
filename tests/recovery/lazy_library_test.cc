#include "recovery/libs/lazy_library.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "binlog/error.h"
#include "recovery/libs/crypto_api.h"

namespace binrecover::recovery::libs {
namespace {

TEST(LazyLibraryTest, AMissingLibraryNamesItselfItsPackageAndItsUse) {
  try {
    open_library("libbinrecover-none.so.9", "libbinrecover-none9", "a test");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kIo);
    const std::string m = e.what();
    EXPECT_NE(m.find("cannot load libbinrecover-none.so.9, needed for a test"), std::string::npos)
        << m;
    EXPECT_NE(m.find("(Debian package libbinrecover-none9)"), std::string::npos) << m;
  }
}

TEST(LazyLibraryTest, AMissingFunctionIsAnError) {
  void* h = open_library("libc.so.6", "libc6", "a test");
  EXPECT_NE(library_symbol(h, "libc.so.6", "strlen"), nullptr);
  EXPECT_THROW(library_symbol(h, "libc.so.6", "binrecover_no_such_function"), Error);
}

TEST(LazyLibraryTest, TheCryptoTableCallsTheLibrary) {
  // SHA-1 and SHA-256 of "abc" (FIPS 180-2's examples), through the loaded functions.
  const auto& c = crypto();
  unsigned char sha1[20];
  c.SHA1(reinterpret_cast<const unsigned char*>("abc"), 3, sha1);
  const unsigned char want1[20] = {0xa9, 0x99, 0x3e, 0x36, 0x47, 0x06, 0x81, 0x6a, 0xba, 0x3e,
                                   0x25, 0x71, 0x78, 0x50, 0xc2, 0x6c, 0x9c, 0xd0, 0xd8, 0x9d};
  EXPECT_EQ(std::memcmp(sha1, want1, 20), 0);
  unsigned char sha256[32];
  unsigned int n = 0;
  ASSERT_EQ(c.EVP_Digest("abc", 3, sha256, &n, c.EVP_sha256(), nullptr), 1);
  ASSERT_EQ(n, 32u);
  EXPECT_EQ(sha256[0], 0xba);
  EXPECT_EQ(sha256[31], 0xad);
  EXPECT_EQ(&crypto(), &c);  // loaded once
}

}  // namespace
}  // namespace binrecover::recovery::libs
