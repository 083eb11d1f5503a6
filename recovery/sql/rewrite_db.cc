#include "recovery/sql/rewrite_db.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "recovery/reading/sql_lexer.h"
#include "recovery/sql/sql_quote.h"

namespace binrecover::recovery {

namespace {

bool is_name(const SqlToken& t) {
  return t.kind == SqlToken::Kind::kWord || t.kind == SqlToken::Kind::kNumber ||
         t.kind == SqlToken::Kind::kIdent;
}

bool is_dot(const SqlToken& t) { return t.kind == SqlToken::Kind::kPunct && t.text == "."; }

}  // namespace

bool rewrite_statement(std::string_view sql, const DatabaseRewrites& rewrites, std::string& out) {
  if (rewrites.empty()) return false;
  SqlLexer lex(sql);
  std::vector<std::pair<SqlToken, std::string_view>> edits;  // token, new name
  std::string buf;
  auto replacement = [&](const SqlToken& t) -> std::optional<std::string_view> {
    if (!is_name(t)) return std::nullopt;
    const std::string_view name = ident_name(t.text, buf);
    const std::string_view to = rewritten_database(name, rewrites);
    if (to.data() == name.data()) return std::nullopt;
    return to;
  };
  SqlToken prev, tok = lex.next();
  bool first = true;
  while (tok.kind != SqlToken::Kind::kEnd) {
    const SqlToken next = lex.next();
    // db.name: a name, then a dot, not itself after a dot.
    if (is_dot(next) && !is_dot(prev))
      if (auto to = replacement(tok)) edits.emplace_back(tok, *to);
    // USE db, and CREATE / ALTER / DROP DATABASE|SCHEMA [IF [NOT] EXISTS] db
    if (first && is_keyword(tok, "USE") && next.kind != SqlToken::Kind::kEnd)
      if (auto to = replacement(next)) edits.emplace_back(next, *to);
    if (is_keyword(tok, "DATABASE") || is_keyword(tok, "SCHEMA")) {
      SqlToken name = next;
      SqlLexer look = lex;
      if (is_keyword(name, "IF")) {
        name = look.next();
        if (is_keyword(name, "NOT")) name = look.next();
        name = look.next();  // EXISTS -> the name
      }
      if (!is_dot(name))
        if (auto to = replacement(name)) edits.emplace_back(name, *to);
    }
    first = false;
    prev = tok;
    tok = next;
  }
  if (edits.empty()) return false;
  std::sort(edits.begin(), edits.end(),
            [](const auto& a, const auto& b) { return a.first.begin < b.first.begin; });
  out.clear();
  std::size_t at = 0;
  for (const auto& [t, to] : edits) {
    if (t.begin < at) continue;  // (the same token twice)
    out.append(sql.substr(at, t.begin - at));
    out.append(quoted_ident(to));
    at = t.end;
  }
  out.append(sql.substr(at));
  return true;
}

}  // namespace binrecover::recovery
