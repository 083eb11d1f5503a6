#include "recovery/sql/sql_quote.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

namespace {

// Whether byte `c` is escaped in a comment: a control character but the tab, and DEL.
bool comment_escapes(unsigned char c) { return (c < 0x20 && c != '\t') || c == 0x7f; }

// The first byte at or after `i` that comment_escapes, or text.size(): 16 bytes at a time where
// SSE2 is there.
std::size_t next_comment_escape(std::string_view text, std::size_t i) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
#if defined(__SSE2__)
  const __m128i c1f = _mm_set1_epi8(0x1f), tab = _mm_set1_epi8('\t'), del = _mm_set1_epi8(0x7f);
  for (; i + 16 <= text.size(); i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    const __m128i control = _mm_cmpeq_epi8(_mm_min_epu8(v, c1f), v);  // (v <= 0x1f)
    const __m128i bad =
        _mm_or_si128(_mm_andnot_si128(_mm_cmpeq_epi8(v, tab), control), _mm_cmpeq_epi8(v, del));
    if (const int m = _mm_movemask_epi8(bad); m != 0)
      return i + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(m)));
  }
#endif
  for (; i < text.size(); ++i)
    if (comment_escapes(p[i])) return i;
  return i;
}

}  // namespace

void append_comment_text(fmt::memory_buffer& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::size_t plain = 0;
  for (std::size_t i = next_comment_escape(text, 0); i < text.size();
       i = next_comment_escape(text, i + 1)) {
    const auto c = static_cast<unsigned char>(text[i]);
    out.append(text.data() + plain, text.data() + i);
    const char esc[4] = {'\\', 'x', kHex[c >> 4], kHex[c & 15]};
    out.append(esc, esc + 4);
    plain = i + 1;
  }
  out.append(text.data() + plain, text.data() + text.size());
}

void append_comment_ident(fmt::memory_buffer& out, std::string_view name) {
  append_comment_text(out, quoted_ident(name));
}

bool client_reads_ident_alike(std::string_view name) {
  // The client's view of `name`: a backslash and the byte after it go together.
  const std::string q = quoted_ident(name);
  for (std::size_t i = 1; i + 1 < q.size(); ++i) {
    if (q[i] != '\\') continue;
    if (q[i + 1] == '`') return false;
    ++i;
  }
  return true;
}

bool client_alters(std::string_view text) {
  return text.find('\r') != std::string_view::npos || text.find('\0') != std::string_view::npos;
}

void append_prepared(fmt::memory_buffer& out, std::string_view sql, std::string_view charset,
                     std::string_view delimiter) {
  auto put = [&out](std::string_view s) { out.append(s.data(), s.data() + s.size()); };
  put("SET @binrecover_stmt=_");
  put(charset);
  put(" X'");
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (char ch : sql) {
    const auto c = static_cast<unsigned char>(ch);
    const char two[2] = {kHex[c >> 4], kHex[c & 15]};
    out.append(two, two + 2);
  }
  put("'");
  put(delimiter);
  put("PREPARE binrecover_stmt FROM @binrecover_stmt");
  put(delimiter);
  put("EXECUTE binrecover_stmt");
  put(delimiter);
  put("DEALLOCATE PREPARE binrecover_stmt");
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

std::string hex_literal(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(3 + 2 * bytes.size());
  out += "X'";
  for (const char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
  out += '\'';
  return out;
}

}  // namespace binrecover::recovery
