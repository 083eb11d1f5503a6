#pragma once

#include <string>
#include <string_view>

namespace binrecover::recovery {

// Every file binrecover writes for a person or a later run (result files, reports, status
// files, expectations) is made the one same way: a new private file (0600, created O_EXCL by
// mkostemp, so never an existing file or a planted link) beside the target, renamed over the
// target once whole (a link at the target is replaced, never followed). Until commit() the
// target is untouched; a PrivateFile dropped without commit() is removed.
class PrivateFile {
 public:
  explicit PrivateFile(std::string path);
  ~PrivateFile();
  PrivateFile(const PrivateFile&) = delete;
  PrivateFile& operator=(const PrivateFile&) = delete;

  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  // Throws Error(kIo) naming the file.
  void write(std::string_view bytes);
  // The file takes its name; with `durable`, it and the rename reach the disk first.
  void commit(bool durable = false);

 private:
  std::string path_, temp_;
  int fd_ = -1;
};

// A whole small file in one go (PrivateFile, write, commit).
void write_private_file(const std::string& path, std::string_view content, bool durable = false);

}  // namespace binrecover::recovery
