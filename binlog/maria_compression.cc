#include "binlog/maria_compression.h"

#include <zlib.h>

#include "binlog/error.h"
#include "binlog/source.h"

namespace binrecover::binlog {

namespace {

// Parses the record header; returns the stated size and leaves `data` at the zlib stream.
std::uint64_t record_header(Bytes record, std::uint64_t offset, Bytes& data) {
  ByteCursor cur(record, offset);
  const std::uint8_t header = cur.u8();
  if ((header & 0x80) == 0)
    throw Error(ErrorCode::kBadEvent, "compressed record lacks its marker bit", offset);
  const int algorithm = (header >> 4) & 0x07;
  if (algorithm != 0)
    throw Error(ErrorCode::kBadEvent,
                "compressed record uses unknown algorithm " + std::to_string(algorithm), offset);
  const std::size_t n = header & 0x07;
  if (n < 1 || n > 4)
    throw Error(ErrorCode::kBadEvent,
                "compressed record has a " + std::to_string(n) + "-byte length", offset);
  const std::uint64_t size = cur.uint_be(n);
  if (size > kMaxEventSize)
    throw Error(ErrorCode::kEventTooLarge,
                "compressed record claims " + std::to_string(size) + " bytes", offset);
  data = cur.rest();
  return size;
}

void inflate(Bytes data, std::byte* out, std::uint64_t size, std::uint64_t offset) {
  uLongf out_len = static_cast<uLongf>(size);
  const int rc =
      ::uncompress(reinterpret_cast<Bytef*>(out), &out_len,
                   reinterpret_cast<const Bytef*>(data.data()), static_cast<uLong>(data.size()));
  if (rc != Z_OK || out_len != size)
    throw Error(ErrorCode::kBadEvent,
                "compressed record does not inflate to its stated " + std::to_string(size) +
                    " bytes (zlib status " + std::to_string(rc) + ")",
                offset);
}

}  // namespace

Bytes maria_uncompress(Bytes record, EventArena& arena, std::uint64_t offset) {
  Bytes data;
  const std::uint64_t size = record_header(record, offset, data);
  Bytes out = arena.reserve(static_cast<std::size_t>(size));
  inflate(data, const_cast<std::byte*>(out.data()), size, offset);
  return out;
}

void maria_uncompress_append(Bytes record, std::vector<std::byte>& out, std::uint64_t offset) {
  Bytes data;
  const std::uint64_t size = record_header(record, offset, data);
  const std::size_t at = out.size();
  out.resize(at + static_cast<std::size_t>(size));
  inflate(data, out.data() + at, size, offset);
}

void inflate_compressed_query(Event& ev, EventArena& arena) {
  auto* q = std::get_if<Query>(&ev.body);
  if (q == nullptr || !q->compressed) return;
  const auto offset =
      ev.pos + static_cast<std::uint64_t>(reinterpret_cast<const std::byte*>(q->query.data()) -
                                          ev.raw.data());
  const Bytes text = maria_uncompress(
      Bytes(reinterpret_cast<const std::byte*>(q->query.data()), q->query.size()), arena, offset);
  q->query = as_text(text);
  q->compressed = false;
}

}  // namespace binrecover::binlog
