#include "binlog/json_binary.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <initializer_list>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "binlog/error.h"
#include "binlog/row_values.h"
#include "tests/binlog/json_columns.h"

namespace binrecover::binlog {
namespace {

using testutil::doc;
using testutil::Doc;
using testutil::kPos;

// Decodes an exact-size heap copy, so AddressSanitizer sees any read past the end.
std::string text_of(const Doc& d, std::size_t n) {
  auto copy = std::make_unique<std::byte[]>(n == 0 ? 1 : n);
  if (n != 0) std::memcpy(copy.get(), d.data(), n);
  std::string out;
  append_json_text(out, Bytes(copy.get(), n), kPos);
  return out;
}
std::string text_of(const Doc& d) { return text_of(d, d.size()); }

ErrorCode error_of(const Doc& d) {
  try {
    text_of(d);
  } catch (const Error& e) {
    return e.code();
  }
  ADD_FAILURE() << "no error";
  return ErrorCode::kUsage;
}

// Every proper prefix of a well-formed document (but the empty one, which is JSON null) must
// raise binrecover::Error, and never read past its end.
void expect_prefixes_throw(const Doc& d) {
  for (std::size_t n = 1; n < d.size(); ++n)
    EXPECT_THROW(text_of(d, n), Error) << "prefix of " << n << " of " << d.size() << " bytes";
}

// --- a builder for bulk fixtures: an encoded value is its type byte and what follows it ---

struct Enc {
  std::uint8_t type = 0;
  Doc body;
};

void put_le(Doc& d, std::uint64_t v, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) d.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xff));
}

Enc scalar(std::uint8_t type, std::uint64_t v, std::size_t n) {
  Enc e{type, {}};
  put_le(e.body, v, n);
  return e;
}
Enc literal(int v) { return scalar(0x04, static_cast<std::uint64_t>(v), 1); }
Enc int16(std::int16_t v) { return scalar(0x05, static_cast<std::uint16_t>(v), 2); }
Enc int32(std::int32_t v) { return scalar(0x07, static_cast<std::uint32_t>(v), 4); }
Enc dbl(double v) {
  std::uint64_t bits;
  std::memcpy(&bits, &v, 8);
  return scalar(0x0b, bits, 8);
}

void put_varlen(Doc& d, std::uint64_t n) {
  do {
    std::uint8_t b = n & 0x7f;
    n >>= 7;
    if (n != 0) b |= 0x80;
    d.push_back(static_cast<std::byte>(b));
  } while (n != 0);
}

Enc str(std::string_view s) {
  Enc e{0x0c, {}};
  put_varlen(e.body, s.size());
  for (char c : s) e.body.push_back(static_cast<std::byte>(c));
  return e;
}

Enc opaque(std::uint8_t field, const Doc& data) {
  Enc e{0x0f, {}};
  e.body.push_back(static_cast<std::byte>(field));
  put_varlen(e.body, data.size());
  e.body.insert(e.body.end(), data.begin(), data.end());
  return e;
}

bool inlined(std::uint8_t type, bool large) {
  return type == 0x04 || type == 0x05 || type == 0x06 || (large && (type == 0x07 || type == 0x08));
}

// count / size / key entries / value entries / keys / values, offsets from `count`.
Enc container(bool object, bool large, const std::vector<std::pair<std::string, Enc>>& items) {
  const std::size_t w = large ? 4 : 2;
  const std::size_t n = items.size();
  std::size_t pos = 2 * w + (object ? n * (w + 2) : 0) + n * (1 + w);
  Doc keys, values, tail;
  std::vector<std::size_t> key_at;
  for (const auto& [k, v] : items) {
    if (!object) break;
    key_at.push_back(pos);
    pos += k.size();
    for (char c : k) tail.push_back(static_cast<std::byte>(c));
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (object) {
      put_le(keys, key_at[i], w);
      put_le(keys, items[i].first.size(), 2);
    }
    const Enc& v = items[i].second;
    values.push_back(static_cast<std::byte>(v.type));
    if (inlined(v.type, large)) {
      Doc field = v.body;
      field.resize(w, std::byte{0});
      values.insert(values.end(), field.begin(), field.end());
    } else {
      put_le(values, pos, w);
      pos += v.body.size();
      tail.insert(tail.end(), v.body.begin(), v.body.end());
    }
  }
  Enc e{static_cast<std::uint8_t>((object ? 0x00 : 0x02) | (large ? 1 : 0)), {}};
  put_le(e.body, n, w);
  put_le(e.body, pos, w);
  e.body.insert(e.body.end(), keys.begin(), keys.end());
  e.body.insert(e.body.end(), values.begin(), values.end());
  e.body.insert(e.body.end(), tail.begin(), tail.end());
  return e;
}

Enc array(const std::vector<Enc>& items, bool large = false) {
  std::vector<std::pair<std::string, Enc>> v;
  for (const Enc& e : items) v.emplace_back("", e);
  return container(false, large, v);
}
Enc object(const std::vector<std::pair<std::string, Enc>>& members, bool large = false) {
  return container(true, large, members);
}

Doc doc(const Enc& e) {
  // (memcpy of a known size: g++ 12 -O2 sees a read from an empty range in vector::insert)
  Doc d(1 + e.body.size());
  d[0] = static_cast<std::byte>(e.type);
  if (!e.body.empty()) std::memcpy(d.data() + 1, e.body.data(), e.body.size());
  return d;
}

// MySQL's packed temporal integers (my_time.cc TIME_to_longlong_*_packed), built independently
// of the decoder from the field values.
std::int64_t packed_datetime(int y, int mo, int d, int h, int mi, int s, int us) {
  const std::int64_t ymd = ((static_cast<std::int64_t>(y) * 13 + mo) << 5) | d;
  const std::int64_t hms = (h << 12) | (mi << 6) | s;
  return (((ymd << 17) | hms) << 24) + us;
}
std::int64_t packed_time(bool negative, int h, int mi, int s, int us) {
  const std::int64_t v = ((static_cast<std::int64_t>((h << 12) | (mi << 6) | s)) << 24) + us;
  return negative ? -v : v;
}
Doc le64(std::int64_t v) {
  Doc d;
  put_le(d, static_cast<std::uint64_t>(v), 8);
  return d;
}

// --- hand-written fixtures, one comment per field ---

TEST(JsonBinaryTest, SmallObjectWithNestedArray) {
  const Doc d = doc({
      0x00,                    // small object
      0x02, 0x00,              // 2 members
      0x1e, 0x00,              // 30 bytes from here
      0x12, 0x00, 0x01, 0x00,  // key 0 at 18, 1 byte
      0x13, 0x00, 0x01, 0x00,  // key 1 at 19, 1 byte
      0x05, 0x01, 0x00,        // value 0: int16 1, inlined
      0x02, 0x14, 0x00,        // value 1: small array at 20
      'a',  'b',               // the keys
      0x02, 0x00,              // array: 2 elements
      0x0a, 0x00,              // 10 bytes
      0x04, 0x01, 0x00,        // true, inlined
      0x04, 0x00, 0x00,        // null, inlined
  });
  EXPECT_EQ(text_of(d), R"({"a": 1, "b": [true, null]})");
  expect_prefixes_throw(d);
}

TEST(JsonBinaryTest, LargeArrayInlinesInt32) {
  const Doc d = doc({
      0x03,                          // large array
      0x03, 0x00, 0x00, 0x00,        // 3 elements
      0x19, 0x00, 0x00, 0x00,        // 25 bytes
      0x05, 0x01, 0x00, 0x00, 0x00,  // int16 1, inlined in 4 bytes
      0x07, 0x90, 0xee, 0xfe, 0xff,  // int32 -70000, inlined (large containers only)
      0x0c, 0x17, 0x00, 0x00, 0x00,  // string at 23
      0x01, 'x',                     // varlen 1, "x"
  });
  EXPECT_EQ(text_of(d), R"([1, -70000, "x"])");
  expect_prefixes_throw(d);
}

TEST(JsonBinaryTest, LargeObject) {
  const Doc d = doc({
      0x01,                                // large object
      0x01, 0x00, 0x00, 0x00,              // 1 member
      0x14, 0x00, 0x00, 0x00,              // 20 bytes
      0x13, 0x00, 0x00, 0x00, 0x01, 0x00,  // key at 19, 1 byte
      0x04, 0x02, 0x00, 0x00, 0x00,        // false, inlined
      'k',                                 // the key
  });
  EXPECT_EQ(text_of(d), R"({"k": false})");
  expect_prefixes_throw(d);
}

TEST(JsonBinaryTest, SmallContainersDoNotInlineInt32) {
  const Doc d = doc({
      0x02,                    // small array
      0x01, 0x00,              // 1 element
      0x0b, 0x00,              // 11 bytes
      0x07, 0x07, 0x00,        // int32 at 7
      0x00, 0x00, 0x01, 0x00,  // 65536
  });
  EXPECT_EQ(text_of(d), "[65536]");
  expect_prefixes_throw(d);
}

TEST(JsonBinaryTest, EmptyContainers) {
  EXPECT_EQ(text_of(doc({0x00, 0x00, 0x00, 0x04, 0x00})), "{}");
  EXPECT_EQ(text_of(doc({0x02, 0x00, 0x00, 0x04, 0x00})), "[]");
  EXPECT_EQ(text_of(doc({0x01, 0, 0, 0, 0, 8, 0, 0, 0})), "{}");
  EXPECT_EQ(text_of(doc({0x03, 0, 0, 0, 0, 8, 0, 0, 0})), "[]");
}

TEST(JsonBinaryTest, EmptyValueIsNull) { EXPECT_EQ(text_of(Doc{}), "null"); }

TEST(JsonBinaryTest, Literals) {
  EXPECT_EQ(text_of(doc({0x04, 0x00})), "null");
  EXPECT_EQ(text_of(doc({0x04, 0x01})), "true");
  EXPECT_EQ(text_of(doc({0x04, 0x02})), "false");
  EXPECT_EQ(error_of(doc({0x04, 0x03})), ErrorCode::kBadEvent);
  EXPECT_THROW(text_of(doc({0x04})), Error);
}

TEST(JsonBinaryTest, IntegerLimits) {
  EXPECT_EQ(text_of(doc({0x05, 0x00, 0x80})), "-32768");
  EXPECT_EQ(text_of(doc({0x05, 0xff, 0x7f})), "32767");
  EXPECT_EQ(text_of(doc({0x06, 0xff, 0xff})), "65535");
  EXPECT_EQ(text_of(doc({0x07, 0x00, 0x00, 0x00, 0x80})), "-2147483648");
  EXPECT_EQ(text_of(doc({0x07, 0xff, 0xff, 0xff, 0x7f})), "2147483647");
  EXPECT_EQ(text_of(doc({0x08, 0xff, 0xff, 0xff, 0xff})), "4294967295");
  EXPECT_EQ(text_of(doc({0x09, 0, 0, 0, 0, 0, 0, 0, 0x80})), "-9223372036854775808");
  EXPECT_EQ(text_of(doc({0x09, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f})),
            "9223372036854775807");
  EXPECT_EQ(text_of(doc({0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})),
            "18446744073709551615");
  for (const Doc& d : {doc({0x07, 1, 2, 3, 4}), doc({0x0a, 1, 2, 3, 4, 5, 6, 7, 8})})
    expect_prefixes_throw(d);
  // Inlined limits inside containers.
  EXPECT_EQ(text_of(doc(array({int16(-32768), scalar(0x06, 65535, 2)}))), "[-32768, 65535]");
  EXPECT_EQ(
      text_of(doc(array(
          {int32(std::numeric_limits<std::int32_t>::min()), scalar(0x08, 4294967295U, 4)}, true))),
      "[-2147483648, 4294967295]");
}

// MySQL prints doubles with my_gcvt(width 34) plus ".0" on integral values: shortest round-trip
// digits, fixed notation for decimal exponents -15..14 (or when the digits span the point),
// "1e15"-style otherwise.
TEST(JsonBinaryTest, DoublesAsMySqlPrintsThem) {
  const std::pair<double, const char*> cases[] = {
      {1.0, "1.0"},
      {-1.5, "-1.5"},
      {0.1, "0.1"},
      {0.0, "0.0"},
      {-0.0, "-0.0"},
      {100.0, "100.0"},
      {3.141592653589793, "3.141592653589793"},
      {123456789012.5, "123456789012.5"},
      {1e14, "100000000000000.0"},
      {1e15, "1e15"},
      {1.5e15, "1.5e15"},
      {1e21, "1e21"},
      {123456789012345678.0, "1.2345678901234568e17"},
      {1234567890123456.5, "1234567890123456.5"},
      {0.0001, "0.0001"},
      {1e-15, "0.000000000000001"},
      {1.25e-15, "0.00000000000000125"},
      {1e-16, "1e-16"},
      {1.5e-7, "0.00000015"},
      {-2.5e-20, "-2.5e-20"},
      {1e100, "1e100"},
      {1.7976931348623157e308, "1.7976931348623157e308"},
      {2.2250738585072014e-308, "2.2250738585072014e-308"},
      {5e-324, "5e-324"},
  };
  for (const auto& [v, want] : cases) EXPECT_EQ(text_of(doc(dbl(v))), want) << v;
  expect_prefixes_throw(doc(dbl(2.5)));
  // Not stored by MySQL; its dtoa answers "0" for them.
  EXPECT_EQ(text_of(doc(dbl(std::numeric_limits<double>::infinity()))), "0.0");
  EXPECT_EQ(text_of(doc(dbl(std::numeric_limits<double>::quiet_NaN()))), "0.0");
}

TEST(JsonBinaryTest, StringsEscapedLikeMySql) {
  const std::string raw =
      "a\"b\\c/\b\f\n\r\t\x01\x1f\x7f"
      "é€😀";
  EXPECT_EQ(text_of(doc(str(raw))),
            "\"a\\\"b\\\\c/\\b\\f\\n\\r\\t\\u0001\\u001f\x7f"
            "é€😀\"");
  EXPECT_EQ(text_of(doc({0x0c, 0x00})), "\"\"");
  expect_prefixes_throw(doc(str("hello")));
}

TEST(JsonBinaryTest, LongStringUsesMultiByteLength) {
  const std::string s(20000, 'z');  // varlen 0xa0 0x9c 0x01
  const Doc d = doc(str(s));
  ASSERT_EQ(static_cast<int>(d[1]), 0xa0);
  ASSERT_EQ(static_cast<int>(d[3]), 0x01);
  EXPECT_EQ(text_of(d), "\"" + s + "\"");
}

TEST(JsonBinaryTest, UnicodeKeysAndValues) {
  const Doc d = doc(object({{"ключ", str("値")}, {"emoji😀", str("line\nbreak")}}));
  EXPECT_EQ(text_of(d), "{\"ключ\": \"値\", \"emoji😀\": \"line\\nbreak\"}");
  expect_prefixes_throw(d);
}

TEST(JsonBinaryTest, NestedContainersMixed) {
  const Doc d = doc(object({
      {"a", array({literal(1), literal(2), literal(0), dbl(2.5)})},
      {"obj", object({{"x", int32(-5)}, {"y", array({})}}, true)},
      {"list", array({str("s"), object({}), scalar(0x0a, 42, 8)}, true)},
  }));
  EXPECT_EQ(text_of(d),
            R"({"a": [true, false, null, 2.5], "obj": {"x": -5, "y": []}, "list": ["s", {}, 42]})");
  expect_prefixes_throw(d);
}

TEST(JsonBinaryTest, LargeDocumentOver64KiB) {
  std::vector<Enc> items;
  std::string want = "[";
  for (int i = 0; i < 3000; ++i) {
    const std::string s = "item-" + std::to_string(i) + std::string(20, 'q');
    items.push_back(str(s));
    want += (i ? ", \"" : "\"") + s + "\"";
  }
  want += "]";
  const Doc d = doc(array(items, true));
  ASSERT_GT(d.size(), 65536U);
  EXPECT_EQ(text_of(d), want);
  EXPECT_THROW(text_of(d, d.size() - 1), Error);
}

TEST(JsonBinaryTest, OpaqueDecimal) {
  // DECIMAL(5,2): u8 precision 5 / u8 scale 2 / 2 bytes integer part / 1 byte fraction part,
  // sign bit inverted; negatives one's-complemented.
  EXPECT_EQ(text_of(doc({0x0f, 0xf6, 0x05, 0x05, 0x02, 0x80, 0x0c, 0x32})), "12.50");
  EXPECT_EQ(text_of(doc({0x0f, 0xf6, 0x05, 0x05, 0x02, 0x7f, 0xf3, 0xcd})), "-12.50");
  // DECIMAL(3,3) 0.001: no integer bytes, 2 fraction bytes.
  EXPECT_EQ(text_of(doc({0x0f, 0xf6, 0x04, 0x03, 0x03, 0x80, 0x01})), "0.001");
  expect_prefixes_throw(doc({0x0f, 0xf6, 0x05, 0x05, 0x02, 0x80, 0x0c, 0x32}));
  // Size not that of DECIMAL(5,2); precision 0; scale above precision.
  EXPECT_EQ(error_of(doc({0x0f, 0xf6, 0x06, 0x05, 0x02, 0x80, 0x0c, 0x32, 0x00})),
            ErrorCode::kBadEvent);
  EXPECT_EQ(error_of(doc({0x0f, 0xf6, 0x03, 0x00, 0x00, 0x80})), ErrorCode::kBadEvent);
  EXPECT_EQ(error_of(doc({0x0f, 0xf6, 0x03, 0x02, 0x05, 0x80})), ErrorCode::kBadEvent);
  EXPECT_EQ(error_of(doc({0x0f, 0xf6, 0x01, 0x05})), ErrorCode::kTruncated);
}

TEST(JsonBinaryTest, OpaqueTemporalValues) {
  const Doc dt = doc(opaque(12, le64(packed_datetime(2012, 3, 18, 11, 30, 45, 0))));
  EXPECT_EQ(text_of(dt), R"("2012-03-18 11:30:45.000000")");
  expect_prefixes_throw(dt);
  EXPECT_EQ(text_of(doc(opaque(7, le64(packed_datetime(1999, 12, 31, 23, 59, 59, 123456))))),
            R"("1999-12-31 23:59:59.123456")");
  EXPECT_EQ(text_of(doc(opaque(10, le64(packed_datetime(2012, 3, 18, 0, 0, 0, 0))))),
            R"("2012-03-18")");
  EXPECT_EQ(text_of(doc(opaque(10, le64(0)))), R"("0000-00-00")");
  EXPECT_EQ(text_of(doc(opaque(11, le64(packed_time(false, 87, 31, 46, 654321))))),
            R"("87:31:46.654321")");
  EXPECT_EQ(text_of(doc(opaque(11, le64(packed_time(true, 838, 59, 59, 0))))),
            R"("-838:59:59.000000")");
  EXPECT_EQ(text_of(doc(opaque(11, le64(packed_time(false, 0, 0, 1, 5))))), R"("00:00:01.000005")");
  // Not 8 bytes; microseconds beyond 999999; year beyond 9999.
  EXPECT_EQ(error_of(doc(opaque(12, Doc(7)))), ErrorCode::kBadEvent);
  EXPECT_EQ(error_of(doc(opaque(12, le64(packed_datetime(2012, 1, 1, 0, 0, 0, 1000000))))),
            ErrorCode::kBadEvent);
  EXPECT_EQ(error_of(doc(opaque(12, le64(packed_datetime(10000, 1, 1, 0, 0, 0, 0))))),
            ErrorCode::kBadEvent);
}

TEST(JsonBinaryTest, OpaqueOtherTypesAsBase64) {
  EXPECT_EQ(text_of(doc(opaque(252, doc({0xca, 0xfe})))), R"("base64:type252:yv4=")");
  EXPECT_EQ(text_of(doc(opaque(15, doc({'U'})))), R"("base64:type15:VQ==")");
  EXPECT_EQ(text_of(doc(opaque(16, Doc{}))), R"("base64:type16:")");
  // MySQL's base64_encode breaks lines after 76 characters; the newline is then escaped.
  const Doc data(60, std::byte{0});
  EXPECT_EQ(text_of(doc(opaque(252, data))),
            "\"base64:type252:" + std::string(76, 'A') + "\\n" + std::string(4, 'A') + "\"");
  // Strings kept as opaque VAR_STRING print as strings.
  EXPECT_EQ(text_of(doc(opaque(253, doc({'h', 'i', '"'})))), R"("hi\"")");
  expect_prefixes_throw(doc(opaque(252, doc({1, 2, 3}))));
}

TEST(JsonBinaryTest, OpaqueInsideContainers) {
  const Doc decimal = doc({0x05, 0x02, 0x80, 0x0c, 0x32});
  const Doc d = doc(object({{"d", opaque(246, decimal)},
                            {"t", opaque(12, le64(packed_datetime(2020, 2, 29, 1, 2, 3, 4)))}}));
  EXPECT_EQ(text_of(d), R"({"d": 12.50, "t": "2020-02-29 01:02:03.000004"})");
  expect_prefixes_throw(d);
}

// The values whose type the text loses, with their paths: the text is the same as without.
TEST(JsonBinaryTest, TypedValuesWithTheirPaths) {
  const Doc decimal = doc({0x05, 0x02, 0x80, 0x0c, 0x32});
  const Doc d = doc(object({{"d", opaque(246, decimal)},
                            {"k\"\\", array({scalar(0x06, 7, 2), int16(7)})},
                            {"t", opaque(7, le64(packed_datetime(2020, 2, 29, 1, 2, 3, 4)))},
                            {"x", opaque(252, doc({0xca, 0xfe}))}}));
  std::string text;
  std::vector<JsonTypedValue> typed(3);  // (cleared first)
  append_json_text(text, d, kPos, typed);
  EXPECT_EQ(text, text_of(d));
  ASSERT_EQ(typed.size(), 4u);
  EXPECT_EQ(typed[0].kind, JsonTypedValue::Kind::kDecimal);
  EXPECT_EQ(typed[0].path, R"($."d")");
  EXPECT_EQ(typed[0].text, "12.50");
  EXPECT_EQ(typed[0].precision, 5);
  EXPECT_EQ(typed[0].scale, 2);
  EXPECT_EQ(typed[1].kind, JsonTypedValue::Kind::kUnsigned);  // the uint16, not the int16
  EXPECT_EQ(typed[1].path, R"($."k\"\\"[0])");
  EXPECT_EQ(typed[1].text, "7");
  EXPECT_EQ(typed[2].kind, JsonTypedValue::Kind::kTimestamp);
  EXPECT_EQ(typed[2].path, R"($."t")");
  EXPECT_EQ(typed[2].text, "2020-02-29 01:02:03.000004");
  EXPECT_EQ(typed[3].kind, JsonTypedValue::Kind::kOpaque);
  EXPECT_EQ(typed[3].field, 252);
  ASSERT_EQ(typed[3].data.size(), 2u);
  EXPECT_EQ(typed[3].data[1], std::byte{0xfe});
  // A scalar document: its path is the root.
  append_json_text(text, doc(scalar(0x0a, 0x8000000000000001, 8)), kPos, typed);
  ASSERT_EQ(typed.size(), 1u);
  EXPECT_EQ(typed[0].path, "$");
  EXPECT_EQ(typed[0].text, "9223372036854775809");
  // Nothing typed: none.
  append_json_text(text, doc(array({int16(7), dbl(1.5), str("x")})), kPos, typed);
  EXPECT_TRUE(typed.empty());
}

// --- corrupt input ---

TEST(JsonBinaryTest, UnknownTypesRejected) {
  EXPECT_EQ(error_of(doc({0x0d, 0x00})), ErrorCode::kBadEvent);
  EXPECT_EQ(error_of(doc({0xff})), ErrorCode::kBadEvent);
  // Unknown type in a value entry.
  EXPECT_EQ(error_of(doc({0x02, 0x01, 0x00, 0x08, 0x00, 0x0e, 0x07, 0x00, 0x00})),
            ErrorCode::kBadEvent);
}

TEST(JsonBinaryTest, ContainerSizesChecked) {
  // Size larger than the bytes there.
  EXPECT_EQ(error_of(doc({0x02, 0x00, 0x00, 0x05, 0x00})), ErrorCode::kTruncated);
  // Entries do not fit the stated size.
  EXPECT_EQ(error_of(doc({0x02, 0x02, 0x00, 0x07, 0x00, 0x04, 0x01, 0x00, 0x04, 0x01, 0x00})),
            ErrorCode::kBadEvent);
  // A huge count with a tiny size.
  EXPECT_EQ(error_of(doc({0x03, 0xff, 0xff, 0xff, 0xff, 0x08, 0x00, 0x00, 0x00})),
            ErrorCode::kBadEvent);
}

TEST(JsonBinaryTest, OffsetsChecked) {
  // Value offset pointing into the header, and past the container's end.
  EXPECT_EQ(error_of(doc({0x02, 0x01, 0x00, 0x08, 0x00, 0x0c, 0x02, 0x00, 0x00})),
            ErrorCode::kBadEvent);
  EXPECT_THROW(text_of(doc({0x02, 0x01, 0x00, 0x08, 0x00, 0x0c, 0x40, 0x00, 0x00})), Error);
  // A nested container may not run past its parent's end even if the document goes on.
  EXPECT_THROW(text_of(doc({0x02, 0x01, 0x00, 0x07, 0x00, 0x02, 0x07, 0x00,  //
                            0x00, 0x00, 0x04, 0x00})),
               Error);
  // Key offset into the header; key running past the end.
  EXPECT_EQ(
      error_of(doc({0x00, 0x01, 0x00, 0x0c, 0x00, 0x02, 0x00, 0x01, 0x00, 0x04, 0x00, 0x00, 'k'})),
      ErrorCode::kBadEvent);
  EXPECT_THROW(
      text_of(doc({0x00, 0x01, 0x00, 0x0c, 0x00, 0x0b, 0x00, 0x05, 0x00, 0x04, 0x00, 0x00, 'k'})),
      Error);
}

TEST(JsonBinaryTest, VariableLengthsChecked) {
  // Six length bytes; a length beyond 32 bits; a length past the end.
  EXPECT_EQ(error_of(doc({0x0c, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01})), ErrorCode::kBadEvent);
  EXPECT_EQ(error_of(doc({0x0c, 0xff, 0xff, 0xff, 0xff, 0x7f})), ErrorCode::kBadEvent);
  EXPECT_EQ(error_of(doc({0x0c, 0x05, 'a'})), ErrorCode::kTruncated);
  EXPECT_EQ(error_of(doc({0x0c, 0x80})), ErrorCode::kTruncated);
}

Enc nested_arrays(int levels) {
  Enc e = array({});
  for (int i = 1; i < levels; ++i) e = array({e});
  return e;
}

TEST(JsonBinaryTest, DepthLimitedToMySqlMaximum) {
  const Doc ok = doc(nested_arrays(100));
  EXPECT_EQ(text_of(ok), std::string(100, '[') + std::string(100, ']'));
  EXPECT_EQ(error_of(doc(nested_arrays(101))), ErrorCode::kBadEvent);
  EXPECT_EQ(error_of(doc(nested_arrays(5000))), ErrorCode::kBadEvent);
}

TEST(JsonBinaryTest, SharedValuesCannotExplode) {
  // Each level holds two entries pointing at the same child: 2^40 leaves from ~400 bytes.
  Enc e = literal(1);
  e = array({e});
  for (int i = 0; i < 40; ++i) {
    Enc parent{0x02, {}};
    put_le(parent.body, 2, 2);
    put_le(parent.body, 10 + e.body.size(), 2);
    for (int k = 0; k < 2; ++k) {
      parent.body.push_back(static_cast<std::byte>(e.type));
      put_le(parent.body, 10, 2);
    }
    parent.body.insert(parent.body.end(), e.body.begin(), e.body.end());
    e = parent;
  }
  EXPECT_EQ(error_of(doc(e)), ErrorCode::kBadEvent);
}

TEST(JsonBinaryTest, OutputUntouchedOnError) {
  std::string out = "before";
  const Doc d = doc({0x02, 0x02, 0x00, 0x0a, 0x00, 0x04, 0x01, 0x00, 0x04, 0x07, 0x00});
  EXPECT_THROW(append_json_text(out, d, kPos), Error);
  EXPECT_EQ(out, "before");
}

TEST(JsonBinaryTest, ErrorsNameTheAbsoluteOffset) {
  const Doc d = doc({0x02, 0x01, 0x00, 0x07, 0x00, 0x04, 0x09, 0x00});  // literal 9 at +6
  try {
    text_of(d);
    FAIL() << "no error";
  } catch (const Error& e) {
    ASSERT_TRUE(e.has_offset());
    EXPECT_EQ(e.offset(), kPos + 6);
  }
}

}  // namespace
}  // namespace binrecover::binlog
