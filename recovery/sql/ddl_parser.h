#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "recovery/sql/schema.h"

namespace binrecover::recovery::ddl {

// The DDL the schema follows, parsed: a statement's tokens (by the one SQL lexer), a cursor
// over them (DdlParser), a CREATE TABLE's definitions and ALTER TABLE's clauses.

// ---- tokens of a DDL statement ----

struct Token {
  enum class Kind : std::uint8_t { kWord, kIdent, kString, kNumber, kPunct, kEnd };
  Kind kind = Kind::kEnd;
  std::string text;  // identifiers and strings unquoted, words as written
};

// Whether two words are equal but for letter case (ASCII).
bool ieq(std::string_view a, std::string_view b);

// A statement's tokens, read by the one SQL lexer (recovery/sql_lexer.h): comments dropped,
// executable comments read as SQL, identifiers and strings unquoted.
std::vector<Token> tokenize(std::string_view s);

// `s` in lower case (ASCII).
std::string lower(std::string s);

// The first word of a statement, past whitespace and comments (the text of an executable
// comment counts).
std::string_view first_word(std::string_view s);

class DdlParser {
 public:
  explicit DdlParser(std::vector<Token> t) : t_(std::move(t)) {}
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
    const bool digits_only = t.kind == Token::Kind::kNumber &&
                             t.text.find_first_not_of("0123456789") == std::string::npos;
    if (t.kind != Token::Kind::kIdent && t.kind != Token::Kind::kWord &&
        (t.kind != Token::Kind::kNumber || digits_only))
      return std::nullopt;
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

// ---- CREATE TABLE ----

// The column `name` of `t` (letter case aside), or nullopt.
std::optional<std::uint32_t> column_index(const TableDef& t, std::string_view name);

// A column definition after its name: the type and attributes up to ',' or ')'.
ColumnDef column_def(DdlParser& p, std::string name, bool* inline_pk);

// The column names of a key part list "(a, b(10), c DESC)".
std::vector<std::string> key_columns(DdlParser& p);

// Sets the key from column names; a name that is not a column leaves the table without a
// known key (UPDATE and DELETE then match every column with LIMIT 1, never a partial key).
void set_primary_key(TableDef& t, const std::vector<std::string>& cols);

// The definitions inside CREATE TABLE t ( ... ).
TableDef table_body(DdlParser& p);

// ALTER TABLE's clauses. MySQL resolves the columns a clause changes against the table as it
// was before the statement (RENAME COLUMN a TO b, RENAME COLUMN b TO a swaps them), and key
// and AFTER columns against the new table. Anything that cannot be resolved drops the table's
// definition: its rows are then written by position with a warning, never into wrong columns.
// The clauses of one ALTER TABLE applied to a table's definition, one after another: columns
// added, dropped, changed or renamed, the primary key, a new name. `lost` once a clause cannot
// be followed (the definition is then forgotten rather than guessed).
class AlterTable {
 public:
  AlterTable(DdlParser& p, TableDef& d, const std::string& db);
  // Every clause, up to the statement's end or the first that cannot be followed.
  void clauses();
  // The primary key as the clauses left it; the marks of the alteration cleared.
  void finish();

  bool lost = false;
  std::optional<std::vector<std::string>> new_pk;
  std::optional<std::pair<std::string, std::string>> rename_to;

 private:
  std::optional<std::size_t> old_column(std::string_view n) const;
  std::optional<std::size_t> new_column(std::string_view n) const;
  // FIRST / AFTER x after a column definition: where it goes (default: `at`).
  void place(ColumnDef c, std::size_t at);
  void key_clause();
  void add();
  void add_columns();
  void drop();
  void modify();
  void rename();

  DdlParser& p_;
  TableDef& d_;
  const std::string& db_;
};

}  // namespace binrecover::recovery::ddl
