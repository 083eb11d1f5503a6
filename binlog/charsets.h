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

// The longest character of a character set in bytes (utf8mb4: 4; 1 for a name it does not know).
unsigned mbmaxlen(std::string_view charset);

// The collation with this id, or nullptr. Ids up to 254 and from 576 on are MariaDB's (shared
// with MySQL below 255; from 2048 its UCA 14.0.0 ones); 255-323 are MySQL 8's utf8mb4
// collations, which MariaDB never assigns. Where both have an id, MariaDB's name.
const Collation* find_collation(std::uint32_t id);

// The collation with this id as one product names it, or nullptr when it has none of that id:
// MariaDB 10.11's (`mariadb`) or MySQL 9.7's. The two differ beyond the ids only one has: 122,
// 149, 181, 213 and 245 are MySQL's *_croatian_ci, MariaDB's *_croatian_mysql561_ci.
const Collation* find_collation(std::uint32_t id, bool mariadb);

}  // namespace binrecover::binlog
