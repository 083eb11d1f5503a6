#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "binlog/reader.h"
#include "binlog/source.h"
#include "recovery/archive/archive.h"

namespace binrecover::recovery {

inline constexpr std::size_t kFlagsAt = 17;  // u16 flags in the v4 event header
inline constexpr std::byte kInUse{1};        // LOG_EVENT_BINLOG_IN_USE_F

// The format a format description event (its exact bytes) sets.
binlog::FormatContext format_of(binlog::Bytes fde, const std::string& name);
// Whether an event's CRC32 is right (a format description's is computed with the in-use flag
// clear: the server clears it when it closes the file, without computing it again).
bool event_crc_ok(binlog::Bytes raw);
// Whether an event the server sent for `file` goes at the copy's end `end` (false: the format
// description sent again when a read resumes, to skip); throws on a gap (naming `where`) or a
// wrong checksum. A format description sets `crc` (its events carry a CRC32).
bool accept_event(const binlog::Frame& f, std::uint64_t end, const std::string& file,
                  const std::string& where, bool& crc);

// Where archive puts what the server sends: a folder (recovery/archive/archive.cc) or a
// bucket (recovery/archive/archive_s3.cc). The copying loop is the same for both.
class ArchiveSink {
 public:
  virtual ~ArchiveSink() = default;
  // A new file of the server's, from its magic.
  virtual void start_new(const std::string& name) = 0;
  // One event the server sent for the current file (its checksum checked here).
  virtual void append(const binlog::Frame& f) = 0;
  // The current file is complete: as the server has it once closed (no in-use flag).
  virtual void finish_file() = 0;
  // What was appended is stored now, or when the interval since the last time has passed.
  virtual void sync(bool now) = 0;
  virtual const std::string& file() const = 0;
  virtual std::uint64_t pos() const = 0;
  virtual bool has_file() const = 0;
  // How the last file ended: the name its Rotate gives, "?" for a server's Stop, "" not ended.
  virtual const std::string& ended_next() const = 0;
  virtual ArchiveResult& result() = 0;
  // Applies ArchiveOptions::retain (when given) to what the archive holds before the current
  // file.
  virtual void retain() = 0;
};

// The server an archive copies (read once connected).
struct ArchivedServer {
  std::uint32_t server_id = 0;
  bool mariadb = false;
  std::string uuid;  // MySQL's server_uuid ("" for MariaDB)
  std::string version, where;
};

// The bucket sink: opens (or continues) the archive at opts.to for `server`.
std::unique_ptr<ArchiveSink> open_s3_archive(const ArchiveOptions& opts,
                                             const ArchivedServer& server,
                                             const binlog::WarningSink& warn);

}  // namespace binrecover::recovery
