#include "recovery/sql/ddl_parser.h"

#include <algorithm>
#include <cctype>

#include "binlog/error.h"
#include "recovery/reading/sql_lexer.h"
#include "recovery/reading/statement_dbs.h"

namespace binrecover::recovery::ddl {

// ---- tokens of a DDL statement ----

bool ieq(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// A statement's tokens, read by the one SQL lexer (recovery/sql_lexer.h): comments dropped,
// executable comments read as SQL, identifiers and strings unquoted.
std::vector<Token> tokenize(std::string_view s) {
  std::vector<Token> out;
  SqlLexer lex(s);
  for (SqlToken t = lex.next(); t.kind != SqlToken::Kind::kEnd; t = lex.next()) {
    switch (t.kind) {
      case SqlToken::Kind::kWord:
        out.push_back({Token::Kind::kWord, std::string(t.text)});
        break;
      case SqlToken::Kind::kNumber:
        out.push_back({Token::Kind::kNumber, std::string(t.text)});
        break;
      case SqlToken::Kind::kIdent:
        out.push_back({Token::Kind::kIdent, unquoted(t)});
        break;
      case SqlToken::Kind::kString:
        out.push_back({Token::Kind::kString, unquoted(t)});
        break;
      case SqlToken::Kind::kPunct:
      case SqlToken::Kind::kEnd:
        out.push_back({Token::Kind::kPunct, std::string(t.text)});
        break;
    }
  }
  return out;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The first word of a statement, past whitespace and comments (the text of an executable
// comment counts).
std::string_view first_word(std::string_view s) {
  const SqlToken t = SqlLexer(s).next();
  return t.kind == SqlToken::Kind::kWord ? t.text : std::string_view();
}

// A column definition after its name: the type and attributes up to ',' or ')'.
ColumnDef column_def(DdlParser& p, std::string name, bool* inline_pk) {
  ColumnDef c;
  c.name = std::move(name);
  const bool is_enum = p.word("ENUM");
  const bool is_set = p.word("SET");
  c.is_unsigned = p.word("SERIAL");  // BIGINT UNSIGNED NOT NULL AUTO_INCREMENT UNIQUE
  p.next();                          // the type
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
    if (p.word("FIRST") || p.word("AFTER")) break;       // ALTER TABLE's placement
    if (p.accept("UNSIGNED") || p.accept("ZEROFILL")) {  // ZEROFILL implies UNSIGNED
      c.is_unsigned = true;
    } else if (p.word("PRIMARY") && p.word("KEY", 1)) {
      p.next();
      p.next();
      if (inline_pk != nullptr) *inline_pk = true;
    } else if (p.word("AS") && p.punct('(', 1)) {  // [GENERATED ALWAYS] AS (expr)
      c.generated = true;
      p.next();
      p.skip_group();
    } else if (p.punct('(')) {
      p.skip_group();  // DEFAULT (expr), CHECK (expr)
    } else {
      p.next();
    }
  }
  return c;
}

// The column names of a key part list "(a, b(10), c DESC)".
std::vector<std::string> key_columns(DdlParser& p) {
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

// Sets the key from column names; a name that is not a column leaves the table without a
// known key (UPDATE and DELETE then match every column with LIMIT 1, never a partial key).
void set_primary_key(TableDef& t, const std::vector<std::string>& cols) {
  t.primary_key.clear();
  for (const auto& c : cols) {
    const auto k = column_index(t, c);
    if (!k) {
      t.primary_key.clear();
      return;
    }
    t.primary_key.push_back(*k);
  }
}

// The definitions inside CREATE TABLE t ( ... ).
TableDef table_body(DdlParser& p) {
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

AlterTable::AlterTable(DdlParser& p, TableDef& d, const std::string& db) : p_(p), d_(d), db_(db) {
  for (ColumnDef& c : d_.columns) c.before_alter = c.name;
  for (std::size_t i = 0; i < d_.primary_key.size(); ++i)
    d_.columns[d_.primary_key[i]].key_part = static_cast<int>(i);
}

void AlterTable::clauses() {
  while (!p_.at_end() && !lost) {
    if (p_.accept("ADD"))
      add();
    else if (p_.accept("DROP"))
      drop();
    else if (p_.word("MODIFY") || p_.word("CHANGE"))
      modify();
    else if (p_.accept("RENAME"))
      rename();
    p_.skip_to_separator();
    if (!p_.accept(',')) break;
  }
}

void AlterTable::finish() {
  if (new_pk) {
    set_primary_key(d_, *new_pk);
  } else {
    // The key's columns, wherever they moved and whatever they are called now.
    std::vector<std::pair<int, std::uint32_t>> parts;
    for (std::size_t k = 0; k < d_.columns.size(); ++k)
      if (d_.columns[k].key_part >= 0)
        parts.emplace_back(d_.columns[k].key_part, static_cast<std::uint32_t>(k));
    std::sort(parts.begin(), parts.end());
    d_.primary_key.clear();
    for (const auto& part : parts) d_.primary_key.push_back(part.second);
  }
  for (ColumnDef& c : d_.columns) {
    c.before_alter.clear();
    c.key_part = -1;
  }
}

std::optional<std::size_t> AlterTable::old_column(std::string_view n) const {
  for (std::size_t k = 0; k < d_.columns.size(); ++k)
    if (!d_.columns[k].before_alter.empty() && ieq(d_.columns[k].before_alter, n)) return k;
  return std::nullopt;
}

std::optional<std::size_t> AlterTable::new_column(std::string_view n) const {
  for (std::size_t k = 0; k < d_.columns.size(); ++k)
    if (ieq(d_.columns[k].name, n)) return k;
  return std::nullopt;
}

void AlterTable::place(ColumnDef c, std::size_t at) {
  if (p_.accept("FIRST")) {
    at = 0;
  } else if (p_.accept("AFTER")) {
    const auto after = p_.name();
    const auto k = after ? new_column(*after) : std::nullopt;
    if (!k) {
      lost = true;
      return;
    }
    at = *k + 1;
  }
  at = std::min(at, d_.columns.size());
  d_.columns.insert(d_.columns.begin() + static_cast<std::ptrdiff_t>(at), std::move(c));
}

void AlterTable::key_clause() {
  p_.next();  // PRIMARY
  p_.next();  // KEY
  while (!p_.at_end() && !p_.punct('(')) p_.next();
  new_pk = key_columns(p_);
}

void AlterTable::add() {
  DdlParser& p = p_;
  if (p.word("PRIMARY") && p.word("KEY", 1)) {
    key_clause();
  } else if (p.word("CONSTRAINT")) {
    p.next();
    if (!p.word("PRIMARY") && !p.word("UNIQUE") && !p.word("FOREIGN") && !p.word("CHECK")) p.name();
    if (p.word("PRIMARY") && p.word("KEY", 1)) key_clause();
  } else if (p.word("KEY") || p.word("INDEX") || p.word("UNIQUE") || p.word("FULLTEXT") ||
             p.word("SPATIAL") || p.word("FOREIGN") || p.word("CHECK") || p.word("PARTITION") ||
             p.word("PERIOD") || p.word("VECTOR")) {
    // not a column
  } else {
    add_columns();
  }
}

void AlterTable::add_columns() {
  DdlParser& p = p_;
  p.accept("COLUMN");
  const bool if_not_exists = p.word("IF") && p.word("NOT", 1) && p.word("EXISTS", 2);
  p.skip_if_not_exists();
  if (p.accept('(')) {  // ADD (a INT, b INT)
    while (!p.at_end() && !p.punct(')')) {
      if (auto n = p.name()) {
        if (!new_column(*n)) d_.columns.push_back(column_def(p, *n, nullptr));
      }
      p.skip_to_separator();
      p.accept(',');
    }
    p.accept(')');
  } else if (auto n = p.name()) {
    if (new_column(*n)) {
      if (!if_not_exists) lost = true;  // the server would have refused it
    } else {
      ColumnDef c = column_def(p, *n, nullptr);
      place(std::move(c), d_.columns.size());
    }
  } else {
    lost = true;
  }
}

void AlterTable::drop() {
  DdlParser& p = p_;
  if (p.word("PRIMARY") && p.word("KEY", 1)) {
    p.next();
    p.next();
    for (ColumnDef& c : d_.columns) c.key_part = -1;
    new_pk.reset();
  } else if (p.word("INDEX") || p.word("KEY") || p.word("FOREIGN") || p.word("CONSTRAINT") ||
             p.word("CHECK") || p.word("PARTITION") || p.word("PERIOD")) {
    // not a column
  } else {
    p.accept("COLUMN");
    const bool if_exists = p.word("IF") && p.word("EXISTS", 1);
    p.skip_if_exists();
    const auto n = p.name();
    const auto k = n ? old_column(*n) : std::nullopt;
    if (k) {
      d_.columns.erase(d_.columns.begin() + static_cast<std::ptrdiff_t>(*k));
    } else if (!if_exists) {
      lost = true;
    }
  }
}

void AlterTable::modify() {
  DdlParser& p = p_;
  const bool change = p.word("CHANGE");
  p.next();
  p.accept("COLUMN");
  const bool if_exists = p.word("IF") && p.word("EXISTS", 1);
  p.skip_if_exists();
  const auto old_name = p.name();
  // (a plain index: g++ 12 -O2 takes an optional's value here for uninitialized)
  std::size_t k = d_.columns.size();
  if (old_name)
    if (const auto found = old_column(*old_name)) k = *found;
  const auto new_name = change ? p.name() : old_name;
  if (k == d_.columns.size() || !new_name) {
    if (!(if_exists && old_name && new_name)) lost = true;
  } else {
    ColumnDef c = column_def(p, *new_name, nullptr);
    c.key_part = d_.columns[k].key_part;
    d_.columns.erase(d_.columns.begin() + static_cast<std::ptrdiff_t>(k));
    place(std::move(c), k);
  }
}

void AlterTable::rename() {
  DdlParser& p = p_;
  if (p.accept("COLUMN")) {
    const auto from = p.name();
    p.accept("TO");
    const auto to = p.name();
    const auto k = from ? old_column(*from) : std::nullopt;
    if (!k || !to) {
      lost = true;
    } else {
      d_.columns[*k].name = *to;
    }
  } else if (p.word("INDEX") || p.word("KEY")) {
    // not a column
  } else {
    if (!p.accept("TO")) p.accept("AS");
    rename_to = p.table_name(db_);
  }
}

}  // namespace binrecover::recovery::ddl
