#include "binlog/charsets.h"

#include <algorithm>
#include <iterator>

namespace binrecover::binlog {
namespace {

constexpr Collation kCollations[] = {
#include "binlog/collations_table.inc"
};

}  // namespace

const Collation* find_collation(std::uint32_t id) {
  const auto it = std::lower_bound(std::begin(kCollations), std::end(kCollations), id,
                                   [](const Collation& c, std::uint32_t v) { return c.id < v; });
  if (it == std::end(kCollations) || it->id != id) return nullptr;
  return &*it;
}

}  // namespace binrecover::binlog
