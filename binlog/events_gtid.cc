#include <charconv>
#include <string>

#include "binlog/event_decoders.h"

namespace binrecover::binlog::decoders {

namespace {

// A signed integer of MySQL's serialization format: zigzag-encoded (0, -1, 1, -2 ... as 0, 1,
// 2, 3 ...).
std::int64_t zigzag(std::uint64_t v) {
  return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
}

// A GTID tag as MySQL defines it (8.4+): at most 32 characters, a letter or '_' first, then
// letters, digits and '_'. Anything else is refused here: a tag is written into SQL literals,
// comments and reports, and no byte of one may end them.
std::string_view checked_tag(const ByteCursor& cur, std::string_view tag) {
  if (tag.size() > 32) bad(cur, "GTID tag longer than 32 characters");
  for (std::size_t i = 0; i < tag.size(); ++i) {
    const auto c = static_cast<unsigned char>(tag[i]);
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!letter && !(i > 0 && c >= '0' && c <= '9'))
      bad(cur, "GTID tag is not letters, digits and '_' beginning with a letter or '_'");
  }
  return tag;
}

}  // namespace

Gtid decode_gtid(ByteCursor& cur, bool anonymous) {
  Gtid g;
  g.anonymous = anonymous;
  g.flags = cur.u8();
  Bytes sid = cur.bytes(16);
  for (std::size_t i = 0; i < 16; ++i) g.sid[i] = static_cast<std::uint8_t>(sid[i]);
  g.gno = static_cast<std::int64_t>(cur.u64le());
  if (cur.empty()) return g;
  if (cur.u8() == 2) {  // logical clock timestamps
    g.last_committed = static_cast<std::int64_t>(cur.u64le());
    g.sequence_number = static_cast<std::int64_t>(cur.u64le());
  }
  if (cur.remaining() >= 7) {
    std::uint64_t ts = cur.u56le();
    const bool has_original = ts & (1ULL << 55);
    ts &= ~(1ULL << 55);
    g.immediate_commit_ts = ts;
    g.original_commit_ts = has_original ? cur.u56le() : ts;
  }
  if (!cur.empty()) g.transaction_length = cur.packed_int();
  if (cur.remaining() >= 4) {
    std::uint32_t v = cur.u32le();
    const bool has_original = v & (1U << 31);
    v &= ~(1U << 31);
    g.immediate_server_version = v;
    g.original_server_version = has_original ? cur.u32le() : v;
  }
  return g;
}

Gtid decode_gtid_tagged(ByteCursor& cur) {
  Gtid g;
  const std::uint64_t start = cur.offset();
  cur.varlen();  // format version
  const std::uint64_t size = cur.varlen();
  cur.varlen();  // last non-ignorable field id
  if (size > cur.offset() - start + cur.remaining()) bad(cur, "tagged GTID longer than the event");
  std::optional<std::uint64_t> immediate_ts, original_ts;
  std::optional<std::uint32_t> immediate_version, original_version;
  while (cur.offset() - start < size) {
    const std::uint64_t field = cur.varlen();
    switch (field) {
      case 0:
        g.flags = static_cast<std::uint8_t>(cur.varlen());
        break;
      case 1:
        for (auto& b : g.sid) b = static_cast<std::uint8_t>(cur.varlen());
        break;
      case 2:
        g.gno = zigzag(cur.varlen());  // int64 on the server: zigzag
        break;
      case 3: {
        const std::uint64_t len = cur.varlen();
        if (len > 32) bad(cur, "GTID tag longer than 32 characters");
        g.tag = checked_tag(cur, cur.str(len));
        break;
      }
      case 4:
        g.last_committed = zigzag(cur.varlen());  // int64 on the server: zigzag
        break;
      case 5:
        g.sequence_number = zigzag(cur.varlen());  // int64 on the server: zigzag
        break;
      case 6:
        immediate_ts = cur.varlen();
        break;
      case 7:
        original_ts = cur.varlen();
        break;
      case 8:
        g.transaction_length = cur.varlen();
        break;
      case 9:
        immediate_version = static_cast<std::uint32_t>(cur.varlen());
        break;
      case 10:
        original_version = static_cast<std::uint32_t>(cur.varlen());
        break;
      case 11:
        cur.varlen();  // commit group ticket
        break;
      default:
        // A field of a newer server: its encoding is unknown, the rest cannot be read.
        cur.skip(cur.remaining());
        break;
    }
    if (cur.empty()) break;
  }
  g.immediate_commit_ts = immediate_ts;
  g.original_commit_ts = original_ts ? original_ts : immediate_ts;
  g.immediate_server_version = immediate_version;
  g.original_server_version = original_version ? original_version : immediate_version;
  return g;
}

MariaGtid decode_maria_gtid(ByteCursor& cur) {
  MariaGtid g;
  g.seq_no = cur.u64le();
  g.domain_id = cur.u32le();
  g.flags = cur.u8();
  if (g.flags & MariaGtid::kGroupCommitId) g.commit_id = cur.u64le();
  if (g.flags & (MariaGtid::kPreparedXa | MariaGtid::kCompletedXa)) {
    g.xa_format_id = cur.u32le();
    g.xa_gtrid_len = cur.u8();
    g.xa_bqual_len = cur.u8();
    if (g.xa_gtrid_len > 64 || g.xa_bqual_len > 64) bad(cur, "XA id parts longer than 64 bytes");
    g.xa_data = cur.bytes(g.xa_gtrid_len + g.xa_bqual_len);
  }
  return g;  // flags_extra and later fields are not needed to replay
}

MariaGtidList decode_gtid_list(ByteCursor& cur) {
  MariaGtidList l;
  const std::uint32_t word = cur.u32le();
  l.count = word & 0x0fffffff;
  l.flags = static_cast<std::uint8_t>(word >> 28);
  if (l.count > cur.remaining() / 16) bad(cur, "GTID list longer than the event");
  l.entries = cur.bytes(std::size_t{l.count} * 16);
  return l;
}

// MySQL's Previous_gtids: checked whole (tags, interval counts within the event), kept as bytes.
PreviousGtids decode_previous_gtids(ByteCursor& cur) {
  ByteCursor check = cur;
  std::uint64_t n = check.u64le();
  const bool tagged = (n >> 56) == 1;
  if (tagged) n = (n >> 8) & 0xffffffffffffULL;
  for (std::uint64_t i = 0; i < n; ++i) {
    check.skip(16);
    if (tagged) {
      const std::uint64_t len = check.varlen();
      if (len > 32) bad(check, "GTID tag longer than 32 characters");
      checked_tag(check, check.str(len));
    }
    const std::uint64_t intervals = check.u64le();
    if (intervals > check.remaining() / 16) bad(check, "GTID set longer than the event");
    check.skip(intervals * 16);
  }
  return PreviousGtids{cur.rest()};
}

}  // namespace binrecover::binlog::decoders
