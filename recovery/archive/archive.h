#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "binlog/reader.h"
#include "recovery/archive/retention.h"
#include "recovery/server/remote_source.h"
#include "recovery/storage/envelope.h"
#include "recovery/storage/s3.h"

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
  // --to s3://BUCKET/PREFIX/: into object storage instead of `dir` (docs/usage.md, "Archive to
  // S3"): the server's folder PREFIX/NAME/, NAME the server's UUID (MySQL) or server-ID
  // (MariaDB) unless `folder` names it.
  std::optional<std::string> to;
  std::optional<std::string> folder;
  s3::ConfigOverrides s3;
  unsigned upload_seconds = 5;                     // the file being written stored this often
  std::size_t part_bytes = std::size_t{16} << 20;  // pieces sealed (and parts) at this size
  // --retain / --retain-days: applied when the run begins, after each file the server closes,
  // and at the end (recovery/archive/retention.h).
  RetentionPolicy retain;
  // --zstd / --encryption-key-file with --to: each piece stored as an envelope
  // (recovery/storage/envelope.h); a folder continued keeps what its manifest says.
  Codec codec;
  std::function<void(const std::string&)> note;  // what retention deleted (a line on stderr)
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
// The same checks over `files` in order (names as problems show them), each opened by `open`.
std::vector<VerifyProblem> verify_files(
    const std::vector<std::string>& files,
    const std::function<std::unique_ptr<binlog::Source>(std::size_t)>& open,
    std::uint64_t* events_checked = nullptr);

// archive --verify s3://...: verify_files over the folder's files, and each object against the
// manifest (size, the SHA-256 of each range, the index object listing the manifest's files).
std::vector<VerifyProblem> verify_s3_archive(const std::string& url,
                                             std::uint64_t* events_checked = nullptr);

// archive --status s3://BUCKET/[PREFIX/]: one row per archived server folder below PREFIX.
struct ArchiveStatusRow {
  std::string folder;  // s3://BUCKET/PREFIX/NAME/
  std::string flavor, version, server, server_uuid;
  std::uint32_t server_id = 0;
  std::string last_file;
  std::uint64_t last_pos = 0;
  std::int64_t last_event_time = 0;  // unix seconds
  std::int64_t updated = 0;          // the manifest's last rewrite
  std::int64_t lag_seconds = 0;      // now - last_event_time
  std::uint64_t files = 0, bytes = 0;
  std::vector<std::string> gaps;  // names missing from the numbered sequence
  // The folder of the server that went on with this one's history (a failover: the latest
  // written of the folders sharing GTIDs of an origin with it); empty: this one is current.
  std::string followed_by;
  // The folder's manifest cannot be read or is refused (the other fields are then empty):
  // what is wrong, and the error's code (the other folders are listed all the same).
  std::string problem;
  ErrorCode problem_code = ErrorCode::kIo;
};
std::vector<ArchiveStatusRow> archive_status(const std::string& url);

}  // namespace binrecover::recovery
