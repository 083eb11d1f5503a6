#include "recovery/storage/private_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "binlog/error.h"

namespace binrecover::recovery {

namespace {

[[noreturn]] void fail(const std::string& what, const std::string& path, int err) {
  throw Error(ErrorCode::kIo, what + ": " + std::strerror(err)).with_file(path);
}

}  // namespace

PrivateFile::PrivateFile(std::string path) : path_(std::move(path)) {
  const std::filesystem::path p(path_);
  const std::filesystem::path dir = p.has_parent_path() ? p.parent_path() : ".";
  temp_ = (dir / ("." + p.filename().string() + ".binrecover-XXXXXX")).string();
  fd_ = ::mkostemp(temp_.data(), O_CLOEXEC);  // 0600, O_EXCL: a new file, never a link's target
  if (fd_ < 0) fail("cannot create the file", path_, errno);
}

PrivateFile::~PrivateFile() {
  if (fd_ < 0) return;
  ::close(fd_);
  ::unlink(temp_.c_str());
}

void PrivateFile::write(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("cannot write the file", path_, errno);
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

void PrivateFile::commit(bool durable) {
  const int fd = fd_;
  fd_ = -1;
  int err = 0;
  if (durable && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && ::rename(temp_.c_str(), path_.c_str()) != 0) err = errno;
  if (err != 0) {
    ::unlink(temp_.c_str());
    fail("cannot write the file", path_, err);
  }
  if (!durable) return;
  const std::filesystem::path p(path_);
  const std::string dir = p.has_parent_path() ? p.parent_path().string() : ".";
  const int d = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (d >= 0) {
    ::fsync(d);
    ::close(d);
  }
}

void write_private_file(const std::string& path, std::string_view content, bool durable) {
  PrivateFile f(path);
  f.write(content);
  f.commit(durable);
}

}  // namespace binrecover::recovery
