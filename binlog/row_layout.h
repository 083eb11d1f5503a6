#pragma once

#include <cstdint>
#include <vector>

#include "binlog/byte_cursor.h"
#include "binlog/events.h"

namespace binrecover::binlog {

// Column type codes of table maps (MySQL include/field_types.h enum_field_types).
enum class ColumnType : std::uint8_t {
  kDecimal = 0,
  kTiny = 1,
  kShort = 2,
  kLong = 3,
  kFloat = 4,
  kDouble = 5,
  kNull = 6,
  kTimestamp = 7,
  kLongLong = 8,
  kInt24 = 9,
  kDate = 10,
  kTime = 11,
  kDateTime = 12,
  kYear = 13,
  kNewDate = 14,
  kVarchar = 15,
  kBit = 16,
  kTimestamp2 = 17,
  kDateTime2 = 18,
  kTime2 = 19,
  kTypedArray = 20,
  kVector = 242,
  kJson = 245,
  kNewDecimal = 246,
  kEnum = 247,
  kSet = 248,
  kTinyBlob = 249,
  kMediumBlob = 250,
  kLongBlob = 251,
  kBlob = 252,
  kVarString = 253,
  kString = 254,
  kGeometry = 255,
};

// One column as a table map describes it: the type on the wire and its metadata, read once
// per table map (MySQL log_event.cc Table_map_log_event / MariaDB the same layout):
//   FLOAT, DOUBLE, BLOB family, JSON, GEOMETRY, VECTOR, TIME2/DATETIME2/TIMESTAMP2: 1 byte
//   VARCHAR, VAR_STRING: u16 max length; NEWDECIMAL: u8 precision / u8 scale;
//   BIT: u8 bits%8 / u8 bytes; STRING (also ENUM/SET): u8 real type / u8 length (high bits of
//   long CHAR lengths folded into the real type); everything else: none.
struct ColumnLayout {
  ColumnType type = ColumnType::kNull;  // the real type (STRING resolved to ENUM/SET/STRING)
  std::uint16_t meta = 0;               // as above; STRING: max length in bytes
};

// The column layout of a table map, prepared once and reused for every row of its table.
std::vector<ColumnLayout> column_layout(const TableMap& tm);

// Bytes one non-NULL value of `c` occupies at `cur` (reads a length prefix where the type has
// one, without consuming it). Throws binrecover::Error on types with no row encoding.
std::size_t value_size(const ColumnLayout& c, const ByteCursor& cur);

// Counts the rows of a rows event (an update counts once per before/after pair) by walking
// the images with the table's layout; the rows of a MariaDB compressed event are given
// uncompressed in `rows`.
std::uint64_t count_rows(const Rows& ev, Bytes rows, const std::vector<ColumnLayout>& layout,
                         std::uint64_t offset);

// The offset (within `rows`) just past each row of a rows event, in `ends` (cleared first):
// where the event can be cut into smaller events of whole rows.
void row_ends(const Rows& ev, Bytes rows, const std::vector<ColumnLayout>& layout,
              std::uint64_t offset, std::vector<std::size_t>& ends);
// How many of the first `columns` bits of a column bitmap are set.
std::size_t bits_set(Bytes bitmap, std::uint64_t columns);

// The same just past each row image: two per row of an update (its before, then its after).
void image_ends(const Rows& ev, Bytes rows, const std::vector<ColumnLayout>& layout,
                std::uint64_t offset, std::vector<std::size_t>& ends);

}  // namespace binrecover::binlog
