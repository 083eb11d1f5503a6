#pragma once

// Internal to binlog/: the decoders of each family of event bodies, one file per family
// (events_query.cc: Query, User_var, the LOAD DATA events; events_rows.cc: Table_map and rows;
// events_gtid.cc: MySQL and MariaDB GTIDs, GTID lists, Previous_gtids), called by decode_body
// (events.cc). Each reads from a cursor over the event's body and throws Error(kBadEvent) with
// the offset of what does not decode.

#include <cstdint>
#include <string>
#include <string_view>

#include "binlog/byte_cursor.h"
#include "binlog/error.h"
#include "binlog/events.h"

namespace binrecover::binlog::decoders {

[[noreturn]] inline void bad(const ByteCursor& cur, std::string message) {
  throw Error(ErrorCode::kBadEvent, std::move(message), cur.offset());
}

inline std::string_view trim_nul(std::string_view s) {
  const auto nul = s.find('\0');
  return nul == std::string_view::npos ? s : s.substr(0, nul);
}

// Table ids are 6 bytes since MySQL 5.1.15 and 4 bytes before, recognisable by the post-header.
inline std::uint64_t read_table_id(ByteCursor& cur, std::uint8_t post_header_len) {
  return post_header_len == 6 ? cur.u32le() : cur.u48le();
}

// ---- events_query.cc ----

void decode_status_vars(ByteCursor cur, QueryStatus& st);

Query decode_query(ByteCursor& cur, const FormatContext& ctx, EventType type);

UserVar decode_user_var(ByteCursor& cur);

LoadData decode_load(ByteCursor& cur, const FormatContext& ctx, EventType type);

// ---- events_rows.cc ----

TableMap decode_table_map(ByteCursor& cur, const FormatContext& ctx);

Rows decode_rows(ByteCursor& cur, const FormatContext& ctx, EventType type,
                 const RowsTypeInfo& info);

// ---- events_gtid.cc ----

Gtid decode_gtid(ByteCursor& cur, bool anonymous);

Gtid decode_gtid_tagged(ByteCursor& cur);

MariaGtid decode_maria_gtid(ByteCursor& cur);

MariaGtidList decode_gtid_list(ByteCursor& cur);

// MySQL's Previous_gtids: checked whole (tags, interval counts within the event), kept as bytes.
PreviousGtids decode_previous_gtids(ByteCursor& cur);

}  // namespace binrecover::binlog::decoders
