#include "recovery/row_sql.h"

#include <algorithm>
#include <cstring>

#include "binlog/charsets.h"
#include "binlog/error.h"
#include "binlog/json_binary.h"
#include "recovery/event_info.h"

namespace binrecover::recovery {

using binlog::ByteCursor;
using binlog::Bytes;
using binlog::TableInfo;
using binlog::Value;

namespace {

constexpr char kHex[] = "0123456789ABCDEF";

void append_hex_literal(fmt::memory_buffer& out, Bytes b) {
  if (b.empty()) {
    append(out, "''");
    return;
  }
  append(out, "X'");
  const std::size_t at = out.size();
  out.resize(at + 2 * b.size());
  char* o = out.data() + at;
  for (std::byte x : b) {
    const auto v = static_cast<std::uint8_t>(x);
    *o++ = kHex[v >> 4];
    *o++ = kHex[v & 15];
  }
  out.push_back('\'');
}

bool valid_utf8(std::string_view s) {
  std::size_t i = 0;
  // ASCII runs eight bytes at a time.
  while (i + 8 <= s.size()) {
    std::uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    if (w & 0x8080808080808080ULL) break;
    i += 8;
  }
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return false;
    i += n;
  }
  return true;
}

// Characters a quoted SQL string escapes: ' \ NUL LF CR ^Z.
struct EscapeTable {
  bool needs[256] = {};
  constexpr EscapeTable() {
    for (unsigned char c : {'\'', '\\', '\0', '\n', '\r', '\x1a'}) needs[c] = true;
  }
};
constexpr EscapeTable kEscape;

void append_quoted(fmt::memory_buffer& out, std::string_view s) {
  out.push_back('\'');
  std::size_t run = 0;  // start of the run of characters that need no escape
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (!kEscape.needs[static_cast<unsigned char>(c)]) continue;
    const char* esc = nullptr;
    switch (c) {
      case '\'':
        esc = "\\'";
        break;
      case '\\':
        esc = "\\\\";
        break;
      case '\0':
        esc = "\\0";
        break;
      case '\n':
        esc = "\\n";
        break;
      case '\r':
        esc = "\\r";
        break;
      case '\x1a':
        esc = "\\Z";
        break;
      default:
        continue;
    }
    append(out, s.substr(run, i - run));
    append(out, esc);
    run = i + 1;
  }
  append(out, s.substr(run));
  out.push_back('\'');
}

void append_string(fmt::memory_buffer& out, Bytes b, std::uint16_t collation) {
  const binlog::Collation* c = collation != 0 ? binlog::find_collation(collation) : nullptr;
  if (c == nullptr || c->charset == "binary") {
    append_hex_literal(out, b);  // byte-exact whatever the column's charset
    return;
  }
  append(out, "_");
  append(out, c->charset);
  const std::string_view text = binlog::as_text(b);
  if (c->charset.substr(0, 4) == "utf8" && valid_utf8(text)) {
    append_quoted(out, text);
  } else {
    append(out, " ");
    append_hex_literal(out, b);
  }
}

void append_name(fmt::memory_buffer& out, const TableInfo& info, std::size_t col) {
  if (info.names.empty())
    throw Error(ErrorCode::kUnsupportedFormat,
                "plain SQL needs the column names of " + info.db + "." + info.table +
                    ", which this binlog does not carry (set binlog_row_metadata=FULL on the "
                    "server)");
  append_quoted_ident(out, info.names[col]);
}

struct Row {
  std::vector<std::pair<std::size_t, Value>> values;
};

void read_image(const TableInfo& info, const binlog::Rows& rows, Bytes present, ByteCursor& cur,
                Row& row, bool partial_after) {
  row.values.clear();
  Bytes partial_json;
  if (partial_after) {
    // value_options (packed), then with PARTIAL_JSON_UPDATES (1) a bitmap over the table's
    // JSON columns: which of them hold diffs.
    const std::uint64_t options = cur.packed_int();
    if (options & 1) {
      std::size_t json = 0;
      for (std::uint64_t i = 0; i < rows.column_count && i < info.layout.size(); ++i)
        if (info.layout[i].type == binlog::ColumnType::kJson) ++json;
      partial_json = cur.bytes((json + 7) / 8);
    }
  }
  binlog::for_each_value(
      info, rows.column_count, present, cur,
      [&](std::size_t col, Value v) { row.values.emplace_back(col, std::move(v)); }, partial_json);
}

// A column's new value from its partial JSON update: the diffs applied in order to the old
// document as nested JSON_REPLACE / JSON_INSERT / JSON_ARRAY_INSERT / JSON_REMOVE calls on
// `column` (the column's name, or @N in -v comments). An INSERT whose path ends in an array
// cell inserts there, shifting the rest: JSON_ARRAY_INSERT; into an object: JSON_INSERT.
void append_json_update(fmt::memory_buffer& out, const Value& v, std::string_view column) {
  thread_local std::vector<binlog::JsonDiff> diffs;
  binlog::json_diffs(v.bytes, 0, diffs);
  for (std::size_t k = diffs.size(); k-- > 0;) {
    const binlog::JsonDiff& d = diffs[k];
    switch (d.op) {
      case binlog::JsonDiff::Op::kReplace:
        append(out, "JSON_REPLACE(");
        break;
      case binlog::JsonDiff::Op::kInsert:
        append(out, d.path.back() == ']' ? "JSON_ARRAY_INSERT(" : "JSON_INSERT(");
        break;
      case binlog::JsonDiff::Op::kRemove:
        append(out, "JSON_REMOVE(");
        break;
    }
  }
  append(out, column);
  std::string text;
  for (const binlog::JsonDiff& d : diffs) {
    append(out, ", _utf8mb4");
    append_quoted(out, d.path);
    if (d.op != binlog::JsonDiff::Op::kRemove) {
      text.clear();
      binlog::append_json_text(text, d.value, 0);
      append(out, ", CAST(_utf8mb4");
      append_quoted(out, text);
      append(out, " AS JSON)");
    }
    append(out, ")");
  }
}

void append_where(fmt::memory_buffer& out, const Row& before, const TableInfo& info) {
  bool use_pk = !info.primary_key.empty();
  for (std::uint32_t k : info.primary_key) {
    bool found = false;
    for (const auto& [col, v] : before.values) found |= col == k;
    use_pk &= found;
  }
  append(out, " WHERE ");
  bool first = true;
  for (const auto& [col, v] : before.values) {
    if (use_pk &&
        std::find(info.primary_key.begin(), info.primary_key.end(), col) == info.primary_key.end())
      continue;
    if (!first) append(out, " AND ");
    first = false;
    append_name(out, info, col);
    append(out, v.kind == Value::Kind::kNull ? " IS NULL" : "=");
    if (v.kind != Value::Kind::kNull) append_sql_literal(out, v, info, col);
  }
  if (first) append(out, "1");
  if (!use_pk) append(out, " LIMIT 1");
}

void append_table(fmt::memory_buffer& out, const TableInfo& info) {
  append_quoted_ident(out, info.db);
  append(out, ".");
  append_quoted_ident(out, info.table);
}

}  // namespace

void append_sql_literal(fmt::memory_buffer& out, const Value& v, const TableInfo& info,
                        std::size_t col) {
  auto it = std::back_inserter(out);
  switch (v.kind) {
    case Value::Kind::kNull:
      append(out, "NULL");
      break;
    case Value::Kind::kInt:
      append(out, fmt::format_int(v.i).str());
      break;
    case Value::Kind::kUInt:
    case Value::Kind::kBit:
      append(out, fmt::format_int(v.u).str());
      break;
    case Value::Kind::kDouble:
      // A FLOAT is printed as the exact double it widens to: stored back it rounds to the same
      // float, and compared in a WHERE clause it equals the column (its shortest float form,
      // read as a double, would not).
      fmt::format_to(it, "{}", v.d);
      break;
    case Value::Kind::kDecimal:
      append(out, v.text);
      break;
    case Value::Kind::kTemporal:
      append_quoted(out, v.text);
      break;
    case Value::Kind::kString:
      if (info.layout[col].type == binlog::ColumnType::kString && v.collation == 63 &&
          v.bytes.size() < info.layout[col].meta) {
        // BINARY(n): the row image drops trailing zero bytes; the column keeps them.
        std::vector<std::byte> padded(v.bytes.begin(), v.bytes.end());
        padded.resize(info.layout[col].meta, std::byte{0});
        append_string(out, Bytes(padded.data(), padded.size()), v.collation);
      } else {
        append_string(out, v.bytes, v.collation);
      }
      break;
    case Value::Kind::kEnum: {
      const auto& names = info.enum_values[col];
      if (v.u >= 1 && v.u <= names.size())
        append_quoted(out, names[v.u - 1]);
      else
        fmt::format_to(it, "{}", v.u);
      break;
    }
    case Value::Kind::kSet: {
      const auto& names = info.set_values[col];
      if (names.empty() || (names.size() < 64 && (v.u >> names.size()) != 0)) {
        fmt::format_to(it, "{}", v.u);
        break;
      }
      std::string text;
      for (std::size_t b = 0; b < names.size(); ++b)
        if (v.u & (1ULL << b)) {
          if (!text.empty()) text += ',';
          text += names[b];
        }
      append_quoted(out, text);
      break;
    }
    case Value::Kind::kGeometry:
      append_hex_literal(out, v.bytes);
      break;
    case Value::Kind::kJsonDiff:
      throw Error(ErrorCode::kUnsupportedFormat,
                  "a partial JSON update has no value of its own outside an UPDATE's SET");
    case Value::Kind::kJson: {
      // MySQL's binary JSON, as the text MySQL itself prints; the server parses it back.
      std::string text;
      binlog::append_json_text(text, v.bytes, 0);
      append(out, "_utf8mb4");
      append_quoted(out, text);
      break;
    }
  }
  (void)info;
}

namespace {

void insert_sql(fmt::memory_buffer& out, const Row& row, const TableInfo& info) {
  append(out, "INSERT INTO ");
  append_table(out, info);
  append(out, " (");
  for (std::size_t k = 0; k < row.values.size(); ++k) {
    if (k) append(out, ", ");
    append_name(out, info, row.values[k].first);
  }
  append(out, ") VALUES (");
  for (std::size_t k = 0; k < row.values.size(); ++k) {
    if (k) append(out, ", ");
    append_sql_literal(out, row.values[k].second, info, row.values[k].first);
  }
  append(out, ")");
}

void delete_sql(fmt::memory_buffer& out, const Row& row, const TableInfo& info) {
  append(out, "DELETE FROM ");
  append_table(out, info);
  append_where(out, row, info);
}

void update_sql(fmt::memory_buffer& out, const Row& before, const Row& after,
                const TableInfo& info) {
  append(out, "UPDATE ");
  append_table(out, info);
  append(out, " SET ");
  for (std::size_t k = 0; k < after.values.size(); ++k) {
    if (k) append(out, ", ");
    append_name(out, info, after.values[k].first);
    append(out, "=");
    const Value& v = after.values[k].second;
    if (v.kind == Value::Kind::kJsonDiff) {
      fmt::memory_buffer name;
      append_name(name, info, after.values[k].first);
      append_json_update(out, v, std::string_view(name.data(), name.size()));
    } else {
      append_sql_literal(out, v, info, after.values[k].first);
    }
  }
  append_where(out, before, info);
}

bool all_columns(Bytes bitmap, std::uint64_t n) {
  for (std::uint64_t i = 0; i < n; ++i)
    if (!(static_cast<std::uint8_t>(bitmap[i / 8]) & (1U << (i % 8)))) return false;
  return true;
}

}  // namespace

void append_rows_sql(fmt::memory_buffer& out, const binlog::Rows& rows, Bytes images,
                     const TableInfo& info, std::string_view delimiter, std::uint64_t offset) {
  ByteCursor cur(images, offset);
  Row before, after;
  while (!cur.empty()) {
    switch (rows.kind) {
      case binlog::RowsKind::kWrite:
        read_image(info, rows, rows.columns_before, cur, after, false);
        insert_sql(out, after, info);
        break;
      case binlog::RowsKind::kDelete:
        read_image(info, rows, rows.columns_before, cur, before, false);
        delete_sql(out, before, info);
        break;
      case binlog::RowsKind::kUpdate:
      case binlog::RowsKind::kPartialUpdate:
        read_image(info, rows, rows.columns_before, cur, before, false);
        read_image(info, rows, rows.columns_after, cur, after,
                   rows.kind == binlog::RowsKind::kPartialUpdate);
        update_sql(out, before, after, info);
        break;
    }
    append(out, delimiter);
  }
}

void append_rows_undo(std::vector<std::string>& statements, const binlog::Rows& rows, Bytes images,
                      const TableInfo& info, std::uint64_t offset) {
  // Undoing needs whole rows: a MINIMAL or NOBLOB image cannot restore what it left out.
  const bool update = rows.kind == binlog::RowsKind::kUpdate;
  if (rows.kind == binlog::RowsKind::kPartialUpdate ||
      !all_columns(rows.columns_before, rows.column_count) ||
      (update && !all_columns(rows.columns_after, rows.column_count)))
    throw Error(ErrorCode::kUnsupportedFormat,
                "the row images of " + info.db + "." + info.table +
                    " lack columns needed to undo them (binlog_row_image must be FULL)",
                offset);
  ByteCursor cur(images, offset);
  Row before, after;
  fmt::memory_buffer out;
  while (!cur.empty()) {
    out.clear();
    switch (rows.kind) {
      case binlog::RowsKind::kWrite:  // undo an insert: delete that row
        read_image(info, rows, rows.columns_before, cur, after, false);
        delete_sql(out, after, info);
        break;
      case binlog::RowsKind::kDelete:  // undo a delete: insert it back
        read_image(info, rows, rows.columns_before, cur, before, false);
        insert_sql(out, before, info);
        break;
      default:  // undo an update: set the old values where the new ones are
        read_image(info, rows, rows.columns_before, cur, before, false);
        read_image(info, rows, rows.columns_after, cur, after, false);
        update_sql(out, after, before, info);
        break;
    }
    statements.emplace_back(out.data(), out.size());
  }
}

void append_rows_verbose(fmt::memory_buffer& out, const binlog::Rows& rows, Bytes images,
                         const TableInfo& info, bool types, std::uint64_t offset) {
  ByteCursor cur(images, offset);
  Row row;
  auto image = [&](const char* title, Bytes present, bool partial) {
    read_image(info, rows, present, cur, row, partial);
    fmt::format_to(std::back_inserter(out), "### {}\n", title);
    for (const auto& [col, v] : row.values) {
      const auto at = fmt::format_int(col + 1);
      append(out, "###   @");
      append(out, at.str());
      out.push_back('=');
      if (v.kind == Value::Kind::kJsonDiff)
        append_json_update(out, v, "@" + at.str());
      else
        append_sql_literal(out, v, info, col);
      if (types)
        fmt::format_to(std::back_inserter(out), " /* type={} meta={} */",
                       static_cast<int>(info.layout[col].type), info.layout[col].meta);
      out.push_back('\n');
    }
  };
  while (!cur.empty()) {
    append(out, "### ");
    switch (rows.kind) {
      case binlog::RowsKind::kWrite:
        append(out, "INSERT INTO ");
        append_table(out, info);
        append(out, "\n");
        image("SET", rows.columns_before, false);
        break;
      case binlog::RowsKind::kDelete:
        append(out, "DELETE FROM ");
        append_table(out, info);
        append(out, "\n");
        image("WHERE", rows.columns_before, false);
        break;
      default:
        append(out, "UPDATE ");
        append_table(out, info);
        append(out, "\n");
        image("WHERE", rows.columns_before, false);
        image("SET", rows.columns_after, rows.kind == binlog::RowsKind::kPartialUpdate);
        break;
    }
  }
}

}  // namespace binrecover::recovery
