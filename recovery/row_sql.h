#pragma once

#include <fmt/format.h>

#include <string>
#include <vector>

#include "binlog/row_values.h"

namespace binrecover::recovery {

// A decoded value as an SQL literal that restores it byte for byte: numbers as numbers,
// strings with their character set's introducer (utf8 text quoted and escaped, other charsets
// and binary data as hex), temporal values quoted, TIMESTAMP as FROM_UNIXTIME() so the session
// time zone cannot shift it, ENUM/SET by name when the log names them.
void append_sql_literal(fmt::memory_buffer& out, const binlog::Value& v,
                        const binlog::TableInfo& info, std::size_t col);

// Writes the rows of one rows event as executable INSERT / UPDATE / DELETE statements, each
// ended with `delimiter`. UPDATE and DELETE match on the primary key when the log names it,
// else on every column of the before image (NULL-safe) with LIMIT 1. Throws binrecover::Error
// (kUnsupportedFormat) when the log lacks column names.
void append_rows_sql(fmt::memory_buffer& out, const binlog::Rows& rows, binlog::Bytes images,
                     const binlog::TableInfo& info, std::string_view delimiter,
                     std::uint64_t offset);

// The statements that undo the rows of one rows event, appended to `statements` in row order
// (the caller applies a transaction's list backwards): DELETE for an insert, INSERT for a delete,
// UPDATE back for an update. Throws binrecover::Error (kUnsupportedFormat) naming the table and
// `offset` when the images are not full rows.
void append_rows_undo(std::vector<std::string>& statements, const binlog::Rows& rows,
                      binlog::Bytes images, const binlog::TableInfo& info, std::uint64_t offset);

// mysqlbinlog -v: the rows as "### INSERT INTO `db`.`t` ### SET ###   @1=..." comment lines.
void append_rows_verbose(fmt::memory_buffer& out, const binlog::Rows& rows, binlog::Bytes images,
                         const binlog::TableInfo& info, bool types, std::uint64_t offset);

}  // namespace binrecover::recovery
