#include "binlog/row_layout.h"

#include <bit>
#include <climits>
#include <cstdint>
#include <vector>

#include "binlog/decimal.h"
#include "binlog/error.h"

namespace binrecover::binlog {

std::size_t bits_set(Bytes bitmap, std::uint64_t columns) {
  std::size_t n = 0;
  for (std::uint64_t i = 0; i < columns; ++i)
    if (static_cast<std::uint8_t>(bitmap[i / 8]) & (1U << (i % 8))) ++n;
  return n;
}

namespace {

bool bit(Bytes bitmap, std::uint64_t i) {
  return (static_cast<std::uint8_t>(bitmap[i / 8]) & (1U << (i % 8))) != 0;
}

// Length prefix of `bytes` bytes, little-endian, then the value.
std::size_t prefixed(const ByteCursor& cur, std::size_t bytes) {
  ByteCursor peek = cur;
  return bytes + static_cast<std::size_t>(peek.uint_le(bytes));
}

}  // namespace

std::vector<ColumnLayout> column_layout(const TableMap& tm) {
  std::vector<ColumnLayout> out(tm.column_count);
  ByteCursor meta(tm.metadata, tm.metadata_offset);
  for (std::size_t i = 0; i < out.size(); ++i) {
    auto type = static_cast<ColumnType>(static_cast<std::uint8_t>(tm.column_types[i]));
    ColumnLayout& c = out[i];
    c.type = type;
    switch (type) {
      case ColumnType::kFloat:
      case ColumnType::kDouble:
      case ColumnType::kTinyBlob:
      case ColumnType::kMediumBlob:
      case ColumnType::kLongBlob:
      case ColumnType::kBlob:
      case ColumnType::kGeometry:
      case ColumnType::kJson:
      case ColumnType::kVector:
      case ColumnType::kTimestamp2:
      case ColumnType::kDateTime2:
      case ColumnType::kTime2:
        c.meta = meta.u8();
        break;
      case ColumnType::kVarchar:
      case ColumnType::kVarString:
        c.meta = meta.u16le();
        break;
      case ColumnType::kNewDecimal:
      case ColumnType::kBit: {
        const std::uint8_t a = meta.u8();
        const std::uint8_t b = meta.u8();
        c.meta = static_cast<std::uint16_t>(a << 8 | b);
        break;
      }
      case ColumnType::kString:
      case ColumnType::kEnum:
      case ColumnType::kSet: {
        std::uint8_t real = meta.u8();
        std::uint16_t length = meta.u8();
        if ((real & 0x30) != 0x30) {  // CHAR longer than 255 bytes: two length bits moved here
          length |= static_cast<std::uint16_t>(((real & 0x30) ^ 0x30) << 4);
          real |= 0x30;
        }
        c.type = static_cast<ColumnType>(real);
        c.meta = length;
        break;
      }
      default:
        break;
    }
  }
  return out;
}

std::size_t value_size(const ColumnLayout& c, const ByteCursor& cur) {
  switch (c.type) {
    case ColumnType::kTiny:
    case ColumnType::kYear:
      return 1;
    case ColumnType::kShort:
      return 2;
    case ColumnType::kInt24:
    case ColumnType::kDate:
    case ColumnType::kNewDate:
    case ColumnType::kTime:
      return 3;
    case ColumnType::kLong:
    case ColumnType::kTimestamp:
      return 4;
    case ColumnType::kLongLong:
    case ColumnType::kDateTime:
      return 8;
    case ColumnType::kFloat:
    case ColumnType::kDouble:
      return c.meta;
    case ColumnType::kNull:
      return 0;
    case ColumnType::kTimestamp2:
      return 4 + (c.meta + 1) / 2;
    case ColumnType::kDateTime2:
      return 5 + (c.meta + 1) / 2;
    case ColumnType::kTime2:
      return 3 + (c.meta + 1) / 2;
    case ColumnType::kNewDecimal:
      if (!valid_decimal(c.meta >> 8, c.meta & 0xff))
        throw Error(ErrorCode::kBadEvent,
                    "invalid DECIMAL(" + std::to_string(c.meta >> 8) + "," +
                        std::to_string(c.meta & 0xff) + ") in the table map",
                    cur.offset());
      return decimal_bin_size(c.meta >> 8, c.meta & 0xff);
    case ColumnType::kBit:
      return (c.meta & 0xff) + ((c.meta >> 8) != 0 ? 1 : 0);
    case ColumnType::kEnum:
    case ColumnType::kSet:
      return c.meta & 0xff;
    case ColumnType::kVarchar:
    case ColumnType::kVarString:
      return prefixed(cur, c.meta > 255 ? 2 : 1);
    case ColumnType::kString:
      return prefixed(cur, c.meta > 255 ? 2 : 1);
    case ColumnType::kTinyBlob:
    case ColumnType::kMediumBlob:
    case ColumnType::kLongBlob:
    case ColumnType::kBlob:
    case ColumnType::kGeometry:
    case ColumnType::kJson:
    case ColumnType::kVector:
      if (c.meta < 1 || c.meta > 4)
        throw Error(ErrorCode::kBadEvent,
                    "column length prefix of " + std::to_string(c.meta) + " bytes", cur.offset());
      return prefixed(cur, c.meta);
    default:
      throw Error(ErrorCode::kUnsupportedFormat,
                  "column type " + std::to_string(static_cast<int>(c.type)) +
                      " has no row encoding binrecover knows",
                  cur.offset());
  }
}

namespace {

// How walk_rows steps over one present column's value: `size` bytes (>= 0), a length prefix of
// -size bytes (-1 to -4) and what it says, or (kAsked) value_size's answer (its checks: an
// invalid DECIMAL, an unknown type, a bad prefix, reported where a value of it is).
constexpr std::int32_t kAsked = INT32_MIN;
std::int32_t column_step(const ColumnLayout& c) {
  switch (c.type) {
    case ColumnType::kVarchar:
    case ColumnType::kVarString:
    case ColumnType::kString:
      return c.meta > 255 ? -2 : -1;
    case ColumnType::kTinyBlob:
    case ColumnType::kMediumBlob:
    case ColumnType::kLongBlob:
    case ColumnType::kBlob:
    case ColumnType::kGeometry:
    case ColumnType::kJson:
    case ColumnType::kVector:
      return c.meta >= 1 && c.meta <= 4 ? -static_cast<std::int32_t>(c.meta) : kAsked;
    case ColumnType::kNewDecimal:
      return valid_decimal(c.meta >> 8, c.meta & 0xff)
                 ? static_cast<std::int32_t>(decimal_bin_size(c.meta >> 8, c.meta & 0xff))
                 : kAsked;
    default:
      break;
  }
  // Every other type value_size knows has a size of its own, read from no byte (one it does
  // not know: asked again where a value of it is, to say so there).
  try {
    return static_cast<std::int32_t>(value_size(c, ByteCursor(Bytes{}, 0)));
  } catch (const Error&) {
    return kAsked;
  }
}

// The steps of the columns an image has (bit i of `present`), in order, into `out`.
void image_steps(Bytes present, const std::vector<ColumnLayout>& layout, std::uint64_t columns,
                 std::vector<std::int32_t>& out, std::vector<std::uint32_t>& index) {
  out.clear();
  index.clear();
  for (std::uint64_t i = 0; i < columns; ++i)
    if (bit(present, i)) {
      out.push_back(column_step(layout[i]));
      index.push_back(static_cast<std::uint32_t>(i));
    }
}

// Walks the rows of a rows event, calling on_row(end) with the offset (within `rows`) just past
// each row (an update's before and after images count as one row), and on_image(end) past each
// image.
template <typename OnRow, typename OnImage>
void walk_rows(const Rows& ev, Bytes rows, const std::vector<ColumnLayout>& layout,
               std::uint64_t offset, OnRow&& on_row, OnImage&& on_image) {
  if (ev.column_count > layout.size())
    throw Error(ErrorCode::kBadEvent,
                "rows event has " + std::to_string(ev.column_count) + " columns, its table map " +
                    std::to_string(layout.size()),
                offset);
  ByteCursor cur(rows, offset);
  // (per thread, reused: no allocation per event)
  thread_local std::vector<std::int32_t> steps[2];
  thread_local std::vector<std::uint32_t> index[2];
  const bool update = ev.kind == RowsKind::kUpdate || ev.kind == RowsKind::kPartialUpdate;
  image_steps(ev.columns_before, layout, ev.column_count, steps[0], index[0]);
  if (update) image_steps(ev.columns_after, layout, ev.column_count, steps[1], index[1]);
  auto image = [&](int which, bool partial_after) {
    if (partial_after) {
      // MySQL PARTIAL_UPDATE_ROWS: packed value_options, then a bitmap of the JSON columns
      // written as diffs when PARTIAL_JSON_UPDATES (1) is set.
      const std::uint64_t options = cur.packed_int();
      if (options & 1) {
        std::size_t json = 0;
        for (std::uint64_t i = 0; i < ev.column_count; ++i)
          if (layout[i].type == ColumnType::kJson) ++json;
        cur.skip((json + 7) / 8);
      }
    }
    const std::vector<std::int32_t>& step = steps[which];
    const std::size_t n = step.size();
    if (n == 0) throw Error(ErrorCode::kBadEvent, "row image with no columns", cur.offset());
    const Bytes nulls = cur.bytes((n + 7) / 8);
    for (std::size_t k = 0; k < n; ++k) {
      if (bit(nulls, k)) continue;
      const std::int32_t size = step[k];
      if (size >= 0) {
        cur.skip(static_cast<std::size_t>(size));
      } else if (size != kAsked) {
        const auto bytes = static_cast<std::size_t>(-size);
        ByteCursor peek = cur;
        cur.skip(bytes + static_cast<std::size_t>(peek.uint_le(bytes)));
      } else {
        cur.skip(value_size(layout[index[which][k]], cur));
      }
    }
  };
  while (!cur.empty()) {
    image(0, false);
    on_image(rows.size() - cur.remaining());
    if (update) {
      image(1, ev.kind == RowsKind::kPartialUpdate);
      on_image(rows.size() - cur.remaining());
    }
    on_row(rows.size() - cur.remaining());
  }
}

constexpr auto kIgnore = [](std::size_t) {};

}  // namespace

std::uint64_t count_rows(const Rows& ev, Bytes rows, const std::vector<ColumnLayout>& layout,
                         std::uint64_t offset) {
  std::uint64_t count = 0;
  walk_rows(
      ev, rows, layout, offset, [&](std::size_t) { ++count; }, kIgnore);
  return count;
}

void row_ends(const Rows& ev, Bytes rows, const std::vector<ColumnLayout>& layout,
              std::uint64_t offset, std::vector<std::size_t>& ends) {
  ends.clear();
  walk_rows(
      ev, rows, layout, offset, [&](std::size_t end) { ends.push_back(end); }, kIgnore);
}

void image_ends(const Rows& ev, Bytes rows, const std::vector<ColumnLayout>& layout,
                std::uint64_t offset, std::vector<std::size_t>& ends) {
  ends.clear();
  walk_rows(ev, rows, layout, offset, kIgnore, [&](std::size_t end) { ends.push_back(end); });
}

}  // namespace binrecover::binlog
