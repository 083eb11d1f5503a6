#include "recovery/schema.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <optional>

#include "binlog/error.h"
#include "recovery/statement_dbs.h"

namespace binrecover::recovery {

using binrecover::Error;
using binrecover::ErrorCode;

namespace {

// ---- tokens of a DDL statement ----

struct Token {
  enum class Kind : std::uint8_t { kWord, kIdent, kString, kNumber, kPunct, kEnd };
  Kind kind = Kind::kEnd;
  std::string text;  // identifiers and strings unquoted, words as written
};

bool ieq(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// Splits a statement into tokens. Comments are dropped; the text of versioned comments
// (/*!50100 ... */) is kept, as the server runs it.
std::vector<Token> tokenize(std::string_view s) {
  std::vector<Token> out;
  std::size_t i = 0;
  const std::size_t n = s.size();
  auto quoted = [&](char q) {
    std::string text;
    ++i;
    while (i < n) {
      const char c = s[i];
      if (c == '\\' && q != '`' && i + 1 < n) {
        const char e = s[i + 1];
        text.push_back(e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e == '0' ? '\0' : e);
        i += 2;
        continue;
      }
      if (c == q) {
        if (i + 1 < n && s[i + 1] == q) {  // doubled quote
          text.push_back(q);
          i += 2;
          continue;
        }
        ++i;
        return text;
      }
      text.push_back(c);
      ++i;
    }
    return text;
  };
  while (i < n) {
    const char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '#' || (c == '-' && i + 2 < n && s[i + 1] == '-' &&
                            std::isspace(static_cast<unsigned char>(s[i + 2])))) {
      while (i < n && s[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      if (i + 2 < n && s[i + 2] == '!') {  // versioned: keep the content
        i += 3;
        while (i < n && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
      } else {
        const std::size_t end = s.find("*/", i + 2);
        i = end == std::string_view::npos ? n : end + 2;
      }
    } else if (c == '*' && i + 1 < n && s[i + 1] == '/') {
      i += 2;  // the end of a versioned comment
    } else if (c == '`') {
      out.push_back({Token::Kind::kIdent, quoted('`')});
    } else if (c == '\'' || c == '"') {
      out.push_back({Token::Kind::kString, quoted(c)});
    } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' ||
               static_cast<unsigned char>(c) >= 0x80) {
      const std::size_t b = i;
      while (i < n && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_' ||
                       s[i] == '$' || static_cast<unsigned char>(s[i]) >= 0x80))
        ++i;
      const bool number = std::isdigit(static_cast<unsigned char>(s[b])) != 0;
      out.push_back(
          {number ? Token::Kind::kNumber : Token::Kind::kWord, std::string(s.substr(b, i - b))});
    } else {
      out.push_back({Token::Kind::kPunct, std::string(1, c)});
      ++i;
    }
  }
  return out;
}

class Parser {
 public:
  explicit Parser(std::vector<Token> t) : t_(std::move(t)) {}
  const Token& peek(std::size_t k = 0) const {
    static const Token kEnd;
    return p_ + k < t_.size() ? t_[p_ + k] : kEnd;
  }
  bool at_end() const { return p_ >= t_.size(); }
  void next() { ++p_; }
  bool word(std::string_view w, std::size_t k = 0) const {
    return peek(k).kind == Token::Kind::kWord && ieq(peek(k).text, w);
  }
  bool punct(char c, std::size_t k = 0) const {
    return peek(k).kind == Token::Kind::kPunct && peek(k).text[0] == c;
  }
  bool accept(std::string_view w) {
    if (!word(w)) return false;
    next();
    return true;
  }
  bool accept(char c) {
    if (!punct(c)) return false;
    next();
    return true;
  }
  // A name: a quoted identifier or a bare word.
  std::optional<std::string> name() {
    const Token& t = peek();
    if (t.kind != Token::Kind::kIdent && t.kind != Token::Kind::kWord) return std::nullopt;
    std::string s = t.text;
    next();
    return s;
  }
  // db.table or table.
  std::optional<std::pair<std::string, std::string>> table_name(std::string_view db) {
    auto a = name();
    if (!a) return std::nullopt;
    if (accept('.')) {
      auto b = name();
      if (!b) return std::nullopt;
      return std::make_pair(*a, *b);
    }
    return std::make_pair(std::string(db), *a);
  }
  // Skips a balanced (...) group when one starts here.
  void skip_group() {
    if (!punct('(')) return;
    int depth = 0;
    do {
      if (punct('(')) ++depth;
      if (punct(')')) --depth;
      next();
    } while (depth > 0 && !at_end());
  }
  // Skips to the next ',' or ')' at this nesting level (not consuming it).
  void skip_to_separator() {
    while (!at_end() && !punct(',') && !punct(')')) {
      if (punct('(')) {
        skip_group();
      } else {
        next();
      }
    }
  }
  void skip_if_not_exists() {
    if (word("IF") && word("NOT", 1) && word("EXISTS", 2)) p_ += 3;
  }
  void skip_if_exists() {
    if (word("IF") && word("EXISTS", 1)) p_ += 2;
  }

 private:
  std::vector<Token> t_;
  std::size_t p_ = 0;
};

// A column definition after its name: the type and attributes up to ',' or ')'.
ColumnDef column_def(Parser& p, std::string name, bool* inline_pk) {
  ColumnDef c;
  c.name = std::move(name);
  const bool is_enum = p.word("ENUM");
  const bool is_set = p.word("SET");
  p.next();  // the type
  if (p.punct('(')) {
    if (is_enum || is_set) {
      p.next();
      while (!p.at_end() && !p.punct(')')) {
        if (p.peek().kind == Token::Kind::kString)
          (is_enum ? c.enum_values : c.set_values).push_back(p.peek().text);
        p.next();
      }
      p.accept(')');
    } else {
      p.skip_group();
    }
  }
  while (!p.at_end() && !p.punct(',') && !p.punct(')')) {
    if (p.word("FIRST") || p.word("AFTER")) break;  // ALTER TABLE's placement
    if (p.accept("UNSIGNED")) {
      c.is_unsigned = true;
    } else if (p.word("PRIMARY") && p.word("KEY", 1)) {
      p.next();
      p.next();
      if (inline_pk != nullptr) *inline_pk = true;
    } else if (p.punct('(')) {
      p.skip_group();  // DEFAULT (expr), AS (expr), CHECK (expr)
    } else {
      p.next();
    }
  }
  return c;
}

// The column names of a key part list "(a, b(10), c DESC)".
std::vector<std::string> key_columns(Parser& p) {
  std::vector<std::string> out;
  if (!p.accept('(')) return out;
  while (!p.at_end() && !p.punct(')')) {
    if (auto n = p.name()) out.push_back(*n);
    p.skip_to_separator();
    p.accept(',');
  }
  p.accept(')');
  return out;
}

std::optional<std::uint32_t> column_index(const TableDef& t, std::string_view name) {
  for (std::size_t k = 0; k < t.columns.size(); ++k)
    if (ieq(t.columns[k].name, name)) return static_cast<std::uint32_t>(k);
  return std::nullopt;
}

void set_primary_key(TableDef& t, const std::vector<std::string>& cols) {
  t.primary_key.clear();
  for (const auto& c : cols)
    if (auto k = column_index(t, c)) t.primary_key.push_back(*k);
}

// Inserts `c` where FIRST / AFTER x says (at the end otherwise), keeping key indexes right.
void place_column(Parser& p, TableDef& t, ColumnDef c, std::optional<std::size_t> old_at) {
  std::vector<std::string> pk;
  for (std::uint32_t k : t.primary_key) pk.push_back(t.columns[k].name);
  if (old_at) {
    // MODIFY/CHANGE: a renamed key column keeps its place in the key.
    for (auto& n : pk)
      if (ieq(n, t.columns[*old_at].name)) n = c.name;
    t.columns.erase(t.columns.begin() + static_cast<std::ptrdiff_t>(*old_at));
  }
  std::size_t at = old_at.value_or(t.columns.size());
  if (p.accept("FIRST")) {
    at = 0;
  } else if (p.accept("AFTER")) {
    if (auto after = p.name())
      if (auto k = column_index(t, *after)) at = *k + 1;
  }
  at = std::min(at, t.columns.size());
  t.columns.insert(t.columns.begin() + static_cast<std::ptrdiff_t>(at), std::move(c));
  set_primary_key(t, pk);
}

void drop_column(TableDef& t, std::string_view name) {
  const auto k = column_index(t, name);
  if (!k) return;
  std::vector<std::string> pk;
  for (std::uint32_t i : t.primary_key)
    if (i != *k) pk.push_back(t.columns[i].name);
  t.columns.erase(t.columns.begin() + *k);
  set_primary_key(t, pk);
}

// The definitions inside CREATE TABLE t ( ... ).
TableDef table_body(Parser& p) {
  TableDef t;
  std::vector<std::string> pk;
  p.accept('(');
  while (!p.at_end() && !p.punct(')')) {
    if (p.word("PRIMARY") && p.word("KEY", 1)) {
      p.next();
      p.next();
      while (!p.at_end() && !p.punct('(')) p.next();  // USING BTREE before the list
      pk = key_columns(p);
    } else if (p.word("CONSTRAINT")) {
      p.next();
      if (!p.word("PRIMARY") && !p.word("UNIQUE") && !p.word("FOREIGN") && !p.word("CHECK"))
        p.name();  // the constraint's name
      if (p.word("PRIMARY") && p.word("KEY", 1)) {
        p.next();
        p.next();
        while (!p.at_end() && !p.punct('(')) p.next();
        pk = key_columns(p);
      }
    } else if (p.word("KEY") || p.word("INDEX") || p.word("UNIQUE") || p.word("FULLTEXT") ||
               p.word("SPATIAL") || p.word("FOREIGN") || p.word("CHECK") || p.word("PERIOD") ||
               p.word("VECTOR")) {
      // not a column (a column named like this keyword is quoted in dumps)
    } else if (auto n = p.name()) {
      bool inline_pk = false;
      t.columns.push_back(column_def(p, *n, &inline_pk));
      if (inline_pk) pk = {t.columns.back().name};
      p.accept(',');
      continue;
    }
    p.skip_to_separator();
    p.accept(',');
  }
  p.accept(')');
  set_primary_key(t, pk);
  return t;
}

}  // namespace

TableDef* Schema::lookup(std::string_view db, std::string_view table) {
  auto it = tables_.find(Key(std::string(db), std::string(table)));
  if (it == tables_.end()) it = tables_.find(Key("", std::string(table)));
  return it == tables_.end() ? nullptr : &it->second;
}

const TableDef* Schema::find(std::string_view db, std::string_view table) const {
  return const_cast<Schema*>(this)->lookup(db, table);
}

void Schema::apply(std::string_view db, std::string_view sql) {
  Parser p(tokenize(sql));
  auto changed = [&] { ++generation_; };
  if (p.accept("CREATE")) {
    p.accept("OR") && p.accept("REPLACE");
    p.accept("TEMPORARY");
    if (!p.accept("TABLE")) return;
    p.skip_if_not_exists();
    const auto name = p.table_name(db);
    if (!name) return;
    if (p.accept("LIKE") || (p.punct('(') && p.word("LIKE", 1) && (p.next(), p.next(), true))) {
      const auto from = p.table_name(db);
      if (!from) return;
      const TableDef* src = find(from->first, from->second);
      if (src != nullptr) {
        const TableDef copy = *src;
        tables_[Key(name->first, name->second)] = copy;
      } else {
        tables_.erase(Key(name->first, name->second));
      }
      changed();
      return;
    }
    if (!p.punct('(')) {  // CREATE TABLE ... SELECT: the columns are not written out
      tables_.erase(Key(name->first, name->second));
      changed();
      return;
    }
    tables_[Key(name->first, name->second)] = table_body(p);
    changed();
    return;
  }
  if (p.accept("DROP")) {
    p.accept("TEMPORARY");
    if (p.accept("DATABASE") || p.accept("SCHEMA")) {
      p.skip_if_exists();
      if (const auto d = p.name()) {
        std::erase_if(tables_, [&](const auto& e) { return e.first.first == *d; });
        changed();
      }
      return;
    }
    if (!p.accept("TABLE")) return;
    p.skip_if_exists();
    do {
      if (const auto name = p.table_name(db)) tables_.erase(Key(name->first, name->second));
    } while (p.accept(','));
    changed();
    return;
  }
  if (p.accept("RENAME")) {
    if (!p.accept("TABLE")) return;
    do {
      const auto from = p.table_name(db);
      if (!from || !p.accept("TO")) return;
      const auto to = p.table_name(db);
      if (!to) return;
      auto node = tables_.extract(Key(from->first, from->second));
      if (!node.empty()) {
        node.key() = Key(to->first, to->second);
        tables_.insert(std::move(node));
      }
    } while (p.accept(','));
    changed();
    return;
  }
  if (!p.accept("ALTER")) return;
  p.accept("ONLINE");
  p.accept("IGNORE");
  if (!p.accept("TABLE")) return;
  p.skip_if_exists();
  const auto name = p.table_name(db);
  if (!name) return;
  TableDef* t = lookup(name->first, name->second);
  if (t == nullptr) return;
  changed();
  std::optional<std::pair<std::string, std::string>> rename_to;
  while (!p.at_end()) {
    if (p.accept("ADD")) {
      if (p.word("PRIMARY") && p.word("KEY", 1)) {
        p.next();
        p.next();
        while (!p.at_end() && !p.punct('(')) p.next();
        set_primary_key(*t, key_columns(p));
      } else if (p.word("CONSTRAINT") || p.word("KEY") || p.word("INDEX") || p.word("UNIQUE") ||
                 p.word("FULLTEXT") || p.word("SPATIAL") || p.word("FOREIGN") || p.word("CHECK") ||
                 p.word("PARTITION") || p.word("PERIOD")) {
        if (p.word("CONSTRAINT")) {
          p.next();
          if (!p.word("PRIMARY") && !p.word("UNIQUE") && !p.word("FOREIGN") && !p.word("CHECK"))
            p.name();
          if (p.word("PRIMARY") && p.word("KEY", 1)) {
            p.next();
            p.next();
            while (!p.at_end() && !p.punct('(')) p.next();
            set_primary_key(*t, key_columns(p));
          }
        }
      } else {
        p.accept("COLUMN");
        p.skip_if_not_exists();
        if (p.accept('(')) {  // ADD (a INT, b INT)
          while (!p.at_end() && !p.punct(')')) {
            if (auto n = p.name()) t->columns.push_back(column_def(p, *n, nullptr));
            p.accept(',');
          }
          p.accept(')');
        } else if (auto n = p.name()) {
          if (!column_index(*t, *n)) {
            ColumnDef c = column_def(p, *n, nullptr);
            place_column(p, *t, std::move(c), std::nullopt);
          }
        }
      }
    } else if (p.accept("DROP")) {
      if (p.word("PRIMARY") && p.word("KEY", 1)) {
        p.next();
        p.next();
        t->primary_key.clear();
      } else if (p.word("INDEX") || p.word("KEY") || p.word("FOREIGN") || p.word("CONSTRAINT") ||
                 p.word("CHECK") || p.word("PARTITION")) {
        // not a column
      } else {
        p.accept("COLUMN");
        p.skip_if_exists();
        if (auto n = p.name()) drop_column(*t, *n);
      }
    } else if (p.word("MODIFY") || p.word("CHANGE")) {
      const bool change = p.word("CHANGE");
      p.next();
      p.accept("COLUMN");
      p.skip_if_exists();
      const auto old_name = p.name();
      if (old_name) {
        std::string new_name = *old_name;
        if (change) new_name = p.name().value_or(*old_name);
        if (const auto k = column_index(*t, *old_name)) {
          ColumnDef c = column_def(p, new_name, nullptr);
          place_column(p, *t, std::move(c), *k);
        }
      }
    } else if (p.accept("RENAME")) {
      if (p.accept("COLUMN")) {
        const auto from = p.name();
        p.accept("TO");
        const auto to = p.name();
        if (from && to)
          if (const auto k = column_index(*t, *from)) t->columns[*k].name = *to;
      } else if (p.word("INDEX") || p.word("KEY")) {
        // not a column
      } else {
        if (!p.accept("TO")) p.accept("AS");
        rename_to = p.table_name(name->first);
      }
    }
    p.skip_to_separator();
    if (!p.accept(',')) break;
  }
  if (rename_to) {
    auto node = tables_.extract(Key(name->first, name->second));
    if (node.empty()) node = tables_.extract(Key("", name->second));
    if (!node.empty()) {
      node.key() = Key(rename_to->first, rename_to->second);
      tables_.insert(std::move(node));
    }
  }
}

void Schema::observe(const Transaction& unit) {
  for (const binlog::Event& ev : unit.events) {
    const auto* q = std::get_if<binlog::Query>(&ev.body);
    if (q == nullptr || q->compressed) continue;
    const std::string_view s = q->query;
    std::size_t i = 0;
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    const std::string_view head = s.substr(i, 6);
    if (ieq(head, "CREATE") || ieq(head, "ALTER ") || ieq(head.substr(0, 4), "DROP") ||
        ieq(head, "RENAME"))
      apply(q->db, s);
  }
}

void Schema::load_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorCode::kIo, "cannot read the schema file " + path);
  // Statements end at the delimiter outside quotes and comments (DELIMITER lines change it, as
  // in the mysql client). Only statements whose first word is CREATE, ALTER, DROP, RENAME or
  // USE are kept; the others (INSERT, SET, LOCK ...) stream through without being stored, so a
  // dump with data costs one pass and little memory.
  std::string delimiter = ";";
  std::string db, stmt, word, recent;
  bool keep = true, decided = false;
  char quote = 0, prev = 0;
  bool line_comment = false, block_comment = false, versioned = false, escape = false;
  std::size_t block_len = 0;
  auto finish = [&] {
    if (keep && decided) {
      if (ieq(word, "USE")) {
        Parser p(tokenize(stmt));
        p.next();
        if (auto n = p.name()) db = *n;
      } else if (!ieq(word, "DELIMITER")) {
        apply(db, stmt);
      }
    }
    stmt.clear();
    word.clear();
    keep = true;
    decided = false;
  };
  std::vector<char> buf(1 << 20);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    const std::size_t got = static_cast<std::size_t>(in.gcount());
    for (std::size_t k = 0; k < got; ++k) {
      const char c = buf[k];
      if (keep) stmt.push_back(c);
      recent.push_back(c);
      if (recent.size() > 16) recent.erase(0, recent.size() - 16);
      bool code = false;
      if (line_comment) {
        if (c == '\n') line_comment = false;
      } else if (block_comment) {
        if (++block_len == 1 && c == '!') versioned = true;
        if (prev == '*' && c == '/' && block_len >= 2) block_comment = versioned = false;
      } else if (quote != 0) {
        if (escape) {
          escape = false;
        } else if (c == '\\' && quote != '`') {
          escape = true;
        } else if (c == quote) {
          quote = 0;
        }
      } else if (c == '\'' || c == '"' || c == '`') {
        quote = c;
      } else if (c == '#' || (prev == '-' && c == '-')) {
        line_comment = true;
      } else if (prev == '/' && c == '*') {
        block_comment = true;
        block_len = 0;
      } else {
        code = true;
      }
      // The first word decides whether the statement is kept.
      if (!decided && (code || versioned)) {
        if (std::isalpha(static_cast<unsigned char>(c))) {
          word.push_back(c);
        } else if (!word.empty()) {
          decided = true;
        }
        if (word.size() > 10) decided = true;
        if (decided) {
          keep = ieq(word, "CREATE") || ieq(word, "ALTER") || ieq(word, "DROP") ||
                 ieq(word, "RENAME") || ieq(word, "USE") || ieq(word, "DELIMITER");
          if (!keep) stmt.clear();
        }
      }
      if (decided && ieq(word, "DELIMITER")) {
        if (c == '\n') {
          std::string d = stmt.substr(stmt.find_first_not_of(" \t\r\n"));
          d = d.substr(std::min<std::size_t>(9, d.size()));
          const auto b = d.find_first_not_of(" \t");
          const auto e = d.find_last_not_of(" \t\r\n");
          if (b != std::string::npos && e != std::string::npos) delimiter = d.substr(b, e - b + 1);
          finish();
        }
      } else if (code && recent.size() >= delimiter.size() &&
                 std::string_view(recent).substr(recent.size() - delimiter.size()) == delimiter) {
        if (keep) stmt.resize(stmt.size() - delimiter.size());
        finish();
        recent.clear();
      }
      prev = c;
    }
  }
  if (in.bad()) throw Error(ErrorCode::kIo, "cannot read the schema file " + path);
  finish();
  if (tables_.empty())
    throw Error(ErrorCode::kUsage, "the schema file " + path + " defines no table (CREATE TABLE)");
}

bool Schema::complete(binlog::TableInfo& info, std::uint64_t pos, bool positional) {
  if (!info.names.empty()) return true;
  const TableDef* t = find(info.db, info.table);
  if (t == nullptr || t->columns.size() != info.layout.size()) {
    if (!positional) return false;
    info.names.resize(info.layout.size());
    for (std::size_t k = 0; k < info.names.size(); ++k) info.names[k] = "@" + std::to_string(k + 1);
    if (warn_ && warned_.emplace(Key(info.db, info.table), generation_).second)
      warn_("at " + std::to_string(pos) + ": " + info.db + "." + info.table +
            (t == nullptr
                 ? " is not in the schema"
                 : " has " + std::to_string(t->columns.size()) + " columns in the schema but " +
                       std::to_string(info.layout.size()) + " in the binlog") +
            " and the binlog carries no column names: its columns are written by position "
            "(`@1`, `@2`, ...), which a server cannot run; give its CREATE TABLE with --schema "
            "(or log with binlog_row_metadata=FULL)");
    return false;
  }
  const std::size_t n = t->columns.size();
  info.names.resize(n);
  for (std::size_t k = 0; k < n; ++k) {
    const ColumnDef& c = t->columns[k];
    info.names[k] = c.name;
    if (!info.has_signedness) info.is_unsigned[k] = c.is_unsigned ? 1 : 0;
    if (info.enum_values[k].empty()) info.enum_values[k] = c.enum_values;
    if (info.set_values[k].empty()) info.set_values[k] = c.set_values;
  }
  info.has_signedness = true;
  if (info.primary_key.empty()) info.primary_key = t->primary_key;
  return true;
}

}  // namespace binrecover::recovery
