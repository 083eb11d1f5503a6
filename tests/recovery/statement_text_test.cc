// The BINLOG statement's text made once, at the end: the same characters as encoding each
// event as it came, whether its bytes were kept in place, copied, or set aside in a file.
#include "recovery/sql/statement_text.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "recovery/reading/temp_file.h"
#include "recovery/text/base64.h"

namespace binrecover::recovery {
namespace {

std::vector<std::byte> random_bytes(std::mt19937& rng, std::size_t n) {
  std::vector<std::byte> v(n);
  for (auto& b : v) b = static_cast<std::byte>(rng() & 0xff);
  return v;
}

TEST(StatementTextTest, TextSizeIsWhatTheEncoderWrites) {
  std::mt19937 rng(7);
  for (std::size_t n = 0; n < 700; ++n) {
    const std::vector<std::byte> v = random_bytes(rng, n);
    fmt::memory_buffer out;
    append_base64(out, binlog::Bytes(v.data(), v.size()));
    ASSERT_EQ(out.size(), base64_text_size(n)) << n;
  }
}

// Events of random sizes, some kept in place and some copied (their buffer then overwritten,
// as a rewritten event's is), against the text of each encoded as it came.
std::string run(bool streamed, std::size_t events, std::uint64_t* set_aside) {
  std::mt19937 rng(11);
  std::vector<std::vector<std::byte>> kept;
  kept.reserve(events);
  std::vector<std::byte> scratch;
  StatementText text;
  fmt::memory_buffer want;
  for (std::size_t i = 0; i < events; ++i) {
    // (now and then an event larger than 1 MiB of text on its own, not a multiple of 57 bytes)
    const std::size_t n = i % 500 == 250 ? 1500000 + rng() % 1000 : rng() % 3000;
    const bool stable = !streamed && rng() % 2 == 0;
    std::vector<std::byte> v = random_bytes(rng, n);
    append_base64(want, binlog::Bytes(v.data(), v.size()));
    want.push_back('\n');
    if (streamed) {
      scratch = v;
      text.add_set_aside(binlog::Bytes(scratch.data(), scratch.size()));
      std::fill(scratch.begin(), scratch.end(), std::byte{0x5a});
    } else if (stable) {
      kept.push_back(std::move(v));
      text.add(binlog::Bytes(kept.back().data(), kept.back().size()), true);
    } else {
      scratch = v;
      text.add(binlog::Bytes(scratch.data(), scratch.size()), false);
      std::fill(scratch.begin(), scratch.end(), std::byte{0x5a});
    }
    EXPECT_EQ(text.size(), want.size()) << i;
  }
  std::string got;
  std::unique_ptr<TempFile>& file = text.set_aside_text();
  *set_aside = file ? file->size() : 0;
  if (file && file->size() > 0) {
    got.resize(file->size());
    file->read(0, got.data(), got.size());
  }
  fmt::memory_buffer rest;
  rest.append(std::string_view("BINLOG '\n"));
  text.encode_into(rest);
  got += std::string(rest.data() + 9, rest.size() - 9);
  EXPECT_EQ(got, std::string(want.data(), want.size()));
  return got;
}

TEST(StatementTextTest, EncodedAtTheEndAsItCame) {
  std::uint64_t aside = 0;
  run(false, 2000, &aside);
  EXPECT_EQ(aside, 0u);  // a held transaction's statement stays in memory (8 MB here)
}

TEST(StatementTextTest, StreamedTextPastOneMibIsSetAside) {
  std::uint64_t aside = 0;
  run(true, 2000, &aside);  // about 12 MB of text, 4 events of 2 MB each among them
  EXPECT_GT(aside, std::uint64_t{10} << 20);
}

TEST(StatementTextTest, ClearForgetsEverything) {
  StatementText text;
  const std::vector<std::byte> v(5000, std::byte{1});
  for (int i = 0; i < 400; ++i) text.add(binlog::Bytes(v.data(), v.size()), false);
  text.set_aside_if_large();
  EXPECT_GT(text.size(), 0u);
  text.clear();
  EXPECT_TRUE(text.empty());
  fmt::memory_buffer out;
  text.encode_into(out);
  EXPECT_EQ(out.size(), 0u);
}

}  // namespace
}  // namespace binrecover::recovery
