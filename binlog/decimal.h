#pragma once

#include <cstdint>
#include <string>

#include "binlog/byte_cursor.h"

namespace binrecover::binlog {

// Bytes a binary DECIMAL(precision, scale) occupies (MySQL decimal_bin_size()).
std::size_t decimal_bin_size(int precision, int scale);

// Reads a binary DECIMAL(precision, scale) (MySQL strings/decimal.cc decimal2bin layout: the
// integer and fraction parts in big-endian groups of 9 digits per 4 bytes, leading/trailing
// partial groups in 1-4 bytes, sign in the inverted top bit, negative values one's-complemented)
// and appends its exact text, e.g. "-1234.50". Throws binrecover::Error on short input or
// digits out of range.
void append_decimal(std::string& out, ByteCursor& cur, int precision, int scale);

}  // namespace binrecover::binlog
