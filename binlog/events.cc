#include "binlog/events.h"

#include <charconv>
#include <string>

#include "binlog/error.h"
#include "binlog/event_decoders.h"

namespace binrecover::binlog {
namespace {

using namespace decoders;  // NOLINT(google-build-using-namespace): event_decoders.h

constexpr std::size_t kServerVersionLen = 50;
constexpr std::size_t kFdeHeaderLength = 19;
constexpr std::uint8_t kChecksumTrailer = 4;

FormatDescription decode_fde_body(ByteCursor& cur, Bytes raw_event) {
  FormatDescription fde;
  fde.binlog_version = cur.u16le();
  if (fde.binlog_version != 4)
    bad(cur, "format description of binlog version " + std::to_string(fde.binlog_version) +
                 " (only version 4 has one)");
  fde.server_version = trim_nul(cur.str(kServerVersionLen));
  fde.created = cur.u32le();
  FormatContext& ctx = fde.context;
  ctx.binlog_version = fde.binlog_version;
  ctx.header_length = cur.u8();
  if (ctx.header_length < 19)
    bad(cur, "format description declares a common header of " + std::to_string(ctx.header_length) +
                 " bytes (at least 19 expected)");
  ctx.mariadb = fde.server_version.find("MariaDB") != std::string_view::npos;
  ctx.server_version = parse_server_version(fde.server_version);
  if (ctx.server_version[0] == 0)
    // Whether the events carry checksums follows from the version: an unreadable one would
    // silently misread every event after it.
    bad(cur, "format description has an unreadable server version");
  std::size_t n = cur.remaining();
  if (version_has_checksum(ctx.server_version, ctx.mariadb)) {
    if (n < 1 + kChecksumTrailer) bad(cur, "format description lacks its checksum algorithm");
    n -= 1 + kChecksumTrailer;
    // The algorithm byte sits just before the 4-byte trailer, which an FDE always carries.
    const auto alg = static_cast<std::uint8_t>(raw_event[raw_event.size() - 1 - kChecksumTrailer]);
    if (alg != 0 && alg != 1 && alg != 255)
      bad(cur, "format description names unknown checksum algorithm " + std::to_string(alg));
    ctx.checksum = alg == 1 ? ChecksumAlg::kCrc32 : ChecksumAlg::kOff;
  }
  Bytes lens = cur.bytes(n);
  const std::string_view v = fde.server_version;
  ctx.drop_tree_types = lens.size() == 22 && v.size() >= 13 && v[0] == '5' && v[1] == '.' &&
                        v[3] == '.' && v.substr(5, 7) == "-a_drop" &&
                        ((v[2] == '1' && v[4] >= '1' && v[4] <= '5' && v[12] == '5') ||
                         (v[2] == '1' && v[4] == '4' && v[12] == '6') ||
                         (v[2] == '2' && v[4] >= '0' && v[4] <= '2' && v[12] == '6'));
  for (std::size_t i = 0; i < lens.size() && i + 1 < ctx.post_header_len.size(); ++i)
    ctx.post_header_len[ctx.event_type(static_cast<std::uint8_t>(i + 1))] =
        static_cast<std::uint8_t>(lens[i]);
  return fde;
}

}  // namespace

FormatContext FormatContext::for_version(std::uint16_t binlog_version) {
  FormatContext ctx;
  ctx.binlog_version = binlog_version;
  ctx.header_length = binlog_version == 1 ? 13 : 19;
  auto set = [&ctx](EventType t, std::uint8_t len) {
    ctx.post_header_len[static_cast<std::uint8_t>(t)] = len;
  };
  set(EventType::kStartV3, 56);
  set(EventType::kQuery, binlog_version >= 4 ? 13 : 11);
  set(EventType::kRotate, binlog_version == 1 ? 0 : 8);
  set(EventType::kLoad, 18);
  set(EventType::kCreateFile, 4);  // after LOAD's 18
  set(EventType::kAppendBlock, 4);
  set(EventType::kExecLoad, 4);
  set(EventType::kDeleteFile, 4);
  set(EventType::kNewLoad, 18);
  set(EventType::kFormatDescription, 84);
  return ctx;
}

EventHeader parse_header(Bytes raw, std::uint8_t header_length, std::uint64_t pos) {
  ByteCursor cur(raw, pos);
  EventHeader h;
  h.timestamp = cur.u32le();
  h.type = cur.u8();
  h.server_id = cur.u32le();
  h.event_size = cur.u32le();
  if (header_length >= 19) {
    h.log_pos = cur.u32le();
    h.flags = cur.u16le();
  }
  return h;
}

std::array<int, 3> parse_server_version(std::string_view v) {
  std::array<int, 3> out{};
  std::size_t i = 0;
  for (int part = 0; part < 3; ++part) {
    int n = 0;
    const auto [ptr, ec] = std::from_chars(v.data() + i, v.data() + v.size(), n);
    if (ec != std::errc()) break;
    out[part] = n;
    i = ptr - v.data();
    if (i >= v.size() || v[i] != '.') break;
    ++i;
  }
  return out;
}

bool version_has_checksum(const std::array<int, 3>& v, bool mariadb) {
  if (mariadb) return v >= std::array<int, 3>{5, 3, 0};
  return v >= std::array<int, 3>{5, 6, 1};
}

FormatDescription decode_format_description(Bytes raw, std::uint64_t pos,
                                            std::uint8_t /*header_length*/) {
  // A format description's own header is always 19 bytes: the length it declares applies to
  // the events after it (Google's 5.1 builds declared longer headers).
  ByteCursor cur(raw, pos);
  cur.skip(kFdeHeaderLength);
  return decode_fde_body(cur, raw);
}

namespace {

Rotate decode_rotate(ByteCursor& cur, const FormatContext& ctx) {
  Rotate r;
  const std::uint8_t ph = ctx.post_header(EventType::kRotate);
  if (ph >= 8) {
    ByteCursor post = cur.take(ph);
    r.position = post.u64le();
  }
  r.next_file = as_text(cur.rest());
  return r;
}

XaPrepare decode_xa_prepare(ByteCursor& cur) {
  XaPrepare x;
  x.one_phase = cur.u8() != 0;
  x.format_id = cur.u32le();
  x.gtrid_len = cur.u32le();
  x.bqual_len = cur.u32le();
  if (x.gtrid_len > 64 || x.bqual_len > 64) bad(cur, "XA id parts longer than 64 bytes");
  x.data = cur.bytes(x.gtrid_len + x.bqual_len);
  return x;
}

Incident decode_incident(ByteCursor& cur) {
  Incident inc;
  inc.type = cur.u16le();
  if (!cur.empty()) {
    const std::uint8_t len = cur.u8();
    inc.message = cur.str(len);
  }
  return inc;
}

// MySQL 8's compressed transaction: type-length-value fields (size, compression, uncompressed
// size; a newer server's fields skipped), then the payload.
TransactionPayload decode_transaction_payload(ByteCursor& cur) {
  TransactionPayload tp;
  bool have_size = false;
  for (;;) {
    const std::uint64_t field = cur.packed_int();
    if (field == 0) break;
    const std::uint64_t len = cur.packed_int();
    if (len > cur.remaining()) bad(cur, "payload header field longer than the event");
    ByteCursor value = cur.take(len);
    switch (field) {
      case 1:
        tp.payload_size = value.packed_int();
        have_size = true;
        break;
      case 2: {
        const std::uint64_t c = value.packed_int();
        if (c != TransactionPayload::kZstd && c != TransactionPayload::kNone)
          bad(value, "unknown payload compression type " + std::to_string(c));
        tp.compression = static_cast<std::uint8_t>(c);
        break;
      }
      case 3:
        tp.uncompressed_size = value.packed_int();
        break;
      default:
        break;  // a field of a newer server: its length let us skip it
    }
  }
  if (!have_size) tp.payload_size = cur.remaining();
  if (tp.payload_size > cur.remaining())
    bad(cur, "payload of " + std::to_string(tp.payload_size) + " bytes runs past the event");
  tp.payload = cur.bytes(tp.payload_size);
  return tp;
}

// The body of an event of `type` (not a format description, not a rows event) after its
// header, checksum dropped.
EventBody decode_body(ByteCursor& cur, const FormatContext& ctx, EventType type) {
  switch (type) {
    case EventType::kStartV3: {
      StartV3 s;
      s.binlog_version = cur.u16le();
      s.server_version = trim_nul(cur.str(kServerVersionLen));
      s.created = cur.u32le();
      return s;
    }
    case EventType::kQuery:
    case EventType::kExecuteLoadQuery:
    case EventType::kMariaQueryCompressed:
      return decode_query(cur, ctx, type);
    case EventType::kStop:
      return Stop{};
    case EventType::kRotate:
      return decode_rotate(cur, ctx);
    case EventType::kIntvar: {
      Intvar iv;
      iv.type = cur.u8();
      iv.value = cur.u64le();
      return iv;
    }
    case EventType::kRand: {
      Rand r;
      r.seed1 = cur.u64le();
      r.seed2 = cur.u64le();
      return r;
    }
    case EventType::kUserVar:
      return decode_user_var(cur);
    case EventType::kXid:
      return Xid{cur.u64le()};
    case EventType::kTableMap:
      return decode_table_map(cur, ctx);
    case EventType::kGtid:
    case EventType::kAnonymousGtid:
      return decode_gtid(cur, type == EventType::kAnonymousGtid);
    case EventType::kGtidTagged:
      return decode_gtid_tagged(cur);
    case EventType::kPreviousGtids:
      return decode_previous_gtids(cur);
    case EventType::kMariaGtid: {
      ByteCursor check = cur;  // MariaDB pads the event to its 19-byte post-header
      check.skip(std::max<std::uint8_t>(ctx.post_header(type), 13));
      return decode_maria_gtid(cur);
    }
    case EventType::kMariaGtidList:
      return decode_gtid_list(cur);
    case EventType::kMariaBinlogCheckpoint: {
      const std::uint32_t len = cur.u32le();
      return BinlogCheckpoint{cur.str(len)};
    }
    case EventType::kMariaAnnotateRows:
      return RowsQuery{as_text(cur.rest())};
    case EventType::kRowsQuery:
      cur.skip(1);
      return RowsQuery{as_text(cur.rest())};
    case EventType::kXaPrepare:
      return decode_xa_prepare(cur);
    case EventType::kIncident:
      return decode_incident(cur);
    case EventType::kHeartbeat:
      return Heartbeat{as_text(cur.rest())};
    case EventType::kLoad:
    case EventType::kNewLoad:
    case EventType::kCreateFile:
      return decode_load(cur, ctx, type);
    case EventType::kExecLoad:
    case EventType::kDeleteFile:
      return LoadFileRef{cur.u32le()};
    case EventType::kBeginLoadQuery:
    case EventType::kAppendBlock: {
      LoadBlock b;
      b.file_id = cur.u32le();
      b.data = cur.rest();
      return b;
    }
    case EventType::kTransactionPayload:
      return decode_transaction_payload(cur);
    case EventType::kMariaStartEncryption: {
      StartEncryption s;
      s.scheme = cur.u8();
      s.key_version = cur.u32le();
      cur.skip(12);  // nonce
      return s;
    }
    default:
      return Unknown{};
  }
}

}  // namespace

Event decode_event(Bytes raw, std::uint64_t pos, const FormatContext& ctx) {
  Event ev;
  ev.pos = pos;
  ev.raw = raw;
  ev.header = parse_header(raw, ctx.header_length, pos);
  ev.header.type = ctx.event_type(ev.header.type);
  // Binlog version 3 (MySQL 4.0 and 4.1) stored where an event starts: servers and mysqlbinlog
  // read it as where it ends, adding the event's size (0, a fake event's, stays 0).
  if (ctx.binlog_version == 3 && ev.header.log_pos != 0 &&
      ev.header.type < static_cast<std::uint8_t>(EventType::kFormatDescription))
    ev.header.log_pos += ev.header.event_size;
  ByteCursor cur(raw, pos);
  const auto type = static_cast<EventType>(ev.header.type);
  if (type == EventType::kFormatDescription) {
    cur.skip(kFdeHeaderLength);
    ev.body = decode_fde_body(cur, raw);
    return ev;
  }
  cur.skip(ctx.header_length);
  if (ctx.checksum == ChecksumAlg::kCrc32) cur.drop_tail(kChecksumTrailer);

  RowsTypeInfo rows_info{};
  if (rows_type_info(type, &rows_info)) {
    ev.body = decode_rows(cur, ctx, type, rows_info);
    return ev;
  }
  ev.body = decode_body(cur, ctx, type);
  return ev;
}

}  // namespace binrecover::binlog
