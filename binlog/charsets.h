#pragma once

#include <cstdint>
#include <string_view>

namespace binrecover::binlog {

struct Collation {
  std::uint16_t id;
  std::string_view charset;
  std::string_view name;
  // Derived from `charset` when the table is built: the hot path of every string value reads
  // these flags instead of comparing names.
  bool binary = false;  // the binary charset: bytes, not text
  bool utf8 = false;    // utf8mb3 / utf8mb4 (named utf8, utf8mb3 or utf8mb4)
};

// The collation with this id, or nullptr. Ids up to 254 and from 576 on are MariaDB's (shared
// with MySQL below 255); 255-323 are MySQL 8's utf8mb4 collations, which MariaDB never assigns.
const Collation* find_collation(std::uint32_t id);

}  // namespace binrecover::binlog
