#pragma once

// printf's "%.Pg" of a double, exactly (the decimal expansion of its binary value rounded to P
// significant digits, ties to even; trailing zeros dropped), as std::to_chars(general, P)
// writes it, for the -v values (FLOAT "%-20g", DOUBLE "%-.20g"). The usual magnitudes
// (2^-68 .. 2^64) are done here in 128-bit arithmetic, a digit per multiplication by ten;
// the others go to std::to_chars (libstdc++'s Ryu printf, with tables for every exponent,
// about five times the instructions for a value of a table's usual range).
// tests/recovery/general_format_test.cc compares the two on millions of values.

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "binlog/digits.h"

namespace binrecover::recovery {

// 5^0 .. 5^32: m * 5^k stays below 2^128 for a 53-bit m.
inline constexpr int kMaxPow5 = 32;
struct Pow5 {
  unsigned __int128 v[kMaxPow5 + 1] = {};
  constexpr Pow5() {
    v[0] = 1;
    for (int i = 1; i <= kMaxPow5; ++i) v[i] = v[i - 1] * 5;
  }
};
inline constexpr Pow5 kPow5;

// The significant digits of a value (text), the power of ten of the first one, and whether a
// non-zero part follows them.
struct GeneralDigits {
  char text[64];
  int n = 0;
  int exp10 = 0;
  bool rest = false;
};

// q (< 10^26) in decimal at t, cut into 64-bit pieces without a 128-bit division (a slow
// instruction): x / 10^n = (x >> n) / 5^n, and (q >> 23), (below >> 16) fit in 64 bits.
inline char* put_uint128(char* t, unsigned __int128 q) {
  if (q >> 64 == 0) return binlog::put_uint(t, static_cast<std::uint64_t>(q));
  constexpr std::uint64_t k5e23 = 11920928955078125ULL;                    // 5^23
  constexpr std::uint64_t k5e16 = 152587890625ULL;                         // 5^16
  const std::uint64_t high = static_cast<std::uint64_t>(q >> 23) / k5e23;  // < 10^3
  const unsigned __int128 below =
      q - (static_cast<unsigned __int128>(high) * k5e23 << 23);               // < 10^23
  const std::uint64_t mid = static_cast<std::uint64_t>(below >> 16) / k5e16;  // < 10^7
  const auto low = static_cast<std::uint64_t>(
      below - (static_cast<unsigned __int128>(mid) * k5e16 << 16));  // < 10^16
  if (high != 0) {
    t = binlog::put_uint(t, high);
    t = binlog::put_digit_pairs(t, mid, 7);
  } else {
    t = binlog::put_uint(t, mid);
  }
  return binlog::put_digit_pairs(t, low, 16);
}

// At least `want` digits of m * 2^e (m of 53 bits, -120 <= e <= 11) where it has them, exact.
inline void exact_digits(std::uint64_t m, int e, int want, GeneralDigits& d) {
  if (e >= 0) {  // an integer below 2^64: every digit
    d.n = static_cast<int>(binlog::put_uint(d.text, m << e) - d.text);
    d.exp10 = d.n - 1;
    return;
  }
  const int s = -e;
  const std::uint64_t whole = s < 53 ? m >> s : 0;
  // The first digit's power of ten is est or est + 1 (the value is in [2^(52-s), 2^(53-s))).
  const int est = ((52 - s) * 78913) >> 18;  // floor((52 - s) * log10(2))
  const int k = want - 1 - est;              // value * 10^k has want or want + 1 digits
  if (whole != 0 && k <= 0) {
    // the integer part has the digits (k <= 0: at least `want` of them); the fraction only
    // rounds
    d.n = static_cast<int>(binlog::put_uint(d.text, whole) - d.text);
    d.exp10 = d.n - 1;
    d.rest = (m & ((std::uint64_t{1} << s) - 1)) != 0;
  } else if (k <= kMaxPow5) {
    // q = floor(value * 10^k) = m * 5^k / 2^(s - k): one multiplication and one shift.
    const unsigned __int128 product = m * kPow5.v[k];
    const int shift = s - k;
    unsigned __int128 q;
    if (shift >= 0) {
      q = product >> shift;
      d.rest = (product & ((static_cast<unsigned __int128>(1) << shift) - 1)) != 0;
    } else {
      q = product << -shift;
    }
    d.n = static_cast<int>(put_uint128(d.text, q) - d.text);
    d.exp10 = d.n - 1 - k;
  } else {  // tiny values: a digit per multiplication by ten (frac * 10 < 2^124)
    const unsigned __int128 mask = (static_cast<unsigned __int128>(1) << s) - 1;
    unsigned __int128 frac = m;
    d.exp10 = -1;
    while (d.n < want && frac != 0) {
      frac *= 10;
      const auto digit = static_cast<char>(frac >> s);
      frac &= mask;
      if (d.n == 0 && digit == 0) {
        --d.exp10;
        continue;
      }
      d.text[d.n++] = static_cast<char>('0' + digit);
    }
    d.rest = frac != 0;
  }
}

// Rounded to `precision` digits, ties to even; trailing zeros dropped (as %g does).
inline void round_digits(GeneralDigits& d, int precision) {
  char* digits = d.text;
  if (d.n > precision) {
    const char last = digits[precision];
    for (int i = precision + 1; i < d.n && !d.rest; ++i) d.rest = digits[i] != '0';
    d.n = precision;
    if (last > '5' || (last == '5' && (d.rest || ((digits[d.n - 1] - '0') & 1) != 0))) {
      int i = d.n - 1;
      while (i >= 0 && digits[i] == '9') digits[i--] = '0';
      if (i >= 0) {
        ++digits[i];
      } else {  // 99.9 -> 100
        digits[0] = '1';
        ++d.exp10;
      }
    }
  }
  while (d.n > 1 && digits[d.n - 1] == '0') --d.n;
}

// The digits laid out as %g lays them out: d.ddde+XX, 0.000ddd, ddd00 or ddd.ddd.
inline char* put_general_layout(char* p, const GeneralDigits& d, int precision) {
  const char* digits = d.text;
  const int n = d.n;
  const int exp10 = d.exp10;
  if (exp10 < -4 || exp10 >= precision) {  // d.ddde+XX
    *p++ = digits[0];
    if (n > 1) {
      *p++ = '.';
      std::memcpy(p, digits + 1, static_cast<std::size_t>(n - 1));
      p += n - 1;
    }
    *p++ = 'e';
    int x = exp10;
    *p++ = x < 0 ? '-' : '+';
    if (x < 0) x = -x;
    if (x >= 100) *p++ = static_cast<char>('0' + x / 100);
    std::memcpy(p, binlog::kDigitPairs.d + 2 * (x % 100), 2);
    return p + 2;
  }
  if (exp10 < 0) {  // 0.000ddd
    *p++ = '0';
    *p++ = '.';
    std::memset(p, '0', static_cast<std::size_t>(-1 - exp10));
    p += -1 - exp10;
    std::memcpy(p, digits, static_cast<std::size_t>(n));
    return p + n;
  }
  if (n <= exp10 + 1) {  // ddd00
    std::memcpy(p, digits, static_cast<std::size_t>(n));
    std::memset(p + n, '0', static_cast<std::size_t>(exp10 + 1 - n));
    return p + exp10 + 1;
  }
  std::memcpy(p, digits, static_cast<std::size_t>(exp10 + 1));  // ddd.ddd
  p += exp10 + 1;
  *p++ = '.';
  std::memcpy(p, digits + exp10 + 1, static_cast<std::size_t>(n - exp10 - 1));
  return p + n - exp10 - 1;
}

// At most 340 characters are written at p (those std::to_chars could need). Returns the end.
// precision: 1..24.
inline char* put_general(char* p, double d, int precision) {
  std::uint64_t bits;
  std::memcpy(&bits, &d, 8);
  const auto biased = static_cast<int>((bits >> 52) & 0x7ff);
  const int e = biased - 1075;  // d = m * 2^e
  // (zero, subnormals, infinities and NaN, large and tiny values: the library's way)
  if (biased == 0 || biased == 0x7ff || e > 11 || e < -120 || precision < 1 || precision > 24)
    return std::to_chars(p, p + 340, d, std::chars_format::general, precision).ptr;
  const std::uint64_t m = (bits & ((std::uint64_t{1} << 52) - 1)) | (std::uint64_t{1} << 52);
  GeneralDigits digits;
  exact_digits(m, e, precision + 1, digits);  // (one more than kept: how to round)
  round_digits(digits, precision);
  if (bits >> 63 != 0) *p++ = '-';
  return put_general_layout(p, digits, precision);
}

}  // namespace binrecover::recovery
