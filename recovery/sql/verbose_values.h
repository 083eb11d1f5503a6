#pragma once

// Internal to recovery/sql/row_sql.cc (one translation unit): row values in the `###` lines of
// -v / -vv as the server's own tool prints them, mysqlbinlog 9.7 for a MySQL log and
// mariadb-binlog 10.11 for a MariaDB log (their log_event_print_value): strings quoted with
// their bytes as they are, control bytes escaped; integers with the unsigned reading beside a
// negative one (MariaDB) or by the column's signedness (MySQL); FLOAT as "%-20g", DOUBLE as
// "%-.20g"; BIT and SET as b'0101'; ENUM by number; DATE as 'YYYY:MM:DD'; and the -vv comment
// "/* TYPE meta=M nullable=N is_null=I */". One difference, on purpose: a C1 control character
// (U+0080-U+009F, bytes C2 80-C2 9F) is escaped too (\xc2\x9b), so that no byte of a log
// reaches a terminal as a command. docs/mysqlbinlog-options.md lists the differences.

#include <fmt/format.h>

#include <bit>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "binlog/digits.h"
#include "binlog/json_binary.h"
#include "binlog/row_values.h"
#include "recovery/sql/general_format.h"
#include "recovery/sql/json_diff_function.h"
#include "recovery/sql/text_writer.h"

namespace binrecover::recovery::verbose {

using binlog::Bytes;
using binlog::ColumnType;
using binlog::TableInfo;
using binlog::Value;

// fmt's text written straight into the output (at most `max` characters): no string per value.
template <class... Args>
inline void put_format(Writer& out, std::size_t max, fmt::format_string<Args...> f,
                       Args&&... args) {
  out.done(fmt::format_to_n(out.need(max), max, f, std::forward<Args>(args)...).out);
}

inline bool json_unquoted_text(std::string& text, Bytes b);

inline constexpr char kHexDigits[] = "0123456789abcdef";

// Each byte as the tool writes it in a quoted value: itself, \xNN for a control byte, and for
// MySQL \b \f \n \r \t \\ \'. 0xC2 has size 0: what follows it decides (a C1 control).
struct QuoteEscapes {
  struct Entry {
    char text[4] = {};
    std::uint8_t size = 1;
  };
  Entry e[256];
  explicit constexpr QuoteEscapes(bool mariadb) {
    constexpr char kHex[] = "0123456789abcdef";
    for (unsigned c = 0; c < 256; ++c) {
      Entry& x = e[c];
      x.text[0] = static_cast<char>(c);
      if (c == 0xC2) x.size = 0;
      if (c >= 0x20 && (mariadb || (c != '\\' && c != '\''))) continue;
      const char* two = nullptr;
      if (!mariadb) {
        switch (c) {
          case '\b':
            two = "\\b";
            break;
          case '\f':
            two = "\\f";
            break;
          case '\n':
            two = "\\n";
            break;
          case '\r':
            two = "\\r";
            break;
          case '\t':
            two = "\\t";
            break;
          case '\\':
            two = "\\\\";
            break;
          case '\'':
            two = "\\'";
            break;
          default:
            break;
        }
      }
      if (two != nullptr) {
        x.text[0] = two[0];
        x.text[1] = two[1];
        x.size = 2;
      } else if (c < 0x20) {
        x.text[0] = '\\';
        x.text[1] = 'x';
        x.text[2] = kHex[c >> 4];
        x.text[3] = kHex[c & 15];
        x.size = 4;
      }
    }
  }
};
inline constexpr QuoteEscapes kMariadbEscapes{true};
inline constexpr QuoteEscapes kMysqlEscapes{false};

// Bytes [i, stop) of s (n bytes in all) at p, each as `table` says, a byte at a time (4
// characters of room a byte). Returns the end; i is then stop (or one past, after a C1 pair).
[[gnu::always_inline]] inline char* put_escaped_run(char* p, const unsigned char* s, std::size_t& i,
                                                    std::size_t stop, std::size_t n,
                                                    const QuoteEscapes& table) {
  while (i < stop) {
    const unsigned char c = s[i];
    const QuoteEscapes::Entry& e = table.e[c];
    if (e.size == 0) [[unlikely]] {  // 0xC2: a C1 control (C2 80-C2 9F) escaped, both bytes
      if (i + 1 < n && s[i + 1] >= 0x80 && s[i + 1] <= 0x9F) {
        std::memcpy(p, "\\xc2\\x", 6);
        p[6] = kHexDigits[s[i + 1] >> 4];
        p[7] = kHexDigits[s[i + 1] & 15];
        p += 8;
        i += 2;
      } else {
        *p++ = static_cast<char>(c);
        ++i;
      }
      continue;
    }
    std::memcpy(p, e.text, 4);
    p += e.size;
    ++i;
  }
  return p;
}

// The bytes of 16 at `in` the quoting loop must look at (bit j: byte j): control bytes, the quote,
// the backslash and 0xC2 (the lead byte of a C1 control); the others are copied as they are.
#if defined(__SSE2__)
inline constexpr std::size_t kQuoteBlock = 16;
[[gnu::always_inline]] inline unsigned quote_specials(const unsigned char* in) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in));
  const __m128i control =
      _mm_and_si128(_mm_cmplt_epi8(v, _mm_set1_epi8(0x20)), _mm_cmpgt_epi8(v, _mm_set1_epi8(-1)));
  const __m128i marks =
      _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\'')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
  const __m128i c2 = _mm_cmpeq_epi8(v, _mm_set1_epi8(static_cast<char>(0xC2)));
  return static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(control, _mm_or_si128(marks, c2))));
}
#endif

// 'bytes' as my_b_write_quoted writes them (a C1 control also escaped, see above). `slack`:
// how many bytes after b may be read (the rest of its event): a short string, or a string's
// tail, is then looked at 16 bytes at a time too, the bytes past its end masked off.
// The text goes to p, which has room for quoted_room(n) characters; returns its end.
inline constexpr std::size_t quoted_room(std::size_t n) { return n * 4 + 2 + 16; }
[[gnu::always_inline]] inline char* put_quoted(char* p, Bytes b, bool mariadb, std::size_t slack) {
  const auto* s = reinterpret_cast<const unsigned char*>(b.data());
  const std::size_t n = b.size();
  const QuoteEscapes& table = mariadb ? kMariadbEscapes : kMysqlEscapes;
  *p++ = '\'';
  std::size_t i = 0;
#if defined(__SSE2__)
  // 16 bytes at a time: stored whole (the output has room: at most i * 4 + 1 written of
  // n * 4 + 18), those before the block's first special byte kept; from there to its last
  // special byte a byte at a time (binary values have many), then blocks again.
  const bool tail_blocks = slack >= kQuoteBlock;
  while (i + kQuoteBlock <= n || (tail_blocks && i < n)) {
    const std::size_t left = n - i;
    unsigned mask = quote_specials(s + i);
    if (left < kQuoteBlock) mask &= (1u << left) - 1;
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p),
                     _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i)));
    if (mask == 0) {
      const std::size_t k = left < kQuoteBlock ? left : kQuoteBlock;
      p += k;
      i += k;
      continue;
    }
    const auto first = static_cast<std::size_t>(__builtin_ctz(mask));
    const std::size_t stop = i + static_cast<std::size_t>(31 - __builtin_clz(mask)) + 1;
    p += first;
    i += first;
    p = put_escaped_run(p, s, i, stop, n, table);
  }
#endif
  p = put_escaped_run(p, s, i, n, n, table);
  *p++ = '\'';
  return p;
}
inline void put_quoted(Writer& out, Bytes b, bool mariadb, std::size_t slack = 0) {
  out.done(put_quoted(out.need(quoted_room(b.size())), b, mariadb, slack));
}

// b'0101': the low `nbits` bits of `x`, the highest first.
inline void put_bits(Writer& out, std::uint64_t x, unsigned nbits) {
  char* p = out.need(nbits + 3);
  *p++ = 'b';
  *p++ = '\'';
  for (unsigned i = nbits; i-- > 0;) *p++ = (i < 64 && ((x >> i) & 1) != 0) ? '1' : '0';
  *p++ = '\'';
  out.done(p);
}

// Bytes an integer column holds (0: not an integer column).
inline unsigned integer_bytes(ColumnType t) {
  switch (t) {
    case ColumnType::kTiny:
      return 1;
    case ColumnType::kShort:
      return 2;
    case ColumnType::kInt24:
      return 3;
    case ColumnType::kLong:
      return 4;
    case ColumnType::kLongLong:
      return 8;
    default:
      return 0;
  }
}

// The metadata of column `c` as the tools hold it (table_def::field_metadata): the two bytes of
// a STRING/ENUM/SET as the log has them, BIT's two bytes the other way round.
inline unsigned tool_meta(const binlog::ColumnLayout& c) {
  switch (c.type) {
    case ColumnType::kString:
    case ColumnType::kEnum:
    case ColumnType::kSet: {
      const unsigned real = static_cast<unsigned>(c.type) ^ ((c.meta & 0x300u) >> 4);
      return real << 8 | (c.meta & 0xffu);
    }
    case ColumnType::kBit:
      return (c.meta >> 8) | (c.meta & 0xffu) << 8;
    default:
      return c.meta;
  }
}

// The type text of the -vv comment.
inline void put_type_name(Writer& out, const TableInfo& info, std::size_t col) {
  const binlog::ColumnLayout& c = info.layout[col];
  auto put = [&out](std::string_view s) { out.put(s); };
  auto num = [&out](std::string_view head, unsigned n, std::string_view tail) {
    put_format(out, 48, "{}{}{}", head, n, tail);
  };
  switch (c.type) {
    case ColumnType::kTiny:
      return put("TINYINT");
    case ColumnType::kShort:
      return put("SHORTINT");
    case ColumnType::kInt24:
      return put("MEDIUMINT");
    case ColumnType::kLong:
      return put("INT");
    case ColumnType::kLongLong:
      return put("LONGINT");
    case ColumnType::kNewDecimal:
      return put_format(out, 32, "DECIMAL({},{})", c.meta >> 8, c.meta & 0xff);
    case ColumnType::kFloat:
      return put("FLOAT");
    case ColumnType::kDouble:
      return put("DOUBLE");
    case ColumnType::kBit:
      return num("BIT(", (c.meta & 0xffu) * 8 + (c.meta >> 8), ")");
    case ColumnType::kTimestamp:
      return put("TIMESTAMP");
    case ColumnType::kTimestamp2:
      return num("TIMESTAMP(", c.meta, ")");
    case ColumnType::kDateTime:
      return put("DATETIME");
    case ColumnType::kDateTime2:
      return num("DATETIME(", c.meta, ")");
    case ColumnType::kTime:
      return put("TIME");
    case ColumnType::kTime2:
      return num("TIME(", c.meta, ")");
    case ColumnType::kNewDate:
    case ColumnType::kDate:
      return put("DATE");
    case ColumnType::kYear:
      return put("YEAR");
    case ColumnType::kEnum:
      return put((c.meta & 0xff) == 1 ? "ENUM(1 byte)" : "ENUM(2 bytes)");
    case ColumnType::kSet:
      return num("SET(", c.meta & 0xffu, " bytes)");
    case ColumnType::kTinyBlob:
    case ColumnType::kMediumBlob:
    case ColumnType::kLongBlob:
    case ColumnType::kBlob: {
      static constexpr const char* kBlobs[] = {"TINYBLOB/TINYTEXT", "BLOB/TEXT",
                                               "MEDIUMBLOB/MEDIUMTEXT", "LONGBLOB/LONGTEXT"};
      return put(c.meta >= 1 && c.meta <= 4 ? kBlobs[c.meta - 1] : "BLOB");
    }
    case ColumnType::kVarchar:
    case ColumnType::kVarString:
      return num("VARSTRING(", c.meta, ")");
    case ColumnType::kString:
      return num("STRING(", c.meta, ")");
    case ColumnType::kJson:
      return put("JSON");
    case ColumnType::kGeometry:
      return put("GEOMETRY");
    case ColumnType::kVector:
      return num("VECTOR(", col < info.vector_dimensions.size() ? info.vector_dimensions[col] : 0,
                 ")");
    default:
      return num("type=", static_cast<unsigned>(c.type), "");
  }
}

// " /* TYPE meta=M nullable=N is_null=" of column `col` (the value's null flag and " */" follow).
inline void put_type_head(Writer& out, const TableInfo& info, std::size_t col) {
  out.put(" /* ");
  put_type_name(out, info, col);
  const bool nullable = col < info.nullable.size() && info.nullable[col] != 0;
  put_format(out, 64, " meta={} nullable={} is_null=", tool_meta(info.layout[col]),
             nullable ? 1 : 0);
}

// A TIMESTAMP as both tools print it, from its bytes: the seconds since the epoch ("%d") and,
// with a fraction (TIMESTAMP2 of meta > 0), '.' and its `meta` digits. Returns false for other
// types (their value is read by visit_value).
[[gnu::always_inline]] inline bool put_raw_timestamp(Writer& out, const binlog::ColumnLayout& c,
                                                     binlog::ByteCursor& cur) {
  if (c.type == ColumnType::kTimestamp) {
    out.put_uint(cur.uint_le(4));
    return true;
  }
  if (c.type != ColumnType::kTimestamp2) return false;
  out.put_uint(cur.uint_be(4));
  const unsigned dec = c.meta;
  if (dec == 0 || dec > 6) return true;
  const std::size_t bytes = (dec + 1) / 2;
  std::uint64_t usec = cur.uint_be(bytes);
  usec *= bytes == 1 ? 10000 : bytes == 2 ? 100 : 1;
  static constexpr std::uint64_t kTen[] = {1, 10, 100, 1000, 10000, 100000, 1000000};
  put_format(out, 16, ".{:0{}}", usec / kTen[6 - dec], dec);
  return true;
}

// One value as the tool prints it, written as visit_value hands it over.
struct ToolValue {
  Writer& out;
  const TableInfo& info;
  std::size_t col;
  const binlog::ByteCursor* cur = nullptr;  // the row's, past the value: what may be read after it

  void integer(std::int64_t x) { whole(static_cast<std::uint64_t>(x)); }
  void uinteger(std::uint64_t x) {
    if (info.layout[col].type == ColumnType::kYear) {  // '%04d' of 1900 + the byte
      put_format(out, 24, "{:04d}", x == 0 ? 1900 : x);
      return;
    }
    whole(x);
  }
  // An integer from its bytes: the signed reading and, when it is negative, the unsigned one
  // beside it (both tools, whatever the column's signedness).
  void whole(std::uint64_t raw) {
    out.done(put_whole(out.need(48), raw, integer_bytes(info.layout[col].type)));
  }
  // ... of a column of `bytes` bytes (0: not an integer column, raw as it is), at p (48
  // characters of room). Returns the end.
  [[gnu::always_inline]] static char* put_whole(char* p, std::uint64_t raw, unsigned bytes) {
    const unsigned shift = bytes == 0 ? 0 : 64 - 8 * bytes;
    const std::uint64_t u =
        bytes == 0 || bytes == 8 ? raw : raw & ((std::uint64_t{1} << (8 * bytes)) - 1);
    const auto s = static_cast<std::int64_t>(u << shift) >> shift;
    if (s >= 0) return binlog::put_uint(p, u);
    *p = '-';
    p = binlog::put_uint(p + 1, 0 - static_cast<std::uint64_t>(s));
    std::memcpy(p, " (", 2);
    p = binlog::put_uint(p + 2, u);
    *p = ')';
    return p + 1;
  }
  // FLOAT as "%-20g", DOUBLE as "%-.20g": printf's exact digits (put_general).
  void real(double d, bool is_float) {
    char* p = out.need(352);
    char* end = put_general(p, d, is_float ? 6 : 20);
    if (is_float)
      while (end - p < 20) *end++ = ' ';
    out.done(end);
  }
  template <class Write>
  [[gnu::always_inline]] void text(Value::Kind kind, Write&& write) {
    const ColumnType type = info.layout[col].type;
    char* p = out.need(binlog::ValueText::kCapacity + 2);
    if (kind == Value::Kind::kDecimal || (type == ColumnType::kDateTime && !info.mariadb)) {
      out.done(write(p));  // (TIMESTAMPs are written by put_raw_timestamp)
      return;
    }
    *p++ = '\'';
    char* end = write(p);
    if (type == ColumnType::kNewDate || type == ColumnType::kDate)
      for (char* q = p; q != end; ++q)
        if (*q == '-') *q = ':';
    *end++ = '\'';
    out.done(end);
  }
  void string(Bytes b, std::uint16_t) {
    if (info.layout[col].type == ColumnType::kVector) return vector(b);
    put_quoted(out, b, info.mariadb, cur == nullptr ? 0 : cur->remaining());
  }
  // MySQL's VECTOR: [1.00000e+00,2.00000e+00] (its floats, "%.5e").
  void vector(Bytes b) {
    out.put('[');
    for (std::size_t i = 0; i + 4 <= b.size(); i += 4) {
      std::uint32_t bits;
      std::memcpy(&bits, b.data() + i, 4);
      if (i != 0) out.put(',');
      char* p = out.need(64);
      out.done(std::to_chars(p, p + 64, static_cast<double>(std::bit_cast<float>(bits)),
                             std::chars_format::scientific, 5)
                   .ptr);
    }
    out.put(']');
  }
  void bits(std::uint64_t x, std::uint16_t width) { put_bits(out, x, width); }
  void enumeration(std::uint64_t x) { out.put_uint(x); }
  void set(std::uint64_t x) { put_bits(out, x, (info.layout[col].meta & 0xff) * 8u); }
  void geometry(Bytes b) { put_quoted(out, b, info.mariadb); }
  void json(Bytes b) {
    thread_local std::string text;
    json_unquoted_text(text, b);
    put_quoted(out, Bytes(reinterpret_cast<const std::byte*>(text.data()), text.size()),
               info.mariadb);
  }
};

// A JSON value's text as mysqlbinlog takes it (Json_wrapper::to_string with json_quoted false):
// the document's text, but a top-level string, date, time or opaque value (those its text
// quotes) as its content, unescaped. Returns whether it was such a value.
inline bool json_unquoted_text(std::string& text, Bytes b) {
  text.clear();
  binlog::append_json_text(text, b, 0);
  if (text.size() < 2 || text.front() != '"') return false;
  const std::size_t end = text.size() - 1;  // (the closing quote)
  std::size_t w = 0;
  for (std::size_t r = 1; r < end; ++r) {
    char c = text[r];
    if (c == '\\' && r + 1 < end) {
      switch (const char e = text[++r]) {
        case 'b':
          c = '\b';
          break;
        case 'f':
          c = '\f';
          break;
        case 'n':
          c = '\n';
          break;
        case 'r':
          c = '\r';
          break;
        case 't':
          c = '\t';
          break;
        case 'u':  // (\u00XX: only bytes below 0x20 are written so)
          if (r + 4 < end) {
            unsigned v = 0;
            std::from_chars(text.data() + r + 1, text.data() + r + 5, v, 16);
            c = static_cast<char>(v);
            r += 4;
          }
          break;
        default:
          c = e;
      }
    }
    text[w++] = c;
  }
  text.resize(w);
  return true;
}

// A MySQL partial JSON update in a ### line, as mysqlbinlog writes it (print_json_diff): the
// functions nested, the last diff's outermost, consecutive diffs of one function in one call;
// "\n###      " between calls and between diffs; paths quoted; values bare (numbers, true,
// false, null), quoted (strings, dates, times, opaque values: their content) or
// CAST('...' AS JSON) (objects, arrays). No diffs: just the column ("@2").
inline void put_json_diff(Writer& out, Bytes diffs, std::string_view column) {
  thread_local std::vector<binlog::JsonDiff> list;
  thread_local std::string text;
  binlog::json_diffs(diffs, 0, list);
  const auto name = [](const binlog::JsonDiff& d) { return json_diff_function(d); };
  constexpr std::string_view kSeparator = "\n###      ";
  bool printed = false;
  for (std::size_t i = list.size(); i-- > 0;) {
    if (i != 0 && name(list[i - 1]) == name(list[i])) continue;
    if (printed) out.put(kSeparator);
    out.put(name(list[i]));
    out.put('(');
    printed = true;
  }
  out.put(column);
  if (list.empty()) return;
  out.put(", ");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const binlog::JsonDiff& d = list[i];
    put_quoted(out, Bytes(reinterpret_cast<const std::byte*>(d.path.data()), d.path.size()), false);
    if (d.op != binlog::JsonDiff::Op::kRemove) {
      out.put(", ");
      const bool quoted = json_unquoted_text(text, d.value);
      const Bytes t(reinterpret_cast<const std::byte*>(text.data()), text.size());
      if (quoted) {
        put_quoted(out, t, false);
      } else if (!text.empty() && (text.front() == '{' || text.front() == '[')) {
        out.put("CAST(");
        put_quoted(out, t, false);
        out.put(" AS JSON)");
      } else {
        out.put(text);
      }
    }
    const bool last = i + 1 == list.size();
    if (last || name(list[i + 1]) != name(d)) out.put(')');
    if (!last) {
      out.put(',');
      out.put(kSeparator);
    }
  }
}

}  // namespace binrecover::recovery::verbose
