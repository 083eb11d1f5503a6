#include "binlog/error.h"

namespace binrecover {

int exit_status(ErrorCode code) {
  switch (code) {
    case ErrorCode::kUsage:
    case ErrorCode::kNotFound:
      return 2;
    case ErrorCode::kIo:
      return 3;
    case ErrorCode::kUnsupportedFormat:
      return 5;
    case ErrorCode::kServer:
      return 6;
    case ErrorCode::kInterrupted:
      return 130;
    case ErrorCode::kBadMagic:
    case ErrorCode::kTruncated:
    case ErrorCode::kEventTooLarge:
    case ErrorCode::kChecksumMismatch:
    case ErrorCode::kBadEvent:
    case ErrorCode::kUnknownEvent:
    case ErrorCode::kMissingTableMap:
      return 4;
  }
  return 1;
}

std::string_view error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kUsage:
      return "usage";
    case ErrorCode::kIo:
      return "io";
    case ErrorCode::kBadMagic:
      return "bad-magic";
    case ErrorCode::kTruncated:
      return "truncated";
    case ErrorCode::kEventTooLarge:
      return "event-too-large";
    case ErrorCode::kChecksumMismatch:
      return "checksum-mismatch";
    case ErrorCode::kBadEvent:
      return "bad-event";
    case ErrorCode::kUnknownEvent:
      return "unknown-event";
    case ErrorCode::kUnsupportedFormat:
      return "unsupported-format";
    case ErrorCode::kMissingTableMap:
      return "missing-table-map";
    case ErrorCode::kServer:
      return "server";
    case ErrorCode::kNotFound:
      return "not-found";
    case ErrorCode::kInterrupted:
      return "interrupted";
  }
  return "error";
}

std::string Error::describe() const {
  std::string out;
  if (!file_.empty()) out += file_ + ":";
  if (has_offset_) out += std::to_string(offset_) + ":";
  if (!out.empty()) out += " ";
  if (!event_.empty()) out += event_ + ": ";
  out += what();
  return out;
}

}  // namespace binrecover
