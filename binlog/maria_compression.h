#pragma once

#include <vector>

#include "binlog/arena.h"
#include "binlog/events.h"

namespace binrecover::binlog {

// MariaDB's log_bin_compress record (sql/log_event.cc, binlog_buf_compress):
//   u8 header: 0x80 | algorithm << 4 | n  (algorithm 0 = zlib; n = 1..4)
//   n bytes: uncompressed length, big-endian
//   zlib stream (compress())
// Inflates `record` into memory taken from `arena`. Throws binrecover::Error (kBadEvent) with
// `offset` on a malformed record, and never allocates more than the 1 GiB event limit.
Bytes maria_uncompress(Bytes record, EventArena& arena, std::uint64_t offset);

// The same, appended to `out`.
void maria_uncompress_append(Bytes record, std::vector<std::byte>& out, std::uint64_t offset);

// For a QUERY_COMPRESSED event: replaces the query text with its uncompressed form (in the
// arena) and clears `compressed`. Other events are left alone.
void inflate_compressed_query(Event& ev, EventArena& arena);

}  // namespace binrecover::binlog
