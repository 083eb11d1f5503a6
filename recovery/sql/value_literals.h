#pragma once

// Internal to recovery/sql/row_sql.cc (one translation unit): the writers of row values as
// SQL literals and as the text of -v comments, kept inline for speed.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "binlog/charsets.h"
#include "binlog/digits.h"
#include "binlog/error.h"
#include "binlog/json_binary.h"
#include "binlog/row_values.h"
#include "recovery/sql/event_info.h"
#include "recovery/sql/json_diff_function.h"
#include "recovery/sql/text_writer.h"

namespace binrecover::recovery::literals {

using binlog::ByteCursor;
using binlog::Bytes;
using binlog::TableInfo;
using binlog::Value;

// Row values are the bulk of -v, --rows-as-sql and --flashback output: they are written
// straight into the output buffer through a raw pointer (room() makes space for the longest
// text a value can take, commit() keeps what was written), with no allocation per row or value.
struct HexPairs {
  char d[512] = {};
  constexpr HexPairs() {
    constexpr char kDigits[] = "0123456789ABCDEF";
    for (int i = 0; i < 256; ++i) {
      d[2 * i] = kDigits[i >> 4];
      d[2 * i + 1] = kDigits[i & 15];
    }
  }
};
inline constexpr HexPairs kHexPairs;

// Two upper-case hex digits per byte.
inline char* put_hex_digits(char* p, Bytes b) {
  const auto* in = reinterpret_cast<const unsigned char*>(b.data());
  const std::size_t n = b.size();
  std::size_t i = 0;
#if defined(__SSE2__)
  // Sixteen bytes at a time: split into nibbles, map 0-9 to '0'-'9' and 10-15 to 'A'-'F'.
  const __m128i low4 = _mm_set1_epi8(0x0f);
  const __m128i nine = _mm_set1_epi8(9);
  const __m128i zero = _mm_set1_epi8('0');
  const __m128i letters = _mm_set1_epi8('A' - '0' - 10);
  auto digits = [&](__m128i x) {
    return _mm_add_epi8(_mm_add_epi8(x, zero), _mm_and_si128(_mm_cmpgt_epi8(x, nine), letters));
  };
  for (; i + 16 <= n; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    const __m128i hi = digits(_mm_and_si128(_mm_srli_epi16(v, 4), low4));
    const __m128i lo = digits(_mm_and_si128(v, low4));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm_unpacklo_epi8(hi, lo));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p + 16), _mm_unpackhi_epi8(hi, lo));
    p += 32;
  }
#endif
  for (; i < n; ++i) {
    std::memcpy(p, kHexPairs.d + 2 * in[i], 2);
    p += 2;
  }
  return p;
}

// X'...' (upper-case hex), with `zeros` zero bytes after `b`; '' when there is nothing.
inline void put_hex_literal(Writer& out, Bytes b, std::size_t zeros = 0) {
  if (b.empty() && zeros == 0) {
    out.put("''");
    return;
  }
  char* p = out.need(2 * (b.size() + zeros) + 3);
  *p++ = 'X';
  *p++ = '\'';
  p = put_hex_digits(p, b);
  std::memset(p, '0', 2 * zeros);
  p += 2 * zeros;
  *p++ = '\'';
  out.done(p);
}

// The characters a quoted SQL string escapes, and the letter after the backslash:
// ' \ NUL LF CR ^Z.
struct EscapeTable {
  char code[256] = {};
  constexpr EscapeTable() {
    code[static_cast<unsigned char>('\'')] = '\'';
    code[static_cast<unsigned char>('\\')] = '\\';
    code[0] = '0';
    code[static_cast<unsigned char>('\n')] = 'n';
    code[static_cast<unsigned char>('\r')] = 'r';
    code[0x1a] = 'Z';
  }
};
inline constexpr EscapeTable kEscape;

inline char* put_escaped_char(char* p, char c) {
  const char e = kEscape.code[static_cast<unsigned char>(c)];
  if (e == 0) {
    *p++ = c;
  } else {
    *p++ = '\\';
    *p++ = e;
  }
  return p;
}

// Strings are scanned a block at a time for the bytes that need the slow path: the ones to
// escape and, for UTF-8 text, non-ASCII bytes (whose sequences are checked one by one).
#if defined(__SSE2__)
inline constexpr std::size_t kBlock = 16;
using BlockMask = std::uint32_t;  // bit j: byte j

[[gnu::always_inline]] inline BlockMask special_bytes(const char* in, bool utf8) {
  // NUL, LF, CR and ^Z are all below 0x20: one signed compare flags every control byte and
  // (signed, so negative) every non-ASCII byte, which UTF-8 text checks anyway; the slow path
  // copies the control bytes it need not escape.
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in));
  __m128i low = _mm_cmplt_epi8(v, _mm_set1_epi8(0x20));
  if (!utf8) low = _mm_and_si128(low, _mm_cmpgt_epi8(v, _mm_set1_epi8(-1)));
  const __m128i m = _mm_or_si128(low, _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\'')),
                                                   _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))));
  return static_cast<BlockMask>(_mm_movemask_epi8(m));
}

inline void copy_block(char* p, const char* in) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p),
                   _mm_loadu_si128(reinterpret_cast<const __m128i*>(in)));
}

unsigned first_special(BlockMask mask) { return static_cast<unsigned>(__builtin_ctz(mask)); }

// The mask of a block seen from its byte d on.
BlockMask from_byte(BlockMask mask, std::size_t d) { return mask >> d; }
#else
inline constexpr std::size_t kBlock = 8;
using BlockMask = std::uint64_t;  // bit 8j+7: byte j

[[gnu::always_inline]] inline BlockMask special_bytes(const char* in, bool utf8) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kLow7 = 0x7f7f7f7f7f7f7f7fULL;
  std::uint64_t w;
  std::memcpy(&w, in, 8);
  auto zero_bytes = [](std::uint64_t x) { return ~(((x & kLow7) + kLow7) | x | kLow7); };
  BlockMask mask = zero_bytes(w) | zero_bytes(w ^ (kOnes * '\'')) | zero_bytes(w ^ (kOnes * '\\')) |
                   zero_bytes(w ^ (kOnes * '\n')) | zero_bytes(w ^ (kOnes * '\r')) |
                   zero_bytes(w ^ (kOnes * 0x1a));
  if (utf8) mask |= w & ~kLow7;
  return mask;
}

inline void copy_block(char* p, const char* in) { std::memcpy(p, in, 8); }

unsigned first_special(BlockMask mask) { return static_cast<unsigned>(__builtin_ctzll(mask)) / 8; }

BlockMask from_byte(BlockMask mask, std::size_t d) { return d >= 8 ? 0 : mask >> (8 * d); }
#endif

// `s` escaped for a quoted string (room for 2 * s.size() characters). With kUtf8, the text
// must also be well-formed UTF-8 (lead bytes and their continuation bytes): nullptr if it is
// not.
//
// kSql: for SQL that a client pipes to the server, under any sql_mode of the target: the quote
// is doubled (the one escape NO_BACKSLASH_ESCAPES keeps), and a string holding a backslash or
// a control byte other than LF and TAB has no such form (a backslash means itself under that
// mode and starts an escape without it; the client may eat NUL, CR and ^Z): nullptr, the
// caller writes it as hex. Else (the -v comments, as mariadb-binlog writes them): backslash
// escapes for the quote, the backslash, NUL, LF, CR and ^Z, so that nothing ends the line.
template <bool kUtf8, bool kSql>
inline char* put_escaped_text(char* p, std::string_view s) {
  const char* in = s.data();
  const std::size_t n = s.size();
  std::size_t i = 0;
  for (;;) {
    while (i + kBlock <= n) {
      const BlockMask mask = special_bytes(in + i, kUtf8);
      copy_block(p, in + i);  // the whole block; only the bytes before a special one count
      if (mask == 0) {
        p += kBlock;
        i += kBlock;
        continue;
      }
      const unsigned k = first_special(mask);
      p += k;
      i += k;
      break;
    }
    if (i >= n) return p;
    if (n >= kBlock && i + kBlock > n) {
      // The tail: the block that ends the string, seen from i on; nothing special in it, it
      // is copied as it is.
      const std::size_t start = n - kBlock;
      if (from_byte(special_bytes(in + start, kUtf8), i - start) == 0)
        return put_chars(p, std::string_view(in + i, n - i));
    }
    const auto c = static_cast<unsigned char>(in[i]);
    if (!kUtf8 || c < 0x80) {
      if constexpr (kSql) {
        if (c == '\'') {
          *p++ = '\'';
        } else if (c == '\\' || (c < 0x20 && c != '\n' && c != '\t')) {
          return nullptr;
        }
        *p++ = in[i++];
      } else {
        p = put_escaped_char(p, in[i++]);
      }
      continue;
    }
    const std::size_t len = (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (len == 0 || i + len > n) return nullptr;
    for (std::size_t k = 1; k < len; ++k)
      if ((static_cast<unsigned char>(in[i + k]) & 0xc0) != 0x80) return nullptr;
    p[0] = in[i];  // 2-4 bytes, without a loop
    p[1] = in[i + 1];
    if (len > 2) p[2] = in[i + 2];
    if (len > 3) p[3] = in[i + 3];
    p += len;
    i += len;
  }
}

// 's' quoted (kSql: as put_escaped_text says; a string that has no quoted form there is
// written " X'hex'", a hex literal that an introducer before it still applies to).
template <bool kSql>
inline void put_quoted(Writer& out, std::string_view s) {
  char* const start = out.need(2 * s.size() + 4);
  char* p = start;
  *p++ = '\'';
  p = put_escaped_text<false, kSql>(p, s);
  if (p != nullptr) {
    *p++ = '\'';
    out.done(p);
    return;
  }
  p = start;
  *p++ = ' ';
  out.done(p);
  put_hex_literal(out, Bytes(reinterpret_cast<const std::byte*>(s.data()), s.size()));
}

// Whether `s` has a quoted form that means the same under every sql_mode (put_escaped_text).
inline bool sql_quotable(std::string_view s) {
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\\' || (c < 0x20 && c != '\n' && c != '\t')) return false;
  }
  return true;
}

// A string value: utf8 text quoted with its introducer, anything else as hex (byte-exact
// whatever the column's charset); `zeros`: the trailing zero bytes a BINARY(n) image dropped.
template <bool kSql>
inline void put_string(Writer& out, Bytes b, std::uint16_t collation, std::size_t zeros) {
  const binlog::Collation* c = collation != 0 ? binlog::find_collation(collation) : nullptr;
  if (c == nullptr || c->binary) {
    put_hex_literal(out, b, zeros);
    return;
  }
  const std::string_view text = binlog::as_text(b);
  if (c->utf8) {
    char* const start = out.need(c->charset.size() + 2 * text.size() + 3);
    char* p = start;
    *p++ = '_';
    p = put_chars(p, c->charset);
    *p++ = '\'';
    p = put_escaped_text<true, kSql>(p, text);
    if (p != nullptr) {
      *p++ = '\'';
      out.done(p);
      return;
    }
    out.done(start);  // not valid UTF-8 after all: hex
  }
  char* p = out.need(c->charset.size() + 2);
  *p++ = '_';
  p = put_chars(p, c->charset);
  *p++ = ' ';
  out.done(p);
  put_hex_literal(out, b);
}

// A SET value by its members' names (SqlTable::prepare checked that they are quotable).
inline void put_set(Writer& out, std::uint64_t bits, const std::vector<std::string>& names) {
  std::size_t size = 2;
  for (std::size_t b = 0; b < names.size(); ++b)
    if (bits & (1ULL << b)) size += 2 * names[b].size() + 1;
  char* p = out.need(size);
  *p++ = '\'';
  bool first = true;
  for (std::size_t b = 0; b < names.size(); ++b)
    if (bits & (1ULL << b)) {
      if (!first) *p++ = ',';
      first = false;
      p = put_escaped_text<false, true>(p, names[b]);
    }
  *p++ = '\'';
  out.done(p);
}

// A MySQL binary JSON value as SQL that MySQL stores back as it was: its text, which MySQL parses
// into the same document but for the values whose type the text does not carry (an unsigned
// integer, a DECIMAL, a date or time, binary data), and those set to an expression of their
// type with JSON_SET: CAST(... AS UNSIGNED / DECIMAL(p,s) / DATE / TIME(6) / DATETIME(6)), a
// TIMESTAMP through a JSON_TABLE column of that type (no other expression has it), binary data
// as a hex literal. (`exact` false, or -v comments: the text alone; a WHERE compares the column's
// text with it.) `cast`: the text alone goes in as CAST(... AS JSON).
template <bool kSql>
inline void put_json(Writer& out, Bytes b, bool exact, bool cast) {
  thread_local std::string text;
  thread_local std::vector<binlog::JsonTypedValue> typed;
  text.clear();
  typed.clear();
  if (kSql && exact)
    binlog::append_json_text(text, b, 0, typed);
  else
    binlog::append_json_text(text, b, 0);
  if (typed.empty()) {
    if (cast) out.put("CAST(");
    out.put("_utf8mb4");
    put_quoted<kSql>(out, text);
    if (cast) out.put(" AS JSON)");
    return;
  }
  out.put("JSON_SET(_utf8mb4");
  put_quoted<kSql>(out, text);
  for (const binlog::JsonTypedValue& v : typed) {
    out.put(", _utf8mb4");
    put_quoted<kSql>(out, v.path);
    out.put(", ");
    using Kind = binlog::JsonTypedValue::Kind;
    // (the texts are digits, signs, '.', '-', ':' and ' ': nothing to quote)
    const auto around = [&](std::string_view before, std::string_view after) {
      out.put(before);
      out.put(v.text);
      out.put(after);
    };
    switch (v.kind) {
      case Kind::kUnsigned:
        around("CAST(", " AS UNSIGNED)");
        break;
      case Kind::kDecimal:  // (a computed DECIMAL may have up to 81 digits; CAST takes 65)
        around("CAST('", "' AS DECIMAL(" + std::to_string(std::min(v.precision, 65)) + "," +
                             std::to_string(v.scale) + "))");
        break;
      case Kind::kDate:
        around("CAST('", "' AS DATE)");
        break;
      case Kind::kTime:
        around("CAST('", "' AS TIME(6))");
        break;
      case Kind::kDateTime:
        around("CAST('", "' AS DATETIME(6))");
        break;
      case Kind::kTimestamp:
        around("(SELECT t FROM JSON_TABLE('[\"",
               "\"]', '$[*]' COLUMNS (t TIMESTAMP(6) PATH '$')) AS binrecover_ts)");
        break;
      case Kind::kOpaque:
        put_hex_literal(out, v.data);
        break;
    }
  }
  out.put(")");
}

// One value as an SQL literal that restores it byte for byte, written as visit_value hands it
// over: numbers as numbers, strings with their character set's introducer (utf8 text quoted
// and escaped, other charsets and binary data as hex), temporal values quoted, ENUM/SET by name
// when the log names them, for SQL to run (put_escaped_text). (-v writes values as the server
// tools do: verbose_values.h.)
struct Literal {
  Writer& out;
  const SqlTable& table;
  std::size_t col;
  bool json_as_text = false;  // JSON as its text alone (put_json): in a WHERE, or for MariaDB

  [[gnu::always_inline]] void integer(std::int64_t x) {
    out.done(binlog::put_int(out.need(20), x));
  }
  [[gnu::always_inline]] void uinteger(std::uint64_t x) {
    out.done(binlog::put_uint(out.need(20), x));
  }
  // In SQL a FLOAT is written as the exact double it widens to: stored back it rounds to the
  // same float, and compared in a WHERE clause it equals the column (its shortest float form,
  // read as a double, would not). The shortest text of a double is at most 24 characters.
  void real(double d, bool /*is_float*/) { out.done(put_double(out.need(32), d)); }
  template <class Write>
  [[gnu::always_inline]] void text(Value::Kind kind, Write&& write) {
    char* p = out.need(binlog::ValueText::kCapacity + 2);
    if (kind == Value::Kind::kDecimal) {
      out.done(write(p));
      return;
    }
    *p++ = '\'';  // temporal: digits and separators, nothing to escape
    p = write(p);
    *p++ = '\'';
    out.done(p);
  }
  void string(Bytes b, std::uint16_t collation) {
    // BINARY(n): the row image drops trailing zero bytes; the column keeps them.
    const binlog::ColumnLayout& c = table.info.layout[col];
    const std::size_t zeros =
        c.type == binlog::ColumnType::kString && collation == 63 && b.size() < c.meta
            ? c.meta - b.size()
            : 0;
    put_string<true>(out, b, collation, zeros);
  }
  void bits(std::uint64_t x, std::uint16_t /*width*/) { uinteger(x); }
  void enumeration(std::uint64_t x) {
    if (col < table.enum_literals.size() && x >= 1 && x <= table.enum_literals[col].size())
      out.put(table.enum_literals[col][x - 1]);
    else
      uinteger(x);
  }
  void set(std::uint64_t x) {
    const auto& names = table.info.set_values[col];
    if (names.empty() || (names.size() < 64 && (x >> names.size()) != 0) ||
        table.set_numeric[col] != 0)
      uinteger(x);
    else if (col < table.set_literals.size() && x < table.set_literals[col].size())
      out.put(table.set_literals[col][x]);
    else
      put_set(out, x, names);
  }
  void geometry(Bytes b) { put_hex_literal(out, b); }
  void json(Bytes b) { put_json<true>(out, b, !json_as_text && !table.json_as_text, false); }
};

[[noreturn]] void json_diff_outside_set() {
  throw Error(ErrorCode::kUnsupportedFormat,
              "a partial JSON update has no value of its own outside an UPDATE's SET");
}

// A column's new value from its partial JSON update: the diffs applied in order to the old
// document as nested JSON_REPLACE / JSON_INSERT / JSON_ARRAY_INSERT / JSON_REMOVE calls on
// `column` (the column's name, or @N in -v comments). An INSERT whose path ends in an array
// cell inserts there, shifting the rest: JSON_ARRAY_INSERT; into an object: JSON_INSERT.
template <bool kSql>
inline void append_json_update(Writer& out, Bytes value, std::string_view column, bool exact) {
  thread_local std::vector<binlog::JsonDiff> diffs;
  binlog::json_diffs(value, 0, diffs);
  for (std::size_t k = diffs.size(); k-- > 0;) {
    out.put(json_diff_function(diffs[k]));
    out.put('(');
  }
  out.put(column);
  for (const binlog::JsonDiff& d : diffs) {
    out.put(", _utf8mb4");
    put_quoted<kSql>(out, d.path);
    if (d.op != binlog::JsonDiff::Op::kRemove) {
      out.put(", ");
      put_json<kSql>(out, d.value, exact, true);
    }
    out.put(")");
  }
}

}  // namespace binrecover::recovery::literals
