#include "recovery/sql/event_info.h"

#include <cstring>

#include "binlog/charsets.h"
#include "binlog/decimal.h"
#include "binlog/error.h"
#include "binlog/row_layout.h"
#include "binlog/row_values.h"
#include "recovery/sql/sql_quote.h"

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

// A name or string of the metadata comments as both clients quote them: in backticks (a
// backtick inside doubled by MySQL only) or single quotes, \n \r \\ \b \t \' and NUL
// escaped with a backslash, every other byte as it is.
void append_meta_quoted(fmt::memory_buffer& out, std::string_view s, bool identifier,
                        bool double_backticks) {
  out.push_back(identifier ? '`' : '\'');
  for (const char c : s) {
    switch (c) {
      case '\n':
        append(out, "\\n");
        break;
      case '\r':
        append(out, "\\r");
        break;
      case '\\':
        append(out, "\\\\");
        break;
      case '\b':
        append(out, "\\b");
        break;
      case '\t':
        append(out, "\\t");
        break;
      case '\'':
        append(out, "\\'");
        break;
      case '\0':
        append(out, "\\0");
        break;
      case '`':
        append(out, identifier && double_backticks ? "``" : "`");
        break;
      default:
        out.push_back(c);
    }
  }
  out.push_back(identifier ? '`' : '\'');
}

// The next entry of a metadata list, or nullptr once it is used up.
template <class T>
const T* next_of(const std::vector<T>& list, std::size_t& at) {
  return at < list.size() ? &list[at++] : nullptr;
}

// The collation a client gives the k-th column of a class: the default's exceptions, else the
// default when it is set (not 0), else the k-th of the per-column list; nullptr for none or
// an id that client does not know.
const Collation* client_collation(const OptionalMetadata::Charsets& cs, std::size_t k,
                                  bool mariadb) {
  std::uint32_t id = 0;
  if (cs.default_id != 0) {
    id = cs.default_id;
    for (const auto& [index, coll] : cs.exceptions)
      if (index == k) {
        id = coll;
        break;
      }
  } else if (k < cs.per_column.size()) {
    id = cs.per_column[k];
  }
  return id != 0 ? find_collation(id, mariadb) : nullptr;
}

}  // namespace

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
        } else if constexpr (std::is_same_v<T, Unknown>) {
          // A type the reader passed on because its server flagged it ignorable: as servers
          // list it (their Ignorable_log_event).
          if (!is_known_event_type(ev.header.type) && (ev.header.flags & kLogEventIgnorable))
            fmt::format_to(it, "# Ignorable event type {} (Unknown)", ev.header.type);
        } else if constexpr (std::is_same_v<T, Incident>) {
          fmt::format_to(it, "#{} ({})", b.type, incident_name(b.type));
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

namespace {

// Where each column is in the optional metadata's per-type lists (each list has an entry per
// column of the types it covers, in column order).
struct MetaAt {
  std::size_t sign = 0, chars = 0, enum_set = 0, enums = 0, sets = 0, geo = 0, vector = 0,
              visible = 0;
};

// Column i's type name as the clients print it (`type`: its type code, ENUM and SET as
// themselves). False: an invalid type, printed, after which the clients go on with the next
// column straight away (no attributes, no separator).
bool append_type_name(fmt::memory_buffer& out, ColumnType t, std::uint8_t type,
                      const ColumnLayout& c, const Collation* cs, bool text,
                      const OptionalMetadata& m, MetaAt& at, bool mariadb) {
  auto it = std::back_inserter(out);
  switch (t) {
    case ColumnType::kTiny:
      append(out, "TINYINT");
      break;
    case ColumnType::kShort:
      append(out, "SMALLINT");
      break;
    case ColumnType::kInt24:
      append(out, "MEDIUMINT");
      break;
    case ColumnType::kLong:
      append(out, "INT");
      break;
    case ColumnType::kLongLong:
      append(out, "BIGINT");
      break;
    case ColumnType::kNewDecimal:
      fmt::format_to(it, "DECIMAL({},{})", c.meta >> 8, c.meta & 0xff);
      break;
    case ColumnType::kFloat:
      append(out, "FLOAT");
      break;
    case ColumnType::kDouble:
      append(out, "DOUBLE");
      break;
    case ColumnType::kBit:
      fmt::format_to(it, "BIT({})", (c.meta >> 8) + (c.meta & 0xff) * 8);
      break;
    case ColumnType::kTimestamp2:
    case ColumnType::kDateTime2:
    case ColumnType::kTime2:
      append(out, t == ColumnType::kTimestamp2  ? "TIMESTAMP"
                  : t == ColumnType::kDateTime2 ? "DATETIME"
                                                : "TIME");
      if (c.meta != 0) fmt::format_to(it, "({})", c.meta);
      break;
    case ColumnType::kDate:
    case ColumnType::kNewDate:
      append(out, "DATE");
      break;
    case ColumnType::kYear:
      append(out, "YEAR");
      break;
    case ColumnType::kEnum:
      append(out, "ENUM");
      break;
    case ColumnType::kSet:
      append(out, "SET");
      break;
    case ColumnType::kBlob: {
      static constexpr std::string_view kSizes[] = {"TINY", "", "MEDIUM", "LONG"};
      if (c.meta >= 1 && c.meta <= 4)
        fmt::format_to(it, "{}{}", kSizes[c.meta - 1], text ? "TEXT" : "BLOB");
      else
        fmt::format_to(it, "{}({})", text ? "INVALID_TEXT" : "INVALID_BLOB", c.meta);
      break;
    }
    case ColumnType::kVarchar:
    case ColumnType::kVarString:
      if (text)
        fmt::format_to(it, "VARCHAR({})", c.meta / mbmaxlen(cs->charset));
      else
        fmt::format_to(it, "VARBINARY({})", c.meta);
      break;
    case ColumnType::kString:
      if (text)
        fmt::format_to(it, "CHAR({})", c.meta / mbmaxlen(cs->charset));
      else
        fmt::format_to(it, "BINARY({})", c.meta);
      break;
    case ColumnType::kGeometry: {
      static constexpr std::string_view kGeometries[] = {
          "GEOMETRY",   "POINT",           "LINESTRING",   "POLYGON",
          "MULTIPOINT", "MULTILINESTRING", "MULTIPOLYGON", "GEOMCOLLECTION"};
      const std::uint64_t* g = next_of(m.geometry_types, at.geo);
      const std::uint64_t sub = g != nullptr ? *g : 0;
      if (sub >= 8)
        fmt::format_to(it, "INVALID_GEOMETRY_TYPE({})", sub);
      else if (sub == 7 && mariadb)
        append(out, "GEOMETRYCOLLECTION");
      else
        append(out, kGeometries[sub]);
      break;
    }
    case ColumnType::kJson:
    case ColumnType::kVector:
      if (mariadb) {
        fmt::format_to(it, "INVALID_TYPE({})", type);
        return false;
      }
      if (t == ColumnType::kJson) {
        append(out, "JSON");
      } else {
        const std::uint64_t* d = next_of(m.vector_dimensions, at.vector);
        fmt::format_to(it, "VECTOR({})", d != nullptr ? *d : 0);
      }
      break;
    default:
      if (type == 244 && !mariadb) {  // MYSQL_TYPE_BOOL
        append(out, "BOOLEAN");
        break;
      }
      // The clients go on with the next column straight after it, no separator.
      fmt::format_to(it, "INVALID_TYPE({})", type);
      return false;
  }
  return true;
}

// What follows the type: UNSIGNED, NOT NULL, the ENUM/SET values, the character set, INVISIBLE.
void append_column_attributes(fmt::memory_buffer& out, const TableMap& tm, std::size_t i,
                              ColumnType t, const Collation* cs, bool enum_or_set, bool gipk,
                              const OptionalMetadata& m, MetaAt& at, bool mariadb) {
  auto it = std::back_inserter(out);
  const bool numeric = t == ColumnType::kTiny || t == ColumnType::kShort ||
                       t == ColumnType::kInt24 || t == ColumnType::kLong ||
                       t == ColumnType::kLongLong || t == ColumnType::kNewDecimal ||
                       t == ColumnType::kFloat || t == ColumnType::kDouble ||
                       (!mariadb && (t == ColumnType::kYear || t == ColumnType::kDecimal));
  if (numeric) {
    if (const char* bit = next_of(m.signedness, at.sign)) {
      if (*bit != 0 && t != ColumnType::kYear) append(out, " UNSIGNED");
    } else if (i == 0 && gipk) {
      append(out, " UNSIGNED");
    }
  }
  const bool nullable = i / 8 < tm.null_bits.size() &&
                        (static_cast<std::uint8_t>(tm.null_bits[i / 8]) >> (i % 8) & 1);
  if (!nullable || (i == 0 && gipk)) append(out, " NOT NULL");
  if (enum_or_set) {
    const auto& lists = t == ColumnType::kEnum ? m.enum_values : m.set_values;
    if (const auto* values = next_of(lists, t == ColumnType::kEnum ? at.enums : at.sets)) {
      for (std::size_t v = 0; v < values->size(); ++v) {
        append(out, v == 0 ? "(" : mariadb ? "," : ", ");
        append_meta_quoted(out, (*values)[v], false, false);
      }
      out.push_back(')');
    }
  }
  if (cs != nullptr && (enum_or_set || cs->id != 63))
    fmt::format_to(it, " CHARSET {} COLLATE {}", cs->charset, cs->name);
  if (!mariadb) {
    if (const char* visible = next_of(m.visibility, at.visible)) {
      if (*visible == 0) append(out, " INVISIBLE");
    } else if (i == 0 && gipk) {
      append(out, " INVISIBLE");
    }
    if (i == 0 && gipk) append(out, " AUTO_INCREMENT");
  }
}

void append_primary_key(fmt::memory_buffer& out, const OptionalMetadata& m, bool gipk) {
  if (gipk) {
    append(out, "# Primary Key(my_row_id)\n");
  } else if (!m.primary_key.empty()) {
    append(out, "# Primary Key(");
    for (std::size_t k = 0; k < m.primary_key.size(); ++k) {
      const auto [index, prefix] = m.primary_key[k];
      if (k != 0) append(out, ", ");
      if (index < m.names.size())
        append_comment_text(out, m.names[index]);  // (as both clients print it, line kept)
      else
        fmt::format_to(std::back_inserter(out), "{}", index);
      if (prefix != 0) fmt::format_to(std::back_inserter(out), "({})", prefix);
    }
    append(out, ")\n");
  }
}

}  // namespace

// Table_map_log_event::print_columns and print_primary_key of both clients (the differences:
// MySQL doubles backticks in names, separates ENUM/SET strings with ", " where MariaDB has ",",
// names GEOMETRYCOLLECTION GEOMCOLLECTION, knows JSON, BOOLEAN and VECTOR, takes a signedness
// bit for YEAR (MariaDB 10.11 does not, though its server writes one), prints INVISIBLE, and
// fills in the generated invisible primary key my_row_id; MariaDB gives GEOMETRY columns a
// character set slot where MySQL gives VECTOR one).
void append_table_metadata(fmt::memory_buffer& out, const TableMap& tm, bool mariadb) {
  const std::vector<ColumnLayout> layout = column_layout(tm);
  OptionalMetadata m;
  try {
    parse_optional_metadata(tm, m);
  } catch (const Error&) {  // the fields before the bad one are printed
  }
  const bool gipk = !mariadb && (tm.flags & 0x0004) != 0;  // TM_GENERATED_INVISIBLE_PK_F
  MetaAt at;
  append(out, "# Columns(");
  const std::size_t n = layout.size();
  for (std::size_t i = 0; i < n; ++i) {
    const auto code = static_cast<std::uint8_t>(tm.column_types[i]);
    const ColumnLayout& c = layout[i];
    // ENUM and SET are logged as STRING with the real type in the first metadata byte.
    std::uint8_t type = code;
    if (code == static_cast<std::uint8_t>(ColumnType::kString) && c.meta < 0x100 &&
        (c.type == ColumnType::kEnum || c.type == ColumnType::kSet))
      type = static_cast<std::uint8_t>(c.type);
    const auto t = static_cast<ColumnType>(type);
    const bool enum_or_set = t == ColumnType::kEnum || t == ColumnType::kSet;
    const Collation* cs = nullptr;
    if (enum_or_set) {
      cs = client_collation(m.enum_set_charsets, at.enum_set++, mariadb);
    } else if (t == ColumnType::kString || t == ColumnType::kVarString ||
               t == ColumnType::kVarchar || t == ColumnType::kBlob ||
               t == (mariadb ? ColumnType::kGeometry : ColumnType::kVector)) {
      cs = client_collation(m.charsets, at.chars++, mariadb);
    }
    const bool text = cs != nullptr && cs->id != 63;
    if (i < m.names.size()) {
      append_meta_quoted(out, m.names[i], true, !mariadb);
      out.push_back(' ');
    } else if (i == 0 && gipk) {
      append(out, "`my_row_id` ");
    }
    if (!append_type_name(out, t, type, c, cs, text, m, at, mariadb)) continue;
    append_column_attributes(out, tm, i, t, cs, enum_or_set, gipk, m, at, mariadb);
    if (i + 1 != n) append(out, ",\n#         ");
  }
  append(out, ")\n");
  append_primary_key(out, m, gipk);
}

}  // namespace binrecover::recovery
