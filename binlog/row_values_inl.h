#pragma once

#include <string>

#include "binlog/error.h"

namespace binrecover::binlog {

template <class Want, class Fn>
void for_each_value_if(const TableInfo& info, std::uint64_t column_count, Bytes present,
                       ByteCursor& cur, Want&& want, Fn&& fn, Bytes partial_json) {
  if (column_count > info.layout.size())
    throw Error(ErrorCode::kBadEvent,
                "rows event has " + std::to_string(column_count) + " columns, its table map " +
                    std::to_string(info.layout.size()),
                cur.offset());
  auto bit = [](Bytes b, std::uint64_t i) {
    return (static_cast<std::uint8_t>(b[i / 8]) & (1U << (i % 8))) != 0;
  };
  std::size_t n = 0;
  for (std::uint64_t i = 0; i < column_count; ++i) n += bit(present, i) ? 1 : 0;
  // Servers never log an image of no columns; it would take no bytes, and a loop over the
  // rows would never end.
  if (n == 0) throw Error(ErrorCode::kBadEvent, "row image with no columns", cur.offset());
  const Bytes nulls = cur.bytes((n + 7) / 8);
  std::size_t k = 0;
  std::size_t json = 0;  // JSON columns of the table before column i
  for (std::uint64_t i = 0; i < column_count; ++i) {
    const auto col = static_cast<std::size_t>(i);
    const bool is_json = info.layout[col].type == ColumnType::kJson;
    const bool diff = is_json && !partial_json.empty() && json / 8 < partial_json.size() &&
                      bit(partial_json, json);
    if (is_json) ++json;
    if (!bit(present, i)) continue;
    const bool null = bit(nulls, k++);
    if (!want(col)) {
      if (null) continue;
      if (diff) {
        cur.skip(cur.u32le());
      } else {
        cur.skip(value_size(info.layout[col], cur));
      }
      continue;
    }
    if (null) {
      fn(col, Value{});
      continue;
    }
    if (diff) {
      Value v;
      v.kind = Value::Kind::kJsonDiff;
      v.bytes = cur.bytes(cur.u32le());
      fn(col, v);
      continue;
    }
    fn(col, decode_value(info, col, cur));
  }
}

template <class Fn>
void for_each_value(const TableInfo& info, std::uint64_t column_count, Bytes present,
                    ByteCursor& cur, Fn&& fn, Bytes partial_json) {
  for_each_value_if(
      info, column_count, present, cur, [](std::size_t) { return true; }, fn, partial_json);
}

}  // namespace binrecover::binlog
