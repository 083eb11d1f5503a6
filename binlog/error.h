#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace binrecover {

// Every failure binrecover reports. Each code maps to one documented exit status (docs/errors.md,
// cli/main.cc); the numbers below are part of the user interface and never change meaning.
enum class ErrorCode : std::uint8_t {
  kUsage = 1,              // bad option or argument (exit 2)
  kIo = 2,                 // file cannot be opened or read, output cannot be written (exit 3)
  kBadMagic = 3,           // file does not start with the binlog magic (exit 4)
  kTruncated = 4,          // file or event ends before its stated length (exit 4)
  kEventTooLarge = 5,      // event length absurd or past end of file (exit 4)
  kChecksumMismatch = 6,   // CRC32 of an event does not match (exit 4)
  kBadEvent = 7,           // event body inconsistent with its own fields (exit 4)
  kUnknownEvent = 8,       // event type binrecover does not know (exit 4, unless --force-read)
  kUnsupportedFormat = 9,  // a format binrecover cannot read (encryption, ...) (exit 5)
  kMissingTableMap = 10,   // rows event refers to a table id with no table map (exit 4)
  kServer = 11,            // a server refused or failed (exit 6)
  kNotFound = 12,          // a target (--skip-event, --stop-gtid, ...) never met (exit 2)
  kInterrupted = 13,       // stopped by SIGINT or SIGTERM, where it can be resumed (exit 130)
};

// The exit status a given code leads to (documented in docs/errors.md).
int exit_status(ErrorCode code);
std::string_view error_code_name(ErrorCode code);

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, std::string message) : std::runtime_error(message), code_(code) {}
  Error(ErrorCode code, std::string message, std::uint64_t offset)
      : std::runtime_error(message), code_(code), offset_(offset), has_offset_(true) {}

  ErrorCode code() const { return code_; }
  bool has_offset() const { return has_offset_; }
  std::uint64_t offset() const { return offset_; }
  const std::string& file() const { return file_; }
  const std::string& event() const { return event_; }

  // Context is added as the error travels up: the cursor knows the offset, the reader knows the
  // file and the event type.
  Error& with_file(std::string file) {
    if (file_.empty()) file_ = std::move(file);
    return *this;
  }
  Error& with_event(std::string event) {
    if (event_.empty()) event_ = std::move(event);
    return *this;
  }
  Error& with_offset(std::uint64_t offset) {
    if (!has_offset_) {
      offset_ = offset;
      has_offset_ = true;
    }
    return *this;
  }

  // The same error (code and context) with `more` after its message.
  Error extended(const std::string& more) const {
    Error out(code_, std::string(what()) + more);
    out.offset_ = offset_;
    out.has_offset_ = has_offset_;
    out.file_ = file_;
    out.event_ = event_;
    return out;
  }

  // "file:offset: event: message", leaving out what is unknown.
  std::string describe() const;

 private:
  ErrorCode code_;
  std::uint64_t offset_ = 0;
  bool has_offset_ = false;
  std::string file_;
  std::string event_;
};

}  // namespace binrecover
