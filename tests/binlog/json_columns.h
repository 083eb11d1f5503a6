#pragma once

// Test helper shared by json_binary_test and json_binary_check: finds the JSON column values in
// the row events of a binlog file (transaction payloads included) by walking each row image
// with the table map's column layout.

#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "binlog/byte_cursor.h"
#include "binlog/error.h"
#include "binlog/events.h"
#include "binlog/payload.h"
#include "binlog/reader.h"
#include "binlog/row_layout.h"
#include "binlog/source.h"

namespace binrecover::binlog::testutil {

constexpr std::uint64_t kPos = 5000;  // the file offset the JSON tests decode a document at

// A document of the JSON tests from its bytes.
using Doc = std::vector<std::byte>;
inline Doc doc(std::initializer_list<int> b) {
  Doc d;
  for (int v : b) d.push_back(static_cast<std::byte>(v));
  return d;
}

struct JsonCell {
  std::uint64_t event_pos = 0;   // the rows event (or its transaction payload)
  std::uint64_t offset = 0;      // where the value starts (file offset, or payload-relative)
  bool diff = false;             // a PARTIAL_UPDATE_ROWS diff, not a binary JSON document
  std::vector<std::byte> bytes;  // the value, without its length prefix
};

namespace detail {

inline bool bit_set(Bytes bitmap, std::uint64_t i) {
  return (static_cast<std::uint8_t>(bitmap[i / 8]) & (1U << (i % 8))) != 0;
}

// Row images: [partial after image: packed value_options / (options & 1: bitmap over the
// table's JSON columns, set = the value is a diff)] / null bitmap over present columns /
// values of the present, non-NULL columns.
inline void walk_rows(const Rows& ev, std::uint64_t pos, const std::vector<ColumnLayout>& layout,
                      std::vector<JsonCell>& cells) {
  if (ev.compressed) throw Error(ErrorCode::kUnsupportedFormat, "compressed rows event", pos);
  if (ev.column_count > layout.size())
    throw Error(ErrorCode::kBadEvent, "more columns than the table map", pos);
  ByteCursor cur(ev.rows, pos);
  auto image = [&](Bytes present, bool partial_after) {
    Bytes diffs;
    if (partial_after && (cur.packed_int() & 1)) {
      std::size_t json = 0;
      for (std::uint64_t i = 0; i < ev.column_count; ++i)
        if (layout[i].type == ColumnType::kJson) ++json;
      diffs = cur.bytes((json + 7) / 8);
    }
    std::size_t n = 0;
    for (std::uint64_t i = 0; i < ev.column_count; ++i) n += bit_set(present, i) ? 1 : 0;
    const Bytes nulls = cur.bytes((n + 7) / 8);
    std::size_t k = 0, json_index = 0;
    for (std::uint64_t i = 0; i < ev.column_count; ++i) {
      const bool is_json = layout[i].type == ColumnType::kJson;
      const bool diff = is_json && !diffs.empty() && bit_set(diffs, json_index);
      if (is_json) ++json_index;
      if (!bit_set(present, i)) continue;
      if (bit_set(nulls, k++)) continue;
      const std::size_t size = value_size(layout[i], cur);
      if (!is_json) {
        cur.skip(size);
        continue;
      }
      cur.skip(layout[i].meta);  // length prefix
      JsonCell cell;
      cell.event_pos = pos;
      cell.offset = cur.offset();
      cell.diff = diff;
      const Bytes value = cur.bytes(size - layout[i].meta);
      cell.bytes.assign(value.begin(), value.end());
      cells.push_back(std::move(cell));
    }
  };
  const bool update = ev.kind == RowsKind::kUpdate || ev.kind == RowsKind::kPartialUpdate;
  while (!cur.empty()) {
    image(ev.columns_before, false);
    if (update) image(ev.columns_after, ev.kind == RowsKind::kPartialUpdate);
  }
}

inline void handle(const Event& ev, std::map<std::uint64_t, std::vector<ColumnLayout>>& maps,
                   std::vector<JsonCell>& cells) {
  if (const auto* tm = std::get_if<TableMap>(&ev.body)) {
    maps[tm->table_id] = column_layout(*tm);
  } else if (const auto* rows = std::get_if<Rows>(&ev.body)) {
    const auto it = maps.find(rows->table_id);
    if (it == maps.end())
      throw Error(ErrorCode::kMissingTableMap, "rows event without a table map", ev.pos);
    walk_rows(*rows, ev.pos, it->second, cells);
  }
}

}  // namespace detail

// Every non-NULL JSON column value of every row image in `path`, in log order (an update's
// before image, then its after image).
inline std::vector<JsonCell> json_cells(const std::string& path) {
  std::vector<JsonCell> cells;
  std::map<std::uint64_t, std::vector<ColumnLayout>> maps;
  FdSource source(path);
  EventReader reader(source, ReaderOptions{});
  while (std::optional<Event> ev = reader.next()) {
    if (const auto* tp = std::get_if<TransactionPayload>(&ev->body)) {
      PayloadSource inner_source(*tp, ev->pos, path);
      EventReader inner(inner_source, ReaderOptions{}, {}, payload_context(reader.format()));
      while (std::optional<Event> iev = inner.next()) detail::handle(*iev, maps, cells);
    } else {
      detail::handle(*ev, maps, cells);
    }
  }
  return cells;
}

}  // namespace binrecover::binlog::testutil
