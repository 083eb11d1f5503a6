#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "binlog/byte_cursor.h"

namespace binrecover::binlog {

// MySQL's binary JSON, the form a JSON column takes in row events (MySQL 5.7+;
// sql-common/json_binary.h describes it):
//   doc       = u8 type / value
//   type      = 0x00 small object, 0x01 large object, 0x02 small array, 0x03 large array,
//               0x04 literal, 0x05 int16, 0x06 uint16, 0x07 int32, 0x08 uint32, 0x09 int64,
//               0x0a uint64, 0x0b double, 0x0c string, 0x0f opaque
//   object    = count / size / key-entry*count / value-entry*count / keys and values
//   array     = count / size / value-entry*count / values
//               count, size and offsets: u16 in small containers, u32 in large ones; size
//               counts the whole container from `count` on, and every offset is relative
//               to that same start
//   key-entry = offset / u16 length        value-entry = u8 type / offset or inlined value
//               (literals and [u]int16 are inlined, in large containers [u]int32 too)
//   literal   = u8 0 null / 1 true / 2 false        numbers: little-endian, double IEEE 754
//   string    = varlen length / utf8mb4 bytes       opaque = u8 field type / varlen length /
//               bytes; varlen: 7 bits a byte, low group first, high bit = more (5 bytes at most)
//
// Appends the text MySQL prints for the value (SELECT of a JSON column, JSON_EXTRACT, CAST(...
// AS CHAR), mysqlbinlog -v): `{"a": 1, "b": [true, null]}` with ", " and ": " separators,
// members in stored order (MySQL stores keys sorted by length, then bytes), strings escaped
// as MySQL does (\" \\ \b \f \n \r \t, other bytes below 0x20 as \u00xx, everything else
// as is), doubles in MySQL's my_gcvt form with ".0" added to integral ones, opaque DECIMAL
// unquoted ("12.50"), opaque DATE/TIME/DATETIME/TIMESTAMP quoted with six fraction digits
// ("2012-03-18 11:30:45.000000"), opaque VAR_STRING as a string, other opaque values as
// "base64:type<N>:<base64>". An empty value is the JSON null literal (MySQL reads it so: a
// NOT NULL column filled by INSERT IGNORE). Nesting is limited to MySQL's own 100 levels so a
// crafted value cannot exhaust the stack; every offset and length is checked against the
// container it is in. Throws binrecover::Error (kTruncated, kBadEvent) naming the absolute
// `offset` of the fault; `offset` is where `value` starts in the file.
void append_json_text(std::string& out, Bytes value, std::uint64_t offset);

// A value of a document whose type its text does not carry: MySQL reading the text back makes
// an unsigned integer a signed one (or a DOUBLE past 2^63), a DECIMAL a DOUBLE (losing digits
// past 17), a date or time a string, an opaque value a string "base64:type...".
struct JsonTypedValue {
  enum class Kind : std::uint8_t {
    kUnsigned,
    kDecimal,
    kDate,
    kTime,
    kDateTime,
    kTimestamp,
    kOpaque
  };
  Kind kind = Kind::kUnsigned;
  // Where it is, as a MySQL JSON path: "$", then ."member" (the name as a JSON string) and [n].
  std::string path;
  // The value as the text has it, without quotes: "5", "12.50", "2012-03-18 11:30:45.000000".
  std::string text;
  int precision = 0, scale = 0;  // kDecimal: the stored DECIMAL(precision, scale)
  std::uint8_t field = 0;        // kOpaque: the MySQL field type of the bytes
  Bytes data;                    // kOpaque: the bytes (a view into the value)
};

// append_json_text, and in `typed` (cleared first) every value of those kinds, in document order.
void append_json_text(std::string& out, Bytes value, std::uint64_t offset,
                      std::vector<JsonTypedValue>& typed);

}  // namespace binrecover::binlog
