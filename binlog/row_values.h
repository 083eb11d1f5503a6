#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "binlog/byte_cursor.h"
#include "binlog/events.h"
#include "binlog/row_layout.h"

namespace binrecover::binlog {

// The optional metadata of a table map (MySQL 8.0.1+ binlog_row_metadata, MariaDB 10.5+) as
// the log holds it: each list in the order of the columns it covers, not yet matched to them.
// table_info() matches them to columns; mysqlbinlog --print-table-metadata matches them its own
// way (its MariaDB and MySQL versions differ), so that comment is made from these lists.
struct OptionalMetadata {
  // Collations of one class of columns (the character columns, or the ENUM and SET columns):
  // DEFAULT_CHARSET (a default, and (index within the class, collation) pairs for the columns
  // that differ) or COLUMN_CHARSET (one collation per column of the class).
  struct Charsets {
    bool has_default = false;
    std::uint32_t default_id = 0;
    std::vector<std::pair<std::uint64_t, std::uint32_t>> exceptions;
    std::vector<std::uint32_t> per_column;
  };
  bool has_signedness = false;
  std::vector<char> signedness;  // one bit per numeric column, high bit first (padding too)
  Charsets charsets;             // character columns (fields 2, 3)
  Charsets enum_set_charsets;    // ENUM and SET columns (fields 10, 11)
  std::vector<std::string> names;
  std::vector<std::vector<std::string>> set_values;   // one list per SET column
  std::vector<std::vector<std::string>> enum_values;  // one list per ENUM column
  std::vector<std::uint64_t> geometry_types;          // one per GEOMETRY column
  // (column index, prefix length in characters; 0: the whole column), in key order.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> primary_key;
  std::vector<char> visibility;                  // one bit per column, high bit first; 1 visible
  std::vector<std::uint64_t> vector_dimensions;  // one per VECTOR column
};

// Parses the optional metadata of `tm` into `out` (which should be empty). Throws
// Error(kBadEvent) at a field that does not parse; the fields before it stay in `out`.
void parse_optional_metadata(const TableMap& tm, OptionalMetadata& out);

// What a table map says about its table: the column layout, and from its optional metadata
// (MySQL binlog_row_metadata, MariaDB 10.5+) names, signedness, character sets, ENUM/SET
// strings and the primary key. Prepared once per table map.
struct TableInfo {
  std::string db, table;
  std::vector<ColumnLayout> layout;
  std::vector<std::string> names;  // empty when the log has none
  std::vector<char> is_unsigned;   // per column (numeric columns only meaningful)
  bool has_signedness = false;
  std::vector<std::uint16_t> collation;               // per column; 0 = unknown
  std::vector<std::vector<std::string>> enum_values;  // per column (ENUM columns)
  std::vector<std::vector<std::string>> set_values;   // per column (SET columns)
  std::vector<std::uint32_t> primary_key;             // column indexes
  // Per column, 1 for a generated (virtual or stored) column; empty when unknown. No table map
  // says it: it comes from the table's definition (recovery/sql/schema.h).
  std::vector<char> generated;
  std::vector<char> nullable;                    // per column, from the table map's null bitmap
  std::vector<std::uint32_t> vector_dimensions;  // per column (VECTOR columns), 0 unknown
  bool mariadb = false;                          // the log is MariaDB's
};

// Optional metadata TLV fields (MySQL Table_map_log_event::Optional_metadata_field_type):
//   u8 type / packed length / value:
//   1 SIGNEDNESS bitmap over numeric columns (high bit first) / 2 DEFAULT_CHARSET packed default,
//   then (packed column index among character columns, packed collation) pairs /
//   3 COLUMN_CHARSET packed per character column / 4 COLUMN_NAME (packed len, name) per column /
//   5 SET_STR_VALUE, 6 ENUM_STR_VALUE per column: packed count, (packed len, str)* /
//   7 GEOMETRY_TYPE packed per GEOMETRY column /
//   8 SIMPLE_PRIMARY_KEY packed indexes / 9 PRIMARY_KEY_WITH_PREFIX (packed index, packed prefix)*
//   / 10 ENUM_AND_SET_DEFAULT_CHARSET, 11 ENUM_AND_SET_COLUMN_CHARSET as 2 and 3, over the ENUM and
//   SET columns / 12 COLUMN_VISIBILITY bitmap over all columns (MySQL 8.0.23+, 1 = visible) /
//   13 VECTOR_DIMENSIONALITY packed per VECTOR column (MySQL 9). Other types are stepped over.
// The character columns are CHAR, VARCHAR, the BLOB/TEXT types, and GEOMETRY in MariaDB's logs,
// VECTOR in MySQL's (`mariadb`: the log is MariaDB's).
TableInfo table_info(const TableMap& tm, bool mariadb);

// The text of a DECIMAL or temporal value, held in the Value itself: decoding a row allocates
// nothing.
struct ValueText {
  static constexpr std::size_t kCapacity = 72;  // kMaxDecimalText, and every temporal form
  char data[kCapacity];
  std::uint8_t size = 0;
  std::string_view view() const { return {data, size}; }
  // Text written from data to `end`.
  void set_end(const char* end) { size = static_cast<std::uint8_t>(end - data); }
};

// One decoded value of a row image (trivially copyable: strings are views into the image).
struct Value {
  enum class Kind : std::uint8_t {
    kNull,
    kInt,       // i
    kUInt,      // u
    kDouble,    // d (FLOAT is widened, `is_float` set)
    kDecimal,   // text
    kString,    // bytes in `collation` (0 = unknown / binary)
    kTemporal,  // text: 'YYYY-MM-DD', 'hh:mm:ss[.f]', 'YYYY-MM-DD hh:mm:ss[.f]'
    kBit,       // u, `bits` wide
    kEnum,      // u: 1-based index (0 = '')
    kSet,       // u: bitmask
    kJson,      // bytes: MySQL binary JSON
    kGeometry,  // bytes
  };
  Kind kind = Kind::kNull;
  std::int64_t i = 0;
  std::uint64_t u = 0;
  double d = 0;
  bool is_float = false;
  ValueText text;
  Bytes bytes;
  std::uint16_t collation = 0;
  std::uint16_t bits = 0;
};

// Decodes the value of column `col` of `info` at `cur` (advancing it) and hands it to `v`,
// calling exactly one of: v.integer(std::int64_t), v.uinteger(std::uint64_t),
// v.real(double, bool is_float), v.text(Value::Kind kDecimal or kTemporal, write) where
// write(char* p) puts the text at p (at most ValueText::kCapacity characters) and returns its
// end, so the text goes straight to where the visitor wants it,
// v.string(Bytes, std::uint16_t collation), v.bits(std::uint64_t, std::uint16_t width),
// v.enumeration(std::uint64_t), v.set(std::uint64_t), v.json(Bytes), v.geometry(Bytes).
// Printers use it to write a value as it is decoded, with no Value in between.
template <class Visitor>
void visit_value(const TableInfo& info, std::size_t col, ByteCursor& cur, Visitor&& v);

// The same value as a Value.
Value decode_value(const TableInfo& info, std::size_t col, ByteCursor& cur);
// The text of a DECIMAL or temporal value (the types whose text is made while decoding),
// written at `out` (room for ValueText::kCapacity characters); returns its end.
char* put_text_value(const ColumnLayout& c, ByteCursor& cur, char* out);

// Walks one row image, calling for each column present in `present` where want(column index)
// holds: sink.null(col) for NULL, sink.json_diff(col, diffs) for a partial JSON update, else
// sink.value(col, cur), which must read the value (visit_value). The other columns are stepped
// over by their size, never decoded (a WHERE on the primary key reads only the key).
// `partial_json`: the after image of a MySQL PARTIAL_UPDATE_ROWS event, a bitmap with one bit
// per JSON column of the table; a set bit means that column holds diffs (u32 length / the
// diffs, see json_diffs) instead of a whole document.
template <class Want, class Sink>
void walk_row_image(const TableInfo& info, std::uint64_t column_count, Bytes present,
                    ByteCursor& cur, Want&& want, Sink&& sink, Bytes partial_json = {});

// One change of a MySQL partial JSON update (sql/json_diff.cc Json_diff::write_binary):
//   u8 operation (0 REPLACE, 1 INSERT, 2 REMOVE) / packed path length / path (JSON path text,
//   e.g. $.a[2]) / for REPLACE and INSERT: packed value length / value (binary JSON).
// Applied in order to the column's old document: REPLACE needs the path to exist, INSERT
// adds an object member or inserts into an array at the index (shifting the rest), REMOVE
// deletes the member or array cell.
struct JsonDiff {
  enum class Op : std::uint8_t { kReplace = 0, kInsert = 1, kRemove = 2 };
  Op op = Op::kReplace;
  std::string_view path;
  Bytes value;  // binary JSON (empty for kRemove)
};

// Parses the diffs of a partial JSON update into `out` (cleared first). Throws Error(kBadEvent).
void json_diffs(Bytes diffs, std::uint64_t offset, std::vector<JsonDiff>& out);

}  // namespace binrecover::binlog

#include "binlog/row_values_inl.h"
