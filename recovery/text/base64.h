#pragma once

#include <fmt/format.h>

#include <cstddef>

#include "binlog/byte_cursor.h"

namespace binrecover::recovery {

// Appends `data` as base64 in lines of 76 characters ("\n" between them, none after the last),
// as the BINLOG statements of mysqlbinlog and mariadb-binlog carry events. AVX-512 VBMI where
// the CPU has it (64 characters per step), else SSSE3 (16), else one table lookup per 12 bits:
// the same text.
void append_base64(fmt::memory_buffer& out, binlog::Bytes data);

// The characters append_base64 writes for `n` bytes: four for every three (padded), and a "\n"
// after every whole line of 57 bytes but the last.
constexpr std::size_t base64_text_size(std::size_t n) {
  return (n + 2) / 3 * 4 + (n == 0 ? 0 : (n - 1) / 57);
}

// Each way by name (for the tests, which compare them; one the CPU lacks writes by table).
enum class Base64Kernel { kTable, kSsse3, kAvx512Vbmi };
bool base64_kernel_available(Base64Kernel k);
void append_base64_with(fmt::memory_buffer& out, binlog::Bytes data, Base64Kernel k);

}  // namespace binrecover::recovery
