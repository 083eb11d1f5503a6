#include "binlog/byte_cursor.h"

#include <cstring>
#include <string>

#include "binlog/error.h"

namespace binrecover::binlog {

void ByteCursor::fail(std::size_t n) const {
  throw Error(ErrorCode::kTruncated,
              "needs " + std::to_string(n) + " more bytes but only " + std::to_string(remaining()) +
                  " remain",
              offset());
}

std::uint64_t ByteCursor::packed_int() {
  std::uint8_t first = u8();
  if (first < 0xfb) return first;
  switch (first) {
    case 0xfc:
      return u16le();
    case 0xfd:
      return u24le();
    case 0xfe:
      return u64le();
    default:
      // 0xfb is SQL NULL in the text protocol, 0xff an error marker: neither is a length.
      throw Error(ErrorCode::kBadEvent,
                  "invalid length-encoded integer prefix " + std::to_string(first), offset() - 1);
  }
}

std::uint64_t ByteCursor::varlen() {
  need(1);
  const auto first = static_cast<std::uint8_t>(data_[pos_]);
  if (first == 0xff) {
    ++pos_;
    return u64le();
  }
  std::size_t n = 1;
  while (first & (1U << (n - 1))) ++n;
  const std::uint64_t v = uint_le(n);
  return v >> n;
}

std::string_view ByteCursor::cstr() {
  const std::size_t left = remaining();
  const void* start = data_.data() + pos_;
  const void* nul = left ? std::memchr(start, 0, left) : nullptr;
  if (nul == nullptr) throw Error(ErrorCode::kTruncated, "string is not NUL-terminated", offset());
  const std::size_t len = static_cast<const std::byte*>(nul) - data_.data() - pos_;
  std::string_view s = str(len);
  pos_ += 1;
  return s;
}

Bytes ByteCursor::rest() { return bytes(remaining()); }

ByteCursor ByteCursor::take(std::size_t n) {
  const std::uint64_t at = offset();
  return ByteCursor(bytes(n), at);
}

void ByteCursor::drop_tail(std::size_t n) {
  need(n);
  data_ = data_.first(data_.size() - n);
}

}  // namespace binrecover::binlog
