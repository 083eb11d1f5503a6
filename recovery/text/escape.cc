#include "recovery/text/escape.h"

#include <cstdint>
#include <iterator>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace binrecover::recovery {

namespace {

void append(fmt::memory_buffer& out, std::string_view s) {
  out.append(s.data(), s.data() + s.size());
}

void append_hex_bytes(fmt::memory_buffer& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    const char esc[4] = {'\\', 'x', kHex[c >> 4], kHex[c & 15]};
    out.append(esc, esc + 4);
  }
}

// The index of the first byte at or after `i` that is not plain printable ASCII (0x20-0x7e,
// and with `tsv` not '\\' either), or s.size(): 16 bytes at a time where SSE2 is there.
std::size_t skip_plain(std::string_view s, std::size_t i, bool tsv) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
#if defined(__SSE2__)
  const __m128i low = _mm_set1_epi8(0x1f), high = _mm_set1_epi8(0x7e), bs = _mm_set1_epi8('\\');
  for (; i + 16 <= s.size(); i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    // (signed compares: bytes 0x80-0xff are negative, so "not above 0x1f" takes them too)
    __m128i bad = _mm_or_si128(_mm_cmpgt_epi8(v, high),
                               _mm_cmpgt_epi8(_mm_add_epi8(low, _mm_set1_epi8(1)), v));
    if (tsv) bad = _mm_or_si128(bad, _mm_cmpeq_epi8(v, bs));
    if (const int m = _mm_movemask_epi8(bad); m != 0)
      return i + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(m)));
  }
#endif
  for (; i < s.size(); ++i)
    if (p[i] < 0x20 || p[i] > 0x7e || (tsv && p[i] == '\\')) return i;
  return i;
}

}  // namespace

std::uint32_t utf8_code_point(std::string_view s, std::size_t i, std::size_t n) {
  std::uint32_t cp = static_cast<unsigned char>(s[i]) & (0x7f >> n);
  for (std::size_t k = 1; k < n; ++k)
    cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3f);
  return cp;
}

std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  std::size_t n = 0;
  std::uint32_t min = 0;
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2;
    min = 0x80;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    min = 0x800;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return 0;
  const std::uint32_t cp = utf8_code_point(s, i, n);
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return n;
}

void append_terminal_text(fmt::memory_buffer& out, std::string_view s) {
  std::size_t plain = 0;  // start of the run of bytes copied as they are
  for (std::size_t i = skip_plain(s, 0, false); i < s.size(); i = skip_plain(s, i, false)) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = c < 0x80 ? 0 : utf8_length(s, i);
    if (n != 0) {
      const std::uint32_t cp = utf8_code_point(s, i, n);
      const bool hidden = (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) ||
                          (cp >= 0x2066 && cp <= 0x2069);
      if (!hidden) {
        i += n;
        continue;
      }
    } else {
      n = 1;
    }
    append(out, s.substr(plain, i - plain));
    append_hex_bytes(out, s.substr(i, n));
    i += n;
    plain = i;
  }
  append(out, s.substr(plain));
}

bool is_plain_text(std::string_view s) { return skip_plain(s, 0, true) == s.size(); }

void append_tsv_field(fmt::memory_buffer& out, std::string_view s) {
  std::size_t plain = 0;  // start of the run of bytes copied as they are
  for (std::size_t i = skip_plain(s, 0, true); i < s.size(); i = skip_plain(s, i + 1, true)) {
    const char c = s[i];
    if (c != '\\' && c != '\t' && c != '\n' && c != '\0') continue;
    out.append(s.data() + plain, s.data() + i);
    const char e[2] = {'\\', c == '\t' ? 't' : c == '\n' ? 'n' : c == '\0' ? '0' : '\\'};
    out.append(e, e + 2);
    plain = i + 1;
  }
  out.append(s.data() + plain, s.data() + s.size());
}

std::string tsv_field(std::string_view field) {
  std::string out;
  for (std::size_t i = 0; i < field.size(); ++i) {
    if (field[i] != '\\' || i + 1 == field.size()) {
      out += field[i];
      continue;
    }
    const char c = field[++i];
    out += c == 't' ? '\t' : c == 'n' ? '\n' : c == '0' ? '\0' : c;
  }
  return out;
}

std::string terminal_text(std::string_view s) {
  fmt::memory_buffer b;
  append_terminal_text(b, s);
  return std::string(b.data(), b.size());
}

void append_json_string(fmt::memory_buffer& out, std::string_view s) {
  out.push_back('"');
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '"':
          append(out, "\\\"");
          break;
        case '\\':
          append(out, "\\\\");
          break;
        case '\n':
          append(out, "\\n");
          break;
        case '\t':
          append(out, "\\t");
          break;
        case '\r':
          append(out, "\\r");
          break;
        default:
          if (c < 0x20 || c == 0x7f)
            fmt::format_to(std::back_inserter(out), "\\u{:04x}", c);
          else
            out.push_back(static_cast<char>(c));
      }
      ++i;
      continue;
    }
    const std::size_t n = utf8_length(s, i);
    if (n == 0) {
      append(out, "\\ufffd");
      ++i;
    } else {
      append(out, s.substr(i, n));
      i += n;
    }
  }
  out.push_back('"');
}

void append_html_text(fmt::memory_buffer& out, std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const std::size_t n = utf8_length(s, i);
      if (n == 0) {
        append(out, "\xef\xbf\xbd");
        ++i;
      } else {
        append(out, s.substr(i, n));
        i += n;
      }
      continue;
    }
    switch (c) {
      case '&':
        append(out, "&amp;");
        break;
      case '<':
        append(out, "&lt;");
        break;
      case '>':
        append(out, "&gt;");
        break;
      case '"':
        append(out, "&quot;");
        break;
      case '\'':
        append(out, "&#39;");
        break;
      default:
        if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f)
          append(out, "\xef\xbf\xbd");
        else
          out.push_back(static_cast<char>(c));
    }
    ++i;
  }
}

}  // namespace binrecover::recovery
