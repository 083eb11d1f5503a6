#pragma once

#include <cstdint>
#include <string_view>

namespace binrecover::binlog {

struct Collation {
  std::uint16_t id;
  std::string_view charset;
  std::string_view name;
};

// The collation with this id, or nullptr. Ids up to 254 and from 576 on are MariaDB's (shared
// with MySQL below 255); 255-323 are MySQL 8's utf8mb4 collations, which MariaDB never assigns.
const Collation* find_collation(std::uint32_t id);

}  // namespace binrecover::binlog
