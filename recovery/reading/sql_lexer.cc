#include "recovery/reading/sql_lexer.h"

namespace binrecover::recovery {

namespace {

bool space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

}  // namespace

bool SqlLexer::word_char(unsigned char c) const {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '$' || c >= 0x80 ||
         (!opts_.word_chars.empty() &&
          opts_.word_chars.find(static_cast<char>(c)) != std::string_view::npos);
}

void SqlLexer::skip_space_and_comments() {
  while (i_ < s_.size()) {
    const char c = s_[i_];
    if (space(c)) {
      ++i_;
    } else if (c == '#' || (c == '-' && i_ + 2 < s_.size() && s_[i_ + 1] == '-' &&
                            (space(s_[i_ + 2]) || static_cast<unsigned char>(s_[i_ + 2]) < 32))) {
      while (i_ < s_.size() && s_[i_] != '\n') ++i_;
    } else if (c == '/' && i_ + 1 < s_.size() && s_[i_ + 1] == '*') {
      const bool executable =
          opts_.executable_comments && i_ + 2 < s_.size() &&
          (s_[i_ + 2] == '!' || (s_[i_ + 2] == 'M' && i_ + 3 < s_.size() && s_[i_ + 3] == '!'));
      if (executable) {
        i_ += s_[i_ + 2] == '!' ? 3 : 4;
        while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;  // the version
        ++open_executable_;
      } else {
        const std::size_t end = s_.find("*/", i_ + 2);
        i_ = end == std::string_view::npos ? s_.size() : end + 2;
      }
    } else if (c == '*' && open_executable_ > 0 && i_ + 1 < s_.size() && s_[i_ + 1] == '/') {
      i_ += 2;
      --open_executable_;
    } else {
      return;
    }
  }
}

void SqlLexer::skip_quoted(char quote) {
  ++i_;
  while (i_ < s_.size()) {
    const char c = s_[i_];
    if (c == '\\' && quote != '`') {
      i_ += 2;
      continue;
    }
    if (c == quote) {
      if (i_ + 1 < s_.size() && s_[i_ + 1] == quote) {
        i_ += 2;
        continue;
      }
      ++i_;
      return;
    }
    ++i_;
  }
  i_ = s_.size();  // unterminated: to the end
}

SqlToken SqlLexer::next() {
  skip_space_and_comments();
  SqlToken t;
  t.begin = i_;
  if (i_ >= s_.size()) {
    t.end = i_;
    return t;
  }
  const char c = s_[i_];
  if (c == '`' || c == '\'' || c == '"') {
    skip_quoted(c);
    t.kind = c == '`' ? SqlToken::Kind::kIdent : SqlToken::Kind::kString;
    t.quote = c;
    const std::size_t inner_end =
        i_ > t.begin + 1 && s_[i_ - 1] == c ? i_ - 1 : i_;  // (an unterminated one: to the end)
    t.text = s_.substr(t.begin + 1, inner_end - t.begin - 1);
  } else if (word_char(static_cast<unsigned char>(c))) {
    while (i_ < s_.size() && word_char(static_cast<unsigned char>(s_[i_]))) ++i_;
    t.kind = c >= '0' && c <= '9' ? SqlToken::Kind::kNumber : SqlToken::Kind::kWord;
    t.text = s_.substr(t.begin, i_ - t.begin);
  } else {
    ++i_;
    t.kind = SqlToken::Kind::kPunct;
    t.text = s_.substr(t.begin, 1);
  }
  t.end = i_;
  return t;
}

std::string unquoted(const SqlToken& t) {
  std::string out;
  const std::string_view s = t.text;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == t.quote && i + 1 < s.size() && s[i + 1] == t.quote) {
      out.push_back(c);
      ++i;
    } else if (c == '\\' && t.kind == SqlToken::Kind::kString && i + 1 < s.size()) {
      const char e = s[++i];
      switch (e) {
        case 'n':
          out.push_back('\n');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case '0':
          out.push_back('\0');
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'Z':
          out.push_back('\x1a');
          break;
        default:
          out.push_back(e);
      }
    } else {
      out.push_back(c);
    }
  }
  return out;
}

bool is_keyword(const SqlToken& t, std::string_view keyword) {
  if (t.kind != SqlToken::Kind::kWord || t.text.size() != keyword.size()) return false;
  for (std::size_t i = 0; i < keyword.size(); ++i) {
    char a = t.text[i];
    char b = keyword[i];
    if (a >= 'a' && a <= 'z') a = static_cast<char>(a - 'a' + 'A');
    if (b >= 'a' && b <= 'z') b = static_cast<char>(b - 'a' + 'A');
    if (a != b) return false;
  }
  return true;
}

}  // namespace binrecover::recovery
