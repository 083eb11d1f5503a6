#include "binlog/event_edit.h"

#include "binlog/checksum.h"
#include "binlog/error.h"
#include "binlog/event_type.h"
#include "binlog/maria_compression.h"

namespace binrecover::binlog {

void seal_event(std::vector<std::byte>& ev, bool crc) {
  const auto size = static_cast<std::uint32_t>(ev.size());
  for (int b = 0; b < 4; ++b) ev[9 + b] = static_cast<std::byte>(size >> (8 * b));
  if (!crc || ev.size() < 4) return;
  const std::size_t body = ev.size() - 4;
  const std::uint32_t sum = crc32(0, ev.data(), body);
  for (int b = 0; b < 4; ++b) ev[body + b] = static_cast<std::byte>(sum >> (8 * b));
}

std::size_t rows_flags_offset(const FormatContext& ctx, std::uint8_t type) {
  const std::uint8_t ph = ctx.post_header_len[type];
  return ctx.header_length + (ph == 6 ? 4 : 6);
}

void renamed_table_map(const Event& ev, const TableMap& tm, std::string_view db,
                       std::vector<std::byte>& out) {
  const Bytes raw = ev.raw;
  const auto name_at =
      static_cast<std::size_t>(reinterpret_cast<const std::byte*>(tm.db.data()) - raw.data());
  if (name_at == 0 || name_at > raw.size() || db.size() > 255)
    throw Error(ErrorCode::kUsage,
                "the database name '" + std::string(db) + "' does not fit a table map", ev.pos);
  out.assign(raw.begin(), raw.begin() + static_cast<std::ptrdiff_t>(name_at - 1));
  out.push_back(static_cast<std::byte>(db.size()));
  const auto* d = reinterpret_cast<const std::byte*>(db.data());
  out.insert(out.end(), d, d + db.size());
  out.insert(out.end(), raw.begin() + static_cast<std::ptrdiff_t>(name_at + tm.db.size()),
             raw.end());
}

void rewritten_event(const Event& ev, Bytes raw, const FormatContext& ctx, bool stmt_end,
                     std::vector<std::byte>& out) {
  const bool crc = ctx.checksum == ChecksumAlg::kCrc32;
  const auto* rows = std::get_if<Rows>(&ev.body);
  if (rows != nullptr && rows->compressed) {
    const auto head = static_cast<std::size_t>(rows->rows.data() - raw.data());
    out.assign(raw.begin(), raw.begin() + static_cast<std::ptrdiff_t>(head));
    maria_uncompress_append(rows->rows, out, ev.pos + head);
    if (crc) out.resize(out.size() + 4);
    const auto code = static_cast<std::uint8_t>(raw[4]);
    // 166-168 -> 23-25 (v1), 169-171 -> 30-32 (v2)
    out[4] = static_cast<std::byte>(code <= 168 ? code - 166 + 23 : code - 169 + 30);
  } else {
    out.assign(raw.begin(), raw.end());
  }
  if (ev.in_payload && crc) out.resize(out.size() + 4);
  if (stmt_end) {
    const std::size_t at = rows_flags_offset(ctx, ev.header.type);
    if (at + 2 <= out.size()) out[at] |= std::byte{kStmtEndFlag};
  }
  seal_event(out, crc);
}

void cut_rows_event(Bytes raw, std::size_t head, std::size_t tail, std::size_t flags_at,
                    const std::vector<std::size_t>& row_ends, bool crc,
                    const std::function<bool(std::size_t)>& fits, std::vector<std::byte>& piece,
                    const std::function<void(Bytes)>& on_piece) {
  const Bytes images = raw.subspan(head, raw.size() - head - tail);
  const bool stmt_end = (raw[flags_at] & std::byte{kStmtEndFlag}) != std::byte{0};
  std::size_t from = 0;  // start of the next piece's rows
  std::size_t k = 0;
  while (k < row_ends.size()) {
    std::size_t to = row_ends[k++];  // at least one row
    while (k < row_ends.size() && fits(head + (row_ends[k] - from) + tail)) to = row_ends[k++];
    piece.clear();
    piece.reserve(head + (to - from) + tail);
    piece.insert(piece.end(), raw.begin(), raw.begin() + static_cast<std::ptrdiff_t>(head));
    piece.insert(piece.end(), images.begin() + static_cast<std::ptrdiff_t>(from),
                 images.begin() + static_cast<std::ptrdiff_t>(to));
    piece.resize(piece.size() + tail);
    if (stmt_end && k < row_ends.size()) piece[flags_at] &= ~std::byte{kStmtEndFlag};
    seal_event(piece, crc);
    on_piece(Bytes(piece.data(), piece.size()));
    from = to;
  }
}

namespace {

// The uncompressed type of the inverse event.
std::uint8_t inverse_type(EventType t, const RowsTypeInfo& info) {
  const bool v2 = info.version == 2;
  switch (info.kind) {
    case RowsKind::kWrite:
      return static_cast<std::uint8_t>(v2 ? EventType::kDeleteRowsV2 : EventType::kDeleteRowsV1);
    case RowsKind::kDelete:
      return static_cast<std::uint8_t>(v2 ? EventType::kWriteRowsV2 : EventType::kWriteRowsV1);
    case RowsKind::kUpdate:
      return static_cast<std::uint8_t>(v2 ? EventType::kUpdateRowsV2 : EventType::kUpdateRowsV1);
    case RowsKind::kPartialUpdate:  // (only when no JSON column holds a diff)
      return static_cast<std::uint8_t>(EventType::kUpdateRowsV2);
  }
  (void)t;
  return 0;
}

bool has_bit(Bytes bitmap, std::uint64_t i) {
  return i / 8 < bitmap.size() && (static_cast<std::uint8_t>(bitmap[i / 8]) & (1U << (i % 8))) != 0;
}

// A PARTIAL_UPDATE_ROWS after image [at, end) as a whole image, appended to `out`: its
// value_options prefix (packed options, then with PARTIAL_JSON_UPDATES a bitmap over the JSON
// columns written as diffs) dropped, and a JSON column written as an empty diff list (MySQL's
// form of a JSON column the statement did not change) replaced by its value in the row's
// before image [before, at). A column with diffs holds only the change of its document, not
// the new value: that cannot be inverted, and throws.
void append_whole_after_image(Bytes images, std::size_t before, std::size_t at, std::size_t end,
                              const Rows& rows, const std::vector<ColumnLayout>& layout,
                              std::uint64_t offset, std::vector<std::byte>& out) {
  const std::uint64_t n = std::min<std::uint64_t>(rows.column_count, layout.size());
  // Where each column's value is in the before image (size 0: NULL or absent).
  thread_local std::vector<std::pair<std::size_t, std::size_t>> old_values;
  old_values.assign(n, {0, 0});
  ByteCursor b(images.subspan(before, at - before), offset + before);
  const Bytes old_nulls = b.bytes((bits_set(rows.columns_before, n) + 7) / 8);
  std::size_t k = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    if (!has_bit(rows.columns_before, i) || has_bit(old_nulls, k++)) continue;
    const std::size_t size = value_size(layout[i], b);
    old_values[i] = {static_cast<std::size_t>(b.offset() - offset), size};
    b.skip(size);
  }
  ByteCursor a(images.subspan(at, end - at), offset + at);
  Bytes partial;
  if (a.packed_int() & 1) {
    std::size_t json = 0;
    for (std::uint64_t i = 0; i < n; ++i)
      if (layout[i].type == ColumnType::kJson) ++json;
    partial = a.bytes((json + 7) / 8);
  }
  const Bytes nulls = a.bytes((bits_set(rows.columns_after, n) + 7) / 8);
  out.insert(out.end(), nulls.begin(), nulls.end());
  k = 0;
  std::size_t json = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    const bool is_json = layout[i].type == ColumnType::kJson;
    const bool diff = is_json && has_bit(partial, json);
    if (is_json) ++json;
    if (!has_bit(rows.columns_after, i) || has_bit(nulls, k++)) continue;
    const std::size_t size = value_size(layout[i], a);
    const Bytes value = a.bytes(size);
    if (!diff) {
      out.insert(out.end(), value.begin(), value.end());
      continue;
    }
    if (size != layout[i].meta || old_values[i].second == 0)  // diffs follow the length
      throw Error(ErrorCode::kUnsupportedFormat,
                  "a partial JSON update (binlog_row_value_options=PARTIAL_JSON) holds only "
                  "the change of the document, not its new value: it cannot be inverted",
                  a.offset() - size);
    const auto from = images.begin() + static_cast<std::ptrdiff_t>(old_values[i].first);
    out.insert(out.end(), from, from + static_cast<std::ptrdiff_t>(old_values[i].second));
  }
}

}  // namespace

void inverted_rows_event(const Event& ev, const Rows& rows, Bytes images,
                         const std::vector<ColumnLayout>& layout, const FormatContext& ctx,
                         std::vector<std::byte>& out) {
  RowsTypeInfo info{};
  if (!rows_type_info(ev.type(), &info) || info.version == 0)
    throw Error(
        ErrorCode::kUnsupportedFormat,
        std::string(event_type_name(ev.header.type)) + " cannot be inverted (pre-GA row events)",
        ev.pos);
  const bool partial = rows.kind == RowsKind::kPartialUpdate;
  const bool update = rows.kind == RowsKind::kUpdate || partial;
  if (bits_set(rows.columns_before, rows.column_count) != rows.column_count ||
      (update && bits_set(rows.columns_after, rows.column_count) != rows.column_count))
    throw Error(ErrorCode::kUnsupportedFormat,
                "the row images are not whole rows: undo needs binlog_row_image=FULL", ev.pos);
  const Bytes raw = ev.raw;
  const auto head = static_cast<std::size_t>(rows.rows.data() - raw.data());
  out.assign(raw.begin(), raw.begin() + static_cast<std::ptrdiff_t>(head));
  out[4] = static_cast<std::byte>(inverse_type(ev.type(), info));
  const std::size_t flags_at = rows_flags_offset(ctx, static_cast<std::uint8_t>(out[4]));
  if (flags_at + 2 > head) throw Error(ErrorCode::kBadEvent, "rows event too short", ev.pos);
  out[flags_at] |= std::byte{kStmtEndFlag};
  if (update) {
    // The two bitmaps trade places (they have the same length).
    const auto before = static_cast<std::size_t>(rows.columns_before.data() - raw.data());
    const auto after = static_cast<std::size_t>(rows.columns_after.data() - raw.data());
    for (std::size_t i = 0; i < rows.columns_before.size(); ++i)
      std::swap(out[before + i], out[after + i]);
  }
  std::vector<std::size_t> ends;
  image_ends(rows, images, layout, ev.pos + head, ends);
  const std::size_t per_row = update ? 2 : 1;
  for (std::size_t r = ends.size() / per_row; r-- > 0;) {
    const std::size_t first = r * per_row;
    const std::size_t start = first == 0 ? 0 : ends[first - 1];
    if (!update) {
      out.insert(out.end(), images.begin() + static_cast<std::ptrdiff_t>(start),
                 images.begin() + static_cast<std::ptrdiff_t>(ends[first]));
      continue;
    }
    // after image, then before image
    if (partial)
      append_whole_after_image(images, start, ends[first], ends[first + 1], rows, layout,
                               ev.pos + head, out);
    else
      out.insert(out.end(), images.begin() + static_cast<std::ptrdiff_t>(ends[first]),
                 images.begin() + static_cast<std::ptrdiff_t>(ends[first + 1]));
    out.insert(out.end(), images.begin() + static_cast<std::ptrdiff_t>(start),
               images.begin() + static_cast<std::ptrdiff_t>(ends[first]));
  }
}

}  // namespace binrecover::binlog
