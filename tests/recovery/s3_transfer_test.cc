#include "recovery/storage/s3_transfer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

#include "binlog/error.h"

namespace binrecover::recovery::s3 {
namespace {

// A chunk's bytes: its index, four times (what a fetch of chunk i returns here).
std::vector<std::byte> chunk_of(std::size_t i) {
  std::vector<std::byte> b(4);
  for (auto& x : b) x = static_cast<std::byte>(i & 0xff);
  return b;
}

// Chunk `i` taken from `ahead` (into a buffer kept across takes, as a reader does).
std::vector<std::byte> take(ReadAhead& ahead, std::size_t i) {
  static thread_local std::vector<std::byte> buf;
  ahead.take(i, buf);
  return buf;
}

// Fetches that take longer the lower their index (so later ones finish first), counting how
// many run at once and which indexes were fetched.
struct Probe {
  std::mutex mu;
  std::set<std::size_t> fetched;
  std::atomic<int> running{0}, most{0};
  ReadAhead::Fetch fetch() {
    return [this](Client&, std::size_t i, std::vector<std::byte>& out) {
      const int now = ++running;
      int m = most.load();
      while (now > m && !most.compare_exchange_weak(m, now)) {
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(i % 4 == 0 ? 6 : 1));
      {
        std::lock_guard lock(mu);
        fetched.insert(i);
      }
      --running;
      out = chunk_of(i);
    };
  }
};

TEST(ReadAhead, DeliversInOrderWithAtMostStreamsAtOnce) {
  const Client like(Config{});
  Probe p;
  ReadAhead ahead(like, 40, 3, p.fetch());
  for (std::size_t i = 0; i < 40; ++i) EXPECT_EQ(take(ahead, i), chunk_of(i)) << i;
  EXPECT_LE(p.most.load(), 3);
  EXPECT_EQ(p.fetched.size(), 40u);
  EXPECT_TRUE(take(ahead, 40).empty());  // (past the end: nothing)
}

// Read ahead, told without timing: chunk 1's fetch does not end until chunk 2's has begun,
// which only a second fetch in flight at once can do (a bound of 60 s fails it otherwise).
TEST(ReadAhead, TheNextChunkIsFetchedWhileOneIsUnderWay) {
  const Client like(Config{});
  std::mutex mu;
  std::condition_variable cv;
  bool second_begun = false, waited = false;
  ReadAhead ahead(like, 3, 2, [&](Client&, std::size_t i, std::vector<std::byte>& out) {
    std::unique_lock lock(mu);
    if (i == 2) {
      second_begun = true;
      cv.notify_all();
    }
    if (i == 1) waited = cv.wait_for(lock, std::chrono::seconds(60), [&] { return second_begun; });
    out = chunk_of(i);
  });
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(take(ahead, i), chunk_of(i));
  EXPECT_TRUE(waited);
}

TEST(ReadAhead, OneTakeFetchesOneChunk) {
  const Client like(Config{});
  Probe p;
  {
    ReadAhead ahead(like, 100, 8, p.fetch());
    EXPECT_EQ(take(ahead, 0), chunk_of(0));
  }
  // (after the first take the window is 2: chunks 1 and 2 may have started, no more)
  EXPECT_LE(p.fetched.size(), 3u);
}

TEST(ReadAhead, TakeOutOfOrderStartsThere) {
  const Client like(Config{});
  Probe p;
  ReadAhead ahead(like, 50, 4, p.fetch());
  EXPECT_EQ(take(ahead, 0), chunk_of(0));
  EXPECT_EQ(take(ahead, 1), chunk_of(1));
  EXPECT_EQ(take(ahead, 30), chunk_of(30));
  EXPECT_EQ(take(ahead, 31), chunk_of(31));
  EXPECT_EQ(take(ahead, 5), chunk_of(5));  // (back: fetched again)
  EXPECT_EQ(take(ahead, 6), chunk_of(6));
}

TEST(ReadAhead, AFetchErrorComesOutOfItsTake) {
  const Client like(Config{});
  ReadAhead ahead(like, 10, 4, [](Client&, std::size_t i, std::vector<std::byte>& out) {
    if (i == 3) throw Error(ErrorCode::kIo, "chunk 3 is gone");
    out = chunk_of(i);
  });
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(take(ahead, i), chunk_of(i));
  try {
    take(ahead, 3);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kIo);
    EXPECT_NE(std::string(e.what()).find("chunk 3 is gone"), std::string::npos);
  }
  EXPECT_EQ(take(ahead, 4), chunk_of(4));  // (the others are still there)
}

TEST(ReadAhead, BuffersAreReusedNotAllocatedPerChunk) {
  const Client like(Config{});
  std::atomic<int> fresh{0};
  ReadAhead ahead(like, 200, 4, [&](Client&, std::size_t i, std::vector<std::byte>& out) {
    if (out.capacity() == 0) ++fresh;
    out.assign(4096, static_cast<std::byte>(i & 0xff));
  });
  std::vector<std::byte> buf;
  for (std::size_t i = 0; i < 200; ++i) {
    ahead.take(i, buf);
    ASSERT_EQ(buf.size(), 4096u);
    EXPECT_EQ(buf[0], static_cast<std::byte>(i & 0xff));
  }
  EXPECT_LE(fresh.load(), 6);  // (the window's buffers and the reader's, then only those)
}

TEST(ReadAhead, GoingAwayCancelsAFetchThatRetries) {
  // A store that refuses every connection (port 1 of this machine): a GET there retries for
  // retry_seconds (120). The reader goes away while it does: the fetch stops at once.
  Config cfg;
  cfg.endpoint = "http://127.0.0.1:1";
  cfg.addressing = Addressing::kPath;
  cfg.access_key = "k";
  cfg.secret_key = "s";
  const Client like(cfg);
  std::atomic<bool> started{false};
  std::atomic<int> code{-1};
  const auto begun = std::chrono::steady_clock::now();
  {
    ReadAhead ahead(like, 4, 2, [&](Client& c, std::size_t, std::vector<std::byte>& out) {
      out.resize(16);
      started = true;
      try {
        c.get_range(Url{"b", "k"}, 0, out.size(), out.data());
      } catch (const Error& e) {
        code = static_cast<int>(e.code());
        throw;
      }
    });
    while (!started) std::this_thread::yield();
  }
  const auto took = std::chrono::steady_clock::now() - begun;
  EXPECT_LT(took, std::chrono::seconds(20));  // (not the 120 s of retries)
  EXPECT_EQ(code.load(), static_cast<int>(ErrorCode::kInterrupted));
}

TEST(ReadAhead, OneStreamIsOneAfterTheOther) {
  const Client like(Config{});
  Probe p;
  ReadAhead ahead(like, 12, 1, p.fetch());
  for (std::size_t i = 0; i < 12; ++i) EXPECT_EQ(take(ahead, i), chunk_of(i));
  EXPECT_EQ(p.most.load(), 1);
}

}  // namespace
}  // namespace binrecover::recovery::s3
