#include "binlog/reader.h"

#include <cstdio>
#include <string>

#include "binlog/checksum.h"
#include "binlog/error.h"
#include "binlog/maria_compression.h"

namespace binrecover::binlog {
namespace {

std::string hex32(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

}  // namespace

EventReader::EventReader(Source& source, ReaderOptions options, WarningSink warn)
    : source_(source), options_(options), warn_(std::move(warn)) {}

EventReader::EventReader(Source& source, ReaderOptions options, WarningSink warn,
                         const FormatContext& format, bool payload)
    : source_(source),
      options_(options),
      warn_(std::move(warn)),
      ctx_(format),
      first_(false),
      seen_format_(true),
      inner_(payload) {}

void EventReader::detect_version(const Frame& f) {
  // Byte 4 is the type in every header version. A v1/v3 log starts with START_EVENT_V3; its
  // length tells the 13-byte v1 header (69 bytes) from the 19-byte v3 one (75 bytes).
  const auto type = static_cast<std::uint8_t>(f.raw[4]);
  if (type == static_cast<std::uint8_t>(EventType::kStartV3)) {
    ctx_ = FormatContext::for_version(f.raw.size() == 13 + 56 ? 1 : 3);
  } else {
    ctx_ = FormatContext::for_version(4);
  }
}

void EventReader::verify_crc(const Frame& f, const EventHeader& h) {
  if (f.raw.size() < ctx_.header_length + 4u)
    throw Error(ErrorCode::kBadEvent, "event too short to hold its checksum", f.pos);
  const std::size_t n = f.raw.size() - 4;
  const auto expected = read_le32(f.raw.data() + n);
  const std::byte* p = f.raw.data();
  std::uint32_t actual;
  if (h.type == static_cast<std::uint8_t>(EventType::kFormatDescription) &&
      (h.flags & kLogEventBinlogInUse) && ctx_.header_length >= 19) {
    // The server computes an FDE's checksum before it sets the in-use flag, and clears the
    // flag when it closes the file: verify as if the flag were clear.
    const std::uint8_t flags[2] = {
        static_cast<std::uint8_t>(h.flags & ~kLogEventBinlogInUse & 0xff),
        static_cast<std::uint8_t>(h.flags >> 8)};
    std::uint32_t crc = crc32(0, p, 17);
    crc = crc32(crc, flags, 2);
    actual = crc32(crc, p + 19, n - 19);
  } else {
    actual = crc32(0, p, n);
  }
  if (expected == actual) return;
  std::string msg =
      "checksum mismatch (stored " + hex32(expected) + ", computed " + hex32(actual) + ")";
  if (options_.force_read) {
    if (warn_)
      warn_(source_.name() + ":" + std::to_string(f.pos) + ": " +
            std::string(event_type_name(h.type)) + ": " + msg + "; continuing (--force-read)");
    return;
  }
  throw Error(ErrorCode::kChecksumMismatch, msg, f.pos);
}

std::optional<Event> EventReader::next(EventArena* arena) {
  std::optional<Frame> frame = source_.next_frame();
  if (!frame) return std::nullopt;
  const Frame& f = *frame;
  std::uint8_t type_code = 0;
  try {
    if (first_) {
      detect_version(f);
      first_ = false;
      const EventHeader h0 = parse_header(f.raw, ctx_.header_length, f.pos);
      in_use_ = (h0.flags & kLogEventBinlogInUse) != 0;
    }
    if (f.raw.size() < ctx_.header_length)
      throw Error(ErrorCode::kBadEvent,
                  "event of " + std::to_string(f.raw.size()) + " bytes is shorter than the " +
                      std::to_string(ctx_.header_length) + "-byte header",
                  f.pos);
    EventHeader h = parse_header(f.raw, ctx_.header_length, f.pos);
    h.type = ctx_.event_type(h.type);
    type_code = h.type;
    const auto type = static_cast<EventType>(h.type);
    if (inner_ && (type == EventType::kFormatDescription ||
                   type == EventType::kTransactionPayload || type == EventType::kRotate))
      throw Error(ErrorCode::kBadEvent,
                  std::string(event_type_name(h.type)) + " inside a transaction payload", f.pos);
    if (type == EventType::kFormatDescription) {
      FormatDescription fde = decode_format_description(f.raw, f.pos, ctx_.header_length);
      FormatContext next = fde.context;
      ctx_ = next;  // the FDE's own checksum follows its own algorithm byte
      seen_format_ = true;
      if (ctx_.checksum == ChecksumAlg::kCrc32 && options_.verify_checksum) verify_crc(f, h);
    } else if (ctx_.checksum == ChecksumAlg::kCrc32 && options_.verify_checksum) {
      verify_crc(f, h);
    }
    if (type == EventType::kMariaStartEncryption)
      throw Error(ErrorCode::kUnsupportedFormat,
                  "the binlog is encrypted from here on; decrypting it needs the server's "
                  "encryption key, which binrecover does not have",
                  f.pos);
    if (!is_known_event_type(h.type) && !(h.flags & kLogEventIgnorable)) {
      if (!options_.force_read)
        throw Error(
            ErrorCode::kUnknownEvent,
            "unknown event type " + std::to_string(h.type) + " (use --force-read to skip it)",
            f.pos);
      if (warn_)
        warn_(source_.name() + ":" + std::to_string(f.pos) + ": unknown event type " +
              std::to_string(h.type) + " skipped (--force-read)");
    }
    if (arena == nullptr) {
      scratch_.reset();
      arena = &scratch_;
    }
    const Bytes raw = arena == &scratch_ ? f.raw : arena->copy(f.raw);
    Event ev;
    try {
      ev = decode_event(raw, f.pos, ctx_);
      inflate_compressed_query(ev, *arena);
    } catch (Error& body_error) {
      // The frame is whole (its length, its checksum): a field running past its end is a
      // damaged body, never a file its server had not finished writing (kTruncated).
      Error e = body_error;
      if (e.code() == ErrorCode::kTruncated) {
        e = Error(ErrorCode::kBadEvent, body_error.what());
        if (body_error.has_offset()) e.with_offset(body_error.offset());
      }
      if (!options_.force_read || type == EventType::kFormatDescription) throw e;
      // The frame is sound (length, checksum), its body is not: with --force-read the event is
      // passed on as damaged, and its transaction is left out.
      e.with_file(source_.name());
      e.with_offset(f.pos);
      e.with_event(std::string(event_type_name(h.type)));
      if (warn_) warn_(e.describe() + " (--force-read: its transaction is left out)");
      ev = Event{};
      ev.pos = f.pos;
      ev.header = h;
      ev.raw = raw;
      ev.body = Unknown{};
      ev.damaged = true;
    }
    ev.in_payload = inner_;
    return ev;
  } catch (Error& e) {
    e.with_file(source_.name());
    e.with_offset(f.pos);
    if (!frame->raw.empty()) e.with_event(std::string(event_type_name(type_code)));
    throw;
  }
}

}  // namespace binrecover::binlog
