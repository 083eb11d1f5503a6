#pragma once

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "binlog/digits.h"

namespace binrecover::recovery {

// Copies s to p. Short copies (the most of them: names, numbers, dates) are two overlapping
// fixed-size moves instead of a call to memcpy.
inline char* put_chars(char* p, std::string_view s) {
  const std::size_t n = s.size();
  const char* q = s.data();
  if (n > 32) {
    std::memcpy(p, q, n);
  } else if (n >= 16) {
    std::memcpy(p, q, 16);
    std::memcpy(p + n - 16, q + n - 16, 16);
  } else if (n >= 8) {
    std::memcpy(p, q, 8);
    std::memcpy(p + n - 8, q + n - 8, 8);
  } else if (n >= 4) {
    std::memcpy(p, q, 4);
    std::memcpy(p + n - 4, q + n - 4, 4);
  } else {
    for (std::size_t i = 0; i < n; ++i) p[i] = q[i];
  }
  return p + n;
}

// d as fmt's "{}" writes it (the shortest text that reads back as d; fixed notation for
// decimal exponents -4..15, else d.ddde+XX), at most 25 characters. The digits come from fmt's
// own shortest-digit search (Dragonbox); only the layout is done here, which saves fmt's
// general formatting machinery on every DOUBLE and FLOAT of a row (tests/binlog/row_text_test.cc
// compares the two on millions of values).
inline char* put_double(char* p, double d) {
  if (!std::isfinite(d) || d == 0) return fmt::format_to(p, "{}", d);
  if (std::signbit(d)) {
    *p++ = '-';
    d = -d;
  }
  const auto dec = fmt::detail::dragonbox::to_decimal(d);
  // The digits one place to the right, so that a point can be put in front of the last ones.
  char* const digits = p + 1;
  char* const digits_end = binlog::put_uint(digits, std::uint64_t{dec.significand});
  const int n = static_cast<int>(digits_end - digits);
  const int exp10 = dec.exponent + n - 1;  // of the first digit
  if (exp10 < -4 || exp10 >= 16) {
    p[0] = p[1];
    char* q;
    if (n == 1) {
      q = p + 1;
    } else {
      p[1] = '.';
      q = digits_end;
    }
    *q++ = 'e';
    int e = exp10;
    if (e < 0) {
      *q++ = '-';
      e = -e;
    } else {
      *q++ = '+';
    }
    if (e >= 100) {
      if (e >= 1000) *q++ = static_cast<char>('0' + e / 1000);
      *q++ = static_cast<char>('0' + e / 100 % 10);
    }
    std::memcpy(q, binlog::kDigitPairs.d + 2 * (e % 100), 2);
    return q + 2;
  }
  if (dec.exponent >= 0) {  // 1234e2 -> 123400
    std::memmove(p, digits, static_cast<std::size_t>(n));
    std::memset(p + n, '0', static_cast<std::size_t>(dec.exponent));
    return p + n + dec.exponent;
  }
  const int point = n + dec.exponent;  // digits before the point
  if (point > 0) {                     // 1234e-2 -> 12.34
    std::memmove(p, digits, static_cast<std::size_t>(point));
    p[point] = '.';
    return digits_end;
  }
  // 1234e-6 -> 0.001234
  const auto zeros = static_cast<std::size_t>(-point);
  std::memmove(p + 2 + zeros, digits, static_cast<std::size_t>(n));
  p[0] = '0';
  p[1] = '.';
  std::memset(p + 2, '0', zeros);
  return p + 2 + zeros + n;
}

// Appends to a memory buffer through a raw pointer: need(n) makes room for n more characters
// (growing the buffer only when it lacks them) and returns where they go, done(p) keeps the
// text up to p. The buffer's size is brought up to date when the writer ends.
class Writer {
 public:
  explicit Writer(fmt::memory_buffer& buf)
      : buf_(buf), p_(buf.data() + buf.size()), end_(buf.data() + buf.capacity()) {}
  ~Writer() { buf_.resize(size()); }
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  [[gnu::always_inline]] char* need(std::size_t n) {
    if (static_cast<std::size_t>(end_ - p_) < n) [[unlikely]]
      grow(n);
    return p_;
  }
  void done(char* p) { p_ = p; }
  void put(std::string_view s) { p_ = put_chars(need(s.size()), s); }
  void put(char c) { *need(1) = c, ++p_; }
  void put_uint(std::uint64_t v) { p_ = binlog::put_uint(need(20), v); }
  Writer& operator<<(std::string_view s) {
    put(s);
    return *this;
  }
  Writer& operator<<(std::uint64_t v) {
    put_uint(v);
    return *this;
  }
  std::size_t size() const { return static_cast<std::size_t>(p_ - buf_.data()); }

 private:
  [[gnu::noinline]] void grow(std::size_t n) {
    const std::size_t at = size();
    buf_.resize(at);
    // Some room past a large need (a huge value's text), so that the next small put does not
    // copy it all into a buffer half as large again.
    buf_.reserve(at + n + n / 8 + 4096);
    p_ = buf_.data() + at;
    end_ = buf_.data() + buf_.capacity();
  }
  fmt::memory_buffer& buf_;
  char* p_;
  char* end_;
};

}  // namespace binrecover::recovery
