#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "binlog/reader.h"
#include "recovery/server/remote_source.h"

namespace binrecover::recovery {

// binrecover archive: a server's binary logs copied byte for byte into a folder, as the server
// has them, with an index file beside them (docs/usage.md, "Archive").
struct ArchiveOptions {
  RemoteOptions remote;
  std::string dir;     // where the files go
  std::string prefix;  // before each file's name (mysqlbinlog --raw --result-file=PREFIX)
  // Where to begin when the folder holds no archive yet (default: the server's first binlog).
  std::optional<std::string> first_file;
  bool stop_never = false;                 // follow the server; reconnect after any loss
  unsigned fsync_seconds = 1;              // fsync the file being written at most this often
  std::optional<std::string> status_file;  // one line of JSON, rewritten as the archive grows
  std::function<void(const std::string&)> progress;  // a status line (on a terminal)
};

struct ArchiveResult {
  std::uint64_t files = 0;   // files written to (new or continued)
  std::uint64_t events = 0;  // events appended
  std::uint64_t bytes = 0;
  std::string last_file;
  std::uint64_t last_pos = 0;
};

// Copies the server's binlogs into opts.dir. A folder that already holds an archive (its index)
// is continued from its last complete event: a torn event at the end of the last file (binrecover
// was killed while writing it) is cut off first, nothing already there is fetched again. Every
// event's checksum is verified before it is written; each file is fsynced when the server
// rotates and every fsync_seconds, the index when a file is added. Without stop_never it ends
// at the end of the server's logs; with it, it waits there, and after any error (the network,
// the server restarting) reconnects by itself, with backoff, saying so through `warn`.
ArchiveResult run_archive(const ArchiveOptions& opts, const binlog::WarningSink& warn);

struct VerifyProblem {
  std::string file;
  std::uint64_t offset = 0;
  std::string what;
};

// archive --verify: every file of the index is there, readable to its end with every event's
// checksum right; each but the last ends with a Rotate naming the next; positions run on
// without a gap; for MySQL GTIDs, each file's Previous_gtids holds the previous file's and
// the GTIDs it logged. Returns what is wrong (empty: the archive is whole).
std::vector<VerifyProblem> verify_archive(const std::string& index_path,
                                          std::uint64_t* events_checked = nullptr);

}  // namespace binrecover::recovery
