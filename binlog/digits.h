#pragma once

#include <cstdint>
#include <cstring>

namespace binrecover::binlog {

// Decimal digits written straight into a character buffer, two at a time from a table and in
// 32-bit arithmetic where the value allows: the hot path of every row value printed (the
// caller has made room; nothing here allocates).
struct DigitPairs {
  char d[200] = {};
  constexpr DigitPairs() {
    for (int i = 0; i < 100; ++i) {
      d[2 * i] = static_cast<char>('0' + i / 10);
      d[2 * i + 1] = static_cast<char>('0' + i % 10);
    }
  }
};
inline constexpr DigitPairs kDigitPairs;

// Exactly `width` digits of v (v < 10^width), zero-padded, two at a time from the end.
template <class Unsigned>
char* put_digit_pairs(char* p, Unsigned v, int width) {
  char* const end = p + width;
  char* q = end;
  for (; width >= 2; width -= 2) {
    q -= 2;
    std::memcpy(q, kDigitPairs.d + 2 * (v % 100), 2);
    v /= 100;
  }
  if (width == 1) *--q = static_cast<char>('0' + v % 10);
  return end;
}

// Exactly `width` digits of v (v < 10^width, width <= 10), zero-padded. Returns the end.
inline char* put_fixed(char* p, std::uint32_t v, int width) { return put_digit_pairs(p, v, width); }

// Exactly `width` digits of v (v < 10^width, width <= 20), zero-padded, in 32-bit arithmetic
// when v allows. Returns the end.
inline char* put_fixed(char* p, std::uint64_t v, int width) {
  if (v <= 0xffffffffU && width <= 10) return put_fixed(p, static_cast<std::uint32_t>(v), width);
  return put_digit_pairs(p, v, width);
}

// Number of decimal digits of v.
inline int digit_count(std::uint32_t v) {
  if (v < 100) return v < 10 ? 1 : 2;
  if (v < 10000) return v < 1000 ? 3 : 4;
  if (v < 1000000) return v < 100000 ? 5 : 6;
  if (v < 100000000) return v < 10000000 ? 7 : 8;
  return v < 1000000000 ? 9 : 10;
}

// v in decimal (at most 10 characters). Returns the end.
inline char* put_uint(char* p, std::uint32_t v) { return put_fixed(p, v, digit_count(v)); }

// v in decimal (at most 20 characters): eight-digit pieces in 32-bit arithmetic. Returns the end.
[[gnu::always_inline]] inline char* put_uint(char* p, std::uint64_t v) {
  constexpr std::uint64_t k1e8 = 100000000;
  if (v <= 0xffffffffU) return put_uint(p, static_cast<std::uint32_t>(v));
  const auto low = static_cast<std::uint32_t>(v % k1e8);
  v /= k1e8;
  if (v < k1e8) {
    p = put_uint(p, static_cast<std::uint32_t>(v));
  } else {  // up to 20 digits: at most 4, then 8
    p = put_uint(p, static_cast<std::uint32_t>(v / k1e8));
    p = put_fixed(p, static_cast<std::uint32_t>(v % k1e8), 8);
  }
  return put_fixed(p, low, 8);
}

// v in decimal with a leading '-' when negative (at most 20 characters). Returns the end.
inline char* put_int(char* p, std::int64_t v) {
  if (v >= 0) return put_uint(p, static_cast<std::uint64_t>(v));
  *p++ = '-';
  return put_uint(p, 0 - static_cast<std::uint64_t>(v));
}

// At least `width` digits of v: zero-padded when shorter, every digit when longer.
inline char* put_padded(char* p, std::uint64_t v, int width) {
  std::uint64_t limit = 1;
  for (int i = 0; i < width; ++i) limit *= 10;
  return v < limit ? put_fixed(p, v, width) : put_uint(p, v);
}

// put_padded(p, v, 2) and (p, v, 4), the fields of dates and times: one or two digit pairs
// from the table in the usual case.
[[gnu::always_inline]] inline char* put_padded2(char* p, std::uint32_t v) {
  if (v >= 100) [[unlikely]]
    return put_uint(p, v);
  std::memcpy(p, kDigitPairs.d + 2 * v, 2);
  return p + 2;
}
[[gnu::always_inline]] inline char* put_padded4(char* p, std::uint32_t v) {
  if (v >= 10000) [[unlikely]]
    return put_uint(p, v);
  std::memcpy(p, kDigitPairs.d + 2 * (v / 100), 2);
  std::memcpy(p + 2, kDigitPairs.d + 2 * (v % 100), 2);
  return p + 4;
}

}  // namespace binrecover::binlog
