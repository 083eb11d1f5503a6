#include "recovery/sql/row_sql.h"

#include <algorithm>
#include <cstring>

#include "binlog/error.h"
#include "recovery/sql/event_info.h"
#include "recovery/sql/text_writer.h"
#include "recovery/sql/value_literals.h"
#include "recovery/sql/verbose_values.h"

namespace binrecover::recovery {

using binlog::ByteCursor;
using binlog::Bytes;
using binlog::TableInfo;
using binlog::Value;

namespace {

using namespace literals;  // NOLINT(google-build-using-namespace): value_literals.h

bool has_column(Bytes bitmap, std::uint64_t i) {
  return (static_cast<std::uint8_t>(bitmap[i / 8]) & (1U << (i % 8))) != 0;
}

bool all_columns(Bytes bitmap, std::uint64_t n) {
  for (std::uint64_t i = 0; i < n; ++i)
    if (!has_column(bitmap, i)) return false;
  return true;
}

// One row image: the sink's null / json_diff / value for each column present where
// want(column) holds (binlog::walk_row_image).
template <class Want, class Sink>
void walk_image(const TableInfo& info, const binlog::Rows& rows, Bytes present, ByteCursor& cur,
                bool partial_after, Want&& want, Sink&& sink) {
  const Bytes partial_json = partial_after ? partial_json_bitmap(info, rows, cur) : Bytes{};
  binlog::walk_row_image(info, rows.column_count, present, cur, want, sink, partial_json);
}

// Steps over an image.
struct SkipSink {
  void null(std::size_t) {}
  void json_diff(std::size_t, Bytes) {}
  void value(std::size_t, ByteCursor&) {}
};

constexpr auto kEvery = [](std::size_t) { return true; };
constexpr auto kNone = [](std::size_t) { return false; };
// The columns a statement may set: not the generated ones (the server computes those and
// refuses a value for them, error 3105).
auto stored(const SqlTable& t) {
  return [&t](std::size_t col) { return !t.generated(col); };
}

void require_names(const SqlTable& t, const binlog::Rows& rows) {
  if (t.columns.empty() || t.columns.size() < rows.column_count)
    throw Error(ErrorCode::kUnsupportedFormat,
                "plain SQL needs the column names of " + t.info.db + "." + t.info.table +
                    ", which this binlog does not carry and no CREATE TABLE read names: give "
                    "--schema=DUMP (a mysqldump/mariadb-dump with its CREATE TABLE), or read "
                    "from a binlog that holds it, or set binlog_row_metadata=FULL on the server "
                    "for the future");
}

// "INSERT INTO `db`.`t` (`a`, `b`) VALUES (" for the columns of `present`.
void insert_head(std::string& head, const SqlTable& t, const binlog::Rows& rows, Bytes present) {
  head = "INSERT INTO ";
  head += t.name;
  head += " (";
  bool first = true;
  for (std::uint64_t i = 0; i < rows.column_count; ++i) {
    if (!has_column(present, i) || t.generated(static_cast<std::size_t>(i))) continue;
    if (!first) head += ", ";
    first = false;
    head += t.columns[static_cast<std::size_t>(i)];
  }
  head += ") VALUES (";
}

// Which columns a WHERE compares: the primary key when the image has all of it, else all.
struct KeyMatch {
  bool use_key = false;
  std::vector<char> in_key;  // per column
};

void key_match(const SqlTable& t, const binlog::Rows& rows, Bytes present, KeyMatch& m) {
  m.use_key = !t.info.primary_key.empty();
  m.in_key.assign(static_cast<std::size_t>(rows.column_count), 0);
  for (std::uint32_t k : t.info.primary_key) {
    if (k >= rows.column_count || !has_column(present, k))
      m.use_key = false;
    else
      m.in_key[k] = 1;
  }
}

// "v1, v2, ..." of an INSERT.
struct ValuesSink {
  Writer& out;
  const SqlTable& t;
  bool first = true;
  void separator() {
    if (!first) out.put(", ");
    first = false;
  }
  void null(std::size_t) {
    separator();
    out.put("NULL");
  }
  void json_diff(std::size_t, Bytes) { json_diff_outside_set(); }
  void value(std::size_t col, ByteCursor& cur) {
    separator();
    binlog::visit_value(t.info, col, cur, Literal{out, t, col});
  }
};

void put_values(Writer& out, const SqlTable& t, const binlog::Rows& rows, Bytes present,
                ByteCursor& cur) {
  walk_image(t.info, rows, present, cur, false, stored(t), ValuesSink{out, t});
}

// "`a`=1 AND `b` IS NULL" of a WHERE.
struct WhereSink {
  Writer& out;
  const SqlTable& t;
  bool first = true;
  void name(std::size_t col) {
    if (!first) out.put(" AND ");
    first = false;
    out.put(t.columns[col]);
  }
  void null(std::size_t col) {
    name(col);
    out.put(" IS NULL");
  }
  void json_diff(std::size_t, Bytes) { json_diff_outside_set(); }
  void value(std::size_t col, ByteCursor& cur) {
    // MySQL's JSON: its text, compared byte for byte. (`j`=<the text> compares a document with
    // a JSON string and matches no row; `j`=CAST(<the text> AS JSON) misses dates, decimals
    // and the other values whose type the text does not carry.)
    if (t.info.layout[col].type == binlog::ColumnType::kJson) {
      if (!first) out.put(" AND ");
      first = false;
      out.put("CAST(");
      out.put(t.columns[col]);
      out.put(" AS CHAR)=");
      binlog::visit_value(t.info, col, cur, Literal{out, t, col, true});
      out.put(" COLLATE utf8mb4_bin");
      return;
    }
    name(col);
    out.put('=');
    binlog::visit_value(t.info, col, cur, Literal{out, t, col});
  }
};

void put_where(Writer& out, const SqlTable& t, const KeyMatch& m, const binlog::Rows& rows,
               Bytes present, ByteCursor& cur, bool partial = false) {
  out.put(" WHERE ");
  WhereSink sink{out, t};
  walk_image(
      t.info, rows, present, cur, partial,
      [&](std::size_t col) { return m.use_key ? m.in_key[col] != 0 : !t.generated(col); }, sink);
  if (sink.first) out.put("1");
  if (!m.use_key) out.put(" LIMIT 1");
}

// "`a`=1, `b`=NULL" of an UPDATE's SET.
struct AssignSink {
  Writer& out;
  const SqlTable& t;
  bool first = true;
  void name(std::size_t col) {
    if (!first) out.put(", ");
    first = false;
    out.put(t.columns[col]);
    out.put('=');
  }
  void null(std::size_t col) {
    name(col);
    out.put("NULL");
  }
  void json_diff(std::size_t col, Bytes diffs) {
    name(col);
    append_json_update<true>(out, diffs, t.columns[col], !t.json_as_text);
  }
  void value(std::size_t col, ByteCursor& cur) {
    name(col);
    binlog::visit_value(t.info, col, cur, Literal{out, t, col});
  }
};

void put_assignments(Writer& out, const SqlTable& t, const binlog::Rows& rows, Bytes present,
                     ByteCursor& cur, bool partial) {
  walk_image(t.info, rows, present, cur, partial, stored(t), AssignSink{out, t});
}

// "###   @N=" for the first 4096 columns (MySQL's and MariaDB's limit), 16 bytes apart.
struct VerbosePrefixes {
  static constexpr std::size_t kColumns = 4096;
  char text[kColumns][16] = {};
  std::uint8_t size[kColumns] = {};
  constexpr VerbosePrefixes() {
    for (std::size_t c = 0; c < kColumns; ++c) {
      const char head[] = "###   @";
      std::size_t n = 0;
      for (std::size_t i = 0; i < 7; ++i) text[c][n++] = head[i];
      char digits[8] = {};
      std::size_t d = 0;
      for (std::size_t v = c + 1; v != 0; v /= 10) digits[d++] = static_cast<char>('0' + v % 10);
      while (d > 0) text[c][n++] = digits[--d];
      text[c][n++] = '=';
      size[c] = static_cast<std::uint8_t>(n);
    }
  }
};
constexpr VerbosePrefixes kVerbosePrefixes;

// The "###   @N=value" lines of -v (-vv: with the column's type and metadata). The usual
// values (integers, strings, NULL) take one reservation for their whole line, written through
// a local pointer.
template <bool kTypes>
struct VerboseSink {
  Writer& out;
  const SqlTable& table;
  const TableInfo& info;
  static constexpr std::size_t kPrefixRoom = 32;
  // "###   @N=" at p. Returns the end.
  [[gnu::always_inline]] static char* put_prefix(char* p, std::size_t col) {
    if (col < kVerbosePrefixes.kColumns) {  // all columns a server allows
      std::memcpy(p, kVerbosePrefixes.text[col], 16);
      return p + kVerbosePrefixes.size[col];
    }
    std::memcpy(p, "###   @", 7);
    p = binlog::put_uint(p + 7, static_cast<std::uint32_t>(col + 1));
    *p++ = '=';
    return p;
  }
  // Room for put_tail.
  [[gnu::always_inline]] std::size_t tail_room(std::size_t col) const {
    if constexpr (kTypes) {
      const std::uint32_t from = col == 0 ? 0 : table.type_head_ends[col - 1];
      return table.type_head_ends[col] - from + 5;
    }
    return 1;
  }
  // The line's end (-vv: the column's type comment first). Returns the end.
  [[gnu::always_inline]] char* put_tail(char* p, std::size_t col, bool is_null) const {
    if constexpr (kTypes) {
      const std::uint32_t from = col == 0 ? 0 : table.type_head_ends[col - 1];
      const std::size_t n = table.type_head_ends[col] - from;
      std::memcpy(p, table.type_heads.data() + from, n);
      std::memcpy(p + n, is_null ? "1 */" : "0 */", 4);
      p += n + 4;
    }
    *p = '\n';
    return p + 1;
  }
  [[gnu::always_inline]] void start(std::size_t col) {
    out.done(put_prefix(out.need(kPrefixRoom), col));
  }
  [[gnu::always_inline]] void end(std::size_t col, bool is_null) {
    out.done(put_tail(out.need(tail_room(col)), col, is_null));
  }
  [[gnu::always_inline]] void null(std::size_t col) {
    char* p = put_prefix(out.need(kPrefixRoom + 4 + tail_room(col)), col);
    std::memcpy(p, "NULL", 4);
    out.done(put_tail(p + 4, col, true));
  }
  void json_diff(std::size_t col, Bytes diffs) {
    start(col);
    char at[24] = "@";
    verbose::put_json_diff(out, diffs, std::string_view(at, binlog::put_uint(at + 1, col + 1)));
    end(col, false);
  }
  // A string's line: its bytes quoted (the bytes after it in the event may be looked at).
  [[gnu::always_inline]] void string_line(std::size_t col, Bytes b, const ByteCursor& cur) {
    char* p = out.need(kPrefixRoom + verbose::quoted_room(b.size()) + tail_room(col));
    p = verbose::put_quoted(put_prefix(p, col), b, info.mariadb, cur.remaining());
    out.done(put_tail(p, col, false));
  }
  [[gnu::always_inline]] void value(std::size_t col, ByteCursor& cur) {
    using binlog::ColumnType;
    const binlog::ColumnLayout& c = info.layout[col];
    // Integers and strings, the most values of most tables, straight from their bytes (as
    // visit_value reads them).
    if (const unsigned bytes = verbose::integer_bytes(c.type); bytes != 0) {
      const std::uint64_t raw = cur.uint_le(bytes);
      char* p = put_prefix(out.need(kPrefixRoom + 48 + tail_room(col)), col);
      out.done(put_tail(verbose::ToolValue::put_whole(p, raw, bytes), col, false));
      return;
    }
    switch (c.type) {
      case ColumnType::kVarchar:
      case ColumnType::kVarString:
      case ColumnType::kString:
        return string_line(col, cur.bytes(cur.uint_le(c.meta > 255 ? 2 : 1)), cur);
      case ColumnType::kTinyBlob:
      case ColumnType::kMediumBlob:
      case ColumnType::kLongBlob:
      case ColumnType::kBlob:
        if (c.meta >= 1 && c.meta <= 4)
          return string_line(col, cur.bytes(cur.uint_le(c.meta)), cur);
        break;
      default:
        break;
    }
    start(col);
    if (!verbose::put_raw_timestamp(out, c, cur))
      binlog::visit_value(info, col, cur, verbose::ToolValue{out, info, col, &cur});
    end(col, false);
  }
};

}  // namespace

// The start of an after image of a MySQL PARTIAL_UPDATE_ROWS event: value_options (packed),
// then with PARTIAL_JSON_UPDATES (1) a bitmap over the table's JSON columns: which of them
// hold diffs.
Bytes partial_json_bitmap(const binlog::TableInfo& info, const binlog::Rows& rows,
                          binlog::ByteCursor& cur) {
  const std::uint64_t options = cur.packed_int();
  if (!(options & 1)) return {};
  std::size_t json = 0;
  for (std::uint64_t i = 0; i < rows.column_count && i < info.layout.size(); ++i)
    if (info.layout[i].type == binlog::ColumnType::kJson) ++json;
  return cur.bytes((json + 7) / 8);
}

void SqlTable::prepare() {
  fmt::memory_buffer b;
  append_quoted_ident(b, info.db);
  b.push_back('.');
  append_quoted_ident(b, info.table);
  name.assign(b.data(), b.size());
  auto literal = [&b](auto&& write) {
    b.clear();
    {
      Writer out(b);
      write(out);
    }
    return std::string(b.data(), b.size());
  };
  type_heads.clear();
  type_head_ends.clear();
  enum_literals.assign(info.layout.size(), {});
  set_literals.assign(info.layout.size(), {});
  set_numeric.assign(info.layout.size(), 0);
  for (std::size_t c = 0; c < info.layout.size(); ++c) {
    if (c >= info.enum_values.size() || c >= info.set_values.size()) break;
    // A member whose name has no quoted form valid under every sql_mode is written by number
    // (its index; for SET, the bitmask), which the server takes as well.
    const auto& names = info.enum_values[c];
    const bool enum_by_name = std::all_of(names.begin(), names.end(), sql_quotable);
    for (std::size_t k = 0; k < names.size(); ++k)
      enum_literals[c].push_back(
          enum_by_name ? literal([&](Writer& out) { put_quoted<true>(out, names[k]); })
                       : std::to_string(k + 1));
    const auto& members = info.set_values[c];
    if (!std::all_of(members.begin(), members.end(), sql_quotable)) {
      set_numeric[c] = 1;
      continue;
    }
    if (members.empty() || members.size() > kSetLiteralMembers) continue;
    for (std::uint64_t mask = 0; mask < (std::uint64_t{1} << members.size()); ++mask)
      set_literals[c].push_back(literal([&](Writer& out) { put_set(out, mask, members); }));
  }
  columns.clear();
  client_alters_names = client_alters(name);
  if (info.names.size() != info.layout.size()) return;
  for (const std::string& n : info.names) {
    client_alters_names = client_alters_names || client_alters(n);
    b.clear();
    append_quoted_ident(b, n);
    columns.emplace_back(b.data(), b.size());
  }
}

void append_rows_sql(fmt::memory_buffer& buf, const binlog::Rows& rows, Bytes images,
                     const SqlTable& table, std::string_view delimiter, std::uint64_t offset,
                     std::vector<std::size_t>* ends) {
  if (images.empty()) return;
  Writer out(buf);
  require_names(table, rows);
  ByteCursor cur(images, offset);
  thread_local std::string head;
  thread_local KeyMatch match;
  switch (rows.kind) {
    case binlog::RowsKind::kWrite:
      insert_head(head, table, rows, rows.columns_before);
      while (!cur.empty()) {
        out.put(head);
        put_values(out, table, rows, rows.columns_before, cur);
        out.put(')');
        if (ends != nullptr) ends->push_back(out.size());
        out.put(delimiter);
      }
      break;
    case binlog::RowsKind::kDelete:
      key_match(table, rows, rows.columns_before, match);
      while (!cur.empty()) {
        out.put("DELETE FROM ");
        out.put(table.name);
        put_where(out, table, match, rows, rows.columns_before, cur);
        if (ends != nullptr) ends->push_back(out.size());
        out.put(delimiter);
      }
      break;
    case binlog::RowsKind::kUpdate:
    case binlog::RowsKind::kPartialUpdate:
      // The before image comes first in the event and last in the statement: step over it,
      // write the after image's SET, then go back for the WHERE.
      key_match(table, rows, rows.columns_before, match);
      while (!cur.empty()) {
        ByteCursor before = cur;
        walk_image(table.info, rows, rows.columns_before, cur, false, kNone, SkipSink{});
        out.put("UPDATE ");
        out.put(table.name);
        out.put(" SET ");
        put_assignments(out, table, rows, rows.columns_after, cur,
                        rows.kind == binlog::RowsKind::kPartialUpdate);
        put_where(out, table, match, rows, rows.columns_before, before);
        if (ends != nullptr) ends->push_back(out.size());
        out.put(delimiter);
      }
      break;
  }
}

void append_rows_undo(fmt::memory_buffer& buf, std::vector<std::size_t>& ends,
                      const binlog::Rows& rows, Bytes images, const SqlTable& table,
                      std::uint64_t offset) {
  // Undoing needs whole rows: a MINIMAL or NOBLOB image cannot restore what it left out. A
  // partial JSON update's after image serves only to find the row (by its key; a JSON diff in
  // a WHERE is refused), so its diffs do no harm.
  const bool partial = rows.kind == binlog::RowsKind::kPartialUpdate;
  const bool update = rows.kind == binlog::RowsKind::kUpdate || partial;
  if (!all_columns(rows.columns_before, rows.column_count) ||
      (update && !all_columns(rows.columns_after, rows.column_count)))
    throw Error(ErrorCode::kUnsupportedFormat,
                "the row images of " + table.info.db + "." + table.info.table +
                    " lack columns needed to undo them (binlog_row_image must be FULL)",
                offset);
  if (images.empty()) return;
  require_names(table, rows);
  Writer out(buf);
  ByteCursor cur(images, offset);
  thread_local std::string head;
  thread_local KeyMatch match;
  switch (rows.kind) {
    case binlog::RowsKind::kWrite:  // undo an insert: delete that row
      key_match(table, rows, rows.columns_before, match);
      while (!cur.empty()) {
        out.put("DELETE FROM ");
        out.put(table.name);
        put_where(out, table, match, rows, rows.columns_before, cur);
        ends.push_back(out.size());
      }
      break;
    case binlog::RowsKind::kDelete:  // undo a delete: insert it back
      insert_head(head, table, rows, rows.columns_before);
      while (!cur.empty()) {
        out.put(head);
        put_values(out, table, rows, rows.columns_before, cur);
        out.put(')');
        ends.push_back(out.size());
      }
      break;
    default:  // undo an update: set the old values where the new ones are
      key_match(table, rows, rows.columns_after, match);
      while (!cur.empty()) {
        out.put("UPDATE ");
        out.put(table.name);
        out.put(" SET ");
        put_assignments(out, table, rows, rows.columns_before, cur, false);
        put_where(out, table, match, rows, rows.columns_after, cur, partial);
        ends.push_back(out.size());
      }
      break;
  }
}

std::uint64_t append_rows_verbose(fmt::memory_buffer& buf, const binlog::Rows& rows, Bytes images,
                                  const SqlTable& table, bool types, std::uint64_t offset) {
  const TableInfo& info = table.info;
  ByteCursor cur(images, offset);
  // "### INSERT INTO `db`.`t`\n### SET\n" and the like, once per event.
  fmt::memory_buffer head;
  auto text = [&](std::string_view s) { head.append(s.data(), s.data() + s.size()); };
  switch (rows.kind) {
    case binlog::RowsKind::kWrite:
      text("### INSERT INTO ");
      break;
    case binlog::RowsKind::kDelete:
      text("### DELETE FROM ");
      break;
    default:
      text("### UPDATE ");
      break;
  }
  append_comment_ident(head, info.db);
  head.push_back('.');
  append_comment_ident(head, info.table);
  text(rows.kind == binlog::RowsKind::kWrite ? "\n### SET\n" : "\n### WHERE\n");
  const std::string_view row_head(head.data(), head.size());
  Writer out(buf);

  if (types && table.type_head_ends.size() != info.layout.size()) {
    fmt::memory_buffer heads;
    table.type_head_ends.clear();
    {
      Writer w(heads);
      for (std::size_t col = 0; col < info.layout.size(); ++col) {
        verbose::put_type_head(w, info, col);
        table.type_head_ends.push_back(static_cast<std::uint32_t>(w.size()));
      }
    }
    table.type_heads.assign(heads.data(), heads.size());
  }
  VerboseSink<false> sink{out, table, info};
  VerboseSink<true> typed_sink{out, table, info};
  auto image = [&](Bytes present, bool partial) {
    if (types)
      walk_image(info, rows, present, cur, partial, kEvery, typed_sink);
    else
      walk_image(info, rows, present, cur, partial, kEvery, sink);
  };
  std::uint64_t n = 0;
  while (!cur.empty()) {
    ++n;
    out.put(row_head);
    switch (rows.kind) {
      case binlog::RowsKind::kWrite:
      case binlog::RowsKind::kDelete:
        image(rows.columns_before, false);
        break;
      default:
        image(rows.columns_before, false);
        out.put("### SET\n");
        image(rows.columns_after, rows.kind == binlog::RowsKind::kPartialUpdate);
        break;
    }
  }
  return n;
}

}  // namespace binrecover::recovery
