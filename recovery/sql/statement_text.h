#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "binlog/byte_cursor.h"

namespace binrecover::recovery {

class TempFile;

// The base64 text of the BINLOG statement being assembled (recovery/sql/binlog_statement.cc),
// encoded once, straight into the output, when the statement is written: the event comments
// come first there, so encoding each event as it came meant a buffer of text copied into the
// output afterwards. Until then the events' bytes are kept where they are when they outlive
// the statement (a held transaction's events), else copied (a rewritten event, a streamed
// transaction's). In a transaction written only once whole (streamed), the text past 1 MiB is
// encoded into a temporary file, so memory stays flat in statement size.
class StatementText {
 public:
  StatementText();
  ~StatementText();
  StatementText(const StatementText&) = delete;
  StatementText& operator=(const StatementText&) = delete;

  // One event: its base64 and a "\n". `stable`: `raw` stays valid until the statement is
  // written (it is not copied).
  void add(binlog::Bytes raw, bool stable);
  // The characters of text so far (set aside included).
  std::uint64_t size() const { return set_aside_ + pending_; }
  bool empty() const { return size() == 0; }
  // In a streamed transaction (the event's bytes are gone after the call): added, and the text
  // waiting in memory goes to the temporary file once it is 1 MiB or more; an event that large
  // on its own is encoded into the file piece by piece, never copied whole.
  void add_set_aside(binlog::Bytes raw);
  void set_aside_if_large();
  // The text set aside (null or empty when none): the output takes it over.
  std::unique_ptr<TempFile>& set_aside_text() { return spill_; }
  // Encodes the text not set aside at the end of `out` (one reservation).
  void encode_into(fmt::memory_buffer& out) const;
  void clear();
  // Between transactions: memory a huge statement needed is given back.
  void release();

 private:
  static constexpr std::size_t kSetAside = std::size_t{1} << 20;
  struct Piece {
    const std::byte* at;  // null: `size` bytes at `offset` of copies_
    std::size_t offset;
    std::size_t size;
  };
  binlog::Bytes bytes(const Piece& p) const {
    return {p.at != nullptr ? p.at : copies_.data() + p.offset, p.size};
  }
  std::vector<Piece> pieces_;
  std::vector<std::byte> copies_;
  std::uint64_t pending_ = 0;    // text of pieces_
  std::uint64_t set_aside_ = 0;  // text in spill_
  std::unique_ptr<TempFile> spill_;
  fmt::memory_buffer scratch_;  // text on its way to spill_
  void set_aside_scratch();     // scratch_ to the end of spill_
  void set_aside_pending();     // the pieces' text to the end of spill_
};

}  // namespace binrecover::recovery
