#include "recovery/reading/statement_dbs.h"

#include <algorithm>
#include <cstddef>
#include <optional>

#include "recovery/reading/sql_lexer.h"

namespace binrecover::recovery {
namespace {

enum class Tok : std::uint8_t { kEnd, kWord, kQuoted, kDot, kComma, kLParen, kRParen, kOther };

struct Token {
  Tok kind = Tok::kEnd;
  std::string_view text;
  std::size_t begin = 0, end = 0;  // the token's bytes in the statement, quotes included
};

// The tokens this parser needs, read by the one SQL lexer (recovery/sql_lexer.h): names
// (words, and `quoted` names as written between the backticks), the punctuation that separates
// them; strings are skipped (kOther); executable comments are read as SQL.
class Lexer {
 public:
  explicit Lexer(std::string_view s) : lex_(s) {}

  Token next() {
    const SqlToken t = lex_.next();
    Token out{Tok::kOther, {}, t.begin, t.end};
    switch (t.kind) {
      case SqlToken::Kind::kEnd:
        out.kind = Tok::kEnd;
        break;
      case SqlToken::Kind::kWord:
      case SqlToken::Kind::kNumber:
        out.kind = Tok::kWord;
        out.text = t.text;
        break;
      case SqlToken::Kind::kIdent:
        out.kind = Tok::kQuoted;
        out.text = t.text;
        break;
      case SqlToken::Kind::kString:
        break;
      case SqlToken::Kind::kPunct:
        out.text = t.text;
        out.kind = t.text == "."   ? Tok::kDot
                   : t.text == "," ? Tok::kComma
                   : t.text == "(" ? Tok::kLParen
                   : t.text == ")" ? Tok::kRParen
                                   : Tok::kOther;
        break;
    }
    return out;
  }

 private:
  SqlLexer lex_;
};

bool is_kw(const Token& t, std::string_view kw) {
  if (t.kind != Tok::kWord || t.text.size() != kw.size()) return false;
  for (std::size_t i = 0; i < kw.size(); ++i) {
    char a = t.text[i];
    if (a >= 'a' && a <= 'z') a = static_cast<char>(a - 'a' + 'A');
    if (a != kw[i]) return false;
  }
  return true;
}

bool is_name(const Token& t) { return t.kind == Tok::kWord || t.kind == Tok::kQuoted; }

// The statement's tokens, one at a time (tok_), with the steps every statement's grammar takes:
// keywords skipped, a name read, table references and their aliases walked.
class TokenCursor {
 protected:
  explicit TokenCursor(std::string_view sql) : lex_(sql) { advance(); }

  void advance() { tok_ = lex_.next(); }

  // Whether `kw` appears outside parentheses from here to the end.
  bool find_top_level(StatementTargets&, std::string_view kw) {
    int depth = 0;
    while (tok_.kind != Tok::kEnd) {
      if (tok_.kind == Tok::kLParen) ++depth;
      if (tok_.kind == Tok::kRParen && depth > 0) --depth;
      if (depth == 0 && is_kw(tok_, kw)) return true;
      advance();
    }
    return false;
  }

  void skip_words(std::initializer_list<std::string_view> words) {
    for (bool again = true; again;) {
      again = false;
      for (auto w : words) {
        if (is_kw(tok_, w)) {
          advance();
          again = true;
        }
      }
    }
  }

  void skip_if_exists() {
    if (is_kw(tok_, "IF")) {
      advance();
      skip_words({"NOT", "EXISTS"});
    }
  }

  // name | db.name
  TableRef read_name() {
    TableRef r;
    r.table = tok_.text;
    advance();
    if (tok_.kind == Tok::kDot) {
      advance();
      if (is_name(tok_)) {
        r.db = r.table;
        r.table = tok_.text;
        advance();
      }
    }
    return r;
  }

  // Names that start a table reference: at the start, after ',' or a JOIN keyword, at
  // parenthesis depth 0, until `stop` (a keyword), WHERE or the end.
  void table_list_until(StatementTargets& out, std::string_view stop) {
    table_refs(stop, [&](TableRef t, std::string_view) { out.add(t); });
  }

  // The names before `stop` (FROM or USING): t, db.t, t.*, separated by commas. A single-table
  // DELETE FROM t [AS a] WHERE ... names its table the same way (the alias is skipped).
  void target_names(StatementTargets& out, std::string_view stop) {
    bool expect_name = true;
    while (tok_.kind != Tok::kEnd && !is_kw(tok_, stop) && !is_kw(tok_, "WHERE")) {
      if (expect_name && is_name(tok_)) {
        out.add(read_name());
        expect_name = false;
        continue;
      }
      if (tok_.kind == Tok::kComma) expect_name = true;
      advance();
    }
  }

  // Table references with their aliases: `shop.t AS s JOIN other.u x ON ...`.
  struct Aliases {
    struct Entry {
      TableRef table;
      std::string_view alias;
    };
    std::array<Entry, 16> entries{};
    std::uint8_t count = 0;
    void add(TableRef t, std::string_view alias) {
      if (count < entries.size()) entries[count++] = {t, alias};
    }
    // A target named by its alias, or by the table's own (unqualified) name.
    TableRef resolve(TableRef target) const {
      if (!target.db.empty()) return target;
      for (std::uint8_t i = 0; i < count; ++i)
        if (!entries[i].alias.empty() && entries[i].alias == target.table) return entries[i].table;
      for (std::uint8_t i = 0; i < count; ++i)
        if (entries[i].alias.empty() && entries[i].table.table == target.table)
          return entries[i].table;
      return target;
    }
  };

  static bool ends_reference(const Token& t) {
    static constexpr std::string_view kWords[] = {
        "JOIN", "INNER",  "LEFT",      "RIGHT", "CROSS", "NATURAL", "STRAIGHT_JOIN", "OUTER",
        "ON",   "USING",  "WHERE",     "SET",   "ORDER", "LIMIT",   "PARTITION",     "FORCE",
        "USE",  "IGNORE", "RETURNING", "FOR",   "UNION", "GROUP",   "HAVING",        "WINDOW"};
    for (std::string_view w : kWords)
      if (is_kw(t, w)) return true;
    return false;
  }

  void table_references(Aliases& out) {
    table_refs("", [&](TableRef t, std::string_view alias) { out.add(t, alias); });
  }

  // Table references (`shop.t AS s JOIN other.u x ON ...`): each table with its alias, to
  // `on_table`, until `stop`, WHERE at depth 0, or the end.
  template <typename OnTable>
  void table_refs(std::string_view stop, OnTable&& on_table) {
    bool expect_name = true;
    int depth = 0;
    while (tok_.kind != Tok::kEnd) {
      if (depth == 0 && ((!stop.empty() && is_kw(tok_, stop)) || is_kw(tok_, "WHERE"))) return;
      if (tok_.kind == Tok::kLParen) {
        ++depth;
        advance();
        continue;
      }
      if (tok_.kind == Tok::kRParen) {
        if (depth > 0) --depth;
        advance();
        continue;
      }
      if (depth == 0 && expect_name && is_name(tok_) && !is_kw(tok_, "SELECT")) {
        const TableRef t = read_name();
        std::string_view alias;
        if (is_kw(tok_, "AS")) advance();
        if (is_name(tok_) && !(tok_.kind == Tok::kWord && ends_reference(tok_))) {
          alias = tok_.text;
          advance();
        }
        on_table(t, alias);
        expect_name = false;
        continue;
      }
      if (depth == 0 &&
          (tok_.kind == Tok::kComma || is_kw(tok_, "JOIN") || is_kw(tok_, "STRAIGHT_JOIN") ||
           is_kw(tok_, "USING") || is_kw(tok_, "FROM")))
        expect_name = true;
      advance();
    }
  }

  Lexer lex_;
  Token tok_;
};

// Which databases and tables a statement changes (statement_targets), from its tokens.
class Parser : TokenCursor {
 public:
  explicit Parser(std::string_view sql) : TokenCursor(sql) {}

  StatementTargets parse() {
    StatementTargets out;
    // Accounts and privileges (GRANT, REVOKE, SET PASSWORD, SET DEFAULT ROLE; CREATE, ALTER,
    // DROP, RENAME USER or ROLE below) belong to no database.
    if (is_kw(tok_, "GRANT") || is_kw(tok_, "REVOKE")) {
      out.kind = StatementTargets::Kind::kAccount;
      return out;
    }
    if (is_kw(tok_, "SET")) {
      advance();
      if (is_kw(tok_, "PASSWORD") || (is_kw(tok_, "DEFAULT") && (advance(), is_kw(tok_, "ROLE"))))
        out.kind = StatementTargets::Kind::kAccount;
      return out;
    }
    if (is_kw(tok_, "INSERT") || is_kw(tok_, "REPLACE")) {
      advance();
      skip_words({"LOW_PRIORITY", "DELAYED", "HIGH_PRIORITY", "IGNORE", "INTO"});
      out.action = StatementTargets::Action::kInsert;
      return one_table(out);
    }
    if (is_kw(tok_, "UPDATE")) {
      advance();
      skip_words({"LOW_PRIORITY", "IGNORE"});
      out.action = StatementTargets::Action::kUpdate;
      table_list_until(out, "SET");
      out.has_where = find_top_level(out, "WHERE");
      return finish(out);
    }
    if (is_kw(tok_, "DELETE")) return delete_statement(out);
    if (is_kw(tok_, "TRUNCATE")) {
      advance();
      skip_words({"TABLE"});
      out.action = StatementTargets::Action::kTruncate;
      return one_table(out);
    }
    if (is_kw(tok_, "RENAME")) return rename_statement(out);
    if (is_kw(tok_, "LOAD")) {
      out.action = StatementTargets::Action::kLoad;
      while (tok_.kind != Tok::kEnd && !is_kw(tok_, "INTO")) advance();
      advance();
      skip_words({"TABLE"});
      return one_table(out);
    }
    if (is_kw(tok_, "CREATE") || is_kw(tok_, "ALTER") || is_kw(tok_, "DROP"))
      return ddl_statement(out);
    return out;
  }

 private:
  // DELETE FROM t [AS a] ... | DELETE a, b FROM refs ... | DELETE FROM a, b USING refs ...
  StatementTargets delete_statement(StatementTargets& out) {
    advance();
    skip_words({"LOW_PRIORITY", "QUICK", "IGNORE"});
    out.action = StatementTargets::Action::kDelete;
    // DELETE FROM t [AS a] ... | DELETE a, b FROM refs ... | DELETE FROM a, b USING refs ...:
    // the tables deleted from are named first, possibly by the aliases the references give.
    StatementTargets named;
    std::string_view refs_after;
    if (is_kw(tok_, "FROM")) {
      advance();
      target_names(named, "USING");
      refs_after = "USING";
    } else {
      target_names(named, "FROM");
      refs_after = "FROM";
    }
    if (is_kw(tok_, refs_after)) {
      advance();
      Aliases aliases;
      table_references(aliases);
      for (std::uint8_t i = 0; i < named.count; ++i) out.add(aliases.resolve(named.refs[i]));
      if (named.overflow) out.overflow = true;
    } else {
      out = named;
      out.action = StatementTargets::Action::kDelete;
    }
    out.has_where = find_top_level(out, "WHERE");
    return finish(out);
  }
  // RENAME TABLE a TO b, ...; RENAME USER (an account).
  StatementTargets rename_statement(StatementTargets& out) {
    out.action = StatementTargets::Action::kRename;
    advance();
    if (is_kw(tok_, "USER")) out.kind = StatementTargets::Kind::kAccount;
    if (!is_kw(tok_, "TABLE") && !is_kw(tok_, "TABLES")) return out;
    advance();
    while (tok_.kind != Tok::kEnd) {
      if (is_kw(tok_, "TO")) {
        advance();
      } else if (is_name(tok_)) {
        out.add(read_name());
      } else {
        advance();
      }
    }
    return finish(out);
  }
  // CREATE, ALTER, DROP of a database, tables, views, sequences, indexes, triggers, routines;
  // of users and roles (accounts).
  StatementTargets ddl_statement(StatementTargets& out) {
    const bool create = is_kw(tok_, "CREATE");
    const bool alter = is_kw(tok_, "ALTER");
    out.action = create  ? StatementTargets::Action::kCreate
                 : alter ? StatementTargets::Action::kAlter
                         : StatementTargets::Action::kOther;
    advance();
    skip_ddl_modifiers();
    if (is_kw(tok_, "DATABASE") || is_kw(tok_, "SCHEMA")) {
      if (!create && !alter) out.action = StatementTargets::Action::kDropDatabase;
      advance();
      skip_if_exists();
      out.kind = StatementTargets::Kind::kDatabase;
      TableRef r;
      // ALTER DATABASE [name] options: an unquoted option keyword is not a name.
      const bool option =
          tok_.kind == Tok::kWord &&
          (is_kw(tok_, "DEFAULT") || is_kw(tok_, "CHARACTER") || is_kw(tok_, "CHARSET") ||
           is_kw(tok_, "COLLATE") || is_kw(tok_, "ENCRYPTION") || is_kw(tok_, "READ") ||
           is_kw(tok_, "COMMENT") || is_kw(tok_, "UPGRADE"));
      if (is_name(tok_) && !option) r.db = tok_.text;
      out.add(r);
      return out;
    }
    if (is_kw(tok_, "TABLE") || is_kw(tok_, "TABLES") || is_kw(tok_, "VIEW") ||
        is_kw(tok_, "SEQUENCE")) {
      // DROP TEMPORARY TABLE (a session's own table; also what the server logs when a
      // session that made one ends) destroys nothing of the database's.
      if (!create && !alter && !temporary_ && (is_kw(tok_, "TABLE") || is_kw(tok_, "TABLES")))
        out.action = StatementTargets::Action::kDropTable;
      advance();
      skip_if_exists();
      if (create || alter) return one_table(out);
      table_list_until(out, "");
      return finish(out);
    }
    if (is_kw(tok_, "INDEX") || is_kw(tok_, "TRIGGER")) {
      // ... name ON table ...
      while (tok_.kind != Tok::kEnd && !is_kw(tok_, "ON")) advance();
      if (tok_.kind == Tok::kEnd) return out;
      advance();
      return one_table(out);
    }
    if (is_kw(tok_, "PROCEDURE") || is_kw(tok_, "FUNCTION") || is_kw(tok_, "EVENT") ||
        is_kw(tok_, "PACKAGE")) {
      out.action = StatementTargets::Action::kOther;  // a routine, not a table
      advance();
      skip_words({"BODY"});
      skip_if_exists();
      return one_table(out);
    }
    if (is_kw(tok_, "USER") || is_kw(tok_, "ROLE")) out.kind = StatementTargets::Kind::kAccount;
    return out;  // USER, ROLE, SERVER, ...: no database of their own
  }

  // OR REPLACE, TEMPORARY, ONLINE, IGNORE, UNIQUE, DEFINER = user@host, ALGORITHM = x,
  // SQL SECURITY x, AGGREGATE ...
  void skip_ddl_modifiers() {
    for (;;) {
      if (is_kw(tok_, "OR")) {
        advance();
        skip_words({"REPLACE"});
      } else if (is_kw(tok_, "TEMPORARY")) {
        temporary_ = true;
        advance();
      } else if (is_kw(tok_, "ONLINE") || is_kw(tok_, "OFFLINE") || is_kw(tok_, "IGNORE") ||
                 is_kw(tok_, "UNIQUE") || is_kw(tok_, "FULLTEXT") || is_kw(tok_, "SPATIAL") ||
                 is_kw(tok_, "AGGREGATE") || is_kw(tok_, "NONBLOCKING")) {
        advance();
      } else if (is_kw(tok_, "DEFINER") || is_kw(tok_, "ALGORITHM")) {
        advance();
        if (tok_.kind == Tok::kOther && tok_.text == "=") advance();
        // user@host or CURRENT_USER[()] or an algorithm name
        advance();
        while (tok_.kind == Tok::kOther && tok_.text == "@") {
          advance();
          advance();
        }
        if (tok_.kind == Tok::kLParen) {
          advance();
          if (tok_.kind == Tok::kRParen) advance();
        }
      } else if (is_kw(tok_, "SQL")) {
        advance();
        skip_words({"SECURITY"});
        advance();
      } else {
        return;
      }
    }
  }

  StatementTargets& one_table(StatementTargets& out) {
    if (is_name(tok_)) out.add(read_name());
    return finish(out);
  }

  StatementTargets& finish(StatementTargets& out) {
    out.kind = out.count > 0 || out.overflow ? StatementTargets::Kind::kTables
                                             : StatementTargets::Kind::kUnknown;
    return out;
  }

  bool temporary_ = false;  // TEMPORARY among the DDL modifiers
};

}  // namespace

StatementTargets statement_targets(std::string_view sql) { return Parser(sql).parse(); }

std::string_view rewritten_database(std::string_view db, const DatabaseRewrites& rewrites) {
  for (const auto& [from, to] : rewrites)
    if (db == from) return to;
  return db;
}

std::string_view ident_name(std::string_view raw, std::string& buf) {
  if (raw.find("``") == std::string_view::npos) return raw;
  buf.clear();
  for (std::size_t i = 0; i < raw.size(); ++i) {
    buf.push_back(raw[i]);
    if (raw[i] == '`' && i + 1 < raw.size() && raw[i + 1] == '`') ++i;
  }
  return buf;
}

}  // namespace binrecover::recovery
