// binrecover archive: a server's binlogs copied byte for byte, and archive --verify.
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "binlog/error.h"
#include "cli/commands.h"
#include "recovery/workflows/archive.h"

namespace binrecover::cli {

namespace {

int verify(const Options& o) {
  if (o.remote_files.size() != 1)
    throw Error(ErrorCode::kUsage, "archive --verify takes one folder or .index file");
  std::string index = o.remote_files.front();
  if (std::filesystem::is_directory(index)) {
    std::vector<std::string> found;
    for (const auto& e : std::filesystem::directory_iterator(index))
      if (e.path().extension() == ".index") found.push_back(e.path().string());
    if (found.size() != 1)
      throw Error(ErrorCode::kUsage, index + " holds " + std::to_string(found.size()) +
                                         " .index files: name the one to check");
    index = found.front();
  }
  std::uint64_t events = 0;
  const auto problems = recovery::verify_archive(index, &events);
  for (const auto& p : problems)
    std::fprintf(stderr, "binrecover: %s: at %llu: %s\n", p.file.c_str(),
                 static_cast<unsigned long long>(p.offset), p.what.c_str());
  if (!problems.empty()) return 4;
  std::printf("%s: whole: %llu events, every checksum right, the chain of files complete\n",
              index.c_str(), static_cast<unsigned long long>(events));
  return 0;
}

}  // namespace

int archive_command(Options& o) {
  if (o.archive_verify) return verify(o);
  if (o.source_password_prompt && !o.source.password) o.source.password = read_password();
  recovery::ArchiveOptions a = o.archive;
  a.remote.connection = o.source;
  a.remote.server_id = o.remote_server_id;
  a.remote.blocking = a.stop_never;
  if (a.stop_never && a.remote.server_id == 0) {
    // A blocking dump needs a server id of its own (0 makes MySQL end the stream).
    a.remote.server_id = 65535 - static_cast<std::uint32_t>(::getpid() % 1000);
  }
  if (!o.remote_files.empty()) a.first_file = o.remote_files.front();
  if (o.remote_files.size() > 1)
    throw Error(ErrorCode::kUsage, "archive takes one FILE: the server's binlog to begin with");
  bool shown = false;
  if (o.progress && ::isatty(STDERR_FILENO) != 0)
    a.progress = [&shown](const std::string& s) {
      std::fprintf(stderr, "\rbinrecover: archived to %s   ", s.c_str());
      shown = true;
    };
  const recovery::ArchiveResult r = recovery::run_archive(a, warn);
  if (shown) std::fputs("\n", stderr);
  std::fprintf(stderr, "binrecover: archived %llu events (%llu bytes) into %s, up to %s:%llu\n",
               static_cast<unsigned long long>(r.events), static_cast<unsigned long long>(r.bytes),
               a.dir.c_str(), r.last_file.c_str(), static_cast<unsigned long long>(r.last_pos));
  return 0;
}

}  // namespace binrecover::cli
