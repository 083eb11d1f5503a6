#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "binlog/source.h"

namespace binrecover::recovery {

// An unlinked temporary file under $TMPDIR (0600, gone when closed, nothing left behind after a
// crash): where text or binlog bytes too large for memory wait. `what` names its use in errors.
class TempFile {
 public:
  explicit TempFile(std::string what);
  ~TempFile();
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  void append(std::string_view bytes);
  void append(binlog::Bytes bytes) {
    append(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  }
  std::uint64_t size() const { return size_; }
  // Reads n bytes at `offset` (all of them, or throws).
  void read(std::uint64_t offset, char* to, std::size_t n) const;
  // Copies everything to `fd` in large blocks.
  void copy_to(int fd, const std::string& fd_name) const;
  // Empties the file for reuse.
  void clear();
  // A binlog source over the file's bytes, the first at input position `base` of `name`.
  std::unique_ptr<binlog::Source> source(const std::string& name, std::uint64_t base) const;

 private:
  std::string what_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

}  // namespace binrecover::recovery
