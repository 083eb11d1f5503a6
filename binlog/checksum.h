#pragma once

#include <cstddef>
#include <cstdint>

namespace binrecover::binlog {

// CRC-32 as binlog events carry it (the zlib / gzip polynomial, reflected 0xEDB88320; the
// server's my_checksum). `crc` is the value so far (0 to start), so a buffer can be summed in
// pieces. Computed by Intel ISA-L (Debian's libisal), which picks a carry-less multiply
// (PCLMULQDQ / VPCLMULQDQ) kernel at run time: about 8x zlib's crc32 (docs/design.md).
std::uint32_t crc32(std::uint32_t crc, const void* data, std::size_t size);

}  // namespace binrecover::binlog
