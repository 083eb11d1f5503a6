#include "recovery/sql/event_info.h"

#include <cstring>

#include "binlog/charsets.h"
#include "binlog/decimal.h"

namespace binrecover::recovery {

using namespace binlog;

namespace {

constexpr char kHexUpper[] = "0123456789ABCDEF";

void append_hex_upper(fmt::memory_buffer& out, Bytes b) {
  for (std::byte x : b) {
    const auto v = static_cast<std::uint8_t>(x);
    out.push_back(kHexUpper[v >> 4]);
    out.push_back(kHexUpper[v & 15]);
  }
}

// MariaDB names only STMT_END_F; MySQL names every flag it knows.
void append_rows_flags(fmt::memory_buffer& out, std::uint16_t flags, bool mariadb) {
  if (mariadb) {
    if (flags & kStmtEndFlag) append(out, " flags: STMT_END_F");
    return;
  }
  static constexpr std::pair<std::uint16_t, std::string_view> kNames[] = {
      {0x1, "STMT_END_F"},      {0x2, "NO_FOREIGN_KEY_CHECKS_F"}, {0x4, "RELAXED_UNIQUE_CHECKS_F"},
      {0x8, "COMPLETE_ROWS_F"}, {0x10, "USE_SQL_FOREIGN_KEY_F"},
  };
  bool first = true;
  for (const auto& [bit, name] : kNames) {
    if (!(flags & bit)) continue;
    append(out, first ? " flags: " : " ");
    append(out, name);
    first = false;
  }
}

}  // namespace

void append_gtid_set(fmt::memory_buffer& out, Bytes data, std::string_view separator) {
  ByteCursor cur(data, 0);
  std::uint64_t n = cur.u64le();
  const bool tagged = (n >> 56) == 1;
  if (tagged) n = (n >> 8) & 0xffffffffffffULL;
  std::array<std::uint8_t, 16> previous{};
  for (std::uint64_t i = 0; i < n; ++i) {
    std::array<std::uint8_t, 16> sid{};
    Bytes b = cur.bytes(16);
    for (int k = 0; k < 16; ++k) sid[k] = static_cast<std::uint8_t>(b[k]);
    // The tags of one uuid follow it: "uuid:1-13:mytag:1-2".
    if (i == 0 || sid != previous) {
      if (i > 0) append(out, separator);
      append_uuid(out, sid);
    }
    previous = sid;
    if (tagged) {
      const std::uint64_t len = cur.varlen();
      const std::string_view tag = cur.str(len);
      if (!tag.empty()) {
        out.push_back(':');
        append(out, tag);
      }
    }
    const std::uint64_t intervals = cur.u64le();
    for (std::uint64_t k = 0; k < intervals; ++k) {
      const auto start = static_cast<std::int64_t>(cur.u64le());
      const auto end = static_cast<std::int64_t>(cur.u64le());
      if (end - 1 == start)
        fmt::format_to(std::back_inserter(out), ":{}", start);
      else
        fmt::format_to(std::back_inserter(out), ":{}-{}", start, end - 1);
    }
  }
}

void append_maria_gtid_list(fmt::memory_buffer& out, const MariaGtidList& l) {
  ByteCursor cur(l.entries, 0);
  for (std::uint32_t i = 0; i < l.count; ++i) {
    const std::uint32_t domain = cur.u32le();
    const std::uint32_t server = cur.u32le();
    const std::uint64_t seq = cur.u64le();
    if (i > 0) out.push_back(',');
    fmt::format_to(std::back_inserter(out), "{}-{}-{}", domain, server, seq);
  }
}

void append_user_var_value(fmt::memory_buffer& out, const UserVar& v, bool backtick_collation,
                           bool mysql_hex) {
  if (v.is_null) {
    append(out, "NULL");
    return;
  }
  ByteCursor cur(v.value, 0);
  switch (v.value_type) {
    case 1: {  // REAL_RESULT: a host double, little-endian in every binlog we know
      const std::uint64_t bits = cur.u64le();
      double d;
      std::memcpy(&d, &bits, sizeof d);
      fmt::format_to(std::back_inserter(out), "{}", d);
      return;
    }
    case 2: {  // INT_RESULT
      const std::uint64_t bits = cur.u64le();
      if (v.flags & 1)
        fmt::format_to(std::back_inserter(out), "{}", bits);
      else
        fmt::format_to(std::back_inserter(out), "{}", static_cast<std::int64_t>(bits));
      return;
    }
    case 4: {  // DECIMAL_RESULT: u8 precision / u8 scale / binary decimal
      const int precision = cur.u8();
      const int scale = cur.u8();
      std::string text;
      append_decimal(text, cur, precision, scale);
      append(out, text);
      return;
    }
    default: {  // STRING_RESULT
      const Collation* c = find_collation(v.charset);
      if (c != nullptr) {
        append(out, "_");
        append(out, c->charset);
        append(out, " ");
      }
      if (!mysql_hex) {
        append(out, "X'");
        append_hex_upper(out, v.value);
        append(out, "'");
      } else if (v.value.empty()) {
        append(out, "\"\"");
      } else {
        append(out, "0x");
        append_hex_upper(out, v.value);
      }
      if (c != nullptr) {
        append(out, " COLLATE ");
        if (backtick_collation)
          append_quoted_ident(out, c->name);
        else
          append(out, c->name);
      }
      return;
    }
  }
}

void append_event_info(fmt::memory_buffer& out, const Event& ev, const FormatContext& ctx) {
  auto it = std::back_inserter(out);
  std::visit(
      [&](const auto& b) {
        using T = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<T, FormatDescription>) {
          fmt::format_to(it, "Server ver: {}, Binlog ver: {}", b.server_version, b.binlog_version);
        } else if constexpr (std::is_same_v<T, StartV3>) {
          fmt::format_to(it, "Server ver: {}, Binlog ver: {}", b.server_version, b.binlog_version);
        } else if constexpr (std::is_same_v<T, Rotate>) {
          fmt::format_to(it, "{};pos={}", b.next_file, b.position);
        } else if constexpr (std::is_same_v<T, Query>) {
          if (!b.db.empty() && !(ev.header.flags & kLogEventSuppressUse)) {
            append(out, "use ");
            append_quoted_ident(out, b.db);
            append(out, "; ");
          }
          if (b.compressed)
            append(out, "<compressed query>");
          else
            append(out, b.query);
          if (!ctx.mariadb && b.status.ddl_xid)
            fmt::format_to(it, " /* xid={} */", *b.status.ddl_xid);
          if (ev.type() == EventType::kExecuteLoadQuery)
            fmt::format_to(it, " ;file_id={}", b.file_id);
        } else if constexpr (std::is_same_v<T, Xid>) {
          fmt::format_to(it, "COMMIT /* xid={} */", b.xid);
        } else if constexpr (std::is_same_v<T, Intvar>) {
          fmt::format_to(it, "{}={}", b.type == 1 ? "LAST_INSERT_ID" : "INSERT_ID", b.value);
        } else if constexpr (std::is_same_v<T, Rand>) {
          fmt::format_to(it, "rand_seed1={},rand_seed2={}", b.seed1, b.seed2);
        } else if constexpr (std::is_same_v<T, UserVar>) {
          append(out, "@");
          append_quoted_ident(out, b.name);
          append(out, "=");
          append_user_var_value(out, b, false, !ctx.mariadb);
        } else if constexpr (std::is_same_v<T, TableMap>) {
          fmt::format_to(it, "table_id: {} ({}.{})", b.table_id, b.db, b.table);
        } else if constexpr (std::is_same_v<T, Rows>) {
          fmt::format_to(it, "table_id: {}", b.table_id);
          append_rows_flags(out, b.flags, ctx.mariadb);
        } else if constexpr (std::is_same_v<T, Gtid>) {
          append(out, "SET @@SESSION.GTID_NEXT= '");
          if (b.anonymous) {
            append(out, "ANONYMOUS");
          } else {
            append_uuid(out, b.sid);
            if (!b.tag.empty()) fmt::format_to(it, ":{}", b.tag);
            fmt::format_to(it, ":{}", b.gno);
          }
          append(out, "'");
        } else if constexpr (std::is_same_v<T, PreviousGtids>) {
          append_gtid_set(out, b.data);
        } else if constexpr (std::is_same_v<T, MariaGtid>) {
          if (b.flags & MariaGtid::kPreparedXa) {
            append(out, "XA START ");
            append_xid(out, b.xa_format_id, b.xa_data, b.xa_gtrid_len, b.xa_bqual_len);
            append(out, " ");
          } else if (!(b.flags & MariaGtid::kStandalone)) {
            append(out, "BEGIN ");
          }
          fmt::format_to(it, "GTID {}-{}-{}", b.domain_id, ev.header.server_id, b.seq_no);
          if (b.flags & MariaGtid::kGroupCommitId) fmt::format_to(it, " cid={}", b.commit_id);
        } else if constexpr (std::is_same_v<T, MariaGtidList>) {
          append(out, "[");
          append_maria_gtid_list(out, b);
          append(out, "]");
        } else if constexpr (std::is_same_v<T, BinlogCheckpoint>) {
          append(out, b.file);
        } else if constexpr (std::is_same_v<T, RowsQuery>) {
          if (ev.type() == EventType::kRowsQuery) append(out, "# ");
          append(out, b.query);
        } else if constexpr (std::is_same_v<T, XaPrepare>) {
          // One phase: the server shows the commit it was (XA_prepare_log_event::pack_info).
          append(out, b.one_phase ? "XA COMMIT " : "XA PREPARE ");
          append_xid(out, b.format_id, b.data, b.gtrid_len, b.bqual_len);
          if (b.one_phase) append(out, " ONE PHASE");
        } else if constexpr (std::is_same_v<T, Incident>) {
          fmt::format_to(it, "#{} ({})", b.type, b.type == 1 ? "LOST_EVENTS" : "NONE");
          if (!b.message.empty()) fmt::format_to(it, " {}", b.message);
        } else if constexpr (std::is_same_v<T, LoadBlock>) {
          fmt::format_to(it, ";file_id={};block_len={}", b.file_id, b.data.size());
        } else if constexpr (std::is_same_v<T, LoadData>) {
          // Create_file_log_event::pack_info; the old LOAD events show their statement.
          if (ev.type() == EventType::kCreateFile) {
            fmt::format_to(it, "db={};table={};file_id={};block_len={}", b.db, b.table, b.file_id,
                           b.block.size());
          } else {
            fmt::format_to(it, "use `{}`; LOAD DATA INFILE '{}' INTO TABLE `{}`", b.db, b.fname,
                           b.table);
          }
        } else if constexpr (std::is_same_v<T, LoadFileRef>) {
          fmt::format_to(it, ";file_id={}", b.file_id);
        } else if constexpr (std::is_same_v<T, Heartbeat>) {
          append(out, b.log_ident);
        } else if constexpr (std::is_same_v<T, TransactionPayload>) {
          fmt::format_to(it, "compression='{}', decompressed_size={} bytes",
                         b.compression == TransactionPayload::kZstd ? "ZSTD" : "NONE",
                         b.uncompressed_size);
        } else {
          (void)b;
        }
      },
      ev.body);
}

}  // namespace binrecover::recovery
