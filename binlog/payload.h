#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "binlog/events.h"
#include "binlog/source.h"

struct ZSTD_DCtx_s;

namespace binrecover::binlog {

// Frames the events inside a MySQL transaction payload, decompressing zstd as it goes: memory
// is one window the size of the largest inner event, not the whole transaction. Every frame
// reports the payload event's own position (as mysqlbinlog prints them).
// What unpacking payloads needs, kept from one payload to the next: a zstd context (and the
// window it allocates) and the buffer of unpacked bytes. A log of many compressed
// transactions then allocates them once, not once per transaction (which made the heap grow
// to 60 MiB and fault 17,000 pages on a 1 MB MySQL log). One per reader: a payload's events
// are views into the buffer until the next payload starts.
class PayloadScratch {
 public:
  PayloadScratch() = default;
  ~PayloadScratch();
  PayloadScratch(const PayloadScratch&) = delete;
  PayloadScratch& operator=(const PayloadScratch&) = delete;

 private:
  friend class PayloadSource;
  ZSTD_DCtx_s* dctx_ = nullptr;
  std::vector<std::byte> buf_;
};

class PayloadSource : public Source {
 public:
  // Without `scratch`: a context and buffer of its own.
  PayloadSource(const TransactionPayload& payload, std::uint64_t pos, std::string name,
                PayloadScratch* scratch = nullptr);
  ~PayloadSource() override;
  PayloadSource(const PayloadSource&) = delete;
  PayloadSource& operator=(const PayloadSource&) = delete;

  std::optional<Frame> next_frame() override;
  // No event is left (the next next_frame() returns none): its events' bytes are no longer
  // needed once they are read.
  bool exhausted();
  void seek(std::uint64_t pos) override;
  const std::string& name() const override { return name_; }
  std::optional<std::uint64_t> size() const override { return std::nullopt; }

 private:
  std::size_t fill(std::size_t n);

  std::string name_;
  std::uint64_t pos_;
  bool zstd_;
  Bytes input_;
  std::size_t input_used_ = 0;
  std::unique_ptr<PayloadScratch> own_;
  PayloadScratch& scratch_;
  ZSTD_DCtx_s*& dctx_;
  std::vector<std::byte>& buf_;
  std::size_t begin_ = 0, end_ = 0;
  bool done_ = false;
};

// The format in force for a payload's inner events: the file's, without checksums.
FormatContext payload_context(const FormatContext& outer);

}  // namespace binrecover::binlog
