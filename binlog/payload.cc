#include "binlog/payload.h"

#include <zstd.h>

#include <cstring>

#include "binlog/error.h"

namespace binrecover::binlog {
namespace {

constexpr std::size_t kWindow = 1 << 20;

}  // namespace

FormatContext payload_context(const FormatContext& outer) {
  FormatContext ctx = outer;
  ctx.checksum = ChecksumAlg::kOff;
  return ctx;
}

PayloadScratch::~PayloadScratch() {
  if (dctx_ != nullptr) ZSTD_freeDCtx(dctx_);
}

PayloadSource::PayloadSource(const TransactionPayload& payload, std::uint64_t pos, std::string name,
                             PayloadScratch* scratch)
    : name_(std::move(name)),
      pos_(pos),
      zstd_(payload.compression == TransactionPayload::kZstd),
      input_(payload.payload),
      own_(scratch == nullptr ? std::make_unique<PayloadScratch>() : nullptr),
      scratch_(scratch != nullptr ? *scratch : *own_),
      dctx_(scratch_.dctx_),
      buf_(scratch_.buf_) {
  if (zstd_) {
    if (dctx_ == nullptr) dctx_ = ZSTD_createDCtx();
    if (dctx_ == nullptr) throw Error(ErrorCode::kIo, "cannot create a zstd context", pos_);
    ZSTD_DCtx_reset(dctx_, ZSTD_reset_session_only);  // (a payload left unread, or damaged)
    if (buf_.size() < kWindow) buf_.resize(kWindow);
  }
}

PayloadSource::~PayloadSource() = default;

std::size_t PayloadSource::fill(std::size_t n) {
  while (end_ - begin_ < n && !done_) {
    if (buf_.size() - begin_ < n) {
      std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
      if (buf_.size() < n) buf_.resize(std::min(n, buf_.size() * 2));
    }
    ZSTD_inBuffer in{input_.data(), input_.size(), input_used_};
    ZSTD_outBuffer out{buf_.data() + end_, buf_.size() - end_, 0};
    const std::size_t ret = ZSTD_decompressStream(dctx_, &out, &in);
    if (ZSTD_isError(ret))
      throw Error(ErrorCode::kBadEvent,
                  std::string("transaction payload does not decompress: ") + ZSTD_getErrorName(ret),
                  pos_);
    input_used_ = in.pos;
    end_ += out.pos;
    if (out.pos == 0 && (ret == 0 || in.pos == in.size)) done_ = true;
  }
  return std::min(n, end_ - begin_);
}

std::optional<Frame> PayloadSource::next_frame() {
  const std::byte* base;
  std::size_t avail;
  if (!zstd_) {
    base = input_.data() + input_used_;
    avail = input_.size() - input_used_;
  } else {
    avail = fill(19);
    base = buf_.data() + begin_;
  }
  if (avail == 0) return std::nullopt;
  const std::uint32_t size = frame_length(
      base, avail, pos_, name_, zstd_ ? std::nullopt : std::optional<std::uint64_t>(avail), 19);
  if (!zstd_) {
    if (size > avail)
      throw Error(ErrorCode::kTruncated, "transaction payload ends inside an event", pos_);
    Frame f{pos_, Bytes(base, size)};
    input_used_ += size;
    return f;
  }
  if (fill(size) < size)
    throw Error(ErrorCode::kTruncated, "transaction payload ends inside an event", pos_);
  Frame f{pos_, Bytes(buf_.data() + begin_, size)};
  begin_ += size;
  return f;
}

bool PayloadSource::exhausted() {
  if (!zstd_) return input_used_ >= input_.size();
  return fill(1) == 0;
}

void PayloadSource::seek(std::uint64_t) {
  throw Error(ErrorCode::kUsage, "cannot seek inside a transaction payload", pos_);
}

}  // namespace binrecover::binlog
