#include "recovery/statement_dbs.h"

#include <cstddef>

namespace binrecover::recovery {
namespace {

enum class Tok : std::uint8_t { kEnd, kWord, kQuoted, kDot, kComma, kLParen, kRParen, kOther };

struct Token {
  Tok kind = Tok::kEnd;
  std::string_view text;
};

bool ident_char(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '$' || c >= 0x80;
}

// A small SQL lexer: enough to find keywords and (qualified) names. Strings and comments are
// skipped; executable comments (/*!50001 ... */, /*M!100100 ... */) are read as SQL.
class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}

  Token next() {
    skip_space_and_comments();
    if (i_ >= s_.size()) return {Tok::kEnd, {}};
    const char c = s_[i_];
    if (c == '`') {
      const std::size_t start = ++i_;
      while (i_ < s_.size()) {
        if (s_[i_] == '`') {
          if (i_ + 1 < s_.size() && s_[i_ + 1] == '`') {
            i_ += 2;
            continue;
          }
          break;
        }
        ++i_;
      }
      Token t{Tok::kQuoted, s_.substr(start, i_ - start)};
      if (i_ < s_.size()) ++i_;
      return t;
    }
    if (c == '\'' || c == '"') {
      skip_string(c);
      return {Tok::kOther, {}};
    }
    if (ident_char(static_cast<unsigned char>(c))) {
      const std::size_t start = i_;
      while (i_ < s_.size() && ident_char(static_cast<unsigned char>(s_[i_]))) ++i_;
      return {Tok::kWord, s_.substr(start, i_ - start)};
    }
    ++i_;
    switch (c) {
      case '.':
        return {Tok::kDot, {}};
      case ',':
        return {Tok::kComma, {}};
      case '(':
        return {Tok::kLParen, {}};
      case ')':
        return {Tok::kRParen, {}};
      default:
        return {Tok::kOther, s_.substr(i_ - 1, 1)};
    }
  }

 private:
  void skip_string(char quote) {
    ++i_;
    while (i_ < s_.size()) {
      if (s_[i_] == '\\') {
        i_ += 2;
        continue;
      }
      if (s_[i_] == quote) {
        if (i_ + 1 < s_.size() && s_[i_ + 1] == quote) {
          i_ += 2;
          continue;
        }
        ++i_;
        return;
      }
      ++i_;
    }
  }

  void skip_space_and_comments() {
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
        ++i_;
      } else if (c == '#' || (c == '-' && s_.substr(i_, 3) == "-- ")) {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      } else if (c == '/' && s_.substr(i_, 2) == "/*") {
        if (s_.substr(i_, 3) == "/*!" || s_.substr(i_, 4) == "/*M!") {
          i_ += s_[i_ + 2] == '!' ? 3 : 4;
          while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
          ++open_exec_comments_;
        } else {
          const std::size_t end = s_.find("*/", i_ + 2);
          i_ = end == std::string_view::npos ? s_.size() : end + 2;
        }
      } else if (c == '*' && open_exec_comments_ > 0 && s_.substr(i_, 2) == "*/") {
        i_ += 2;
        --open_exec_comments_;
      } else {
        return;
      }
    }
  }

  std::string_view s_;
  std::size_t i_ = 0;
  int open_exec_comments_ = 0;
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

class Parser {
 public:
  explicit Parser(std::string_view sql) : lex_(sql) { advance(); }

  StatementTargets parse() {
    StatementTargets out;
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
    if (is_kw(tok_, "DELETE")) {
      advance();
      skip_words({"LOW_PRIORITY", "QUICK", "IGNORE"});
      out.action = StatementTargets::Action::kDelete;
      if (is_kw(tok_, "FROM")) {
        advance();
        table_list_until(out, "WHERE");
      } else {
        table_list_until(out, "FROM");
      }
      out.has_where = find_top_level(out, "WHERE");
      return finish(out);
    }
    if (is_kw(tok_, "TRUNCATE")) {
      advance();
      skip_words({"TABLE"});
      out.action = StatementTargets::Action::kTruncate;
      return one_table(out);
    }
    if (is_kw(tok_, "RENAME")) {
      out.action = StatementTargets::Action::kRename;
      advance();
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
    if (is_kw(tok_, "LOAD")) {
      out.action = StatementTargets::Action::kLoad;
      while (tok_.kind != Tok::kEnd && !is_kw(tok_, "INTO")) advance();
      advance();
      skip_words({"TABLE"});
      return one_table(out);
    }
    if (is_kw(tok_, "CREATE") || is_kw(tok_, "ALTER") || is_kw(tok_, "DROP")) {
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
        if (!create && !alter && (is_kw(tok_, "TABLE") || is_kw(tok_, "TABLES")))
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
      return out;  // USER, ROLE, SERVER, ...: no database of their own
    }
    return out;
  }

 private:
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

  // OR REPLACE, TEMPORARY, ONLINE, IGNORE, UNIQUE, DEFINER = user@host, ALGORITHM = x,
  // SQL SECURITY x, AGGREGATE ...
  void skip_ddl_modifiers() {
    for (;;) {
      if (is_kw(tok_, "OR")) {
        advance();
        skip_words({"REPLACE"});
      } else if (is_kw(tok_, "TEMPORARY") || is_kw(tok_, "ONLINE") || is_kw(tok_, "OFFLINE") ||
                 is_kw(tok_, "IGNORE") || is_kw(tok_, "UNIQUE") || is_kw(tok_, "FULLTEXT") ||
                 is_kw(tok_, "SPATIAL") || is_kw(tok_, "AGGREGATE") || is_kw(tok_, "NONBLOCKING")) {
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

  StatementTargets& one_table(StatementTargets& out) {
    if (is_name(tok_)) out.add(read_name());
    return finish(out);
  }

  StatementTargets& finish(StatementTargets& out) {
    out.kind = out.count > 0 || out.overflow ? StatementTargets::Kind::kTables
                                             : StatementTargets::Kind::kUnknown;
    return out;
  }

  // Names that start a table reference: at the start, after ',' or a JOIN keyword, at
  // parenthesis depth 0, until `stop` (a keyword) or the end.
  void table_list_until(StatementTargets& out, std::string_view stop) {
    bool expect_name = true;
    int depth = 0;
    while (tok_.kind != Tok::kEnd) {
      if (depth == 0 && !stop.empty() && is_kw(tok_, stop)) return;
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
        out.add(read_name());
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

}  // namespace

StatementTargets statement_targets(std::string_view sql) { return Parser(sql).parse(); }

}  // namespace binrecover::recovery
