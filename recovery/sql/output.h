#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace binrecover::recovery {

class TempFile;

// All text output goes through one large in-memory buffer written to a file descriptor in big
// chunks. Sinks append whole transactions; flush_if_large() only ever cuts between them, so an
// error never leaves half a transaction behind.
class Output {
 public:
  // Writes to `fd` (not owned). `name` is used in error messages.
  explicit Output(int fd, std::string name = "standard output");
  // One statement in the text handed to a consumer, as the writer marked it (no lexing):
  // text[begin, end) without its delimiter; a client command (`\C charset`) or SQL; the event
  // it was written for.
  struct Statement {
    enum class Kind : std::uint8_t { kSql, kCharset };
    std::size_t begin = 0, end = 0;
    Kind kind = Kind::kSql;
    std::optional<std::uint64_t> at;  // the event's position
    std::uint8_t event_type = 0;      // and type (0: none)
    // A statement's text as the log has it (a query event's), not one binrecover wrote: the
    // applier never lets the server read anything of its own after it in one packet.
    bool verbatim = false;
  };
  // Hands the text to `consumer` with its statements instead of writing it (replay applies them
  // to a server). Only flush() hands it over, which the owner calls after each whole unit (or
  // between statements of a large one); when the consumer throws, that text is dropped.
  using Consumer = std::function<void(std::string_view, const std::vector<Statement>&)>;
  explicit Output(Consumer consumer, std::string name);
  bool has_consumer() const { return static_cast<bool>(consumer_); }
  // The writer's marks (with a consumer): the statement written since the last mark ends at
  // `end` (before its delimiter) of the buffer, and the next one starts at `next` (after it).
  void statement(std::size_t end, std::size_t next, Statement::Kind kind,
                 std::optional<std::uint64_t> at, std::uint8_t event_type, bool verbatim = false) {
    statements_.push_back({statement_start_, end, kind, at, event_type, verbatim});
    statement_start_ = next;
  }
  ~Output();
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;

  fmt::memory_buffer& buf() { return buf_; }
  void append(std::string_view s) { buf_.append(s.data(), s.data() + s.size()); }
  // Mark that everything up to here is complete; flush if the buffer is large.
  void flush_if_large() {
    if (buf_.size() >= kFlushSize && !consumer_) flush();
  }
  void flush();
  std::uint64_t bytes_written() const { return written_; }
  // How much of what was written ends at a whole transaction (what a torn write is cut back to).
  std::uint64_t whole_bytes() const { return whole_; }

  // The text of one unit (a transaction) too large for memory: between begin_unit() and
  // end_unit() it may be set aside in a temporary file (unit_checkpoint(), between statements),
  // and is written only once whole; abort_unit() takes all of it back. With a consumer (replay)
  // the statements are handed over as they come instead; the server's transaction makes them
  // whole.
  void begin_unit(bool streamed = false) {
    unit_mark_ = buf_.size();
    unit_streamed_ = streamed;
  }
  void unit_checkpoint();
  void end_unit();
  void abort_unit();
  // Text that may be large (a BINLOG statement): in a streamed unit it goes to the set-aside
  // text at once instead of through the buffer; else it is appended.
  void append_large(std::string_view text);
  // The same for text waiting in a temporary file: in a streamed unit the file itself becomes
  // part of the set-aside text (`text` is left empty); else its bytes are appended.
  void append_large(std::unique_ptr<TempFile>& text);

 private:
  static constexpr std::size_t kFlushSize = 1 << 20;
  static constexpr std::size_t kInitialReserve = 64 << 10;  // grows to ~kFlushSize once
  // Larger: freed once written. Above what a transaction held in memory (--transaction-memory,
  // 8 MiB of events by default) makes as text, so a log of such transactions reuses the buffer
  // instead of faulting it in again for each one.
  static constexpr std::size_t kReleaseSize = 24 << 20;
  int fd_;
  std::string name_;
  Consumer consumer_;
  fmt::memory_buffer buf_;
  std::uint64_t written_ = 0;
  std::uint64_t whole_ = 0;
  bool failed_ = false;                // a write failed: whole_ stays where it was
  std::size_t unit_mark_ = 0;          // where the open unit's text starts in buf_
  std::vector<Statement> statements_;  // marked in buf_ (with a consumer)
  std::size_t statement_start_ = 0;
  // What of it was set aside, in order: text written here, and files handed over.
  std::vector<std::unique_ptr<TempFile>> unit_parts_;
  bool unit_spilled_ = false;
  bool unit_streamed_ = false;
  void set_aside();
  void release_buffer();
  void write_fd(const char* p, std::size_t n);
};

}  // namespace binrecover::recovery
