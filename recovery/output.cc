#include "recovery/output.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "binlog/error.h"

namespace binrecover::recovery {

Output::Output(int fd, std::string name) : fd_(fd), name_(std::move(name)) {
  buf_.reserve(kInitialReserve);
}

Output::Output(Consumer consumer, std::string name)
    : fd_(-1), name_(std::move(name)), consumer_(std::move(consumer)) {
  buf_.reserve(kInitialReserve);
}

Output::~Output() {
  try {
    flush();
  } catch (...) {  // a destructor must not throw; main() flushes explicitly and reports
  }
}

int Output::open_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    throw Error(ErrorCode::kIo, "cannot create result file: " + std::string(std::strerror(errno)))
        .with_file(path);
  return fd;
}

void Output::flush() {
  if (consumer_) {
    if (buf_.size() == 0) return;
    const std::string_view text(buf_.data(), buf_.size());
    try {
      consumer_(text);
    } catch (...) {
      buf_.clear();
      throw;
    }
    written_ += buf_.size();
    buf_.clear();
    return;
  }
  const char* p = buf_.data();
  std::size_t left = buf_.size();
  while (left > 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      buf_.clear();
      throw Error(ErrorCode::kIo, "write failed: " + std::string(std::strerror(errno)))
          .with_file(name_);
    }
    p += n;
    left -= static_cast<std::size_t>(n);
    written_ += static_cast<std::uint64_t>(n);
  }
  buf_.clear();
}

}  // namespace binrecover::recovery
