#include "recovery/archive/folder_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "binlog/error.h"

namespace binrecover::recovery {

using binrecover::Error;
using binrecover::ErrorCode;

std::string errno_text() { return std::strerror(errno); }

void fsync_path(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

void write_all(int fd, const void* data, std::size_t n, const std::string& path) {
  const auto* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      throw Error(ErrorCode::kIo, "cannot write " + path + ": " + errno_text());
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}

}  // namespace binrecover::recovery
