#include "binlog/index_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>

#include "binlog/error.h"

namespace binrecover::binlog {

std::vector<std::string> read_index_file(const std::string& path, const std::string& binlog_dir) {
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
    if (!binlog_dir.empty()) {
      p = std::filesystem::path(binlog_dir) / p.filename();
      if (!std::filesystem::exists(p))
        throw Error(ErrorCode::kUsage, "the index lists " + line + ", and --binlog-dir=" +
                                           binlog_dir + " has no " + p.filename().string())
            .with_file(path);
    } else if (p.is_relative()) {
      // The server writes "./mysql-bin.000001" relative to its datadir; the binlog may also
      // sit beside the index under its bare file name.
      const std::filesystem::path beside = dir / p.filename();
      const std::filesystem::path joined = dir / p;
      p = std::filesystem::exists(joined) ? joined : beside;
    } else if (const std::filesystem::path beside = dir / p.filename();
               std::filesystem::exists(beside)) {
      std::error_code ec;
      if (!std::filesystem::exists(p)) {
        p = beside;  // an index copied along with its logs
      } else if (!std::filesystem::equivalent(p, beside, ec)) {
        // Both the listed file (the live server's?) and a copy beside the index: which one the
        // DBA means is theirs to say, never a silent choice.
        const std::string here = dir.empty() ? std::string(".") : dir.string();
        throw Error(ErrorCode::kUsage, "the index lists " + p.string() +
                                           ", and another file of that name sits "
                                           "beside the index (" +
                                           beside.string() + "): give --binlog-dir=" + here +
                                           " to read the files beside the index, or --binlog-dir=" +
                                           p.parent_path().string() + " for the listed ones")
            .with_file(path);
      }
    }
    files.push_back(p.lexically_normal().string());
  }
  if (files.empty())
    throw Error(ErrorCode::kUsage, "index file lists no binlog files").with_file(path);
  // A file listed twice would be read twice, and an older file after a newer one goes back in
  // time: both are a damaged or hand-edited index, refused.
  for (std::size_t i = 0; i < files.size(); ++i) {
    for (std::size_t k = 0; k < i; ++k) {
      std::error_code ec;
      if (files[k] == files[i] || std::filesystem::equivalent(files[k], files[i], ec))
        throw Error(ErrorCode::kUsage, "index file lists " + files[i] + " twice").with_file(path);
    }
    if (i == 0) continue;
    const std::filesystem::path a(files[i - 1]), b(files[i]);
    const std::string ea = a.extension().string(), eb = b.extension().string();
    auto number = [](const std::string& ext) -> std::optional<unsigned long long> {
      if (ext.size() < 2 || ext.size() > 19) return std::nullopt;
      for (std::size_t c = 1; c < ext.size(); ++c)
        if (ext[c] < '0' || ext[c] > '9') return std::nullopt;
      return std::stoull(ext.substr(1));
    };
    const auto na = number(ea), nb = number(eb);
    if (a.stem() == b.stem() && na && nb && *nb < *na)
      throw Error(ErrorCode::kUsage,
                  "index file lists " + files[i] + " after " + files[i - 1] + ": out of order")
          .with_file(path);
  }
  return files;
}

std::string index_in_folder(const std::string& dir) {
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().extension() == ".index" && e.is_regular_file(ec))
      found.push_back(e.path().string());
  if (found.size() > 1)
    throw Error(ErrorCode::kUsage, dir + " holds " + std::to_string(found.size()) +
                                       " .index files: an archive folder has one (name the one "
                                       "to read)");
  return found.empty() ? std::string() : found.front();
}

}  // namespace binrecover::binlog
