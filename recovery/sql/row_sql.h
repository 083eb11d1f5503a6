#pragma once

#include <fmt/format.h>

#include <string>
#include <vector>

#include "binlog/row_values.h"

namespace binrecover::recovery {

// A table map prepared for SQL text, once per table map and reused for every row: the decoded
// map, and its identifiers already quoted.
struct SqlTable {
  binlog::TableInfo info;
  std::string name;                  // `db`.`table`
  std::vector<std::string> columns;  // `column` per column; empty when the log names none
  // Per column, the SQL literals of ENUM values ('name', by index - 1) and of SET values of at
  // most kSetLiteralMembers members ('a,b', by bitmask): written once here, not per row.
  static constexpr std::size_t kSetLiteralMembers = 8;
  std::vector<std::vector<std::string>> enum_literals;
  std::vector<std::vector<std::string>> set_literals;
  // Per column: 1 when a SET member's name has no quoted form that every sql_mode reads alike,
  // so values are written as bitmasks.
  std::vector<char> set_numeric;
  // Whether a name holds bytes the mysql client alters (client_alters): statements for a pipe
  // into it are then PREPAREd from their hex text.
  bool client_alters_names = false;
  bool has_triggers = false;  // the schema knows triggers on it
  // The SQL is for MariaDB, whose JSON is text: a MySQL JSON value goes as MySQL's text of it
  // (for MySQL, the values whose type that text loses are set to an expression of their type).
  bool json_as_text = false;
  // Whether column `col` is generated (known from the schema; the log does not say).
  bool generated(std::size_t col) const {
    return col < info.generated.size() && info.generated[col] != 0;
  }
  // -vv: per column its comment up to its null flag (" /* TYPE meta=M nullable=N is_null="),
  // one after the other, and where each ends: made on first use, forgotten by prepare().
  mutable std::string type_heads;
  mutable std::vector<std::uint32_t> type_head_ends;
  // Fills name, columns and the literals from info (call after info changes).
  void prepare();
};

// Writes the rows of one rows event as executable INSERT / UPDATE / DELETE statements, each
// ended with `delimiter`. UPDATE and DELETE match on the primary key when the log names it,
// else on every column of the before image (NULL-safe) with LIMIT 1. Throws binrecover::Error
// (kUnsupportedFormat) when the log lacks column names. `ends`, when given, gets where each
// statement's delimiter starts (a name or value may hold the delimiter's text: statements are
// never found by searching the text).
// The start of an after image of a MySQL PARTIAL_UPDATE_ROWS event (at `cur`, which it moves
// past): value_options, then with PARTIAL_JSON_UPDATES a bitmap over the table's JSON columns
// telling which of them hold diffs (empty: none).
binlog::Bytes partial_json_bitmap(const binlog::TableInfo& info, const binlog::Rows& rows,
                                  binlog::ByteCursor& cur);

void append_rows_sql(fmt::memory_buffer& out, const binlog::Rows& rows, binlog::Bytes images,
                     const SqlTable& table, std::string_view delimiter, std::uint64_t offset,
                     std::vector<std::size_t>* ends = nullptr);

// The statements that undo the rows of one rows event, appended to `out` in row order, the
// end of each one pushed to `ends` (the caller applies a transaction's statements backwards):
// DELETE for an insert, INSERT for a delete, UPDATE back for an update. Throws
// binrecover::Error (kUnsupportedFormat) naming the table and `offset` when the images are not
// full rows.
void append_rows_undo(fmt::memory_buffer& out, std::vector<std::size_t>& ends,
                      const binlog::Rows& rows, binlog::Bytes images, const SqlTable& table,
                      std::uint64_t offset);

// mysqlbinlog -v: the rows as "### INSERT INTO `db`.`t` ### SET ###   @1=..." comment lines.
// Returns the number of rows written (an update's before and after count once).
std::uint64_t append_rows_verbose(fmt::memory_buffer& out, const binlog::Rows& rows,
                                  binlog::Bytes images, const SqlTable& table, bool types,
                                  std::uint64_t offset);

}  // namespace binrecover::recovery
