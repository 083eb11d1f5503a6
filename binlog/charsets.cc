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
  for (auto& c : all) {
    c.binary = c.charset == "binary";
    c.utf8 = c.charset.substr(0, 4) == "utf8";
  }
  std::sort(all.begin(), all.end(),
            [](const Collation& a, const Collation& b) { return a.id < b.id; });
  return all;
}();

// Collation ids are below 2048: an index by id makes the lookup of every string value one load.
constexpr std::size_t kMaxCollationId = 2048;
constexpr auto kIndexById = [] {
  std::array<std::uint16_t, kMaxCollationId> index{};
  for (auto& i : index) i = 0xffff;
  for (std::size_t k = 0; k < kCollations.size(); ++k)
    if (kCollations[k].id < kMaxCollationId && index[kCollations[k].id] == 0xffff)
      index[kCollations[k].id] = static_cast<std::uint16_t>(k);  // the first of equal ids
  return index;
}();

}  // namespace

const Collation* find_collation(std::uint32_t id) {
  if (id >= kMaxCollationId) return nullptr;
  const std::uint16_t k = kIndexById[id];
  return k == 0xffff ? nullptr : &kCollations[k];
}

}  // namespace binrecover::binlog
