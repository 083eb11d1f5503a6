#pragma once

#include <bit>
#include <cstring>
#include <string>

#include "binlog/error.h"

namespace binrecover::binlog {

template <class Visitor>
[[gnu::always_inline]] inline void visit_value(const TableInfo& info, std::size_t col,
                                               ByteCursor& cur, Visitor&& v) {
  const ColumnLayout& c = info.layout[col];
  auto integer = [&](std::size_t bytes) {
    const std::uint64_t raw = cur.uint_le(bytes);
    if (info.is_unsigned[col] != 0) {
      v.uinteger(raw);
    } else {
      const unsigned shift = static_cast<unsigned>(64 - 8 * bytes);
      v.integer(static_cast<std::int64_t>(raw << shift) >> shift);
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
    case ColumnType::kFloat:
      v.real(std::bit_cast<float>(cur.u32le()), true);
      break;
    case ColumnType::kDouble:
      v.real(std::bit_cast<double>(cur.u64le()), false);
      break;
    case ColumnType::kYear: {
      const std::uint8_t y = cur.u8();
      v.uinteger(y == 0 ? 0 : 1900U + y);
      break;
    }
    case ColumnType::kEnum:
      v.enumeration(cur.uint_le(c.meta & 0xff));
      break;
    case ColumnType::kSet:
      v.set(cur.uint_le(c.meta & 0xff));
      break;
    case ColumnType::kVarchar:
    case ColumnType::kVarString:
    case ColumnType::kString: {
      const std::size_t len = cur.uint_le(c.meta > 255 ? 2 : 1);
      v.string(cur.bytes(len), info.collation[col]);
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
      const Bytes b = cur.bytes(cur.uint_le(c.meta));
      if (c.type == ColumnType::kJson)
        v.json(b);
      else if (c.type == ColumnType::kGeometry)
        v.geometry(b);
      else
        v.string(b, info.collation[col]);
      break;
    }
    case ColumnType::kBit: {
      const std::size_t bytes = value_size(c, cur);
      v.bits(cur.uint_be(bytes), static_cast<std::uint16_t>((c.meta & 0xff) * 8 + (c.meta >> 8)));
      break;
    }
    default:
      v.text(c.type == ColumnType::kNewDecimal ? Value::Kind::kDecimal : Value::Kind::kTemporal,
             [&](char* p) { return put_text_value(c, cur, p); });
      break;
  }
}

// Fills a Value from visit_value.
struct ValueFill {
  Value& out;
  void integer(std::int64_t x) {
    out.kind = Value::Kind::kInt;
    out.i = x;
  }
  void uinteger(std::uint64_t x) {
    out.kind = Value::Kind::kUInt;
    out.u = x;
  }
  void real(double d, bool is_float) {
    out.kind = Value::Kind::kDouble;
    out.d = d;
    out.is_float = is_float;
  }
  template <class Write>
  void text(Value::Kind kind, Write&& write) {
    out.kind = kind;
    out.text.set_end(write(out.text.data));
  }
  void string(Bytes b, std::uint16_t collation) {
    out.kind = Value::Kind::kString;
    out.bytes = b;
    out.collation = collation;
  }
  void bits(std::uint64_t x, std::uint16_t width) {
    out.kind = Value::Kind::kBit;
    out.u = x;
    out.bits = width;
  }
  void enumeration(std::uint64_t x) {
    out.kind = Value::Kind::kEnum;
    out.u = x;
  }
  void set(std::uint64_t x) {
    out.kind = Value::Kind::kSet;
    out.u = x;
  }
  void json(Bytes b) {
    out.kind = Value::Kind::kJson;
    out.bytes = b;
  }
  void geometry(Bytes b) {
    out.kind = Value::Kind::kGeometry;
    out.bytes = b;
  }
};

inline Value decode_value(const TableInfo& info, std::size_t col, ByteCursor& cur) {
  Value v;
  visit_value(info, col, cur, ValueFill{v});
  return v;
}

// Set bits per byte value.
struct BitsInByte {
  std::uint8_t n[256] = {};
  constexpr BitsInByte() {
    for (unsigned i = 0; i < 256; ++i) n[i] = static_cast<std::uint8_t>(std::popcount(i));
  }
};
inline constexpr BitsInByte kBitsInByte;

template <class Want, class Sink>
void walk_row_image(const TableInfo& info, std::uint64_t column_count, Bytes present,
                    ByteCursor& cur, Want&& want, Sink&& sink, Bytes partial_json) {
  if (column_count > info.layout.size())
    throw Error(ErrorCode::kBadEvent,
                "rows event has " + std::to_string(column_count) + " columns, its table map " +
                    std::to_string(info.layout.size()),
                cur.offset());
  auto bit = [](Bytes b, std::uint64_t i) {
    return (static_cast<std::uint8_t>(b[i / 8]) & (1U << (i % 8))) != 0;
  };
  // Columns in the image: the set bits of the first column_count bits, a byte at a time
  // (from a table: without -mpopcnt, std::popcount is a call into libgcc).
  std::size_t n = 0;
  const std::uint64_t full = column_count / 8;
  for (std::uint64_t b = 0; b < full; ++b)
    n += kBitsInByte.n[static_cast<std::uint8_t>(present[b])];
  if (column_count % 8 != 0)
    n += kBitsInByte.n[static_cast<std::uint8_t>(present[full]) & ((1U << (column_count % 8)) - 1)];
  // Servers never log an image of no columns; it would take no bytes, and a loop over the
  // rows would never end.
  if (n == 0) throw Error(ErrorCode::kBadEvent, "row image with no columns", cur.offset());
  const Bytes nulls = cur.bytes((n + 7) / 8);
  std::size_t k = 0;
  if (partial_json.empty()) {  // the common case: no partial JSON, whole values only
    const bool all = n == column_count;
    // The NULL bits of up to 64 columns in one word.
    std::uint64_t null_word = 0;
    const bool word = std::endian::native == std::endian::little && nulls.size() <= 8;
    if (word) std::memcpy(&null_word, nulls.data(), nulls.size());
    for (std::uint64_t i = 0; i < column_count; ++i) {
      if (!all && !bit(present, i)) continue;
      const auto col = static_cast<std::size_t>(i);
      const bool null = word ? ((null_word >> k++) & 1) != 0 : bit(nulls, k++);
      if (!want(col)) {
        if (!null) cur.skip(value_size(info.layout[col], cur));
      } else if (null) {
        sink.null(col);
      } else {
        sink.value(col, cur);
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
      sink.null(col);
      continue;
    }
    if (diff) {
      sink.json_diff(col, cur.bytes(cur.u32le()));
      continue;
    }
    sink.value(col, cur);
  }
}

}  // namespace binrecover::binlog
