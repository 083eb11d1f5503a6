#pragma once

#include <cstddef>
#include <string>

namespace binrecover::recovery {

// The archive folder's small POSIX steps.
std::string errno_text();  // strerror(errno)
// fsync a file or a folder by its path (nothing when it cannot be opened).
void fsync_path(const std::string& path);
// All of `n` bytes, through EINTR and short writes; throws Error(kIo) naming `path`.
void write_all(int fd, const void* data, std::size_t n, const std::string& path);

}  // namespace binrecover::recovery
