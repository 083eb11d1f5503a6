#include "recovery/sql/output.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "binlog/error.h"
#include "recovery/reading/temp_file.h"

namespace binrecover::recovery {

Output::Output(int fd, std::string name) : fd_(fd), name_(std::move(name)) {
  buf_.reserve(kInitialReserve);
}

Output::Output(Consumer consumer, std::string name)
    : fd_(-1), name_(std::move(name)), consumer_(std::move(consumer)) {
  buf_.reserve(kInitialReserve);
}

Output::~Output() {
  try {
    flush();
  } catch (...) {  // a destructor must not throw; main() flushes explicitly and reports
  }
}

void Output::write_fd(const char* p, std::size_t left) {
  while (left > 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      failed_ = true;  // what is written from now on may end inside a transaction
      throw Error(ErrorCode::kIo, "write failed: " + std::string(std::strerror(errno)))
          .with_file(name_);
    }
    p += n;
    left -= static_cast<std::size_t>(n);
    written_ += static_cast<std::uint64_t>(n);
  }
}

void Output::unit_checkpoint() {
  if (buf_.size() - unit_mark_ < kFlushSize) return;
  set_aside();
}

void Output::set_aside() {
  if (consumer_) {
    flush();  // whole statements: the server's transaction holds them together
    unit_mark_ = 0;
    return;
  }
  write_fd(buf_.data(), unit_mark_);  // the units before this one are whole
  if (!failed_) whole_ = written_;
  if (!unit_spilled_ || !unit_parts_.back())
    unit_parts_.push_back(std::make_unique<TempFile>("the text of a large transaction"));
  unit_parts_.back()->append(std::string_view(buf_.data() + unit_mark_, buf_.size() - unit_mark_));
  unit_spilled_ = true;
  release_buffer();
  unit_mark_ = 0;
}

// A consumer (replay) gets whole statements only: the text goes through the buffer.
void Output::append_large(std::string_view text) {
  if (!unit_streamed_ || consumer_ || text.size() < kFlushSize / 4) {
    append(text);
    return;
  }
  set_aside();
  unit_parts_.back()->append(text);
}

void Output::append_large(std::unique_ptr<TempFile>& text) {
  if (!text || text->size() == 0) return;
  if (unit_streamed_ && !consumer_) {
    set_aside();
    unit_parts_.push_back(std::move(text));
    unit_parts_.push_back(nullptr);  // text after it starts a new part
    return;
  }
  for (std::uint64_t at = 0; at < text->size();) {
    const std::size_t n =
        static_cast<std::size_t>(std::min<std::uint64_t>(kFlushSize, text->size() - at));
    const std::size_t old = buf_.size();
    buf_.resize(old + n);
    text->read(at, buf_.data() + old, n);
    at += n;
  }
  text->clear();
}

void Output::end_unit() {
  unit_streamed_ = false;
  if (unit_spilled_) {
    for (const auto& part : unit_parts_) {
      if (!part) continue;
      part->copy_to(fd_, name_);
      written_ += part->size();
    }
    unit_parts_.clear();
    unit_spilled_ = false;
  }
  unit_mark_ = buf_.size();
}

void Output::abort_unit() {
  unit_streamed_ = false;
  unit_parts_.clear();
  unit_spilled_ = false;
  if (buf_.size() > unit_mark_) buf_.resize(unit_mark_);
  std::erase_if(statements_, [&](const Statement& s) { return s.end > unit_mark_; });
  statement_start_ = std::min(statement_start_, buf_.size());
}

void Output::release_buffer() {
  buf_.clear();
  // A huge event's text made the buffer huge: give the memory back (no writer holds a pointer
  // into it between units and statements).
  if (buf_.capacity() > kReleaseSize) {
    buf_ = fmt::memory_buffer();
    buf_.reserve(kInitialReserve);
  }
}

void Output::flush() {
  if (consumer_) {
    if (buf_.size() == 0) return;
    const std::string_view text(buf_.data(), buf_.size());
    try {
      consumer_(text, statements_);
    } catch (...) {
      buf_.clear();
      statements_.clear();
      statement_start_ = unit_mark_ = 0;
      throw;
    }
    written_ += buf_.size();
    buf_.clear();
    statements_.clear();
    statement_start_ = unit_mark_ = 0;
    return;
  }
  try {
    write_fd(buf_.data(), buf_.size());
    if (!failed_) whole_ = written_;
  } catch (...) {
    buf_.clear();
    unit_mark_ = 0;
    throw;
  }
  release_buffer();
  unit_mark_ = 0;
}

}  // namespace binrecover::recovery
