#include "binlog/decimal.h"

#include <array>
#include <cstring>

#include "binlog/digits.h"
#include "binlog/error.h"

namespace binrecover::binlog {
namespace {

constexpr int kDigitsPerGroup = 9;
constexpr std::array<int, 10> kDigitBytes = {0, 1, 1, 2, 2, 3, 3, 4, 4, 4};

std::uint32_t read_be(const std::uint8_t* p, int n) {
  switch (n) {
    case 4:
      return static_cast<std::uint32_t>(p[0]) << 24 | static_cast<std::uint32_t>(p[1]) << 16 |
             static_cast<std::uint32_t>(p[2]) << 8 | p[3];
    case 3:
      return static_cast<std::uint32_t>(p[0]) << 16 | static_cast<std::uint32_t>(p[1]) << 8 | p[2];
    case 2:
      return static_cast<std::uint32_t>(p[0]) << 8 | p[1];
    case 1:
      return p[0];
    default:
      return 0;
  }
}

void check_group(std::uint32_t v, int digits, std::uint64_t offset) {
  static constexpr std::array<std::uint32_t, 10> kLimit = {
      1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000};
  if (v >= kLimit[digits])
    throw Error(ErrorCode::kBadEvent, "decimal digit group out of range", offset);
}

}  // namespace

std::size_t decimal_bin_size(int precision, int scale) {
  const int intg = precision - scale;
  return static_cast<std::size_t>((intg / kDigitsPerGroup) * 4 + kDigitBytes[intg % 9] +
                                  (scale / kDigitsPerGroup) * 4 + kDigitBytes[scale % 9]);
}

char* put_decimal(char* out, ByteCursor& cur, int precision, int scale) {
  if (!valid_decimal(precision, scale))
    throw Error(ErrorCode::kBadEvent,
                "invalid DECIMAL(" + std::to_string(precision) + "," + std::to_string(scale) + ")",
                cur.offset());
  const std::uint64_t at = cur.offset();
  const std::size_t size = decimal_bin_size(precision, scale);
  const auto* p = reinterpret_cast<const std::uint8_t*>(cur.bytes(size).data());
  // The sign is the inverted top bit of the first byte; a negative value has every bit
  // inverted. Each group is read big-endian and the inversion applied to it.
  const bool negative = (p[0] & 0x80) == 0;
  const std::uint32_t invert = negative ? 0xffffffffU : 0;
  bool first_group = true;

  const int intg = precision - scale;
  const int intg0 = intg / kDigitsPerGroup, intg0x = intg % kDigitsPerGroup;
  const int frac0 = scale / kDigitsPerGroup, frac0x = scale % kDigitsPerGroup;
  auto group = [&](int digits) {
    const int n = digits == kDigitsPerGroup ? 4 : kDigitBytes[digits];
    std::uint32_t v = read_be(p, n);
    if (first_group) v ^= 0x80U << (8 * (n - 1));
    first_group = false;
    v ^= invert;
    if (n < 4) v &= (1U << (8 * n)) - 1;
    check_group(v, digits, at);
    p += n;
    return v;
  };
  char* o = out;
  if (negative) *o++ = '-';
  // The integer part without leading zeros ("0" when all zero): zero groups are skipped, the
  // first other one is written as a plain number, the ones after it with all their digits.
  bool leading = true;
  auto integer_group = [&](int digits) {
    const std::uint32_t v = group(digits);
    if (!leading) {
      o = put_fixed(o, v, digits);
    } else if (v != 0) {
      o = put_uint(o, v);
      leading = false;
    }
  };
  if (intg0x) integer_group(intg0x);
  for (int i = 0; i < intg0; ++i) integer_group(kDigitsPerGroup);
  if (leading) *o++ = '0';
  if (scale > 0) {
    *o++ = '.';
    for (int i = 0; i < frac0; ++i) o = put_fixed(o, group(kDigitsPerGroup), kDigitsPerGroup);
    if (frac0x) o = put_fixed(o, group(frac0x), frac0x);
  }
  return o;
}

void append_decimal(std::string& out, ByteCursor& cur, int precision, int scale) {
  char text[kMaxDecimalText];
  out.append(text, put_decimal(text, cur, precision, scale));
}

}  // namespace binrecover::binlog
