#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace binrecover::recovery {

// The one SQL tokenizer of binrecover's statement readers: what a statement changes
// (statement_dbs), --rewrite-db, the DDL model of --schema (schema), a dump's coordinates
// (backup_coords). It knows what the server knows about where tokens end: quotes (a doubled
// quote is the quote itself; backslash escapes in strings), comments (`#`, `-- `, `/* */`) and
// executable comments, whose text the server runs.
struct SqlToken {
  enum class Kind : std::uint8_t { kEnd, kWord, kNumber, kIdent, kString, kPunct };
  Kind kind = Kind::kEnd;
  // Words, numbers, punctuation: as written. kIdent (`...`) and kString ('...', "..."): the text
  // between the quotes, escapes not undone (see unquoted()).
  std::string_view text;
  std::size_t begin = 0, end = 0;  // the token's bytes in the statement, quotes included
  char quote = 0;                  // kIdent / kString: the quote
};

struct SqlLexerOptions {
  // /*!50100 ... */ and /*M!100100 ... */ read as SQL, as the server reads them (else skipped).
  bool executable_comments = true;
  // More bytes that continue a word (a dump's `@@GLOBAL.GTID_PURGED` is one word with "@.").
  std::string_view word_chars;
};

class SqlLexer {
 public:
  explicit SqlLexer(std::string_view sql, SqlLexerOptions opts = {}) : s_(sql), opts_(opts) {}
  SqlToken next();

 private:
  bool word_char(unsigned char c) const;
  void skip_space_and_comments();
  void skip_quoted(char quote);

  std::string_view s_;
  SqlLexerOptions opts_;
  std::size_t i_ = 0;
  int open_executable_ = 0;  // executable comments whose `*/` is still to come
};

// The value of a kIdent or kString token: doubled quotes made single and, in strings,
// backslash escapes undone as the server does (\n \t \r \0 \b \Z, any other: the byte itself).
std::string unquoted(const SqlToken& t);

// Case-insensitive compare of a word token with a keyword.
bool is_keyword(const SqlToken& t, std::string_view keyword);

}  // namespace binrecover::recovery
