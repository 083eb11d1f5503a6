#pragma once

#include <functional>
#include <optional>
#include <string>

#include "binlog/arena.h"
#include "binlog/events.h"
#include "binlog/source.h"

namespace binrecover::binlog {

struct ReaderOptions {
  bool verify_checksum = true;
  // Unknown event types and checksum mismatches become warnings instead of errors.
  bool force_read = false;
};

using WarningSink = std::function<void(const std::string&)>;

// Turns a source's frames into events: owns the format description in force (it can change
// mid-file in relay logs), verifies checksums and decodes bodies. Errors carry file, offset and
// event type.
class EventReader {
 public:
  EventReader(Source& source, ReaderOptions options, WarningSink warn = {});
  // A reader whose format is given, not read from the stream: for the events inside a
  // container (a MySQL transaction payload: `payload` true, events come out marked in_payload
  // and a format description, payload or rotate among them is an error), or for a stretch of a
  // file read a second time from the middle (`payload` false).
  EventReader(Source& source, ReaderOptions options, WarningSink warn, const FormatContext& format,
              bool payload = true);

  // The next event, or nullopt at the clean end of the input. The event's views stay valid
  // until the next call; with an arena, the bytes are first copied there and the views stay
  // valid as long as the arena keeps them.
  std::optional<Event> next(EventArena* arena = nullptr);

  // Skip to `pos` once the format description has been read (--start-position).
  void seek(std::uint64_t pos) { source_.seek(pos); }

  const FormatContext& format() const { return ctx_; }
  // Whether the first event had LOG_EVENT_BINLOG_IN_USE_F: the server had not closed the file.
  bool in_use() const { return in_use_; }
  bool seen_format() const { return seen_format_; }
  Source& source() { return source_; }

 private:
  void detect_version(const Frame& f);
  void verify_crc(const Frame& f, const EventHeader& h);

  Source& source_;
  ReaderOptions options_;
  WarningSink warn_;
  FormatContext ctx_ = FormatContext::for_version(4);
  bool first_ = true;
  bool in_use_ = false;
  bool seen_format_ = false;
  bool inner_ = false;
  EventArena scratch_;  // inflated compressed queries when the caller gives no arena
};

}  // namespace binrecover::binlog
