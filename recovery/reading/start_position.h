#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "binlog/arena.h"
#include "binlog/events.h"
#include "binlog/reader.h"
#include "recovery/reading/event_stream.h"

namespace binrecover::recovery {

// Where a walk starts in its first file: --start-position (or a resume point).
struct StartAt {
  std::uint64_t pos = 0;
  std::uint64_t after_format = 0;  // the end of the file's format description
  bool seekable = false;           // the input can be read from any offset
  bool anywhere = false;           // `binrecover events`: any event boundary will do
  std::string file;                // its display name, for messages
  // Given: every event before the position is read and handed to it (no seek straight there).
  std::function<void(const binlog::Event&)> before;
};

// Positions the stream at the start position. Every command starts at a unit boundary: at an
// event that can only start a unit (a GTID, BEGIN, an event outside transactions) it goes
// straight there; anywhere else the file is read from its start to check that no event of a
// transaction comes before the position (only its GTID may), and that the position is an
// event boundary at all. `binrecover events` may start at any event. Returns the event at the
// position, read into `arena` (nullopt: the position is the end of the file). Throws
// Error(kUsage) for a position past the end, inside an event or inside a transaction.
std::optional<binlog::Event> seek_start(EventStream& stream, binlog::EventArena& arena,
                                        const StartAt& at, const binlog::WarningSink& warn);

}  // namespace binrecover::recovery
