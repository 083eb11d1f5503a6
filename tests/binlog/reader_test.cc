// The binlog reader: events framed at their offsets, checksums, the in-use flag, bad magic.
#include <gtest/gtest.h>

#include "tests/binlog/reader_fixtures.h"

namespace binrecover::binlog {
namespace {

using namespace reader_test;

// The event checksum (ISA-L) against zlib's crc32, an independent implementation: every length
// from 0 to 300 at every alignment of 0-15, then a large buffer summed whole and in pieces.
TEST(ChecksumTest, EqualsZlibAtEveryLengthAndAlignment) {
  std::vector<unsigned char> data(1 << 20);
  std::uint32_t x = 12345;
  for (auto& b : data) b = static_cast<unsigned char>((x = x * 1103515245 + 12345) >> 16);
  for (std::size_t align = 0; align < 16; ++align)
    for (std::size_t n = 0; n <= 300; ++n)
      ASSERT_EQ(crc32(0, data.data() + align, n),
                ::crc32(0L, data.data() + align, static_cast<uInt>(n)))
          << "length " << n << " at alignment " << align;
  const auto whole = static_cast<std::uint32_t>(::crc32(0L, data.data(), data.size()));
  EXPECT_EQ(crc32(0, data.data(), data.size()), whole);
  std::uint32_t pieces = crc32(0, data.data(), 17);
  pieces = crc32(pieces, data.data() + 17, 2);
  pieces = crc32(pieces, data.data() + 19, data.size() - 19);
  EXPECT_EQ(pieces, whole);
}

// FdSource over a file of several read buffers (1 MiB each): every event framed at its position
// with its bytes, across buffer refills, after a seek into the middle, with events longer than
// the buffer (gathered whole), and back to an earlier event after reading on.
TEST(FdSourceTest, FramesEveryEventOfALargeFile) {
  TempDir dir;
  Binlog log;
  std::vector<std::uint64_t> pos;
  std::mt19937 random(11);
  pos.push_back(log.add(fde()));
  while (log.bytes().size() < 5u << 20) {
    const std::size_t n = pos.size() % 97 == 0 ? (1u << 20) + 3 : random() % 3000;
    pos.push_back(log.add(query("shop", "SELECT '" + std::string(n, 'a' + pos.size() % 26) + "'")));
  }
  const std::string path = dir.write("large.000001", log.bytes());
  auto expect_from = [&](std::size_t first) {
    FdSource src(path);
    if (first > 0) src.seek(pos[first]);
    for (std::size_t i = first; i < pos.size(); ++i) {
      const auto f = src.next_frame();
      ASSERT_TRUE(f.has_value()) << i;
      ASSERT_EQ(f->pos, pos[i]);
      const std::uint64_t end = i + 1 < pos.size() ? pos[i + 1] : log.bytes().size();
      ASSERT_EQ(f->raw.size(), end - pos[i]);
      ASSERT_EQ(std::memcmp(f->raw.data(), log.bytes().data() + pos[i], f->raw.size()), 0) << i;
    }
    EXPECT_FALSE(src.next_frame().has_value());
  };
  expect_from(0);
  expect_from(pos.size() / 2);
  expect_from(pos.size() - 1);
  // Back to an earlier event after reading past several blocks.
  FdSource src(path);
  for (std::size_t i = 0; i < pos.size() * 3 / 4; ++i) ASSERT_TRUE(src.next_frame().has_value());
  src.seek(pos[5]);
  const auto f = src.next_frame();
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->pos, pos[5]);
  EXPECT_EQ(std::memcmp(f->raw.data(), log.bytes().data() + pos[5], f->raw.size()), 0);
}

TEST_F(ReaderTest, ReadsEventsAndEndsCleanly) {
  const std::string path = write("clean.000001");
  FdSource src(path);
  EXPECT_EQ(src.size(), log_.bytes().size());
  EventReader reader(src, {}, sink_);

  auto ev = reader.next();
  ASSERT_TRUE(ev.has_value());
  EXPECT_EQ(ev->type(), EventType::kFormatDescription);
  EXPECT_EQ(ev->pos, 4u);
  EXPECT_EQ(fde_pos_, 4u);
  EXPECT_TRUE(reader.seen_format());
  EXPECT_FALSE(reader.in_use());
  EXPECT_EQ(reader.format().checksum, ChecksumAlg::kCrc32);
  EXPECT_TRUE(reader.format().mariadb);
  EXPECT_EQ(reader.format().post_header(EventType::kQuery), 13u);

  ev = reader.next();
  ASSERT_TRUE(ev.has_value());
  EXPECT_EQ(ev->pos, query_pos_);
  const auto* q = std::get_if<Query>(&ev->body);
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->db, "shop");
  EXPECT_EQ(q->query, "INSERT INTO t VALUES (1)");  // the CRC trailer is not part of it

  ev = reader.next();
  ASSERT_TRUE(ev.has_value());
  EXPECT_EQ(ev->pos, xid_pos_);
  EXPECT_EQ(std::get<Xid>(ev->body).xid, 9u);
  EXPECT_EQ(ev->end_pos(), log_.bytes().size());

  EXPECT_FALSE(reader.next().has_value());
  EXPECT_FALSE(reader.next().has_value());  // and stays at the end
  EXPECT_TRUE(warnings_.empty());
}

TEST_F(ReaderTest, MagicOnlyIsCleanEnd) {
  const std::string path = dir_.write("empty.000001", Binlog().bytes());
  FdSource src(path);
  EventReader reader(src, {});
  EXPECT_FALSE(reader.next().has_value());
}

TEST_F(ReaderTest, ArenaCopyOutlivesTheNextRead) {
  const std::string path = write("arena.000001");
  FdSource src(path);
  EventReader reader(src, {});
  EventArena arena;
  ASSERT_TRUE(reader.next(&arena).has_value());
  const auto q = reader.next(&arena);
  ASSERT_TRUE(q.has_value());
  ASSERT_TRUE(reader.next().has_value());  // xid, read without the arena
  EXPECT_EQ(std::get<Query>(q->body).query, "INSERT INTO t VALUES (1)");
  EXPECT_GE(arena.bytes_held(), q->raw.size());
}

TEST_F(ReaderTest, HugeLastEventStaysReadableUntilTheNextRead) {
  // A 6 MB event that ends the file fills the read buffer exactly: the buffer used to be
  // shrunk before the caller had read the event (use after free, a crash on real 16 MB rows
  // events). A fixed mmap threshold makes glibc unmap a freed buffer of that size at once, so
  // reading it after the free crashes here instead of reading stale heap memory (under ASan,
  // whose allocator ignores mallopt, ASan itself reports the use after free).
  (void)mallopt(M_MMAP_THRESHOLD, 1 << 20);
  const std::string big(6u << 20, 'x');
  const std::uint64_t pos = log_.add(query("shop", "INSERT INTO t VALUES ('" + big + "')"));
  const std::string path = write("huge.000001");
  FdSource src(path);
  EventReader reader(src, {}, sink_);
  std::optional<Event> ev;
  for (int i = 0; i < 4; ++i) ev = reader.next();
  ASSERT_TRUE(ev.has_value());
  EXPECT_EQ(ev->pos, pos);
  const std::string_view text = std::get<Query>(ev->body).query;
  ASSERT_EQ(text.size(), big.size() + 25);
  EXPECT_EQ(text.substr(23, big.size()), big);
  EXPECT_FALSE(reader.next().has_value());
}

TEST_F(ReaderTest, FlippedByteIsChecksumMismatchAtTheEventsOffset) {
  log_.bytes()[query_pos_ + 19 + 13 + 5] ^= std::byte{0x01};  // first byte of the query text
  const std::string path = write("flipped.000001");
  FdSource src(path);
  EventReader reader(src, {}, sink_);
  ASSERT_TRUE(reader.next().has_value());
  try {
    (void)reader.next();
    FAIL() << "expected a checksum mismatch";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kChecksumMismatch);
    ASSERT_TRUE(e.has_offset());
    EXPECT_EQ(e.offset(), query_pos_);
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.event(), "Query");
  }
  EXPECT_TRUE(warnings_.empty());
}

TEST_F(ReaderTest, ForceReadTurnsChecksumMismatchIntoWarning) {
  log_.bytes()[query_pos_ + 19 + 13 + 5] ^= std::byte{0x01};  // 'I' becomes 'H'
  const std::string path = write("flipped.000001");
  FdSource src(path);
  EventReader reader(src, {.verify_checksum = true, .force_read = true}, sink_);
  ASSERT_TRUE(reader.next().has_value());
  const auto ev = reader.next();
  ASSERT_TRUE(ev.has_value());
  EXPECT_EQ(std::get<Query>(ev->body).query, "HNSERT INTO t VALUES (1)");
  ASSERT_EQ(warnings_.size(), 1u);
  EXPECT_NE(warnings_[0].find("checksum mismatch"), std::string::npos) << warnings_[0];
  EXPECT_NE(warnings_[0].find(":" + std::to_string(query_pos_) + ":"), std::string::npos)
      << warnings_[0];
  const auto next = reader.next();
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(std::get<Xid>(next->body).xid, 9u);
  EXPECT_FALSE(reader.next().has_value());
  EXPECT_EQ(warnings_.size(), 1u);
}

TEST_F(ReaderTest, VerifyChecksumOffIgnoresMismatch) {
  log_.bytes()[query_pos_ + 19 + 13 + 5] ^= std::byte{0x01};
  const std::string path = write("flipped.000001");
  FdSource src(path);
  EventReader reader(src, {.verify_checksum = false, .force_read = false}, sink_);
  ASSERT_TRUE(reader.next().has_value());
  const auto ev = reader.next();
  ASSERT_TRUE(ev.has_value());
  EXPECT_EQ(std::get<Query>(ev->body).query, "HNSERT INTO t VALUES (1)");
  EXPECT_TRUE(warnings_.empty());
}

TEST_F(ReaderTest, FlippedByteInFormatDescriptionIsMismatchAtOffset4) {
  log_.bytes()[4 + 19 + 2 + 50] ^= std::byte{0x01};  // create_timestamp
  const std::string path = write("fde.000001");
  FdSource src(path);
  EventReader reader(src, {});
  try {
    (void)reader.next();
    FAIL() << "expected a checksum mismatch";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kChecksumMismatch);
    EXPECT_EQ(e.offset(), 4u);
  }
}

TEST_F(ReaderTest, FlippedByteInServerVersionIsNotSilent) {
  // BUG (binlog/events.cc decode_fde_body and EventReader::next in reader.cc): whether an
  // FDE carries a checksum algorithm byte is decided from its server version string alone. One
  // damaged byte there ("10.11.6" -> "\x110.11.6") parses as version 0.0.0, so the FDE is taken
  // for a pre-checksum one: its CRC is never verified, the context says ChecksumAlg::kOff, and
  // every later event keeps its 4-byte CRC trailer in its body -- here the query text comes out
  // as "INSERT INTO t VALUES (1)" plus four binary bytes, with no error and no warning.
  // Fix: when the version does not announce checksums, still test for them: if the last 4 bytes
  // of the FDE equal the CRC32 of the rest (computed with the in-use flag clear) and the byte
  // before them is 0 or 1, treat the FDE as checksum-aware; or, at the least, reject a v4 FDE
  // whose version string does not parse (kBadEvent).
  log_.bytes()[4 + 19 + 2] ^= std::byte{0x20};  // server version "1" -> "\x11"
  const std::string path = write("fde-version.000001");
  FdSource src(path);
  EventReader reader(src, {});
  try {
    ASSERT_TRUE(reader.next().has_value());
    const auto ev = reader.next();
    ASSERT_TRUE(ev.has_value());
    EXPECT_EQ(std::get<Query>(ev->body).query, "INSERT INTO t VALUES (1)");
  } catch (const Error& e) {
    SUCCEED() << "damage reported: " << e.what();
  }
}

TEST_F(ReaderTest, InUseFlagSetAfterTheCrcVerifies) {
  // Servers compute the FDE's CRC with LOG_EVENT_BINLOG_IN_USE_F clear, then set the flag
  // while the file is open and clear it again on close.
  log_.bytes()[fde_pos_ + 17] |= std::byte{kLogEventBinlogInUse};
  const std::string path = write("in-use.000001");
  FdSource src(path);
  EventReader reader(src, {}, sink_);
  const auto ev = reader.next();
  ASSERT_TRUE(ev.has_value());
  EXPECT_EQ(ev->header.flags & kLogEventBinlogInUse, kLogEventBinlogInUse);
  EXPECT_TRUE(reader.in_use());
  ASSERT_TRUE(reader.next().has_value());
  ASSERT_TRUE(reader.next().has_value());
  EXPECT_FALSE(reader.next().has_value());
  EXPECT_TRUE(warnings_.empty());
}

TEST(ReaderStandaloneTest, InUseFdeWhoseCrcCoversTheSetFlagIsMismatch) {
  TempDir dir;
  Binlog log;
  log.add(fde(kLogEventBinlogInUse));  // CRC computed with the flag set: not how servers do it
  const std::string path = dir.write("in-use-bad.000001", log.bytes());
  FdSource src(path);
  EventReader reader(src, {});
  EXPECT_EQ(error_code_of([&] { (void)reader.next(); }), ErrorCode::kChecksumMismatch);
}

TEST(ReaderStandaloneTest, BadMagic) {
  TempDir dir;
  std::vector<std::byte> bytes(64, std::byte{'G'});
  const std::string path = dir.write("not-a-binlog", bytes);
  try {
    FdSource src(path);
    FAIL() << "expected bad magic";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kBadMagic);
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.offset(), 0u);
  }
}

TEST(ReaderStandaloneTest, FileShorterThanMagic) {
  TempDir dir;
  const std::string two = dir.write("two", {std::byte{0xfe}, std::byte{0x62}});
  const std::string empty = dir.write("empty", {});
  EXPECT_EQ(error_code_of([&] { FdSource src(two); }), ErrorCode::kBadMagic);
  EXPECT_EQ(error_code_of([&] { FdSource src(empty); }), ErrorCode::kBadMagic);
}

TEST(ReaderStandaloneTest, MissingFileIsIoError) {
  TempDir dir;
  EXPECT_EQ(error_code_of([&] { FdSource src("/nonexistent/binrecover/x.000001"); }),
            ErrorCode::kIo);
}

}  // namespace
}  // namespace binrecover::binlog
