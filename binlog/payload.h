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
class PayloadSource : public Source {
 public:
  PayloadSource(const TransactionPayload& payload, std::uint64_t pos, std::string name);
  ~PayloadSource() override;
  PayloadSource(const PayloadSource&) = delete;
  PayloadSource& operator=(const PayloadSource&) = delete;

  std::optional<Frame> next_frame() override;
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
  ZSTD_DCtx_s* dctx_ = nullptr;
  std::vector<std::byte> buf_;
  std::size_t begin_ = 0, end_ = 0;
  bool done_ = false;
};

// The format in force for a payload's inner events: the file's, without checksums.
FormatContext payload_context(const FormatContext& outer);

}  // namespace binrecover::binlog
