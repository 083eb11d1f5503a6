#include "recovery/archive/folder_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "binlog/error.h"
#include "binlog/index_file.h"

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

int create_archive_file(const std::string& path, const std::string& index_path,
                        const std::function<void(const std::string&)>& warn) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  if (errno != EEXIST) throw Error(ErrorCode::kIo, "cannot create " + path + ": " + errno_text());
  const std::string name = std::filesystem::path(path).filename().string();
  std::error_code ec;
  std::vector<std::string> listed;
  if (std::filesystem::exists(index_path, ec)) listed = binlog::read_index_file(index_path);
  const bool indexed = std::any_of(listed.begin(), listed.end(), [&](const std::string& p) {
    return std::filesystem::path(p).filename().string() == name;
  });
  // (O_NONBLOCK: a FIFO or a device planted there is not waited on, only refused below)
  fd = indexed ? -1 : ::open(path.c_str(), O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid() ||
      st.st_nlink != 1) {
    if (fd >= 0) ::close(fd);
    throw Error(ErrorCode::kIo, "cannot create " + path + ": " +
                                    (indexed ? "the archive's index already names it"
                                             : "a file of that name is there (not a plain file "
                                               "of ours, or linked elsewhere); move it away"));
  }
  if (::ftruncate(fd, 0) != 0) {
    const std::string why = errno_text();
    ::close(fd);
    throw Error(ErrorCode::kIo, "cannot truncate " + path + ": " + why);
  }
  if (warn)
    warn("emptied " + path + " (" + std::to_string(st.st_size) +
         " bytes), which an interrupted run created and did not name in the index yet; copying "
         "it again");
  return fd;
}

}  // namespace binrecover::recovery
