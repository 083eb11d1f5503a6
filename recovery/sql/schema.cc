#include "recovery/sql/schema.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <optional>

#include "binlog/error.h"
#include "recovery/reading/sql_lexer.h"
#include "recovery/reading/statement_dbs.h"

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

}  // namespace

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

namespace {

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
  DdlParser p(tokenize(sql));
  auto changed = [&] { ++generation_; };
  if (p.accept("CREATE")) {
    p.accept("OR") && p.accept("REPLACE");
    if (p.accept("DEFINER")) {  // DEFINER = user[@host] | CURRENT_USER[()]
      p.accept('=');
      while (!p.at_end() && !p.word("TRIGGER") && !p.word("PROCEDURE") && !p.word("FUNCTION") &&
             !p.word("VIEW") && !p.word("EVENT") && !p.word("SQL"))
        p.next();
    }
    if (p.accept("TRIGGER")) {
      // TRIGGER [IF NOT EXISTS] [db.]name {BEFORE|AFTER} {INSERT|UPDATE|DELETE} ON table
      p.skip_if_not_exists();
      const auto trigger = p.table_name(db);
      if (!trigger || p.at_end()) return;
      p.next();
      p.next();
      if (!p.accept("ON")) return;
      const auto on = p.table_name(trigger->first);
      if (!on) return;
      triggers_[Key(on->first, on->second)].insert(lower(trigger->second));
      changed();
      return;
    }
    if (p.word("TEMPORARY")) return;  // a session's own table, not the base table's shape
    if (!p.accept("TABLE")) return;
    const bool if_not_exists = p.word("IF") && p.word("NOT", 1) && p.word("EXISTS", 2);
    p.skip_if_not_exists();
    const auto name = p.table_name(db);
    if (!name) return;
    // Logged even when the table exists, and then it changes nothing.
    if (if_not_exists && find(name->first, name->second) != nullptr) return;
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
    if (p.word("TEMPORARY")) return;
    if (p.accept("TRIGGER")) {
      p.skip_if_exists();
      if (const auto trigger = p.table_name(db)) {
        for (auto& [key, names] : triggers_)
          if (key.first == trigger->first) names.erase(lower(trigger->second));
        std::erase_if(triggers_, [](const auto& e) { return e.second.empty(); });
        changed();
      }
      return;
    }
    if (p.accept("DATABASE") || p.accept("SCHEMA")) {
      p.skip_if_exists();
      if (const auto d = p.name()) {
        std::erase_if(tables_, [&](const auto& e) { return e.first.first == *d; });
        std::erase_if(triggers_, [&](const auto& e) { return e.first.first == *d; });
        changed();
      }
      return;
    }
    if (!p.accept("TABLE")) return;
    p.skip_if_exists();
    do {
      if (const auto name = p.table_name(db)) {
        if (tables_.erase(Key(name->first, name->second)) == 0)
          tables_.erase(Key("", name->second));
        triggers_.erase(Key(name->first, name->second));  // they go with their table
      }
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
      if (node.empty()) node = tables_.extract(Key("", from->second));
      tables_.erase(Key(to->first, to->second));
      if (!node.empty()) {
        node.key() = Key(to->first, to->second);
        tables_.insert(std::move(node));
      }
      auto trig = triggers_.extract(Key(from->first, from->second));
      if (!trig.empty()) {
        trig.key() = Key(to->first, to->second);
        triggers_.insert(std::move(trig));
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
  if (!name || lookup(name->first, name->second) == nullptr) return;
  alter(p, name->first, name->second);
  changed();
}

bool Schema::has_triggers(std::string_view db, std::string_view table) const {
  return triggers_.count(Key(std::string(db), std::string(table))) != 0;
}

void Schema::warn_trigger_rows(std::string_view db, std::string_view table, std::uint64_t pos) {
  if (!warn_ || !trigger_warned_.emplace(db, table).second) return;
  const auto& names = triggers_[Key(std::string(db), std::string(table))];
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  warn_("at " + std::to_string(pos) + ": " + std::string(db) + "." + std::string(table) +
        " has triggers (" + list +
        "): its rows written as plain SQL fire them again on the target, although the log "
        "already holds what they did (duplicate keys or extra rows); --trigger-tables=binlog "
        "writes that table's rows as BINLOG statements, which fire no trigger");
}

TableDef* Schema::lookup_to_change(std::string_view db, std::string_view table) {
  const Key exact{std::string(db), std::string(table)};
  auto it = tables_.find(exact);
  if (it != tables_.end()) return &it->second;
  it = tables_.find(Key("", std::string(table)));
  if (it == tables_.end()) return nullptr;
  const TableDef copy = it->second;
  return &(tables_[exact] = copy);
}

// ALTER TABLE's clauses. MySQL resolves the columns a clause changes against the table as it
// was before the statement (RENAME COLUMN a TO b, RENAME COLUMN b TO a swaps them), and key
// and AFTER columns against the new table. Anything that cannot be resolved drops the table's
// definition: its rows are then written by position with a warning, never into wrong columns.
namespace {

// The clauses of one ALTER TABLE applied to a table's definition, one after another: columns
// added, dropped, changed or renamed, the primary key, a new name. `lost` once a clause cannot
// be followed (the definition is then forgotten rather than guessed).
class AlterTable {
 public:
  AlterTable(DdlParser& p, TableDef& d, const std::string& db) : p_(p), d_(d), db_(db) {
    for (ColumnDef& c : d_.columns) c.before_alter = c.name;
    for (std::size_t i = 0; i < d_.primary_key.size(); ++i)
      d_.columns[d_.primary_key[i]].key_part = static_cast<int>(i);
  }
  // Every clause, up to the statement's end or the first that cannot be followed.
  void clauses() {
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
  // The primary key as the clauses left it; the marks of the alteration cleared.
  void finish() {
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

  bool lost = false;
  std::optional<std::vector<std::string>> new_pk;
  std::optional<std::pair<std::string, std::string>> rename_to;

 private:
  std::optional<std::size_t> old_column(std::string_view n) const {
    for (std::size_t k = 0; k < d_.columns.size(); ++k)
      if (!d_.columns[k].before_alter.empty() && ieq(d_.columns[k].before_alter, n)) return k;
    return std::nullopt;
  }
  std::optional<std::size_t> new_column(std::string_view n) const {
    for (std::size_t k = 0; k < d_.columns.size(); ++k)
      if (ieq(d_.columns[k].name, n)) return k;
    return std::nullopt;
  }
  // FIRST / AFTER x after a column definition: where it goes (default: `at`).
  void place(ColumnDef c, std::size_t at) {
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
  void key_clause() {
    p_.next();  // PRIMARY
    p_.next();  // KEY
    while (!p_.at_end() && !p_.punct('(')) p_.next();
    new_pk = key_columns(p_);
  }
  void add() {
    DdlParser& p = p_;
    if (p.word("PRIMARY") && p.word("KEY", 1)) {
      key_clause();
    } else if (p.word("CONSTRAINT")) {
      p.next();
      if (!p.word("PRIMARY") && !p.word("UNIQUE") && !p.word("FOREIGN") && !p.word("CHECK"))
        p.name();
      if (p.word("PRIMARY") && p.word("KEY", 1)) key_clause();
    } else if (p.word("KEY") || p.word("INDEX") || p.word("UNIQUE") || p.word("FULLTEXT") ||
               p.word("SPATIAL") || p.word("FOREIGN") || p.word("CHECK") || p.word("PARTITION") ||
               p.word("PERIOD") || p.word("VECTOR")) {
      // not a column
    } else {
      add_columns();
    }
  }
  void add_columns() {
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
  void drop() {
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
  void modify() {
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
  void rename() {
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

  DdlParser& p_;
  TableDef& d_;
  const std::string& db_;
};

}  // namespace

void Schema::alter(DdlParser& p, const std::string& db, const std::string& table) {
  AlterTable a(p, *lookup_to_change(db, table), db);
  a.clauses();
  if (a.lost) {
    tables_.erase(Key(db, table));
    return;
  }
  a.finish();
  if (a.rename_to) {
    auto node = tables_.extract(Key(db, table));
    tables_.erase(Key(a.rename_to->first, a.rename_to->second));
    node.key() = Key(a.rename_to->first, a.rename_to->second);
    tables_.insert(std::move(node));
  }
}

void Schema::observe(const binlog::Event& ev) {
  const auto* q = std::get_if<binlog::Query>(&ev.body);
  if (q == nullptr || q->compressed) return;
  const std::string_view w = first_word(q->query);
  if (ieq(w, "CREATE") || ieq(w, "ALTER") || ieq(w, "DROP") || ieq(w, "RENAME"))
    apply(q->db, q->query);
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
        DdlParser p(tokenize(stmt));
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
          // the keyword, past any comment before it
          std::size_t at = 0;
          for (std::size_t i = 0; i + 9 <= stmt.size(); ++i)
            if (ieq(std::string_view(stmt).substr(i, 9), "DELIMITER")) {
              at = i + 9;
              break;
            }
          std::string d = stmt.substr(at);
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
  const TableDef* t = find(info.db, info.table);
  if (!info.names.empty()) {
    // Names from the log (FULL metadata): only which columns are generated comes from here,
    // column by column by name (a dump older than the range may lack later columns).
    if (t == nullptr) return true;
    info.generated.assign(info.names.size(), 0);
    for (std::size_t k = 0; k < info.names.size(); ++k)
      for (const ColumnDef& c : t->columns)
        if (c.generated && ieq(c.name, info.names[k])) info.generated[k] = 1;
    return true;
  }
  if (t == nullptr || t->columns.size() != info.layout.size()) {
    if (!positional) return false;
    info.names.resize(info.layout.size());
    for (std::size_t k = 0; k < info.names.size(); ++k) info.names[k] = fmt::format("@{}", k + 1);
    if (warn_ && warned_.emplace(info.db, info.table).second)
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
  info.generated.assign(n, 0);
  for (std::size_t k = 0; k < n; ++k) {
    const ColumnDef& c = t->columns[k];
    info.names[k] = c.name;
    info.generated[k] = c.generated ? 1 : 0;
    if (!info.has_signedness) info.is_unsigned[k] = c.is_unsigned ? 1 : 0;
    if (info.enum_values[k].empty()) info.enum_values[k] = c.enum_values;
    if (info.set_values[k].empty()) info.set_values[k] = c.set_values;
  }
  info.has_signedness = true;
  if (info.primary_key.empty()) info.primary_key = t->primary_key;
  return true;
}

}  // namespace binrecover::recovery
