// The binlog reader on damaged framing: truncated headers, impossible sizes (files and pipes),
// unknown event types, encryption.
#include <gtest/gtest.h>

#include "tests/binlog/reader_fixtures.h"

namespace binrecover::binlog {
namespace {

using namespace reader_test;

TEST_F(ReaderTest, FileEndingInsideAHeaderIsTruncated) {
  const std::uint64_t pos = log_.bytes().size();
  log_.append(std::vector<std::byte>(7, std::byte{1}));
  const std::string path = write("short-header.000001");
  FdSource src(path);
  EventReader reader(src, {});
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(reader.next().has_value());
  try {
    (void)reader.next();
    FAIL() << "expected truncation";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kTruncated);
    EXPECT_EQ(e.offset(), pos);
  }
}

TEST_F(ReaderTest, EventSizeBelowHeaderIsBadEvent) {
  const std::uint64_t pos = log_.bytes().size();
  log_.append(forged_header(10, 0));
  const std::string path = write("tiny.000001");
  FdSource src(path);
  EventReader reader(src, {});
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(reader.next().has_value());
  try {
    (void)reader.next();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kBadEvent);
    EXPECT_EQ(e.offset(), pos);
  }
}

TEST_F(ReaderTest, EventSizePastEndOfFileIsTruncatedWithoutAllocating) {
  const std::uint64_t pos = log_.bytes().size();
  log_.append(forged_header(1U << 30, 30));  // claims 1 GiB, under the size limit
  const std::string path = write("past-end.000001");
  FdSource src(path);
  EventReader reader(src, {});
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(reader.next().has_value());
  const std::uint64_t before = resident_bytes();
  try {
    (void)reader.next();
    FAIL() << "expected truncation";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kTruncated);
    EXPECT_EQ(e.offset(), pos);
    EXPECT_EQ(e.file(), path);
  }
  // The source still holds whatever buffer it grew: a buffer sized for the claim would show.
  EXPECT_LT(resident_bytes(), before + (32U << 20));
}

TEST_F(ReaderTest, EventSize4GiBInARegularFileIsRejected) {
  const std::uint64_t pos = log_.bytes().size();
  log_.append(forged_header(0xffffffffU, 30));
  const std::string path = write("huge.000001");
  FdSource src(path);
  EventReader reader(src, {});
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(reader.next().has_value());
  try {
    (void)reader.next();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_TRUE(e.code() == ErrorCode::kEventTooLarge || e.code() == ErrorCode::kTruncated)
        << error_code_name(e.code());
    EXPECT_EQ(e.offset(), pos);
  }
}

// A pipe holding `bytes`, read through /proc/self/fd so FdSource opens it like any path.
class Pipe {
 public:
  explicit Pipe(const std::vector<std::byte>& bytes) {
    if (::pipe(fds_) != 0) throw std::runtime_error("pipe failed");
    // Small enough for the pipe buffer: the write never blocks.
    if (::write(fds_[1], bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size()))
      throw std::runtime_error("write to pipe failed");
  }
  ~Pipe() {
    close_writer();
    ::close(fds_[0]);
  }
  std::string path() const { return "/proc/self/fd/" + std::to_string(fds_[0]); }
  void close_writer() {
    if (fds_[1] >= 0) ::close(fds_[1]);
    fds_[1] = -1;
  }

 private:
  int fds_[2] = {-1, -1};
};

TEST_F(ReaderTest, EventSize4GiBOnAPipeIsRejectedWithoutReading) {
  log_.append(forged_header(0xffffffffU, 30));
  Pipe pipe(log_.bytes());  // the writer stays open: any further read() would block
  FdSource src(pipe.path(), "pipe");
  EXPECT_FALSE(src.size().has_value());
  EventReader reader(src, {});
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(reader.next().has_value());
  auto result = std::async(std::launch::async,
                           [&reader] { return error_code_of([&reader] { (void)reader.next(); }); });
  if (result.wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
    pipe.close_writer();  // unblock the reader before failing
    result.wait();
    FAIL() << "the reader waited for 4 GiB to arrive instead of rejecting the length";
  }
  const ErrorCode code = result.get();
  EXPECT_TRUE(code == ErrorCode::kEventTooLarge || code == ErrorCode::kTruncated)
      << error_code_name(code);
}

TEST_F(ReaderTest, EventSizePastEndOfAPipeIsTruncated) {
  const std::uint64_t pos = log_.bytes().size();
  log_.append(forged_header(64U << 20, 30));  // claims 64 MiB, then the input ends
  Pipe pipe(log_.bytes());
  pipe.close_writer();
  FdSource src(pipe.path(), "pipe");
  EventReader reader(src, {});
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(reader.next().has_value());
  try {
    (void)reader.next();
    FAIL() << "expected truncation";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kTruncated);
    EXPECT_EQ(e.offset(), pos);
    EXPECT_EQ(e.file(), "pipe");
  }
}

TEST_F(ReaderTest, UnknownEventTypeIsAnError) {
  Wire w = header(99);
  w.u32le(0x12345678);  // body of an event nobody defines
  const std::uint64_t pos = log_.add(std::move(w));
  log_.add(xid(10));
  const std::string path = write("unknown.000001");
  FdSource src(path);
  EventReader reader(src, {}, sink_);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(reader.next().has_value());
  try {
    (void)reader.next();
    FAIL() << "expected an unknown-event error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnknownEvent);
    EXPECT_EQ(e.offset(), pos);
  }
}

TEST_F(ReaderTest, ForceReadDecodesUnknownTypeWithAWarning) {
  Wire w = header(99);
  w.u32le(0x12345678);  // body of an event nobody defines
  const std::uint64_t pos = log_.add(std::move(w));
  log_.add(xid(10));
  const std::string path = write("unknown.000001");
  FdSource src(path);
  EventReader reader(src, {.verify_checksum = true, .force_read = true}, sink_);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(reader.next().has_value());
  const auto ev = reader.next();
  ASSERT_TRUE(ev.has_value());
  EXPECT_EQ(ev->pos, pos);
  EXPECT_EQ(ev->header.type, 99u);
  EXPECT_TRUE(std::holds_alternative<Unknown>(ev->body));
  EXPECT_EQ(ev->raw.size(), 19u + 4 + 4);
  ASSERT_EQ(warnings_.size(), 1u);
  EXPECT_NE(warnings_[0].find("unknown event type 99"), std::string::npos) << warnings_[0];
  const auto next = reader.next();  // the stream stays in step
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(std::get<Xid>(next->body).xid, 10u);
}

TEST_F(ReaderTest, StartEncryptionIsUnsupported) {
  Wire w = header(EventType::kMariaStartEncryption);
  w.u8(1)         // scheme
      .u32le(1)   // key_version
      .u64le(0)   // nonce, bytes 0-7
      .u32le(0);  // nonce, bytes 8-11
  const std::uint64_t pos = log_.add(std::move(w));
  const std::string path = write("encrypted.000001");
  FdSource src(path);
  EventReader reader(src, {.verify_checksum = true, .force_read = true});
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(reader.next().has_value());
  try {
    (void)reader.next();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnsupportedFormat);
    EXPECT_EQ(e.offset(), pos);
  }
}

}  // namespace
}  // namespace binrecover::binlog
