#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "binlog/byte_cursor.h"

namespace binrecover::binlog {

// Holds copies of the raw bytes of the events of one transaction. Chunks are kept between
// transactions, so steady-state decoding allocates nothing; oversized chunks from a huge
// transaction are released at reset() so memory returns to its floor.
class EventArena {
 public:
  binlog::Bytes copy(binlog::Bytes raw);
  // Uninitialised room for n bytes (the caller fills it before reading it).
  binlog::Bytes reserve(std::size_t n);
  void reset();
  std::size_t bytes_held() const;

 private:
  static constexpr std::size_t kChunkSize = 1 << 20;
  struct Chunk {
    std::unique_ptr<std::byte[]> data;
    std::size_t size = 0;
    std::size_t used = 0;
  };
  std::vector<Chunk> chunks_;
  std::size_t current_ = 0;
};

}  // namespace binrecover::binlog
