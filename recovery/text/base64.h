#pragma once

#include <fmt/format.h>

#include "binlog/byte_cursor.h"

namespace binrecover::recovery {

// Appends `data` as base64 in lines of 76 characters ("\n" between them, none after the last),
// as the BINLOG statements of mysqlbinlog and mariadb-binlog carry events. SSSE3 where the CPU
// has it (16 characters per step), one table lookup per 12 bits elsewhere: the same text.
void append_base64(fmt::memory_buffer& out, binlog::Bytes data);

// The portable form (for the tests, which compare both).
void append_base64_scalar(fmt::memory_buffer& out, binlog::Bytes data);

}  // namespace binrecover::recovery
