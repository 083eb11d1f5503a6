#include "binlog/charsets.h"

#include <array>
#include <string_view>
#include <utility>

namespace binrecover::binlog {
namespace {

template <std::size_t N>
constexpr std::array<Collation, N> with_flags(const Collation (&table)[N]) {
  std::array<Collation, N> all{};
  for (std::size_t k = 0; k < N; ++k) {
    all[k] = table[k];
    all[k].binary = all[k].charset == "binary";
    all[k].utf8 = all[k].charset.substr(0, 4) == "utf8";
  }
  return all;
}

// MariaDB 10.11's collations, its UCA 14.0.0 ones (ids from 2048) among them; MySQL 9.7's.
constexpr Collation kMariaTable[] = {
#include "binlog/collations_table.inc"
#include "binlog/collations_uca1400.inc"
};
constexpr Collation kMysqlTable[] = {
#include "binlog/collations_mysql.inc"
};
constexpr auto kMaria = with_flags(kMariaTable);
constexpr auto kMysql = with_flags(kMysqlTable);

// Collation ids are below 4096: an index by id makes the lookup of every string value one load.
constexpr std::size_t kMaxCollationId = 4096;
constexpr std::uint16_t kNone = 0xffff;
template <std::size_t N>
constexpr std::array<std::uint16_t, kMaxCollationId> index_of(const std::array<Collation, N>& t) {
  std::array<std::uint16_t, kMaxCollationId> index{};
  for (auto& i : index) i = kNone;
  for (std::size_t k = 0; k < N; ++k)
    if (t[k].id < kMaxCollationId && index[t[k].id] == kNone)
      index[t[k].id] = static_cast<std::uint16_t>(k);
  return index;
}
constexpr auto kMariaIndex = index_of(kMaria);
constexpr auto kMysqlIndex = index_of(kMysql);

}  // namespace

const Collation* find_collation(std::uint32_t id) {
  if (id >= kMaxCollationId) return nullptr;
  if (const std::uint16_t k = kMariaIndex[id]; k != kNone) return &kMaria[k];
  const std::uint16_t k = kMysqlIndex[id];
  return k == kNone ? nullptr : &kMysql[k];
}

// information_schema.CHARACTER_SETS MAXLEN, the same in MariaDB 10.11 and MySQL 9.7.
unsigned mbmaxlen(std::string_view charset) {
  static constexpr std::pair<std::string_view, unsigned> kWide[] = {
      {"big5", 2},  {"cp932", 2},   {"eucjpms", 3}, {"euckr", 2}, {"gb18030", 4}, {"gb2312", 2},
      {"gbk", 2},   {"sjis", 2},    {"ucs2", 2},    {"ujis", 3},  {"utf16", 4},   {"utf16le", 4},
      {"utf32", 4}, {"utf8mb3", 3}, {"utf8mb4", 4}, {"utf8", 3}};
  for (const auto& [name, len] : kWide)
    if (name == charset) return len;
  return 1;
}

const Collation* find_collation(std::uint32_t id, bool mariadb) {
  if (id >= kMaxCollationId) return nullptr;
  const std::uint16_t k = (mariadb ? kMariaIndex : kMysqlIndex)[id];
  if (k == kNone) return nullptr;
  return mariadb ? &kMaria[k] : &kMysql[k];
}

}  // namespace binrecover::binlog
