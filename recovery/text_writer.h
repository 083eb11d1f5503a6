#pragma once

#include <fmt/format.h>

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
    buf_.reserve(at + n);
    p_ = buf_.data() + at;
    end_ = buf_.data() + buf_.capacity();
  }
  fmt::memory_buffer& buf_;
  char* p_;
  char* end_;
};

}  // namespace binrecover::recovery
