#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

namespace binrecover::binlog {

using Bytes = std::span<const std::byte>;

// Little-endian u32 at p (the caller has checked that 4 bytes are there).
inline std::uint32_t read_le32(const std::byte* p) {
  return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
         static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
}

inline std::string_view as_text(Bytes b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

// The only code that reads raw binlog bytes. Every read is bounds-checked first and fails with
// binrecover::Error (kTruncated) naming the absolute file offset; integers are assembled
// little-endian from bytes, so host byte order and alignment never matter.
class ByteCursor {
 public:
  ByteCursor() = default;
  ByteCursor(Bytes data, std::uint64_t file_offset) : data_(data), base_(file_offset) {}

  std::uint8_t u8();
  std::uint16_t u16le();
  std::uint32_t u24le();
  std::uint32_t u32le();
  std::uint64_t u48le();
  std::uint64_t u56le();
  std::uint64_t u64le();
  std::uint64_t uint_le(std::size_t n);  // n in 1..8
  std::uint16_t u16be();
  std::uint32_t u24be();
  std::uint32_t u32be();
  std::uint64_t uint_be(std::size_t n);
  // Length-encoded integer (1, 3, 4 or 9 bytes on the wire).
  std::uint64_t packed_int();
  // MySQL 8.3+ serialization varlen: the trailing one bits of the first byte count the bytes
  // that follow; the value is the little-endian whole shifted right by the byte count
  // (a first byte of 0xff: the next 8 bytes are the value).
  std::uint64_t varlen();

  Bytes bytes(std::size_t n);  // zero-copy view
  std::string_view str(std::size_t n) { return as_text(bytes(n)); }
  // Bytes up to (not including) the next NUL; the NUL is consumed.
  std::string_view cstr();
  Bytes rest();                    // everything left
  ByteCursor take(std::size_t n);  // bounded sub-cursor over the next n bytes
  void skip(std::size_t n) { (void)bytes(n); }
  void drop_tail(std::size_t n);  // hide the last n bytes (a checksum trailer)

  std::size_t remaining() const { return data_.size() - pos_; }
  bool empty() const { return remaining() == 0; }
  std::uint64_t offset() const { return base_ + pos_; }  // absolute, for error messages
  Bytes data() const { return data_; }

 private:
  void need(std::size_t n) const;
  [[noreturn]] void fail(std::size_t n) const;

  Bytes data_;
  std::uint64_t base_ = 0;
  std::size_t pos_ = 0;
};

inline void ByteCursor::need(std::size_t n) const {
  if (n > remaining()) fail(n);
}

inline std::uint8_t ByteCursor::u8() {
  need(1);
  return static_cast<std::uint8_t>(data_[pos_++]);
}

// Integers of n <= 8 bytes: where eight bytes of the data remain, one eight-byte load (its
// byte order fixed explicitly) cut to n bytes; else byte by byte. Never past the data.
inline std::uint64_t ByteCursor::uint_le(std::size_t n) {
  need(n);
  const std::byte* p = data_.data() + pos_;
  const bool wide = data_.size() - pos_ >= 8;
  pos_ += n;
  if (std::endian::native == std::endian::little && wide) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    return n >= 8 ? w : w & ((std::uint64_t{1} << (8 * n)) - 1);
  }
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n && i < 8; ++i)
    v |= static_cast<std::uint64_t>(static_cast<std::uint8_t>(p[i])) << (8 * i);
  return v;
}

inline std::uint64_t ByteCursor::uint_be(std::size_t n) {
  need(n);
  const std::byte* p = data_.data() + pos_;
  const bool wide = data_.size() - pos_ >= 8;
  pos_ += n;
  if (std::endian::native == std::endian::little && wide && n > 0 && n <= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    return __builtin_bswap64(w) >> (64 - 8 * n);
  }
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i) v = (v << 8) | static_cast<std::uint8_t>(p[i]);
  return v;
}

inline std::uint16_t ByteCursor::u16le() { return static_cast<std::uint16_t>(uint_le(2)); }
inline std::uint32_t ByteCursor::u24le() { return static_cast<std::uint32_t>(uint_le(3)); }
inline std::uint32_t ByteCursor::u32le() { return static_cast<std::uint32_t>(uint_le(4)); }
inline std::uint64_t ByteCursor::u48le() { return uint_le(6); }
inline std::uint64_t ByteCursor::u56le() { return uint_le(7); }
inline std::uint64_t ByteCursor::u64le() { return uint_le(8); }
inline std::uint16_t ByteCursor::u16be() { return static_cast<std::uint16_t>(uint_be(2)); }
inline std::uint32_t ByteCursor::u24be() { return static_cast<std::uint32_t>(uint_be(3)); }
inline std::uint32_t ByteCursor::u32be() { return static_cast<std::uint32_t>(uint_be(4)); }

inline Bytes ByteCursor::bytes(std::size_t n) {
  need(n);
  Bytes out = data_.subspan(pos_, n);
  pos_ += n;
  return out;
}

}  // namespace binrecover::binlog
