#include "binlog/checksum.h"

#include <isa-l/crc.h>

namespace binrecover::binlog {

std::uint32_t crc32(std::uint32_t crc, const void* data, std::size_t size) {
  return ::crc32_gzip_refl(crc, static_cast<const unsigned char*>(data), size);
}

}  // namespace binrecover::binlog
