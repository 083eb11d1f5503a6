#include "recovery/reading/sql_lexer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace binrecover::recovery {
namespace {

std::vector<std::string> tokens(std::string_view sql, SqlLexerOptions opts = {}) {
  std::vector<std::string> out;
  SqlLexer lex(sql, opts);
  for (SqlToken t = lex.next(); t.kind != SqlToken::Kind::kEnd; t = lex.next()) {
    const char kind = "EWNISP"[static_cast<int>(t.kind)];
    out.push_back(std::string(1, kind) + ":" +
                  (t.kind == SqlToken::Kind::kIdent || t.kind == SqlToken::Kind::kString
                       ? unquoted(t)
                       : std::string(t.text)));
  }
  return out;
}

using V = std::vector<std::string>;

TEST(SqlLexerTest, WordsNamesStringsAndPunctuation) {
  EXPECT_EQ(tokens("UPDATE `x``y`.t SET a='it''s\\n' WHERE b=\"q\\\"\" AND c=12"),
            (V{"W:UPDATE", "I:x`y", "P:.", "W:t", "W:SET", "W:a", "P:=", "S:it's\n", "W:WHERE",
               "W:b", "P:=", "S:q\"", "W:AND", "W:c", "P:=", "N:12"}));
}

TEST(SqlLexerTest, CommentsAreSkippedExecutableOnesRead) {
  EXPECT_EQ(tokens("# c\nDROP /* x */ TABLE -- y\n t /*!40000 IF EXISTS */ u /*M!100100 v */"),
            (V{"W:DROP", "W:TABLE", "W:t", "W:IF", "W:EXISTS", "W:u", "W:v"}));
  EXPECT_EQ(tokens("SET /*!80000 '+'*/ x", SqlLexerOptions{false, {}}), (V{"W:SET", "W:x"}));
  // "--" not followed by a space is not a comment (MySQL's rule).
  EXPECT_EQ(tokens("a--b"), (V{"W:a", "P:-", "P:-", "W:b"}));
}

TEST(SqlLexerTest, ExtraWordCharactersAndPositions) {
  EXPECT_EQ(tokens("SET @@GLOBAL.GTID_PURGED='x'", SqlLexerOptions{false, "@."}),
            (V{"W:SET", "W:@@GLOBAL.GTID_PURGED", "P:=", "S:x"}));
  SqlLexer lex("USE `a`");
  lex.next();
  const SqlToken t = lex.next();
  EXPECT_EQ(t.begin, 4u);
  EXPECT_EQ(t.end, 7u);
  EXPECT_TRUE(is_keyword(SqlLexer("use x").next(), "USE"));
}

TEST(SqlLexerTest, UnterminatedQuoteRunsToTheEnd) {
  EXPECT_EQ(tokens("a 'unterminated"), (V{"W:a", "S:unterminated"}));
}

}  // namespace
}  // namespace binrecover::recovery
