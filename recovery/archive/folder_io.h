#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace binrecover::recovery {

// The archive folder's small POSIX steps.
std::string errno_text();  // strerror(errno)
// fsync a file or a folder by its path (nothing when it cannot be opened).
void fsync_path(const std::string& path);
// All of `n` bytes, through EINTR and short writes; throws Error(kIo) naming `path`.
void write_all(int fd, const void* data, std::size_t n, const std::string& path);
// A new archive file at `path`, empty, open for writing (0600, O_EXCL, no link followed). A
// file already there that `index_path` does not name is one a run killed between creating it
// and naming it in the index left: when it is a plain file of ours with no other link, it is
// emptied and reused, with a warning (otherwise every later run would stop on it). Any other
// file there: Error(kIo) naming it.
int create_archive_file(const std::string& path, const std::string& index_path,
                        const std::function<void(const std::string&)>& warn);

}  // namespace binrecover::recovery
