#pragma once

#include <fmt/format.h>

#include <string_view>

#include "binlog/events.h"
#include "recovery/reading/gtid_set.h"
#include "recovery/sql/sql_quote.h"

namespace binrecover::recovery {

// An Incident event's kind: 1 LOST_EVENTS, 0 NONE (the only ones servers define), else unknown.
constexpr std::string_view incident_name(std::uint16_t type) {
  return type == 1 ? "LOST_EVENTS" : type == 0 ? "NONE" : "unknown";
}

// " flags: STMT_END_F ..." of a rows event: MariaDB names only STMT_END_F, MySQL every flag
// it knows (as SHOW BINLOG EVENTS and mysqlbinlog 9.7 write them).
void append_rows_flags(fmt::memory_buffer& out, std::uint16_t flags, bool mariadb);

// The Info column of SHOW BINLOG EVENTS for an event, as the server writes it.
void append_event_info(fmt::memory_buffer& out, const binlog::Event& ev,
                       const binlog::FormatContext& ctx);

// The value of a user variable as SQL: _utf8mb4 X'..' COLLATE `x`, 123, 1.5e0, NULL.
// `backtick_collation` quotes the collation name as mysqlbinlog does in SQL output;
// `mysql_hex` writes a string as MySQL's SHOW BINLOG EVENTS does (0x.., "" when empty).
void append_user_var_value(fmt::memory_buffer& out, const binlog::UserVar& v,
                           bool backtick_collation, bool mysql_hex = false);

// mysqlbinlog --print-table-metadata: what follows a table map's comment line, "# Columns(...)"
// and, when the map has a primary key, "# Primary Key(...)", each line ending in "\n", byte for
// byte as MySQL 9.7's mysqlbinlog prints them, or MariaDB 10.11's mariadb-binlog (`mariadb`),
// quirks included: both walk the metadata lists in their own way, so a list a client matches
// to other columns than the server meant is printed as that client prints it. Throws what
// binlog::column_layout throws; optional metadata that does not parse is used up to its bad
// field, as the clients do.
void append_table_metadata(fmt::memory_buffer& out, const binlog::TableMap& tm, bool mariadb);

inline void append(fmt::memory_buffer& out, std::string_view s) {
  out.append(s.data(), s.data() + s.size());
}

}  // namespace binrecover::recovery
