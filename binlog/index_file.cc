#include "binlog/index_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "binlog/error.h"

namespace binrecover::binlog {

std::vector<std::string> read_index_file(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    throw Error(ErrorCode::kIo, std::string("cannot open index file: ") + std::strerror(errno))
        .with_file(path);
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  std::vector<std::string> files;
  std::string line;
  while (std::getline(in, line)) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.empty()) continue;
    std::filesystem::path p(line);
    if (p.is_relative()) {
      // The server writes "./mysql-bin.000001" relative to its datadir; the binlog may also
      // sit beside the index under its bare file name.
      const std::filesystem::path beside = dir / p.filename();
      const std::filesystem::path joined = dir / p;
      p = std::filesystem::exists(joined) ? joined : beside;
    } else if (!std::filesystem::exists(p) && std::filesystem::exists(dir / p.filename())) {
      p = dir / p.filename();  // an index copied along with its logs
    }
    files.push_back(p.lexically_normal().string());
  }
  if (files.empty())
    throw Error(ErrorCode::kUsage, "index file lists no binlog files").with_file(path);
  return files;
}

}  // namespace binrecover::binlog
