#include "binlog/arena.h"

#include <algorithm>
#include <cstring>

namespace binrecover::binlog {

Bytes EventArena::reserve(std::size_t n) {
  while (current_ < chunks_.size() && chunks_[current_].size - chunks_[current_].used < n)
    ++current_;
  if (current_ == chunks_.size()) {
    Chunk c;
    c.size = std::max(n, kChunkSize);
    c.data = std::make_unique_for_overwrite<std::byte[]>(c.size);
    chunks_.push_back(std::move(c));
  }
  Chunk& c = chunks_[current_];
  std::byte* dst = c.data.get() + c.used;
  c.used += n;
  return {dst, n};
}

Bytes EventArena::copy(Bytes raw) {
  Bytes dst = reserve(raw.size());
  if (!raw.empty()) std::memcpy(const_cast<std::byte*>(dst.data()), raw.data(), raw.size());
  return dst;
}

void EventArena::reset() {
  // Keep a few standard chunks; free anything a large transaction made us take.
  std::size_t keep = 0;
  for (auto& c : chunks_) {
    c.used = 0;
    if (c.size == kChunkSize && keep < 4) ++keep;
  }
  std::erase_if(chunks_, [](const Chunk& c) { return c.size != kChunkSize; });
  if (chunks_.size() > keep) chunks_.resize(keep);
  current_ = 0;
}

std::size_t EventArena::bytes_held() const {
  std::size_t n = 0;
  for (const auto& c : chunks_) n += c.size;
  return n;
}

}  // namespace binrecover::binlog
