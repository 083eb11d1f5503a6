// libFuzzer target for the SQL text writer (issue 12): names and values come from the fuzzer
// (a database, a table and a column name, a utf8mb4 text value, a binary value), written as
// --rows-as-sql INSERT, --flashback undo and -v comments. The text is then read back as the
// mysql client splits it (under the NO_BACKSLASH_ESCAPES session binrecover writes these
// statements for) and as the server tokenizes it: exactly the statements meant, each naming
// the table and carrying the values it was given, and comment lines that stay comments.
// Issue 29: ENUM/SET members and a primary-key name from the fuzzer through -v, -vv and
// --print-table-metadata (every line a comment), and the text layer (recovery/text/escape.h):
// terminal text holds no control, JSON parses back to the text, HTML holds no markup.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "binlog/error.h"
#include "binlog/events.h"
#include "binlog/row_values.h"
#include "recovery/reading/sql_lexer.h"
#include "recovery/sql/event_info.h"
#include "recovery/sql/row_sql.h"
#include "recovery/sql/sql_quote.h"
#include "recovery/text/escape.h"

namespace {

using binrecover::recovery::SqlLexer;
using binrecover::recovery::SqlToken;

[[noreturn]] void bad(const char* what) {
  std::fprintf(stderr, "sql_writer_fuzz: %s\n", what);
  std::abort();
}

// Where the mysql client ends each statement of `text` (the delimiter's start), reading quotes
// as it does with NO_BACKSLASH_ESCAPES on: a quote ends at the next same quote, a doubled
// quote reopens it; the delimiter counts outside quotes only.
std::vector<std::size_t> client_split(std::string_view text, std::string_view delimiter) {
  std::vector<std::size_t> ends;
  char quote = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"' || c == '`') {
      quote = c;
    } else if (text.compare(i, delimiter.size(), delimiter) == 0) {
      ends.push_back(i);
      i += delimiter.size() - 1;
    }
  }
  if (quote != 0) bad("the text ends inside a quote");
  return ends;
}

std::string unhex(std::string_view h) {
  std::string out;
  auto v = [](char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; };
  for (std::size_t i = 0; i + 1 < h.size(); i += 2)
    out.push_back(static_cast<char>(v(h[i]) * 16 + v(h[i + 1])));
  return out;
}

// The value of one literal at `t`: [_charset] 'text' | [_charset] X'hex' | NULL.
std::string literal(SqlLexer& lex, SqlToken t) {
  if (t.kind == SqlToken::Kind::kWord && !t.text.empty() && t.text[0] == '_') t = lex.next();
  if (t.kind == SqlToken::Kind::kWord && (t.text == "X" || t.text == "x")) {
    const SqlToken s = lex.next();
    if (s.kind != SqlToken::Kind::kString) bad("X not followed by a string");
    return unhex(s.text);
  }
  if (t.kind == SqlToken::Kind::kString) return binrecover::recovery::unquoted(t);
  bad("not a literal");
}

// Every line of `text` is a `#` comment line, ended by its line break.
void all_comments(std::string_view text, const char* what) {
  while (!text.empty()) {
    if (text[0] != '#') bad(what);
    const std::size_t nl = text.find('\n');
    if (nl == std::string_view::npos) bad(what);
    text.remove_prefix(nl + 1);
  }
}

// A packed integer as table maps write them.
void put_packed(std::string& s, std::size_t n) {
  if (n < 251) {
    s.push_back(static_cast<char>(n));
  } else {
    s.push_back(static_cast<char>(0xfc));
    s.push_back(static_cast<char>(n & 0xff));
    s.push_back(static_cast<char>(n >> 8));
  }
}

void put_field(std::string& opt, std::uint8_t type, const std::string& value) {
  opt.push_back(static_cast<char>(type));
  put_packed(opt, value.size());
  opt += value;
}

// The text layer: nothing from the input acts where it is printed.
void check_text_layer(std::string_view in) {
  using namespace binrecover::recovery;
  const std::string term = terminal_text(in);
  for (std::size_t i = 0; i < term.size(); ++i) {
    const auto c = static_cast<unsigned char>(term[i]);
    if (c < 0x20 || c == 0x7f) bad("a control byte in terminal text");
    if (c == 0xc2 && i + 1 < term.size() && static_cast<unsigned char>(term[i + 1]) >= 0x80 &&
        static_cast<unsigned char>(term[i + 1]) <= 0x9f)
      bad("a C1 control in terminal text");
    if (c == 0xe2 && i + 2 < term.size() && static_cast<unsigned char>(term[i + 1]) == 0x80 &&
        static_cast<unsigned char>(term[i + 2]) >= 0xaa &&
        static_cast<unsigned char>(term[i + 2]) <= 0xae)
      bad("a bidirectional override in terminal text");
  }
  fmt::memory_buffer h;
  append_html_text(h, in);
  const std::string_view html(h.data(), h.size());
  if (html.find_first_of("<>\"'") != std::string_view::npos) bad("markup in HTML text");
  for (std::size_t a = html.find('&'); a != std::string_view::npos; a = html.find('&', a + 1))
    if (html.compare(a, 5, "&amp;") != 0 && html.compare(a, 4, "&lt;") != 0 &&
        html.compare(a, 4, "&gt;") != 0 && html.compare(a, 6, "&quot;") != 0 &&
        html.compare(a, 5, "&#39;") != 0)
      bad("a bare & in HTML text");
  fmt::memory_buffer j;
  append_json_string(j, in);
  const std::string_view json(j.data(), j.size());
  if (json.size() < 2 || json.front() != '"' || json.back() != '"') bad("JSON not a string");
  for (std::size_t i = 1; i + 1 < json.size(); ++i) {
    const auto c = static_cast<unsigned char>(json[i]);
    if (c < 0x20) bad("a control byte in a JSON string");
    if (c == '\\') {
      ++i;
      continue;
    }
    if (c == '"') bad("a quote ends the JSON string early");
  }
}

void put_u16(std::string& s, std::size_t n) {
  s.push_back(static_cast<char>(n & 0xff));
  s.push_back(static_cast<char>(n >> 8));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace binrecover;
  // Fields separated by 0xFF: db, table, column, text value, binary value, ENUM/SET members
  // (separated by 0xFE), a primary-key name.
  std::vector<std::string> f(7);
  std::size_t k = 0;
  for (std::size_t i = 0; i < size && k < f.size(); ++i) {
    if (data[i] == 0xff) {
      ++k;
      continue;
    }
    f[k].push_back(static_cast<char>(data[i]));
  }
  for (const std::string& s : f)
    if (s.size() > 4000) return 0;
  const std::string& db = f[0];
  const std::string& table = f[1];
  const std::string column = f[2].empty() ? "c" : f[2];
  std::string text = f[3];
  const std::string& blob = f[4];
  if (db.empty() || table.empty()) return 0;

  recovery::SqlTable t;
  t.info.db = db;
  t.info.table = table;
  t.info.layout = {{binlog::ColumnType::kVarchar, 60000}, {binlog::ColumnType::kBlob, 2}};
  t.info.names = {column, column + "2"};
  t.info.collation = {45, 63};  // utf8mb4_general_ci, binary
  t.info.enum_values.assign(2, {});
  t.info.set_values.assign(2, {});
  t.prepare();

  std::string images;
  images.push_back('\0');  // no NULLs
  put_u16(images, text.size());
  images += text;
  put_u16(images, blob.size());
  images += blob;
  const std::uint8_t present = 0x03;
  binlog::Rows rows;
  rows.kind = binlog::RowsKind::kWrite;
  rows.column_count = 2;
  rows.columns_before = binlog::Bytes(reinterpret_cast<const std::byte*>(&present), 1);
  const binlog::Bytes img(reinterpret_cast<const std::byte*>(images.data()), images.size());

  // --rows-as-sql: one INSERT, split where it was meant, naming and carrying what it was given.
  constexpr std::string_view kDelimiter = "/*!*/;\n";
  fmt::memory_buffer out;
  std::vector<std::size_t> ends;
  recovery::append_rows_sql(out, rows, img, t, kDelimiter, 0, &ends);
  const std::string_view sql(out.data(), out.size());
  if (client_split(sql, kDelimiter) != ends || ends.size() != 1) bad("statements split elsewhere");
  const std::string_view stmt = sql.substr(0, ends[0]);
  if (!t.client_alters_names && recovery::client_alters(stmt))
    bad("a CR or NUL the client would alter");
  SqlLexer lex(stmt);
  auto word = [&](std::string_view w) {
    const SqlToken x = lex.next();
    if (!recovery::is_keyword(x, w)) bad("an unexpected token");
  };
  auto ident = [&](const std::string& want) {
    const SqlToken x = lex.next();
    if (x.kind != SqlToken::Kind::kIdent || recovery::unquoted(x) != want) bad("a name changed");
  };
  auto punct = [&](char c) {
    const SqlToken x = lex.next();
    if (x.kind != SqlToken::Kind::kPunct || x.text != std::string_view(&c, 1)) bad("punctuation");
  };
  word("INSERT");
  word("INTO");
  ident(db);
  punct('.');
  ident(table);
  punct('(');
  ident(column);
  punct(',');
  ident(column + "2");
  punct(')');
  word("VALUES");
  punct('(');
  // Text that is not valid UTF-8 is written as hex: the same bytes either way.
  if (literal(lex, lex.next()) != text) bad("the text value changed");
  punct(',');
  if (literal(lex, lex.next()) != blob) bad("the binary value changed");
  punct(')');
  if (lex.next().kind != SqlToken::Kind::kEnd) bad("more after the statement");

  // --flashback: the undo of the insert is one DELETE, split where it was meant.
  fmt::memory_buffer undo;
  std::vector<std::size_t> undo_ends;
  recovery::append_rows_undo(undo, undo_ends, rows, img, t, 0);
  if (undo_ends.size() != 1) bad("not one undo statement");
  std::string undo_text(undo.data(), undo_ends[0]);
  undo_text += ";\n";
  const auto split = client_split(undo_text, ";\n");
  if (split.size() != 1 || split[0] != undo_ends[0]) bad("the undo splits elsewhere");

  // -v: every line a comment.
  fmt::memory_buffer verbose;
  recovery::append_rows_verbose(verbose, rows, img, t, true, 0);
  std::string_view v(verbose.data(), verbose.size());
  while (!v.empty()) {
    if (v.substr(0, 3) != "###") bad("a -v line that is not a comment");
    const std::size_t nl = v.find('\n');
    if (nl == std::string_view::npos) bad("-v text without its line end");
    v.remove_prefix(nl + 1);
  }

  // ENUM and SET members (FULL row metadata) from the fuzzer (f[5], split at 0xFE, up to 8):
  // -v and -vv lines stay comments whatever a member holds.
  std::vector<std::string> members;
  {
    std::string cur;
    for (const char ch : f[5]) {
      if (static_cast<unsigned char>(ch) == 0xfe) {
        members.push_back(cur);
        cur.clear();
      } else {
        cur.push_back(ch);
      }
    }
    members.push_back(cur);
    if (members.size() > 8) members.resize(8);
  }
  recovery::SqlTable e;
  e.info.db = db;
  e.info.table = table;
  e.info.layout = {{binlog::ColumnType::kEnum, 1}, {binlog::ColumnType::kSet, 1}};
  e.info.names = {column, column + "2"};
  e.info.collation = {45, 45};
  e.info.enum_values = {members, {}};
  e.info.set_values = {{}, members};
  e.prepare();
  const std::size_t pick = blob.empty() ? 0 : static_cast<unsigned char>(blob[0]);
  std::string eimg;
  eimg.push_back('\0');
  eimg.push_back(static_cast<char>(1 + pick % members.size()));
  eimg.push_back(static_cast<char>(pick & ((1U << members.size()) - 1)));
  const binlog::Bytes eimage(reinterpret_cast<const std::byte*>(eimg.data()), eimg.size());
  for (const bool types : {false, true}) {
    fmt::memory_buffer ev;
    recovery::append_rows_verbose(ev, rows, eimage, e, types, 0);
    all_comments(std::string_view(ev.data(), ev.size()), "an ENUM/SET member ended a -v line");
  }

  // --print-table-metadata of a map naming the columns, the key (f[6]) and the members.
  {
    const std::string key = f[6].empty() ? "k" : f[6];
    std::string names, pk, enums, sets;
    for (const std::string& n : {key, column, column + "2"}) {
      put_packed(names, n.size());
      names += n;
    }
    put_packed(pk, 0);
    for (std::string* list : {&enums, &sets}) {
      put_packed(*list, members.size());
      for (const std::string& m : members) {
        put_packed(*list, m.size());
        *list += m;
      }
    }
    std::string opt;
    put_field(opt, 4, names);
    put_field(opt, 8, pk);
    put_field(opt, 6, enums);
    put_field(opt, 5, sets);
    const std::string types_bytes = {'\x03', '\xfe', '\xfe'};
    const std::string meta = {'\xf7', '\x01', '\xf8', '\x01'};
    const std::string nulls = {'\x00'};
    auto bytes = [](const std::string& x) {
      return binlog::Bytes(reinterpret_cast<const std::byte*>(x.data()), x.size());
    };
    binlog::TableMap tm;
    tm.db = db;
    tm.table = table;
    tm.column_count = 3;
    tm.column_types = bytes(types_bytes);
    tm.metadata = bytes(meta);
    tm.null_bits = bytes(nulls);
    tm.optional_metadata = bytes(opt);
    for (const bool mariadb : {false, true}) {
      fmt::memory_buffer m;
      try {
        recovery::append_table_metadata(m, tm, mariadb);
      } catch (const Error&) {
        continue;  // (a map that does not decode is refused, not printed)
      }
      all_comments(std::string_view(m.data(), m.size()), "a name ended a metadata comment");
    }
  }

  check_text_layer(db);
  check_text_layer(text);
  check_text_layer(blob);

  // Names in comment lines: nothing ends the line.
  fmt::memory_buffer c;
  recovery::append_comment_ident(c, table);
  recovery::append_comment_text(c, db);
  if (std::string_view(c.data(), c.size()).find_first_of("\r\n") != std::string_view::npos)
    bad("a line break in a comment");
  return 0;
}
