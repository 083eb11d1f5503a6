#pragma once

#include <cstddef>
#include <vector>

#include "binlog/events.h"
#include "binlog/row_layout.h"

namespace binrecover::binlog {

// Changes to an event's bytes, for events written again (BINLOG statements): every rewrite of
// raw event bytes lives here, in the decoding layer, never in the SQL writers.

// Sets the event's size field to its length and, with `crc`, recomputes the CRC32 in its last 4
// bytes (the caller leaves room for them).
void seal_event(std::vector<std::byte>& ev, bool crc);

// Where a rows event's 2-byte flags are (STMT_END_F), for the format in force.
std::size_t rows_flags_offset(const FormatContext& ctx, std::uint8_t type);

// The inverse of a rows event, as mariadb-binlog --flashback writes it: WRITE <-> DELETE, an
// UPDATE's before and after images (and their column bitmaps) swapped, the rows in reverse
// order, STMT_END_F set; a MariaDB compressed event comes out uncompressed. `images` are the
// event's row images (inflated when compressed), `layout` its table's columns. The result has no
// checksum: the caller seals it for the format it is written under. Throws Error
// (kUnsupportedFormat) for what cannot be inverted: pre-GA v0 and MySQL partial JSON updates,
// and images that are not full rows (binlog_row_image other than FULL).
void inverted_rows_event(const Event& ev, const Rows& rows, Bytes images,
                         const std::vector<ColumnLayout>& layout, const FormatContext& ctx,
                         std::vector<std::byte>& out);

}  // namespace binrecover::binlog
