#include "recovery/storage/zstd_stream.h"

#include <zstd.h>

#include "binlog/error.h"

namespace binrecover::recovery {

namespace {

[[noreturn]] void zstd_failed(const std::string& what, std::size_t code) {
  throw Error(ErrorCode::kIo, what + ": " + ZSTD_getErrorName(code));
}

}  // namespace

ZstdCompressor::ZstdCompressor(int level, unsigned workers, ByteSink sink)
    : sink_(std::move(sink)) {
  ZSTD_CCtx* c = ZSTD_createCCtx();
  if (c == nullptr) throw Error(ErrorCode::kIo, "zstd: out of memory");
  ctx_ = c;
  ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level);
  ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
  // (a library built without threads refuses this: the stream is then compressed here)
  if (workers > 0) ZSTD_CCtx_setParameter(c, ZSTD_c_nbWorkers, static_cast<int>(workers));
  out_.resize(ZSTD_CStreamOutSize());
}

ZstdCompressor::~ZstdCompressor() { ZSTD_freeCCtx(static_cast<ZSTD_CCtx*>(ctx_)); }

void ZstdCompressor::drain(int mode, std::string_view data) {
  ZSTD_inBuffer in{data.data(), data.size(), 0};
  for (;;) {
    ZSTD_outBuffer out{out_.data(), out_.size(), 0};
    const std::size_t left = ZSTD_compressStream2(static_cast<ZSTD_CCtx*>(ctx_), &out, &in,
                                                  static_cast<ZSTD_EndDirective>(mode));
    if (ZSTD_isError(left)) zstd_failed("zstd compression", left);
    if (out.pos > 0) sink_(std::string_view(out_.data(), out.pos));
    const bool done = mode == ZSTD_e_continue ? in.pos == in.size : left == 0;
    if (done) return;
  }
}

void ZstdCompressor::write(std::string_view data) { drain(ZSTD_e_continue, data); }

void ZstdCompressor::finish() { drain(ZSTD_e_end, {}); }

ZstdDecompressor::ZstdDecompressor(std::string what, ByteSink sink)
    : what_(std::move(what)), sink_(std::move(sink)) {
  ZSTD_DCtx* d = ZSTD_createDCtx();
  if (d == nullptr) throw Error(ErrorCode::kIo, "zstd: out of memory");
  ctx_ = d;
  out_.resize(ZSTD_DStreamOutSize());
}

ZstdDecompressor::~ZstdDecompressor() { ZSTD_freeDCtx(static_cast<ZSTD_DCtx*>(ctx_)); }

void ZstdDecompressor::write(std::string_view data) {
  ZSTD_inBuffer in{data.data(), data.size(), 0};
  while (in.pos < in.size) {
    ZSTD_outBuffer out{out_.data(), out_.size(), 0};
    const std::size_t r = ZSTD_decompressStream(static_cast<ZSTD_DCtx*>(ctx_), &out, &in);
    if (ZSTD_isError(r)) zstd_failed(what_ + " does not decompress (zstd)", r);
    if (out.pos > 0) sink_(std::string_view(out_.data(), out.pos));
    mid_frame_ = r != 0;
  }
  // Output held back inside the context (the buffer was full): let it out.
  for (;;) {
    ZSTD_outBuffer out{out_.data(), out_.size(), 0};
    ZSTD_inBuffer none{nullptr, 0, 0};
    const std::size_t r = ZSTD_decompressStream(static_cast<ZSTD_DCtx*>(ctx_), &out, &none);
    if (ZSTD_isError(r)) zstd_failed(what_ + " does not decompress (zstd)", r);
    if (out.pos == 0) break;  // (nothing held: at a frame's end the hint is the next header's)
    sink_(std::string_view(out_.data(), out.pos));
    mid_frame_ = r != 0;
    if (out.pos < out.size) break;
  }
}

void ZstdDecompressor::finish() {
  if (mid_frame_) throw Error(ErrorCode::kIo, what_ + " ends inside a zstd frame (cut short)");
}

}  // namespace binrecover::recovery
