#pragma once

#include <fmt/format.h>

#include <cstddef>

#include "binlog/byte_cursor.h"

namespace binrecover::recovery {

// Appends `data` as base64 in lines of 76 characters ("\n" between them, none after the last),
// as the BINLOG statements of mysqlbinlog and mariadb-binlog carry events. SSSE3 where the CPU
// has it (16 characters per step), one table lookup per 12 bits elsewhere: the same text.
void append_base64(fmt::memory_buffer& out, binlog::Bytes data);

// The characters append_base64 writes for `n` bytes: four for every three (padded), and a "\n"
// after every whole line of 57 bytes but the last.
constexpr std::size_t base64_text_size(std::size_t n) {
  return (n + 2) / 3 * 4 + (n == 0 ? 0 : (n - 1) / 57);
}

// The portable form (for the tests, which compare both).
void append_base64_scalar(fmt::memory_buffer& out, binlog::Bytes data);

}  // namespace binrecover::recovery
