#include "recovery/sql/statement_text.h"

#include <algorithm>
#include <string_view>

#include "recovery/reading/temp_file.h"
#include "recovery/text/base64.h"

namespace binrecover::recovery {

StatementText::StatementText() = default;
StatementText::~StatementText() = default;

void StatementText::add(binlog::Bytes raw, bool stable) {
  if (stable) {
    pieces_.push_back(Piece{raw.data(), 0, raw.size()});
  } else {
    pieces_.push_back(Piece{nullptr, copies_.size(), raw.size()});
    copies_.insert(copies_.end(), raw.begin(), raw.end());
  }
  pending_ += base64_text_size(raw.size()) + 1;
}

void StatementText::add_set_aside(binlog::Bytes raw) {
  if (base64_text_size(raw.size()) < kSetAside) {
    add(raw, false);
    set_aside_if_large();
    return;
  }
  // What waits goes first, then the event in whole lines (a multiple of 57 bytes a piece): each
  // piece's "\n" is the line break the text has there, the last one the event's own.
  set_aside_pending();
  constexpr std::size_t kPiece = 57 * 16384;
  for (std::size_t at = 0; at < raw.size(); at += kPiece) {
    scratch_.clear();
    append_base64(scratch_, raw.subspan(at, std::min(kPiece, raw.size() - at)));
    scratch_.push_back('\n');
    set_aside_scratch();
  }
}

void StatementText::set_aside_if_large() {
  if (pending_ >= kSetAside) set_aside_pending();
}

void StatementText::set_aside_pending() {
  scratch_.clear();
  encode_into(scratch_);
  set_aside_scratch();
}

void StatementText::set_aside_scratch() {
  if (scratch_.size() > 0) {
    if (!spill_) spill_ = std::make_unique<TempFile>("the BINLOG text of a statement");
    spill_->append(std::string_view(scratch_.data(), scratch_.size()));
    set_aside_ += scratch_.size();
  }
  pieces_.clear();
  copies_.clear();
  pending_ = 0;
}

void StatementText::encode_into(fmt::memory_buffer& out) const {
  out.reserve(out.size() + pending_);
  for (const Piece& p : pieces_) {
    append_base64(out, bytes(p));
    out.push_back('\n');
  }
}

void StatementText::clear() {
  pieces_.clear();
  copies_.clear();
  pending_ = 0;
  if (spill_) spill_->clear();
  set_aside_ = 0;
}

void StatementText::release() {
  constexpr std::size_t kKeep = std::size_t{16} << 20;
  if (copies_.capacity() > kKeep) std::vector<std::byte>().swap(copies_);
  if (pieces_.capacity() > (kKeep >> 4)) std::vector<Piece>().swap(pieces_);
  if (scratch_.capacity() > kKeep) scratch_ = fmt::memory_buffer();
}

}  // namespace binrecover::recovery
