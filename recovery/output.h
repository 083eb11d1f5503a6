#pragma once

#include <fmt/format.h>

#include <functional>
#include <string>
#include <string_view>

namespace binrecover::recovery {

// All text output goes through one large in-memory buffer written to a file descriptor in big
// chunks. Sinks append whole transactions; flush_if_large() only ever cuts between them, so an
// error never leaves half a transaction behind.
class Output {
 public:
  // Writes to `fd` (not owned). `name` is used in error messages.
  explicit Output(int fd, std::string name = "standard output");
  // Hands the text to `consumer` instead of writing it (replay applies it to a server). Only
  // flush() hands it over, which the owner calls after each whole unit; when the consumer
  // throws, that text is dropped.
  using Consumer = std::function<void(std::string_view)>;
  explicit Output(Consumer consumer, std::string name);
  ~Output();
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;

  // Opens (truncating) a file for --result-file.
  static int open_file(const std::string& path);

  fmt::memory_buffer& buf() { return buf_; }
  void append(std::string_view s) { buf_.append(s.data(), s.data() + s.size()); }
  // Mark that everything up to here is complete; flush if the buffer is large.
  void flush_if_large() {
    if (buf_.size() >= kFlushSize && !consumer_) flush();
  }
  void flush();
  std::uint64_t bytes_written() const { return written_; }

 private:
  static constexpr std::size_t kFlushSize = 1 << 20;
  static constexpr std::size_t kInitialReserve = 64 << 10;  // grows to ~kFlushSize once
  int fd_;
  std::string name_;
  Consumer consumer_;
  fmt::memory_buffer buf_;
  std::uint64_t written_ = 0;
};

}  // namespace binrecover::recovery
