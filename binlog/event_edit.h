#pragma once

#include <cstddef>
#include <functional>
#include <string_view>
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

// A table map with its database name replaced by `db` (at most 255 bytes): the bytes around the
// name as they were, the checksum trailer (if any) left for seal_event.
void renamed_table_map(const Event& ev, const TableMap& tm, std::string_view db,
                       std::vector<std::byte>& out);

// `raw` (the event's bytes, or a renamed copy) as it is written again in a BINLOG statement
// under `ctx`: a MariaDB compressed rows event uncompressed (MariaDB's BINLOG refuses the
// compressed types), STMT_END_F set when `stmt_end`, a checksum given to an event from a MySQL
// payload when the format says CRC32 (or the server cuts 4 bytes of row data as the checksum),
// size and checksum made anew.
void rewritten_event(const Event& ev, Bytes raw, const FormatContext& ctx, bool stmt_end,
                     std::vector<std::byte>& out);

// Cuts a rows event `raw` (its rows between `head` and the `tail` checksum bytes, each row
// ending at row_ends[i] within them) into events of as many whole rows as `fits(size)` allows
// (at least one each), STMT_END_F (at `flags_at`, if the event has it) on the last only, as the
// server cuts at binlog_row_event_max_size; each is sealed (with `crc`) in `piece` and handed to
// `on_piece`.
void cut_rows_event(Bytes raw, std::size_t head, std::size_t tail, std::size_t flags_at,
                    const std::vector<std::size_t>& row_ends, bool crc,
                    const std::function<bool(std::size_t)>& fits, std::vector<std::byte>& piece,
                    const std::function<void(Bytes)>& on_piece);

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
