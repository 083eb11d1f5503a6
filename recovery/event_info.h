#pragma once

#include <fmt/format.h>

#include <string_view>

#include "binlog/events.h"
#include "recovery/sql_quote.h"

namespace binrecover::recovery {

// The Info column of SHOW BINLOG EVENTS for an event, as the server writes it.
void append_event_info(fmt::memory_buffer& out, const binlog::Event& ev,
                       const binlog::FormatContext& ctx);

// 16-byte server uuid as 8-4-4-4-12 hex.
void append_uuid(fmt::memory_buffer& out, const std::array<std::uint8_t, 16>& sid);
// A serialized GTID set (PREVIOUS_GTIDS body): "uuid:1-5:7,uuid2:1-3".
void append_gtid_set(fmt::memory_buffer& out, binlog::Bytes data);
// MariaDB GTID list entries: "0-1-8,1-2-3".
void append_maria_gtid_list(fmt::memory_buffer& out, const binlog::MariaGtidList& l);
// XA id as X'gtrid',X'bqual',format_id.
void append_xid(fmt::memory_buffer& out, std::uint32_t format_id, binlog::Bytes data,
                std::size_t gtrid_len, std::size_t bqual_len);
// The value of a user variable as SQL: _utf8mb4 X'..' COLLATE `x`, 123, 1.5e0, NULL.
// `backtick_collation` quotes the collation name as mysqlbinlog does in SQL output.
void append_user_var_value(fmt::memory_buffer& out, const binlog::UserVar& v,
                           bool backtick_collation);

inline void append(fmt::memory_buffer& out, std::string_view s) {
  out.append(s.data(), s.data() + s.size());
}

}  // namespace binrecover::recovery
