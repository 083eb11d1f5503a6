#include "binlog/json_binary.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <string_view>
#include <vector>

#include "binlog/error.h"

namespace binrecover::binlog {
namespace {

// MySQL's JSON_DOCUMENT_MAX_DEPTH: it refuses to store or print anything nested deeper.
constexpr int kMaxDepth = 100;

// Value types (json_binary.h JSONB_TYPE_*).
constexpr std::uint8_t kSmallObject = 0x00;
constexpr std::uint8_t kLargeObject = 0x01;
constexpr std::uint8_t kSmallArray = 0x02;
constexpr std::uint8_t kLargeArray = 0x03;
constexpr std::uint8_t kLiteral = 0x04;
constexpr std::uint8_t kInt16 = 0x05;
constexpr std::uint8_t kUint16 = 0x06;
constexpr std::uint8_t kInt32 = 0x07;
constexpr std::uint8_t kUint32 = 0x08;
constexpr std::uint8_t kInt64 = 0x09;
constexpr std::uint8_t kUint64 = 0x0a;
constexpr std::uint8_t kDouble = 0x0b;
constexpr std::uint8_t kString = 0x0c;
constexpr std::uint8_t kOpaque = 0x0f;

// Field types (enum_field_types) of the opaque values JSON prints as something other than
// base64.
constexpr std::uint8_t kFieldTimestamp = 7;
constexpr std::uint8_t kFieldDate = 10;
constexpr std::uint8_t kFieldTime = 11;
constexpr std::uint8_t kFieldDateTime = 12;
constexpr std::uint8_t kFieldNewDecimal = 246;
constexpr std::uint8_t kFieldVarString = 253;

// A document's text is at most about 6 times its size (a string of control bytes, each printed
// as \u00xx); more can only come from value entries that share bytes, which MySQL never writes
// and which could otherwise expand a few kilobytes into an exponential amount of text.
constexpr std::size_t kMaxExpansion = 8;
constexpr std::size_t kExpansionSlack = 4096;

[[noreturn]] void bad(const std::string& what, std::uint64_t at) {
  throw Error(ErrorCode::kBadEvent, "binary JSON: " + what, at);
}

// Length of a string or opaque value: 7 bits a byte, low group first, high bit set on every
// byte but the last; at most 5 bytes and 32 bits (json_binary.cc read_variable_length).
std::uint32_t read_varlen(ByteCursor& cur) {
  const std::uint64_t at = cur.offset();
  std::uint64_t v = 0;
  for (int i = 0; i < 5; ++i) {
    const std::uint8_t b = cur.u8();
    v |= static_cast<std::uint64_t>(b & 0x7f) << (7 * i);
    if ((b & 0x80) == 0) {
      if (v > 0xffffffffULL) bad("length does not fit in 32 bits", at);
      return static_cast<std::uint32_t>(v);
    }
  }
  bad("length longer than 5 bytes", at);
}

// MySQL's double_quote(): only '"', '\\' and bytes up to 0x1f are escaped; multibyte UTF-8
// and 0x7f pass through unchanged.
void append_quoted(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u > 0x1f && c != '"' && c != '\\') {
      out += c;
      continue;
    }
    out += '\\';
    switch (c) {
      case '"':
      case '\\':
        out += c;
        break;
      case '\b':
        out += 'b';
        break;
      case '\f':
        out += 'f';
        break;
      case '\n':
        out += 'n';
        break;
      case '\r':
        out += 'r';
        break;
      case '\t':
        out += 't';
        break;
      default:
        out += "u00";
        out += kHex[u >> 4];
        out += kHex[u & 0x0f];
    }
  }
  out += '"';
}

// `v` in decimal, left-padded with zeros to `width` digits.
void append_padded(std::string& out, std::uint64_t v, std::size_t width) {
  const std::string s = std::to_string(v);
  if (s.size() < width) out.append(width - s.size(), '0');
  out += s;
}

// A double as MySQL prints it in JSON: my_gcvt(d, MY_GCVT_ARG_DOUBLE, 34) and then ".0" when
// that has neither '.' nor 'e'. With 34 (33 for negatives) characters to spare, my_gcvt never
// rounds: it takes dtoa's shortest round-trip digits and chooses fixed notation when the
// decimal point falls at most 14 places left of the first digit and at most 15 right of it,
// or inside the digits; otherwise "d.ddde[-]x" (no '+', no leading zeros in the exponent).
// Infinities and NaN (never stored by MySQL) come out of dtoa as "0".
void append_double(std::string& out, double d) {
  if (!std::isfinite(d)) {
    out += "0.0";
    return;
  }
  char buf[40];
  const auto r = std::to_chars(buf, buf + sizeof buf, std::fabs(d), std::chars_format::scientific);
  const std::string_view sci(buf, static_cast<std::size_t>(r.ptr - buf));  // d[.ddd]e±xx
  const std::size_t e = sci.find('e');
  std::string digits(1, sci[0]);
  if (e > 1) digits.append(sci.substr(2, e - 2));
  std::size_t p = e + 1;
  if (sci[p] == '+') ++p;
  int exp10 = 0;
  std::from_chars(sci.data() + p, sci.data() + sci.size(), exp10);
  const int decpt = exp10 + 1;  // digits = 0.ddd × 10^decpt
  const int len = static_cast<int>(digits.size());

  const std::size_t start = out.size();
  if (std::signbit(d)) out += '-';
  if (decpt >= -14 && (decpt <= 15 || decpt < len)) {
    if (decpt <= 0) {
      out += "0.";
      out.append(static_cast<std::size_t>(-decpt), '0');
      out += digits;
    } else if (decpt < len) {
      out.append(digits, 0, static_cast<std::size_t>(decpt));
      out += '.';
      out.append(digits, static_cast<std::size_t>(decpt));
    } else {
      out += digits;
      out.append(static_cast<std::size_t>(decpt - len), '0');
    }
  } else {
    out += digits[0];
    if (len > 1) {
      out += '.';
      out.append(digits, 1);
    }
    out += 'e';
    out += std::to_string(decpt - 1);
  }
  if (out.find_first_of(".e", start) == std::string::npos) out += ".0";
}

// The 8-byte packed temporal values of JSON opaque DATE/TIME/DATETIME/TIMESTAMP (MySQL
// my_time.cc TIME_to_longlong_*_packed): a signed integer whose magnitude is
// (whole << 24) | microseconds, with whole = ((year * 13 + month) << 5 | day) << 17 |
// hour << 12 | minute << 6 | second for dates, hour << 12 | minute << 6 | second for TIME.
// Printed as my_TIME_to_str(t, 6) does: DATE "YYYY-MM-DD", TIME "[-]hh:mm:ss.ffffff",
// DATETIME and TIMESTAMP "YYYY-MM-DD hh:mm:ss.ffffff", fraction always six digits.
void append_temporal(std::string& out, std::uint8_t field, ByteCursor& data) {
  const std::uint64_t at = data.offset();
  if (data.remaining() != 8)
    bad("temporal value of " + std::to_string(data.remaining()) + " bytes, not 8", at);
  const auto packed = static_cast<std::int64_t>(data.u64le());
  const bool negative = packed < 0;
  const std::uint64_t v =
      negative ? 0 - static_cast<std::uint64_t>(packed) : static_cast<std::uint64_t>(packed);
  const std::uint64_t micros = v & 0xffffff;
  const std::uint64_t whole = v >> 24;
  if (micros > 999999) bad("temporal value with " + std::to_string(micros) + " microseconds", at);
  out += '"';
  if (field == kFieldTime) {
    if (negative) out += '-';
    append_padded(out, (whole >> 12) % 1024, 2);
    out += ':';
    append_padded(out, (whole >> 6) % 64, 2);
    out += ':';
    append_padded(out, whole % 64, 2);
  } else {
    const std::uint64_t ymd = whole >> 17;
    const std::uint64_t hms = whole % (1 << 17);
    const std::uint64_t year = (ymd >> 5) / 13;
    if (year > 9999) bad("temporal value in year " + std::to_string(year), at);
    append_padded(out, year, 4);
    out += '-';
    append_padded(out, (ymd >> 5) % 13, 2);
    out += '-';
    append_padded(out, ymd % 32, 2);
    if (field == kFieldDate) {
      out += '"';
      return;
    }
    out += ' ';
    append_padded(out, hms >> 12, 2);
    out += ':';
    append_padded(out, (hms >> 6) % 64, 2);
    out += ':';
    append_padded(out, hms % 64, 2);
  }
  out += '.';
  append_padded(out, micros, 6);
  out += '"';
}

// A JSON DECIMAL is the server's computed my_decimal, whose precision may pass the 65 digits
// of a DECIMAL column (CAST('<35 digits>.<30 digits>' AS DECIMAL(65,30)) is stored with
// precision 66; the buffer holds 81): so not binlog/decimal.h's append_decimal, which stops at
// 65, but the same decimal2bin layout. Integer part then fraction part, each in big-endian
// groups of 9 digits in 4 bytes, the integer part's leftover digits first and the fraction's
// last in 1-4 bytes; the top bit inverted for the sign, negatives one's-complemented.
constexpr int kMaxDecimalDigits = 81;  // DECIMAL_MAX_POSSIBLE_PRECISION
constexpr int kMaxDecimalScale = 30;   // DECIMAL_MAX_SCALE
constexpr std::size_t kDecimalGroupBytes[10] = {0, 1, 1, 2, 2, 3, 3, 4, 4, 4};
constexpr std::uint32_t kPow10[10] = {1,      10,      100,      1000,      10000,
                                      100000, 1000000, 10000000, 100000000, 1000000000};

std::size_t json_decimal_size(int precision, int scale) {
  const int intg = precision - scale;
  return static_cast<std::size_t>(intg / 9 * 4 + scale / 9 * 4) + kDecimalGroupBytes[intg % 9] +
         kDecimalGroupBytes[scale % 9];
}

void append_json_decimal(std::string& out, ByteCursor& data, int precision, int scale) {
  const std::uint64_t at = data.offset();
  const Bytes raw = data.rest();
  std::vector<std::byte> b(raw.begin(), raw.end());
  const bool negative = (static_cast<std::uint8_t>(b[0]) & 0x80) == 0;
  b[0] ^= std::byte{0x80};
  if (negative)
    for (std::byte& x : b) x = ~x;
  ByteCursor cur(b, at);
  auto group = [&](int digits) {
    const std::uint64_t v = cur.uint_be(kDecimalGroupBytes[digits]);
    if (v >= kPow10[digits]) bad("DECIMAL digit group out of range", at);
    return v;
  };
  const int intg = precision - scale;
  std::string whole;
  if (intg % 9 != 0) whole = std::to_string(group(intg % 9));
  for (int i = 0; i < intg / 9; ++i) append_padded(whole, group(9), 9);
  const std::size_t first = whole.find_first_not_of('0');
  if (negative) out += '-';
  out += first == std::string::npos ? std::string("0") : whole.substr(first);
  if (scale == 0) return;
  out += '.';
  for (int i = 0; i < scale / 9; ++i) append_padded(out, group(9), 9);
  if (scale % 9 != 0) append_padded(out, group(scale % 9), static_cast<std::size_t>(scale % 9));
}

// MySQL's base64_encode(): standard alphabet, '=' padding, a newline after every 76 characters.
void append_base64(std::string& out, Bytes data) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::size_t line = 0;
  for (std::size_t i = 0; i < data.size(); i += 3) {
    if (line == 76) {
      out += '\n';
      line = 0;
    }
    const std::size_t n = std::min<std::size_t>(3, data.size() - i);
    std::uint32_t group = 0;
    for (std::size_t k = 0; k < 3; ++k)
      group = group << 8 | (k < n ? static_cast<std::uint8_t>(data[i + k]) : 0U);
    out += kAlphabet[(group >> 18) & 0x3f];
    out += kAlphabet[(group >> 12) & 0x3f];
    out += n > 1 ? kAlphabet[(group >> 6) & 0x3f] : '=';
    out += n > 2 ? kAlphabet[group & 0x3f] : '=';
    line += 4;
  }
}

// opaque = u8 field type / varlen length / bytes.
void append_opaque(std::string& out, ByteCursor& cur) {
  const std::uint8_t field = cur.u8();
  const std::uint32_t length = read_varlen(cur);
  ByteCursor data = cur.take(length);
  switch (field) {
    case kFieldNewDecimal: {
      // u8 precision / u8 scale / binary decimal of exactly that size; printed unquoted with
      // all `scale` fraction digits (decimal2string), e.g. 12.50.
      const std::uint64_t at = data.offset();
      const int precision = data.u8();
      const int scale = data.u8();
      if (precision < 1 || precision > kMaxDecimalDigits || scale > kMaxDecimalScale ||
          scale > precision)
        bad("DECIMAL(" + std::to_string(precision) + "," + std::to_string(scale) + ")", at);
      if (data.remaining() != json_decimal_size(precision, scale))
        bad("DECIMAL(" + std::to_string(precision) + "," + std::to_string(scale) + ") of " +
                std::to_string(data.remaining()) + " bytes",
            at);
      append_json_decimal(out, data, precision, scale);
      return;
    }
    case kFieldTimestamp:
    case kFieldDate:
    case kFieldTime:
    case kFieldDateTime:
      append_temporal(out, field, data);
      return;
    case kFieldVarString:
      // MySQL prints strings kept as opaque VAR_STRING (from subqueries) as plain strings.
      append_quoted(out, data.str(data.remaining()));
      return;
    default: {
      std::string text = "base64:type" + std::to_string(field) + ":";
      append_base64(text, data.rest());
      append_quoted(out, text);
    }
  }
}

bool inlined(std::uint8_t type, bool large) {
  switch (type) {
    case kLiteral:
    case kInt16:
    case kUint16:
      return true;
    case kInt32:
    case kUint32:
      return large;
    default:
      return false;
  }
}

class Printer {
 public:
  Printer(std::string& out, std::size_t limit, std::vector<JsonTypedValue>* typed = nullptr)
      : out_(out), limit_(limit), typed_(typed) {
    if (typed_ != nullptr) path_ = "$";
  }

  // The value of `type` at `cur`; `cur` ends where the enclosing container (or the document)
  // ends. `depth` counts the containers around it.
  void value(std::uint8_t type, ByteCursor cur, int depth) {
    const std::uint64_t at = cur.offset();
    switch (type) {
      case kSmallObject:
      case kLargeObject:
      case kSmallArray:
      case kLargeArray:
        container(type, cur, depth);
        break;
      case kLiteral:
        switch (cur.u8()) {
          case 0:
            out_ += "null";
            break;
          case 1:
            out_ += "true";
            break;
          case 2:
            out_ += "false";
            break;
          default:
            bad("unknown literal", at);
        }
        break;
      case kInt16:
        out_ += std::to_string(static_cast<std::int16_t>(cur.u16le()));
        break;
      case kUint16:
        unsigned_value(cur.u16le());
        break;
      case kInt32:
        out_ += std::to_string(static_cast<std::int32_t>(cur.u32le()));
        break;
      case kUint32:
        unsigned_value(cur.u32le());
        break;
      case kInt64:
        out_ += std::to_string(static_cast<std::int64_t>(cur.u64le()));
        break;
      case kUint64:
        unsigned_value(cur.u64le());
        break;
      case kDouble:
        append_double(out_, std::bit_cast<double>(cur.u64le()));
        break;
      case kString: {
        const std::uint32_t n = read_varlen(cur);
        append_quoted(out_, cur.str(n));
        break;
      }
      case kOpaque: {
        const std::size_t start = out_.size();
        ByteCursor head = cur;
        append_opaque(out_, cur);
        if (typed_ != nullptr) opaque_value(head, start);
        break;
      }
      default:
        bad("unknown value type " + std::to_string(type), at);
    }
    if (out_.size() > limit_)
      bad("text grows past " + std::to_string(kMaxExpansion) +
              " times the value's size (value entries share bytes)",
          at);
  }

 private:
  void unsigned_value(std::uint64_t v) {
    const std::size_t start = out_.size();
    out_ += std::to_string(v);
    if (typed_ == nullptr) return;
    JsonTypedValue& t = typed_->emplace_back();
    t.path = path_;
    t.text.assign(out_, start);
  }

  // (after append_opaque wrote the value at `start` of out_; `head` at its field type)
  void opaque_value(ByteCursor head, std::size_t start) {
    const std::uint8_t field = head.u8();
    const std::uint32_t length = read_varlen(head);
    JsonTypedValue& t = typed_->emplace_back();
    t.path = path_;
    t.field = field;
    t.data = head.take(length).rest();
    std::string_view text(out_);
    text.remove_prefix(start);
    if (text.size() >= 2 && text.front() == '"') text = text.substr(1, text.size() - 2);
    t.text.assign(text);
    t.kind = opaque_kind(field);
    if (t.kind == JsonTypedValue::Kind::kDecimal) {  // (append_opaque checked both bytes)
      t.precision = static_cast<std::uint8_t>(t.data[0]);
      t.scale = static_cast<std::uint8_t>(t.data[1]);
    }
  }

  static JsonTypedValue::Kind opaque_kind(std::uint8_t field) {
    using Kind = JsonTypedValue::Kind;
    switch (field) {
      case kFieldNewDecimal:
        return Kind::kDecimal;
      case kFieldDate:
        return Kind::kDate;
      case kFieldTime:
        return Kind::kTime;
      case kFieldDateTime:
        return Kind::kDateTime;
      case kFieldTimestamp:
        return Kind::kTimestamp;
      default:
        return Kind::kOpaque;
    }
  }

  // count / size / [key entries] / value entries / keys and values, all offsets relative to
  // the start of `count`; MySQL's checks: size within what encloses it, header within size,
  // keys after the value entries, values after the header, everything within size.
  void container(std::uint8_t type, ByteCursor cur, int depth) {
    const std::uint64_t at = cur.offset();
    if (depth >= kMaxDepth) bad("nested deeper than " + std::to_string(kMaxDepth) + " levels", at);
    const bool large = type == kLargeObject || type == kLargeArray;
    const bool object = type == kSmallObject || type == kLargeObject;
    const std::size_t w = large ? 4 : 2;
    ByteCursor head = cur;
    const std::uint64_t count = head.uint_le(w);
    const std::uint64_t size = head.uint_le(w);
    if (size > cur.remaining())
      throw Error(ErrorCode::kTruncated,
                  "binary JSON: container of " + std::to_string(size) + " bytes but only " +
                      std::to_string(cur.remaining()) + " remain",
                  at);
    const ByteCursor box = cur.take(static_cast<std::size_t>(size));
    const std::uint64_t key_entries = object ? count * (w + 2) : 0;
    const std::uint64_t header = 2 * w + key_entries + count * (1 + w);
    if (header > size)
      bad(std::to_string(count) + " entries do not fit in a container of " + std::to_string(size) +
              " bytes",
          at);
    ByteCursor keys = at_offset(box, 2 * w);
    ByteCursor values = at_offset(box, 2 * w + key_entries);

    out_ += object ? '{' : '[';
    const std::size_t path_size = path_.size();
    for (std::uint64_t i = 0; i < count; ++i) {
      if (i > 0) out_ += ", ";
      if (object) {
        const std::uint64_t entry_at = keys.offset();
        const std::uint64_t key_offset = keys.uint_le(w);
        const std::uint16_t key_length = keys.u16le();
        if (key_offset < header) bad("key inside the container's header", entry_at);
        ByteCursor key = at_offset(box, key_offset);
        const std::string_view name = key.str(key_length);
        append_quoted(out_, name);
        out_ += ": ";
        if (typed_ != nullptr) {
          path_.resize(path_size);
          path_ += '.';
          append_quoted(path_, name);
        }
      } else if (typed_ != nullptr) {
        path_.resize(path_size);
        path_ += '[';
        path_ += std::to_string(i);
        path_ += ']';
      }
      const std::uint64_t entry_at = values.offset();
      const std::uint8_t value_type = values.u8();
      ByteCursor field = values.take(w);
      if (inlined(value_type, large)) {
        value(value_type, field, depth + 1);
        continue;
      }
      const std::uint64_t value_offset = field.uint_le(w);
      if (value_offset < header) bad("value inside the container's header", entry_at);
      value(value_type, at_offset(box, value_offset), depth + 1);
    }
    out_ += object ? '}' : ']';
    if (typed_ != nullptr) path_.resize(path_size);
  }

  static ByteCursor at_offset(ByteCursor box, std::uint64_t offset) {
    box.skip(static_cast<std::size_t>(offset));
    return box;
  }

  std::string& out_;
  std::size_t limit_;
  std::vector<JsonTypedValue>* typed_;
  std::string path_;  // (with typed_) where the value being written is
};

}  // namespace

namespace {

void print_document(std::string& out, Bytes value, std::uint64_t offset,
                    std::vector<JsonTypedValue>* typed) {
  if (value.empty()) {
    out += "null";
    return;
  }
  const std::size_t start = out.size();
  try {
    ByteCursor cur(value, offset);
    const std::uint8_t type = cur.u8();
    Printer printer(out, start + kMaxExpansion * value.size() + kExpansionSlack, typed);
    printer.value(type, cur, 0);
  } catch (...) {
    out.resize(start);
    throw;
  }
}

}  // namespace

void append_json_text(std::string& out, Bytes value, std::uint64_t offset) {
  print_document(out, value, offset, nullptr);
}

void append_json_text(std::string& out, Bytes value, std::uint64_t offset,
                      std::vector<JsonTypedValue>& typed) {
  typed.clear();
  print_document(out, value, offset, &typed);
}

}  // namespace binrecover::binlog
