#pragma once

// Test fixtures: binlog bytes written field by field.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace binrecover::binlog::fixtures {

// Appends wire fields to a byte vector, little-endian, one call per field.
class Wire {
 public:
  Wire& u8(std::uint64_t v) { return le(v, 1); }
  Wire& u16le(std::uint64_t v) { return le(v, 2); }
  Wire& u24le(std::uint64_t v) { return le(v, 3); }
  Wire& u32le(std::uint64_t v) { return le(v, 4); }
  Wire& u48le(std::uint64_t v) { return le(v, 6); }
  Wire& u56le(std::uint64_t v) { return le(v, 7); }
  Wire& u64le(std::uint64_t v) { return le(v, 8); }
  Wire& str(std::string_view s) {
    for (char c : s) bytes_.push_back(static_cast<std::byte>(static_cast<unsigned char>(c)));
    return *this;
  }
  Wire& padded(std::string_view s, std::size_t width) {  // NUL-padded fixed-width string
    str(s);
    return zeros(width - s.size());
  }
  Wire& zeros(std::size_t n) {
    bytes_.insert(bytes_.end(), n, std::byte{0});
    return *this;
  }
  Wire& raw(const std::array<std::uint8_t, 16>& a) {
    for (std::uint8_t b : a) u8(b);
    return *this;
  }
  Wire& append(const Wire& w) {
    bytes_.insert(bytes_.end(), w.bytes_.begin(), w.bytes_.end());
    return *this;
  }
  std::size_t size() const { return bytes_.size(); }
  std::vector<std::byte>& bytes() { return bytes_; }

 private:
  Wire& le(std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) bytes_.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xff));
    return *this;
  }
  std::vector<std::byte> bytes_;
};

inline void put_le32(std::vector<std::byte>& b, std::size_t at, std::uint64_t v) {
  for (std::size_t i = 0; i < 4 && at + i < b.size(); ++i)
    b[at + i] = static_cast<std::byte>((v >> (8 * i)) & 0xff);
}

}  // namespace binrecover::binlog::fixtures
