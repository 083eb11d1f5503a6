#include "recovery/sql/sql_quote.h"

namespace binrecover::recovery {

void append_quoted_ident(fmt::memory_buffer& out, std::string_view name) {
  out.push_back('`');
  for (char c : name) {
    if (c == '`') out.push_back('`');
    out.push_back(c);
  }
  out.push_back('`');
}

std::string quoted_ident(std::string_view name) {
  fmt::memory_buffer b;
  append_quoted_ident(b, name);
  return std::string(b.data(), b.size());
}

void append_quoted_string(fmt::memory_buffer& out, std::string_view text) {
  out.push_back('\'');
  for (char c : text) {
    if (c == '\'' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('\'');
}

std::string quoted_string(std::string_view text) {
  fmt::memory_buffer b;
  append_quoted_string(b, text);
  return std::string(b.data(), b.size());
}

}  // namespace binrecover::recovery
