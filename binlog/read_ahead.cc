#include "binlog/read_ahead.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>

namespace binrecover::binlog {

ReadAhead::ReadAhead(int fd, std::uint64_t offset)
    : fd_(fd), memory_(std::make_unique_for_overwrite<std::byte[]>(kBlocks * kBlockSize)) {
  start(offset);
}

ReadAhead::~ReadAhead() { stop(); }

void ReadAhead::start(std::uint64_t offset) {
  filled_ = released_ = seen_ = 0;
  used_ = 0;
  stopping_ = false;
  try {
    thread_ = std::thread([this, offset] { run(offset); });
  } catch (const std::system_error& e) {
    // No thread (resources exhausted): the consumer gets the failure as a read error instead
    // of waiting for ever.
    blocks_[0] = Block{memory_.get(), 0, e.code().value() != 0 ? e.code().value() : EAGAIN, false};
    filled_ = 1;
  }
}

void ReadAhead::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  stop_requested_.store(true, std::memory_order_relaxed);
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
  stop_requested_.store(false, std::memory_order_relaxed);
}

void ReadAhead::seek(std::uint64_t offset) {
  stop();
  start(offset);
}

void ReadAhead::run(std::uint64_t offset) {
  for (std::uint64_t k = 0;; ++k) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return stopping_ || k - released_ < kBlocks; });
      if (stopping_) return;
    }
    // Block k is the reader's alone until it is published. It is read in pieces, so that a
    // stop (a seek, the end of the source) waits for one piece at most.
    Block b;
    b.data = memory_.get() + (k % kBlocks) * kBlockSize;
    while (b.size < kBlockSize) {
      if (stop_requested_.load(std::memory_order_relaxed)) return;
      const std::size_t want = std::min(kPieceSize, kBlockSize - b.size);
      const ssize_t r = ::pread(fd_, b.data + b.size, want, static_cast<off_t>(offset + b.size));
      if (r < 0) {
        if (errno == EINTR) continue;
        b.error = errno;
        break;
      }
      if (r == 0) {
        b.end = true;
        break;
      }
      b.size += static_cast<std::size_t>(r);
    }
    offset += b.size;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      blocks_[k % kBlocks] = b;
      filled_ = k + 1;
    }
    changed_.notify_all();
    if (b.error != 0 || b.end) return;
  }
}

ssize_t ReadAhead::read(std::byte* dst, std::size_t n) {
  if (n == 0) return 0;
  for (;;) {
    if (seen_ == released_) {  // block `released_` may not be there yet
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return filled_ > released_; });
      seen_ = filled_;
    }
    // Published under the lock taken above (or an earlier one), and not written again by the
    // reader until released below.
    const Block& b = blocks_[released_ % kBlocks];
    if (used_ < b.size) {
      const std::size_t c = std::min(n, b.size - used_);
      std::memcpy(dst, b.data + used_, c);
      used_ += c;
      return static_cast<ssize_t>(c);
    }
    if (b.error != 0) {
      errno = b.error;
      return -1;
    }
    if (b.end) return 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++released_;
    }
    used_ = 0;
    changed_.notify_all();
  }
}

}  // namespace binrecover::binlog
