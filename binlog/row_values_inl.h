#pragma once

namespace binrecover::binlog {

template <class Fn>
void for_each_value(const TableInfo& info, std::uint64_t column_count, Bytes present,
                    ByteCursor& cur, Fn&& fn) {
  auto bit = [](Bytes b, std::uint64_t i) {
    return (static_cast<std::uint8_t>(b[i / 8]) & (1U << (i % 8))) != 0;
  };
  std::size_t n = 0;
  for (std::uint64_t i = 0; i < column_count; ++i) n += bit(present, i) ? 1 : 0;
  const Bytes nulls = cur.bytes((n + 7) / 8);
  std::size_t k = 0;
  for (std::uint64_t i = 0; i < column_count; ++i) {
    if (!bit(present, i)) continue;
    if (bit(nulls, k++)) {
      fn(static_cast<std::size_t>(i), Value{});
      continue;
    }
    fn(static_cast<std::size_t>(i), decode_value(info, static_cast<std::size_t>(i), cur));
  }
}

}  // namespace binrecover::binlog
