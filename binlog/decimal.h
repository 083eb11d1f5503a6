#pragma once

#include <cstdint>
#include <string>

#include "binlog/byte_cursor.h"

namespace binrecover::binlog {

// Bytes a binary DECIMAL(precision, scale) occupies (MySQL decimal_bin_size()); the arguments
// must be valid_decimal().
std::size_t decimal_bin_size(int precision, int scale);

// The largest DECIMAL: 65 digits, 38 of them after the point (MariaDB 10.2.1+; MySQL allows 30).
inline constexpr int kMaxDecimalPrecision = 65;
inline constexpr int kMaxDecimalScale = 38;
// Room for the text of any DECIMAL: sign, 65 digits, point, a leading "0".
inline constexpr std::size_t kMaxDecimalText = kMaxDecimalPrecision + 3;

// Whether a table map's DECIMAL(precision, scale) is one a server can declare.
inline bool valid_decimal(int precision, int scale) {
  return precision >= 1 && precision <= kMaxDecimalPrecision && scale >= 0 &&
         scale <= kMaxDecimalScale && scale <= precision;
}

// Reads a binary DECIMAL(precision, scale) (MySQL strings/decimal.cc decimal2bin layout: the
// integer and fraction parts in big-endian groups of 9 digits per 4 bytes, leading/trailing
// partial groups in 1-4 bytes, sign in the inverted top bit, negative values one's-complemented)
// and appends its exact text, e.g. "-1234.50". Throws binrecover::Error on short input or
// digits out of range.
void append_decimal(std::string& out, ByteCursor& cur, int precision, int scale);
// The same text written at `out` (room for kMaxDecimalText characters). Returns the end.
char* put_decimal(char* out, ByteCursor& cur, int precision, int scale);

}  // namespace binrecover::binlog
