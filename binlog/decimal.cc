#include "binlog/decimal.h"

#include <array>

#include "binlog/error.h"

namespace binrecover::binlog {
namespace {

constexpr int kDigitsPerGroup = 9;
constexpr std::array<int, 10> kDigitBytes = {0, 1, 1, 2, 2, 3, 3, 4, 4, 4};

std::uint32_t read_be(const std::uint8_t* p, int n) {
  std::uint32_t v = 0;
  for (int i = 0; i < n; ++i) v = (v << 8) | p[i];
  return v;
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

void append_decimal(std::string& out, ByteCursor& cur, int precision, int scale) {
  if (precision < 1 || precision > 65 || scale < 0 || scale > 30 || scale > precision)
    throw Error(ErrorCode::kBadEvent,
                "invalid DECIMAL(" + std::to_string(precision) + "," + std::to_string(scale) + ")",
                cur.offset());
  const std::uint64_t at = cur.offset();
  const std::size_t size = decimal_bin_size(precision, scale);
  Bytes raw = cur.bytes(size);
  std::array<std::uint8_t, 32> b{};
  for (std::size_t i = 0; i < size; ++i) b[i] = static_cast<std::uint8_t>(raw[i]);
  const bool negative = (b[0] & 0x80) == 0;
  b[0] ^= 0x80;
  if (negative)
    for (std::size_t i = 0; i < size; ++i) b[i] = static_cast<std::uint8_t>(~b[i]);

  const int intg = precision - scale;
  const int intg0 = intg / kDigitsPerGroup, intg0x = intg % kDigitsPerGroup;
  const int frac0 = scale / kDigitsPerGroup, frac0x = scale % kDigitsPerGroup;
  std::string digits;  // integer part, may have leading zeros
  const std::uint8_t* p = b.data();
  if (intg0x) {
    const std::uint32_t v = read_be(p, kDigitBytes[intg0x]);
    check_group(v, intg0x, at);
    digits += std::to_string(v);
    p += kDigitBytes[intg0x];
  }
  for (int i = 0; i < intg0; ++i, p += 4) {
    const std::uint32_t v = read_be(p, 4);
    check_group(v, 9, at);
    std::string g = std::to_string(v);
    digits += std::string(9 - g.size(), '0') + g;
  }
  const auto first = digits.find_first_not_of('0');
  if (negative) out += '-';
  out += first == std::string::npos ? "0" : digits.substr(first);
  if (scale > 0) {
    out += '.';
    for (int i = 0; i < frac0; ++i, p += 4) {
      const std::uint32_t v = read_be(p, 4);
      check_group(v, 9, at);
      std::string g = std::to_string(v);
      out += std::string(9 - g.size(), '0') + g;
    }
    if (frac0x) {
      const std::uint32_t v = read_be(p, kDigitBytes[frac0x]);
      check_group(v, frac0x, at);
      std::string g = std::to_string(v);
      out += std::string(static_cast<std::size_t>(frac0x) - g.size(), '0') + g;
    }
  }
}

}  // namespace binrecover::binlog
