#include "binlog/event_edit.h"

#include "binlog/checksum.h"
#include "binlog/error.h"
#include "binlog/event_type.h"

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
    case RowsKind::kPartialUpdate:
      break;
  }
  (void)t;
  return 0;
}

}  // namespace

void inverted_rows_event(const Event& ev, const Rows& rows, Bytes images,
                         const std::vector<ColumnLayout>& layout, const FormatContext& ctx,
                         std::vector<std::byte>& out) {
  RowsTypeInfo info{};
  if (!rows_type_info(ev.type(), &info) || info.version == 0 ||
      rows.kind == RowsKind::kPartialUpdate)
    throw Error(ErrorCode::kUnsupportedFormat,
                std::string(event_type_name(ev.header.type)) +
                    " cannot be inverted (pre-GA row events, or MySQL partial JSON updates)",
                ev.pos);
  const bool update = rows.kind == RowsKind::kUpdate;
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
    out.insert(out.end(), images.begin() + static_cast<std::ptrdiff_t>(ends[first]),
               images.begin() + static_cast<std::ptrdiff_t>(ends[first + 1]));
    out.insert(out.end(), images.begin() + static_cast<std::ptrdiff_t>(start),
               images.begin() + static_cast<std::ptrdiff_t>(ends[first]));
  }
}

}  // namespace binrecover::binlog
