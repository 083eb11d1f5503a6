#include <charconv>
#include <string>

#include "binlog/event_decoders.h"

namespace binrecover::binlog::decoders {

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

}  // namespace binrecover::binlog::decoders
