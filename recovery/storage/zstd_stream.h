#pragma once

// zstd streams (libzstd, the Debian package's): a backup is stored compressed and read back
// through these, a bounded buffer at a time, whatever its size.

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace binrecover::recovery {

// Where compressed or decompressed bytes go, a block at a time.
using ByteSink = std::function<void(std::string_view)>;

class ZstdCompressor {
 public:
  // `level`: 1 (fastest) to 19; 3 is zstd's default. Uses all but one core beside the caller
  // (zstd's own workers) when `workers` > 0.
  ZstdCompressor(int level, unsigned workers, ByteSink sink);
  ~ZstdCompressor();
  ZstdCompressor(const ZstdCompressor&) = delete;
  ZstdCompressor& operator=(const ZstdCompressor&) = delete;
  void write(std::string_view data);
  // Ends the frame (everything reaches the sink).
  void finish();

 private:
  void drain(int mode, std::string_view data);
  void* ctx_ = nullptr;
  std::string out_;
  ByteSink sink_;
};

// Decompresses one or more concatenated zstd frames. Throws Error(kIo) naming `what` for bytes
// that are not zstd, or a stream that ends inside a frame (finish()).
class ZstdDecompressor {
 public:
  ZstdDecompressor(std::string what, ByteSink sink);
  ~ZstdDecompressor();
  ZstdDecompressor(const ZstdDecompressor&) = delete;
  ZstdDecompressor& operator=(const ZstdDecompressor&) = delete;
  void write(std::string_view data);
  void finish();

 private:
  void* ctx_ = nullptr;
  std::string what_, out_;
  ByteSink sink_;
  bool mid_frame_ = false;
};

}  // namespace binrecover::recovery
