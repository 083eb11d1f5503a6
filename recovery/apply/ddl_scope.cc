#include "recovery/apply/ddl_scope.h"

#include <initializer_list>

#include "recovery/sql/ddl_parser.h"

namespace binrecover::recovery {

namespace {

using ddl::DdlParser;
using ddl::Token;

// Past one of `words` when it is next.
void skip_one_of(DdlParser& p, std::initializer_list<std::string_view> words) {
  for (const std::string_view w : words)
    if (p.accept(w)) return;
}

// One table name into `out`; false when there is none (or no database for it).
bool add_name(DdlParser& p, std::string_view db, TableNames& out) {
  auto t = p.table_name(db);
  if (!t || t->first.empty() || t->second.empty()) return false;
  out.push_back(std::move(*t));
  return true;
}

// TABLE [IF NOT EXISTS] name, after CREATE [OR REPLACE].
bool create_table(DdlParser& p, std::string_view db, TableNames& out) {
  if (!p.accept("TABLE")) return false;
  p.skip_if_not_exists();
  return add_name(p, db, out);
}

// TABLE[S] [IF EXISTS] a, b, ... [RESTRICT | CASCADE], after DROP.
bool drop_tables(DdlParser& p, std::string_view db, TableNames& out) {
  if (!p.accept("TABLE") && !p.accept("TABLES")) return false;
  p.skip_if_exists();
  if (p.accept("WAIT")) p.next();  // (MariaDB: WAIT n / NOWAIT)
  skip_one_of(p, {"NOWAIT"});
  do {
    if (!add_name(p, db, out)) return false;
  } while (p.accept(','));
  skip_one_of(p, {"RESTRICT", "CASCADE"});
  return p.at_end();
}

}  // namespace

std::optional<TableNames> tables_changed_by(std::string_view statement, std::string_view db) {
  // (rows only: no table's keys; told by the first word, not lexed whole: a statement-format
  // log's INSERTs may be megabytes each)
  const std::string_view first = ddl::first_word(statement);
  if (ddl::ieq(first, "INSERT") || ddl::ieq(first, "UPDATE") || ddl::ieq(first, "DELETE") ||
      ddl::ieq(first, "REPLACE"))
    return TableNames{};
  const std::vector<Token> tokens = ddl::tokenize(statement);
  for (const Token& t : tokens) {
    if (t.kind == Token::Kind::kWord &&
        (ddl::ieq(t.text, "FOREIGN") || ddl::ieq(t.text, "REFERENCES") ||
         ddl::ieq(t.text, "TEMPORARY") || ddl::ieq(t.text, "RENAME") ||
         ddl::ieq(t.text, "EXCHANGE")))
      return std::nullopt;
    if (t.kind == Token::Kind::kPunct && t.text == ";") return std::nullopt;
  }
  DdlParser p(tokens);
  TableNames out;
  bool ok = false;
  if (p.accept("CREATE")) {
    if (p.accept("OR")) {
      if (!p.accept("REPLACE")) return std::nullopt;
    }
    if (p.word("TABLE")) {
      ok = create_table(p, db, out);
    } else {
      // CREATE [ONLINE | OFFLINE] [UNIQUE | FULLTEXT | SPATIAL] INDEX [IF NOT EXISTS] i
      // [USING t] ON name
      skip_one_of(p, {"ONLINE", "OFFLINE"});
      skip_one_of(p, {"UNIQUE", "FULLTEXT", "SPATIAL"});
      if (p.accept("INDEX")) {
        p.skip_if_not_exists();
        while (!p.at_end() && !p.word("ON")) p.next();
        ok = p.accept("ON") && add_name(p, db, out);
      }
    }
  } else if (p.accept("DROP")) {
    if (p.word("TABLE") || p.word("TABLES")) {
      ok = drop_tables(p, db, out);
    } else {
      skip_one_of(p, {"ONLINE", "OFFLINE"});
      if (p.accept("INDEX")) {
        p.skip_if_exists();
        while (!p.at_end() && !p.word("ON")) p.next();
        ok = p.accept("ON") && add_name(p, db, out);
      }
    }
  } else if (p.accept("ALTER")) {
    skip_one_of(p, {"ONLINE", "OFFLINE"});
    skip_one_of(p, {"IGNORE"});
    if (p.accept("TABLE")) {
      p.skip_if_exists();
      ok = add_name(p, db, out);
    }
  } else if (p.accept("TRUNCATE")) {
    skip_one_of(p, {"TABLE"});
    ok = add_name(p, db, out) && p.at_end();
  }
  if (!ok) return std::nullopt;
  return out;
}

}  // namespace binrecover::recovery
