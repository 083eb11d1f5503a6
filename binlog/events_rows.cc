#include <charconv>
#include <string>

#include "binlog/event_decoders.h"

namespace binrecover::binlog::decoders {

namespace {

// The extra row data of a v2 rows event: tagged sections, as servers read them. 0: NDB info
// (length byte counting itself and the format byte, then data), 1: MySQL partition ids (two
// bytes, four for updates). An unknown tag ends the data (servers skip the rest); a section
// that does not fit, or an NDB length below its own header, is a damaged event.
void check_extra_row_data(Bytes extra, RowsKind kind, std::uint64_t offset) {
  ByteCursor c(extra, offset);
  while (!c.empty()) {
    const std::uint8_t tag = c.u8();
    if (tag == 0) {
      if (c.remaining() < 2)
        throw Error(ErrorCode::kBadEvent, "rows event: extra row data tag 0 without its length",
                    c.offset());
      const std::size_t left = c.remaining();
      const std::uint8_t len = c.u8();
      if (len < 2 || len > left)
        throw Error(ErrorCode::kBadEvent,
                    "rows event: extra row data tag 0 has length " + std::to_string(len) + " (" +
                        std::to_string(left) + " bytes left)",
                    c.offset() - 1);
      c.skip(len - 1);
    } else if (tag == 1) {
      const std::size_t n = kind == RowsKind::kUpdate || kind == RowsKind::kPartialUpdate ? 4 : 2;
      if (c.remaining() < n)
        throw Error(ErrorCode::kBadEvent, "rows event: extra row data partition tag cut short",
                    c.offset());
      c.skip(n);
    } else {
      return;
    }
  }
}

}  // namespace

TableMap decode_table_map(ByteCursor& cur, const FormatContext& ctx) {
  TableMap tm;
  ByteCursor post = cur.take(ctx.post_header(EventType::kTableMap));
  tm.table_id = read_table_id(post, ctx.post_header(EventType::kTableMap));
  tm.flags = post.u16le();
  const std::uint8_t db_len = cur.u8();
  tm.db = cur.str(db_len);
  cur.skip(1);
  const std::uint8_t table_len = cur.u8();
  tm.table = cur.str(table_len);
  cur.skip(1);
  tm.column_count = cur.packed_int();
  if (tm.column_count > cur.remaining()) bad(cur, "column count exceeds the event");
  tm.column_types = cur.bytes(tm.column_count);
  tm.metadata_offset = tm.optional_metadata_offset = cur.offset();
  if (cur.empty()) return tm;  // MySQL 5.1.15-5.1.17 wrote neither metadata nor null bits
  const std::uint64_t meta_len = cur.packed_int();
  if (meta_len > cur.remaining()) bad(cur, "metadata length exceeds the event");
  tm.metadata_offset = cur.offset();
  tm.metadata = cur.bytes(meta_len);
  tm.null_bits = cur.bytes((tm.column_count + 7) / 8);
  tm.optional_metadata_offset = cur.offset();
  tm.optional_metadata = cur.rest();
  return tm;
}

Rows decode_rows(ByteCursor& cur, const FormatContext& ctx, EventType type,
                 const RowsTypeInfo& info) {
  Rows r;
  r.kind = info.kind;
  r.version = info.version;
  r.compressed = info.compressed;
  std::uint8_t ph = ctx.post_header(type);
  if (ph == 0) ph = info.version == 2 ? 10 : 8;  // FDEs of servers that predate the type
  ByteCursor post = cur.take(ph);
  r.table_id = read_table_id(post, ph);
  r.flags = post.u16le();
  if (info.version == 2) {
    const std::uint16_t extra_len = post.u16le();
    if (extra_len < 2) bad(post, "rows event extra-data length below 2");
    // The extra data belongs to the post-header in v2 but its length is only known here.
    const std::size_t extra = extra_len - 2;
    if (post.remaining() >= extra) {
      r.extra = post.bytes(extra);
    } else {
      // Servers declare a 10-byte post-header: the extra data follows it in the body.
      post.skip(post.remaining());
      r.extra = cur.bytes(extra);
    }
    check_extra_row_data(r.extra, info.kind, cur.offset() - r.extra.size());
  }
  r.column_count = cur.packed_int();
  const std::uint64_t bitmap = (r.column_count + 7) / 8;
  if (bitmap > cur.remaining()) bad(cur, "column count exceeds the event");
  r.columns_before = cur.bytes(bitmap);
  if (info.kind == RowsKind::kUpdate || info.kind == RowsKind::kPartialUpdate)
    r.columns_after = cur.bytes(bitmap);
  r.rows = cur.rest();
  return r;
}

}  // namespace binrecover::binlog::decoders
