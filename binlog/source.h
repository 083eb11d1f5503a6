#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "binlog/byte_cursor.h"

namespace binrecover::binlog {

inline constexpr std::size_t kMagicSize = 4;
// Largest event binrecover accepts: a server never writes one past max_allowed_packet (1 GiB),
// so a longer length field is damage, reported before anything of that size is allocated.
inline constexpr std::uint64_t kMaxEventSize = (1ULL << 30) + (1ULL << 20);
inline constexpr std::uint32_t kMinEventSize = 13;  // v1 common header

// Checks the length field of the event header at `header` (`have` bytes available, `left`
// bytes to the end of the input when known) and returns it; throws binrecover::Error naming
// `name` and `pos` when the header is cut, the length is shorter than a header, longer than
// kMaxEventSize or runs past the input.
std::uint32_t frame_length(const std::byte* header, std::size_t have, std::uint64_t pos,
                           const std::string& name, std::optional<std::uint64_t> left,
                           std::size_t min_size = kMinEventSize);

// One event as framed from the byte stream: its offset and its exact bytes (header to checksum).
// The view stays valid until the next call to next_frame().
struct Frame {
  std::uint64_t pos = 0;
  Bytes raw;
};

// A source only frames: it checks the magic, reads the length field of each event header and
// hands out exactly that many bytes. It never interprets a body, so a damaged body can never
// throw the stream out of step.
class Source {
 public:
  virtual ~Source() = default;
  virtual std::optional<Frame> next_frame() = 0;  // nullopt = clean end of input
  // Continue framing at `pos` (an event boundary); used for --start-position.
  virtual void seek(std::uint64_t pos) = 0;
  virtual const std::string& name() const = 0;
  // Size of the input if known (regular files), for progress and sanity checks.
  virtual std::optional<std::uint64_t> size() const = 0;
};

// Frames events from an input read in large blocks; events are handed out as views into the
// block, and copied only when one spans two blocks. What the input is (a file, an object in a
// store) is the subclass's: it reads the next bytes and moves to a position.
class BlockSource : public Source {
 public:
  std::optional<Frame> next_frame() override;
  void seek(std::uint64_t pos) override;
  const std::string& name() const override { return name_; }
  std::optional<std::uint64_t> size() const override { return size_; }

 protected:
  BlockSource(std::string name, std::optional<std::uint64_t> size, std::uint64_t base)
      : name_(std::move(name)), size_(size), pos_(base), base_(base) {}
  // Up to n next bytes of the input into out; 0 at its end. Throws binrecover::Error.
  virtual std::size_t read_some(std::byte* out, std::size_t n) = 0;
  // The next read_some starts at input position `pos` (only called when size() is known).
  virtual void reposition(std::uint64_t pos) = 0;
  // Checks the magic (called by the subclass's constructor once it can read).
  void check_magic();

  std::string name_;
  std::optional<std::uint64_t> size_;

 private:
  // Makes at least n bytes available from begin_; returns how many are (less only at EOF).
  std::size_t fill(std::size_t n);

  std::vector<std::byte> buf_;
  std::size_t begin_ = 0;   // first unconsumed byte in buf_
  std::size_t end_ = 0;     // one past the last byte read into buf_
  std::uint64_t pos_ = 0;   // input position of buf_[begin_]
  std::uint64_t base_ = 0;  // the input position of the first byte read_some gives
  bool eof_ = false;
};

// Reads a binlog file (or standard input for path "-").
class FdSource : public BlockSource {
 public:
  // Opens `path` ("-" = standard input, shown as `display_name`) and checks the magic.
  explicit FdSource(const std::string& path, std::string display_name = {});
  // Frames events from `fd` (owned, a regular file) whose first byte is at position `base` of
  // the input named `name`: a stretch of a binlog kept aside (no magic).
  FdSource(int fd, std::string name, std::uint64_t base);
  ~FdSource() override;
  FdSource(const FdSource&) = delete;
  FdSource& operator=(const FdSource&) = delete;

 protected:
  std::size_t read_some(std::byte* out, std::size_t n) override;
  void reposition(std::uint64_t pos) override;

 private:
  int fd_ = -1;
  bool owns_fd_ = false;
  std::uint64_t base_ = 0;
};

// Frames events from bytes already in memory (a fuzzer's input, a decompressed payload).
class MemorySource : public Source {
 public:
  // `data` starts with the binlog magic unless `has_magic` is false (then `base` is the offset
  // of data[0], e.g. the position of a transaction payload's inner events).
  MemorySource(Bytes data, std::string name, bool has_magic = true, std::uint64_t base = 0);
  std::optional<Frame> next_frame() override;
  void seek(std::uint64_t pos) override;
  const std::string& name() const override { return name_; }
  std::optional<std::uint64_t> size() const override { return base_ + data_.size(); }

 private:
  Bytes data_;
  std::string name_;
  std::uint64_t base_ = 0;
  std::size_t at_ = 0;
};

}  // namespace binrecover::binlog
