#include "recovery/reading/temp_file.h"

#include <fcntl.h>
#include <sys/sendfile.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "binlog/error.h"

namespace binrecover::recovery {

namespace {

[[noreturn]] void fail(const std::string& what, const char* action) {
  throw Error(ErrorCode::kIo, std::string("cannot ") + action + " the temporary file for " + what +
                                  ": " + std::strerror(errno));
}

}  // namespace

TempFile::TempFile(std::string what) : what_(std::move(what)) {
  const char* dir = std::getenv("TMPDIR");
  std::string d = dir != nullptr && *dir != '\0' ? dir : "/tmp";
  // O_TMPFILE: never linked into the folder at all; else a mkstemp name removed at once.
  fd_ = ::open(d.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC | O_EXCL, 0600);
  if (fd_ < 0) {
    std::string path = d + "/binrecover-XXXXXX";
    std::vector<char> name(path.begin(), path.end());
    name.push_back('\0');
    fd_ = ::mkostemp(name.data(), O_CLOEXEC);
    if (fd_ < 0) fail(what_, "create");
    ::unlink(name.data());
  }
}

TempFile::~TempFile() {
  if (fd_ >= 0) ::close(fd_);
}

void TempFile::append(std::string_view bytes) {
  const char* p = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::pwrite(fd_, p, left, static_cast<off_t>(size_));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(what_, "write");
    p += n;
    left -= static_cast<std::size_t>(n);
    size_ += static_cast<std::uint64_t>(n);
  }
}

void TempFile::read(std::uint64_t offset, char* to, std::size_t n) const {
  while (n > 0) {
    const ssize_t r = ::pread(fd_, to, n, static_cast<off_t>(offset));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) fail(what_, "read back");
    to += r;
    n -= static_cast<std::size_t>(r);
    offset += static_cast<std::uint64_t>(r);
  }
}

void TempFile::copy_to(int fd, const std::string& fd_name) const {
  // In the kernel where it can (a file, a pipe, /dev/null): the text is not copied through
  // user space again.
  off_t offset = 0;
  while (static_cast<std::uint64_t>(offset) < size_) {
    const std::size_t want =
        static_cast<std::size_t>(std::min<std::uint64_t>(1 << 30, size_ - offset));
    const ssize_t n = ::sendfile(fd, fd_, &offset, want);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EINVAL || errno == ENOSYS) && offset == 0) break;  // not here
    if (n < 0)
      throw Error(ErrorCode::kIo, "write failed: " + std::string(std::strerror(errno)))
          .with_file(fd_name);
    if (n == 0) break;
  }
  if (static_cast<std::uint64_t>(offset) >= size_) return;
  constexpr std::size_t kBlock = 1 << 20;
  std::unique_ptr<char[]> block(new char[kBlock]);
  for (std::uint64_t at = static_cast<std::uint64_t>(offset); at < size_;) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(kBlock, size_ - at));
    read(at, block.get(), n);
    const char* p = block.get();
    std::size_t left = n;
    while (left > 0) {
      const ssize_t w = ::write(fd, p, left);
      if (w < 0 && errno == EINTR) continue;
      if (w < 0)
        throw Error(ErrorCode::kIo, "write failed: " + std::string(std::strerror(errno)))
            .with_file(fd_name);
      p += w;
      left -= static_cast<std::size_t>(w);
    }
    at += n;
  }
}

void TempFile::clear() {
  if (size_ == 0) return;
  if (::ftruncate(fd_, 0) != 0) fail(what_, "empty");
  size_ = 0;
}

std::unique_ptr<binlog::Source> TempFile::source(const std::string& name,
                                                 std::uint64_t base) const {
  const int fd = ::dup(fd_);
  if (fd < 0) fail(what_, "read back");
  // The copy shares the file offset; FdSource reads from the offset it seeks to first.
  if (::lseek(fd, 0, SEEK_SET) < 0) {
    ::close(fd);
    fail(what_, "read back");
  }
  return std::make_unique<binlog::FdSource>(fd, name, base);
}

}  // namespace binrecover::recovery
