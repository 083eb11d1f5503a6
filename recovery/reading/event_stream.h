#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "binlog/events.h"
#include "binlog/payload.h"
#include "binlog/reader.h"
#include "binlog/source.h"

namespace binrecover::recovery {

// The events of one input in order, with the events of each MySQL transaction payload right
// after the payload event (their bytes are unpacked as they are read).
class EventStream {
 public:
  EventStream(std::unique_ptr<binlog::Source> source, const binlog::ReaderOptions& options,
              const binlog::WarningSink& warn)
      : source_(std::move(source)),
        reader_(*source_, options, warn),
        options_(options),
        warn_(warn) {}
  // A stretch read a second time: the format in force is known.
  EventStream(std::unique_ptr<binlog::Source> source, const binlog::ReaderOptions& options,
              const binlog::WarningSink& warn, const binlog::FormatContext& format)
      : source_(std::move(source)),
        reader_(*source_, options, warn, format, false),
        options_(options),
        warn_(warn) {}

  // The next event; its views stay valid until the next call (with an arena: as long as the
  // arena keeps them). Errors of the file's own framing come from the outer reader.
  std::optional<binlog::Event> next(binlog::EventArena* arena) {
    if (inner_) {
      if (std::optional<binlog::Event> iev = inner_->next(arena)) {
        ++inner_index_;
        return iev;
      }
      inner_.reset();
      payload_.reset();
    }
    std::optional<binlog::Event> ev = reader_.next(arena);
    if (ev) {
      if (const auto* tp = std::get_if<binlog::TransactionPayload>(&ev->body)) {
        payload_ = std::make_unique<binlog::PayloadSource>(*tp, ev->pos, source_->name(),
                                                           &payload_scratch_);
        inner_ = std::make_unique<binlog::EventReader>(*payload_, options_, warn_,
                                                       binlog::payload_context(reader_.format()));
        payload_raw_ = ev->raw;
        inner_index_ = 0;
      }
    }
    return ev;
  }
  void seek(std::uint64_t pos) {
    inner_.reset();
    payload_.reset();
    reader_.seek(pos);
  }
  bool in_payload() const { return inner_ != nullptr; }
  // The payload being read has no event left: leaves it (its bytes are not needed any more).
  bool leave_exhausted_payload() {
    if (!inner_ || !payload_->exhausted()) return false;
    inner_.reset();
    payload_.reset();
    return true;
  }
  // While in a payload: the payload event's bytes, and how many of its events were read.
  binlog::Bytes payload_raw() const { return payload_raw_; }
  std::uint64_t inner_index() const { return inner_index_; }
  binlog::EventReader& reader() { return reader_; }
  binlog::Source& source() { return *source_; }

 private:
  std::unique_ptr<binlog::Source> source_;
  binlog::EventReader reader_;
  binlog::ReaderOptions options_;
  binlog::WarningSink warn_;
  binlog::PayloadScratch payload_scratch_;  // (before payload_: it outlives it)
  std::unique_ptr<binlog::PayloadSource> payload_;
  std::unique_ptr<binlog::EventReader> inner_;
  binlog::Bytes payload_raw_;
  std::uint64_t inner_index_ = 0;
};

}  // namespace binrecover::recovery
