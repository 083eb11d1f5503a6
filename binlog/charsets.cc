#include "binlog/charsets.h"

#include <algorithm>
#include <array>
#include <iterator>

namespace binrecover::binlog {
namespace {

// MariaDB's collations, then MySQL's for the ids MariaDB leaves unused; sorted by id below.
constexpr auto kCollations = [] {
  constexpr Collation maria[] = {
#include "binlog/collations_table.inc"
  };
  constexpr Collation mysql[] = {
#include "binlog/collations_mysql.inc"
  };
  std::array<Collation, std::size(maria) + std::size(mysql)> all{};
  std::size_t n = 0;
  for (const auto& c : maria) all[n++] = c;
  for (const auto& c : mysql) all[n++] = c;
  std::sort(all.begin(), all.end(),
            [](const Collation& a, const Collation& b) { return a.id < b.id; });
  return all;
}();

}  // namespace

const Collation* find_collation(std::uint32_t id) {
  const auto it = std::lower_bound(std::begin(kCollations), std::end(kCollations), id,
                                   [](const Collation& c, std::uint32_t v) { return c.id < v; });
  if (it == std::end(kCollations) || it->id != id) return nullptr;
  return &*it;
}

}  // namespace binrecover::binlog
