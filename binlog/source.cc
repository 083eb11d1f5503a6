#include "binlog/source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "binlog/error.h"

namespace binrecover::binlog {
namespace {

constexpr std::size_t kBlockSize = 1 << 20;
constexpr std::byte kMagic[kMagicSize] = {std::byte{0xfe}, std::byte{0x62}, std::byte{0x69},
                                          std::byte{0x6e}};

}  // namespace

std::uint32_t frame_length(const std::byte* header, std::size_t have, std::uint64_t pos,
                           const std::string& name, std::optional<std::uint64_t> left,
                           std::size_t min_size) {
  if (have < min_size)
    throw Error(ErrorCode::kTruncated,
                "input ends inside an event header (" + std::to_string(have) + " of at least " +
                    std::to_string(min_size) + " bytes)",
                pos)
        .with_file(name);
  const std::uint32_t size = read_le32(header + 9);
  if (size < min_size)
    throw Error(ErrorCode::kBadEvent,
                "event length " + std::to_string(size) + " is shorter than an event header", pos)
        .with_file(name);
  if (size > kMaxEventSize)
    throw Error(ErrorCode::kEventTooLarge,
                "event length " + std::to_string(size) + " exceeds the 1 GiB limit", pos)
        .with_file(name);
  if (left && size > *left)
    throw Error(ErrorCode::kTruncated,
                "event length " + std::to_string(size) + " runs past the end of the input (" +
                    std::to_string(*left) + " bytes left)",
                pos)
        .with_file(name);
  return size;
}

FdSource::FdSource(const std::string& path, std::string display_name)
    : BlockSource(display_name.empty() ? path : std::move(display_name), std::nullopt, 0) {
  if (path == "-") {
    fd_ = STDIN_FILENO;
  } else {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0)
      throw Error(ErrorCode::kIo, std::string("cannot open: ") + std::strerror(errno))
          .with_file(name_);
    owns_fd_ = true;
#ifdef POSIX_FADV_SEQUENTIAL
    ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
  }
  struct stat st {};
  if (::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode)) size_ = static_cast<std::uint64_t>(st.st_size);
  if (::fstat(fd_, &st) == 0 && S_ISDIR(st.st_mode)) {
    if (owns_fd_) ::close(fd_);
    fd_ = -1;
    throw Error(ErrorCode::kIo, "is a directory, not a binlog file").with_file(name_);
  }
  try {
    check_magic();
  } catch (...) {
    // No destructor runs for a constructor that throws: close the file here.
    if (owns_fd_) ::close(fd_);
    fd_ = -1;
    throw;
  }
}

FdSource::FdSource(int fd, std::string name, std::uint64_t base)
    : BlockSource(std::move(name), std::nullopt, base), fd_(fd), owns_fd_(true), base_(base) {
  struct stat st {};
  if (::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode))
    size_ = base + static_cast<std::uint64_t>(st.st_size);
}

FdSource::~FdSource() {
  if (owns_fd_ && fd_ >= 0) ::close(fd_);
}

std::size_t FdSource::read_some(std::byte* out, std::size_t n) {
  for (;;) {
    const ssize_t r = ::read(fd_, out, n);
    if (r >= 0) return static_cast<std::size_t>(r);
    if (errno == EINTR) continue;
    throw Error(ErrorCode::kIo, std::string("read failed: ") + std::strerror(errno))
        .with_file(name_);
  }
}

void FdSource::reposition(std::uint64_t pos) {
  if (pos < base_ || ::lseek(fd_, static_cast<off_t>(pos - base_), SEEK_SET) < 0)
    throw Error(ErrorCode::kIo, std::string("seek failed: ") + std::strerror(errno), pos)
        .with_file(name_);
}

void BlockSource::check_magic() {
  buf_.resize(kBlockSize);
  const std::size_t got = fill(kMagicSize);
  if (got < kMagicSize || std::memcmp(buf_.data(), kMagic, kMagicSize) != 0) {
    // MySQL 8's binlog_encryption writes 0xfd instead of 0xfe before "bin".
    const bool encrypted = got >= kMagicSize && buf_[0] == std::byte{0xfd} &&
                           std::memcmp(buf_.data() + 1, kMagic + 1, kMagicSize - 1) == 0;
    Error e = encrypted ? Error(ErrorCode::kUnsupportedFormat,
                                "the binlog is encrypted (MySQL binlog_encryption); reading it "
                                "needs the server's keyring, which binrecover does not have",
                                0)
                        : Error(ErrorCode::kBadMagic,
                                got < kMagicSize ? "file is shorter than the 4-byte binlog magic"
                                                 : "not a binlog file (bad magic number)",
                                0);
    e.with_file(name_);
    throw e;
  }
  begin_ = kMagicSize;
  pos_ = kMagicSize;
}

std::size_t BlockSource::fill(std::size_t n) {
  if (buf_.empty()) buf_.resize(kBlockSize);
  while (end_ - begin_ < n && !eof_) {
    if (buf_.size() - begin_ < n) {
      // Move the unconsumed tail to the front, and grow only as far as data really arrives:
      // a forged length makes us read, never reserve, up to what the input holds.
      std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
      // An input of known size holds the n bytes (its size says so): room for them at once, no
      // doubling steps each copied into the next.
      const bool held = size_ && pos_ + n <= *size_;
      if (buf_.size() < n) buf_.resize(held ? n : std::min<std::size_t>(n, buf_.size() * 2));
    }
    std::size_t r = 0;
    try {
      r = read_some(buf_.data() + end_, buf_.size() - end_);
    } catch (Error& e) {
      e.with_offset(pos_ + (end_ - begin_));
      throw;
    }
    if (r == 0) eof_ = true;
    end_ += r;
  }
  return std::min(n, end_ - begin_);
}

std::optional<Frame> BlockSource::next_frame() {
  if (buf_.size() > 4 * kBlockSize && end_ == begin_) {
    // A huge event is gone (the caller's view of it ended with this call): give its memory
    // back so RSS stays flat.
    buf_.resize(kBlockSize);
    buf_.shrink_to_fit();
    begin_ = end_ = 0;
  }
  const std::size_t have = fill(kMinEventSize);
  if (have == 0) return std::nullopt;
  const std::uint32_t size =
      frame_length(buf_.data() + begin_, have, pos_, name_,
                   size_ ? std::optional<std::uint64_t>(*size_ - pos_) : std::nullopt);
  const std::size_t got = fill(size);
  if (got < size)
    throw Error(ErrorCode::kTruncated,
                "input ends inside an event of " + std::to_string(size) + " bytes (" +
                    std::to_string(got) + " present)",
                pos_)
        .with_file(name_);
  Frame f{pos_, Bytes(buf_.data() + begin_, size)};
  begin_ += size;
  pos_ += size;
  return f;
}

void BlockSource::seek(std::uint64_t pos) {
  if (pos < pos_) {
    if (!size_)
      throw Error(ErrorCode::kUsage, "cannot seek backwards in a stream", pos).with_file(name_);
  } else if (pos - pos_ <= end_ - begin_) {
    begin_ += pos - pos_;
    pos_ = pos;
    return;
  }
  if (size_) {
    if (pos > *size_)
      throw Error(ErrorCode::kUsage, "position " + std::to_string(pos) +
                                         " is past the end of the file (" + std::to_string(*size_) +
                                         " bytes)")
          .with_file(name_);
    if (pos < base_)
      throw Error(ErrorCode::kIo, "seek before the start of the input", pos).with_file(name_);
    reposition(pos);
    begin_ = end_ = 0;
    eof_ = false;
    pos_ = pos;
    return;
  }
  while (pos_ < pos) {  // a stream: read and discard
    const std::size_t want =
        static_cast<std::size_t>(std::min<std::uint64_t>(pos - pos_, kBlockSize));
    const std::size_t got = fill(want);
    if (got == 0)
      throw Error(ErrorCode::kUsage, "position " + std::to_string(pos) + " is past end of input")
          .with_file(name_);
    begin_ += got;
    pos_ += got;
  }
}

MemorySource::MemorySource(Bytes data, std::string name, bool has_magic, std::uint64_t base)
    : data_(data), name_(std::move(name)), base_(base) {
  if (has_magic) {
    if (data_.size() < kMagicSize)
      throw Error(ErrorCode::kBadMagic, "input is shorter than the 4-byte binlog magic", 0)
          .with_file(name_);
    if (std::memcmp(data_.data(), kMagic, kMagicSize) != 0)
      throw Error(ErrorCode::kBadMagic, "not a binlog file (bad magic number)", 0).with_file(name_);
    at_ = kMagicSize;
  }
}

std::optional<Frame> MemorySource::next_frame() {
  const std::size_t left = data_.size() - at_;
  const std::uint64_t pos = base_ + at_;
  if (left == 0) return std::nullopt;
  const std::uint32_t size = frame_length(data_.data() + at_, left, pos, name_, left);
  Frame f{pos, data_.subspan(at_, size)};
  at_ += size;
  return f;
}

void MemorySource::seek(std::uint64_t pos) {
  if (pos < base_ || pos - base_ > data_.size())
    throw Error(ErrorCode::kUsage, "position " + std::to_string(pos) + " is outside the input")
        .with_file(name_);
  at_ = static_cast<std::size_t>(pos - base_);
}

}  // namespace binrecover::binlog
