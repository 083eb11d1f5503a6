#pragma once

#include <bit>
#include <cstring>
#include <string>

#include "binlog/error.h"

namespace binrecover::binlog {

[[gnu::always_inline]] inline Value decode_value(const TableInfo& info, std::size_t col,
                                                 ByteCursor& cur) {
  const ColumnLayout& c = info.layout[col];
  Value v;
  auto integer = [&](std::size_t bytes) {
    const std::uint64_t raw = cur.uint_le(bytes);
    if (info.is_unsigned[col] != 0) {
      v.kind = Value::Kind::kUInt;
      v.u = raw;
    } else {
      v.kind = Value::Kind::kInt;
      const unsigned shift = static_cast<unsigned>(64 - 8 * bytes);
      v.i = static_cast<std::int64_t>(raw << shift) >> shift;
    }
  };
  switch (c.type) {
    case ColumnType::kTiny:
      integer(1);
      break;
    case ColumnType::kShort:
      integer(2);
      break;
    case ColumnType::kInt24:
      integer(3);
      break;
    case ColumnType::kLong:
      integer(4);
      break;
    case ColumnType::kLongLong:
      integer(8);
      break;
    case ColumnType::kFloat: {
      const std::uint32_t bits = cur.u32le();
      float f;
      std::memcpy(&f, &bits, sizeof f);
      v.kind = Value::Kind::kDouble;
      v.d = f;
      v.is_float = true;
      break;
    }
    case ColumnType::kDouble: {
      const std::uint64_t bits = cur.u64le();
      std::memcpy(&v.d, &bits, sizeof v.d);
      v.kind = Value::Kind::kDouble;
      break;
    }
    case ColumnType::kYear: {
      const std::uint8_t y = cur.u8();
      v.kind = Value::Kind::kUInt;
      v.u = y == 0 ? 0 : 1900U + y;
      break;
    }
    case ColumnType::kEnum:
      v.kind = Value::Kind::kEnum;
      v.u = cur.uint_le(c.meta & 0xff);
      break;
    case ColumnType::kSet:
      v.kind = Value::Kind::kSet;
      v.u = cur.uint_le(c.meta & 0xff);
      break;
    case ColumnType::kVarchar:
    case ColumnType::kVarString:
    case ColumnType::kString: {
      const std::size_t prefix = c.meta > 255 ? 2 : 1;
      const std::size_t len = cur.uint_le(prefix);
      v.kind = Value::Kind::kString;
      v.bytes = cur.bytes(len);
      v.collation = info.collation[col];
      break;
    }
    case ColumnType::kTinyBlob:
    case ColumnType::kMediumBlob:
    case ColumnType::kLongBlob:
    case ColumnType::kBlob:
    case ColumnType::kJson:
    case ColumnType::kGeometry:
    case ColumnType::kVector: {
      if (c.meta < 1 || c.meta > 4)
        throw Error(ErrorCode::kBadEvent, "blob length prefix of " + std::to_string(c.meta),
                    cur.offset());
      const std::size_t len = cur.uint_le(c.meta);
      v.bytes = cur.bytes(len);
      v.kind = c.type == ColumnType::kJson       ? Value::Kind::kJson
               : c.type == ColumnType::kGeometry ? Value::Kind::kGeometry
                                                 : Value::Kind::kString;
      v.collation = info.collation[col];
      break;
    }
    default:
      decode_text_value(c, cur, v);
      break;
  }
  return v;
}

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
  // Columns in the image: the set bits of the first column_count bits, a byte at a time.
  std::size_t n = 0;
  const std::uint64_t full = column_count / 8;
  for (std::uint64_t b = 0; b < full; ++b)
    n += static_cast<std::size_t>(std::popcount(static_cast<std::uint8_t>(present[b])));
  if (column_count % 8 != 0)
    n += static_cast<std::size_t>(std::popcount(static_cast<unsigned>(
        static_cast<std::uint8_t>(present[full]) & ((1U << (column_count % 8)) - 1))));
  // Servers never log an image of no columns; it would take no bytes, and a loop over the
  // rows would never end.
  if (n == 0) throw Error(ErrorCode::kBadEvent, "row image with no columns", cur.offset());
  const Bytes nulls = cur.bytes((n + 7) / 8);
  std::size_t k = 0;
  if (partial_json.empty()) {  // the common case: no partial JSON, whole values only
    const bool all = n == column_count;
    for (std::uint64_t i = 0; i < column_count; ++i) {
      if (!all && !bit(present, i)) continue;
      const auto col = static_cast<std::size_t>(i);
      const bool null = bit(nulls, k++);
      if (!want(col)) {
        if (!null) cur.skip(value_size(info.layout[col], cur));
      } else if (null) {
        fn(col, Value{});
      } else {
        fn(col, decode_value(info, col, cur));
      }
    }
    return;
  }
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
