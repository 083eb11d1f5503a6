#include "binlog/events.h"

#include <charconv>
#include <string>

#include "binlog/error.h"

namespace binrecover::binlog {
namespace {

constexpr std::size_t kServerVersionLen = 50;
constexpr std::size_t kFdeHeaderLength = 19;
constexpr std::uint8_t kChecksumTrailer = 4;

[[noreturn]] void bad(const ByteCursor& cur, std::string message) {
  throw Error(ErrorCode::kBadEvent, std::move(message), cur.offset());
}

std::string_view trim_nul(std::string_view s) {
  const auto nul = s.find('\0');
  return nul == std::string_view::npos ? s : s.substr(0, nul);
}

// Table ids are 6 bytes since MySQL 5.1.15 and 4 bytes before, recognisable by the post-header.
std::uint64_t read_table_id(ByteCursor& cur, std::uint8_t post_header_len) {
  return post_header_len == 6 ? cur.u32le() : cur.u48le();
}

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

void decode_status_vars(ByteCursor cur, QueryStatus& st) {
  while (!cur.empty()) {
    const std::uint8_t code = cur.u8();
    switch (code) {
      case 0:
        st.flags2 = cur.u32le();
        break;
      case 1:
        st.sql_mode = cur.u64le();
        break;
      case 2: {  // 5.0.0-5.0.3: length, string, NUL
        const std::uint8_t len = cur.u8();
        st.catalog = cur.str(len);
        cur.skip(1);
        break;
      }
      case 3: {
        const std::uint16_t inc = cur.u16le();
        st.auto_increment = std::pair{inc, cur.u16le()};
        break;
      }
      case 4: {
        std::array<std::uint16_t, 3> cs{};
        for (auto& c : cs) c = cur.u16le();
        st.charset = cs;
        break;
      }
      case 5: {
        const std::uint8_t len = cur.u8();
        st.time_zone = cur.str(len);
        break;
      }
      case 6: {
        const std::uint8_t len = cur.u8();
        st.catalog = cur.str(len);
        break;
      }
      case 7:
        st.lc_time_names = cur.u16le();
        break;
      case 8:
        st.charset_database = cur.u16le();
        break;
      case 9:
        st.table_map_for_update = cur.u64le();
        break;
      case 10:  // Q_MASTER_DATA_WRITTEN_CODE, relay logs of 5.0
        cur.skip(4);
        break;
      case 11: {
        const std::uint8_t ulen = cur.u8();
        st.invoker_user = cur.str(ulen);
        const std::uint8_t hlen = cur.u8();
        st.invoker_host = cur.str(hlen);
        break;
      }
      case 12: {
        st.has_updated_dbs = true;
        const std::uint8_t count = cur.u8();
        if (count == 254) {  // OVER_MAX_DBS_IN_EVENT_MTS: too many to list
          st.updated_dbs_over_max = true;
          break;
        }
        for (std::uint8_t i = 0; i < count; ++i) {
          std::string_view name = cur.cstr();
          if (st.updated_db_count < st.updated_dbs.size())
            st.updated_dbs[st.updated_db_count++] = name;
          else
            st.updated_dbs_over_max = true;
        }
        break;
      }
      case 13:
        st.microseconds = cur.u24le();
        break;
      case 14:  // Q_COMMIT_TS (never written by a released server)
        cur.skip(8);
        break;
      case 15:  // Q_COMMIT_TS2
        cur.skip(8);
        break;
      case 16:
        st.explicit_defaults_ts = cur.u8();
        break;
      case 17:
        st.ddl_xid = cur.u64le();
        break;
      case 18:
        st.default_collation_utf8mb4 = cur.u16le();
        break;
      case 19:
        st.sql_require_primary_key = cur.u8();
        break;
      case 20:
        st.default_table_encryption = cur.u8();
        break;
      case 128:  // MariaDB Q_HRNOW: microseconds of the statement's timestamp
        st.microseconds = cur.u24le();
        break;
      case 129:  // MariaDB Q_XID
        st.ddl_xid = cur.u64le();
        break;
      case 130:  // MariaDB Q_GTID_FLAGS3: u8 flags / [u64 sa_seq_no with COMMIT/ROLLBACK ALTER]
        st.gtid_flags3 = cur.u8();
        if (*st.gtid_flags3 & (4 | 8)) cur.skip(8);
        break;
      case 131: {  // MariaDB 11.2 Q_CHARACTER_SET_COLLATIONS: u8 n / n * (u16 cs, u16 coll)
        const std::uint8_t n = cur.u8();
        st.character_set_collations = cur.bytes(std::size_t{n} * 4);
        break;
      }
      default:
        // Unknown code: its length is unknown too, so the rest cannot be parsed. The query
        // text is still found through the status block's total length.
        st.unknown_code = code;
        return;
    }
  }
}

Query decode_query(ByteCursor& cur, const FormatContext& ctx, EventType type) {
  Query q;
  const std::uint8_t ph = ctx.post_header(type);
  ByteCursor post = cur.take(ph);
  q.thread_id = post.u32le();
  q.exec_time = post.u32le();
  const std::uint8_t db_len = post.u8();
  q.error_code = post.u16le();
  std::uint16_t status_len = 0;
  if (ctx.binlog_version >= 4) status_len = post.u16le();
  if (type == EventType::kExecuteLoadQuery) {
    q.file_id = post.u32le();
    q.fn_pos_start = post.u32le();
    q.fn_pos_end = post.u32le();
    q.dup_handling = post.u8();
  }
  decode_status_vars(cur.take(status_len), q.status);
  q.db = cur.str(db_len);
  if (cur.u8() != 0) bad(cur, "database name is not NUL-terminated");
  q.query = as_text(cur.rest());
  q.compressed = type == EventType::kMariaQueryCompressed;
  return q;
}

UserVar decode_user_var(ByteCursor& cur) {
  UserVar v;
  const std::uint32_t name_len = cur.u32le();
  v.name = cur.str(name_len);
  v.is_null = cur.u8() != 0;
  if (v.is_null) return v;
  v.value_type = cur.u8();
  v.charset = cur.u32le();
  const std::uint32_t value_len = cur.u32le();
  v.value = cur.bytes(value_len);
  if (!cur.empty()) v.flags = cur.u8();
  return v;
}

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

LoadData decode_load(ByteCursor& cur, const FormatContext& ctx, EventType type) {
  LoadData l;
  // CREATE_FILE's post-header is LOAD's, then its own (file_id), as Create_file_log_event
  // reads it: the lengths of both from the format description.
  const std::uint8_t ph = ctx.post_header(type == EventType::kCreateFile ? EventType::kLoad : type);
  if (ph < 18) bad(cur, "LOAD DATA post-header of " + std::to_string(ph) + " bytes");
  ByteCursor post = cur.take(ph);
  l.thread_id = post.u32le();
  l.exec_time = post.u32le();
  l.skip_lines = post.u32le();
  const std::uint8_t table_len = post.u8();
  const std::uint8_t db_len = post.u8();
  l.num_fields = post.u32le();
  if (type == EventType::kCreateFile) {
    ByteCursor own = cur.take(ctx.post_header(EventType::kCreateFile));
    if (own.remaining() >= 4) l.file_id = own.u32le();
  }
  if (type == EventType::kLoad) {
    std::string_view* terms[] = {&l.field_term, &l.enclosed, &l.line_term, &l.line_start,
                                 &l.escaped};
    const std::string_view chars = cur.str(5);
    l.opt_flags = cur.u8();
    const std::uint8_t empty = cur.u8();
    for (int k = 0; k < 5; ++k)
      *terms[k] = (empty & (1U << k)) ? std::string_view() : chars.substr(k, 1);
  } else {
    for (std::string_view* t :
         {&l.field_term, &l.enclosed, &l.line_term, &l.line_start, &l.escaped})
      *t = cur.str(cur.u8());
    l.opt_flags = cur.u8();
  }
  if (l.num_fields > cur.remaining()) bad(cur, "LOAD DATA with more fields than bytes");
  const Bytes lens = cur.bytes(l.num_fields);
  std::size_t names = 0;
  for (std::byte b : lens) names += static_cast<std::uint8_t>(b) + 1;
  ByteCursor fields = cur.take(names);
  l.field_names = ByteCursor(fields).rest();
  for (std::uint32_t k = 0; k < l.num_fields; ++k) {
    const std::string_view name = fields.cstr();
    if (name.size() != static_cast<std::uint8_t>(lens[k]))
      bad(fields, "LOAD DATA field name length does not match");
  }
  l.table = cur.str(table_len);
  if (cur.u8() != 0) bad(cur, "LOAD DATA table name is not NUL-terminated");
  l.db = cur.str(db_len);
  if (cur.u8() != 0) bad(cur, "LOAD DATA database name is not NUL-terminated");
  if (type == EventType::kCreateFile) {
    l.fname = cur.cstr();
    l.block = cur.rest();
  } else {
    l.fname = trim_nul(as_text(cur.rest()));
  }
  return l;
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
