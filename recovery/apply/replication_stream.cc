#include "recovery/apply/replication_stream.h"

#include <cstdio>
#include <ctime>

#include "binlog/error.h"
#include "binlog/event_edit.h"
#include "binlog/event_type.h"

namespace binrecover::recovery {

namespace {

using binlog::EventType;

constexpr std::uint64_t kFileBytes = std::uint64_t{1} << 30;  // a stream file is rotated past this
constexpr std::uint16_t kArtificial = 0x20;                   // LOG_EVENT_ARTIFICIAL_F

std::string stream_file(std::uint32_t n) {
  char name[32];
  std::snprintf(name, sizeof name, "binrecover-bin.%06u", n);
  return name;
}

}  // namespace

void put_le(std::vector<std::byte>& ev, std::size_t at, std::uint64_t v, int bytes) {
  for (int b = 0; b < bytes; ++b)
    ev[at + static_cast<std::size_t>(b)] = static_cast<std::byte>(v >> (8 * b));
}

void ReplicationStream::restart() {
  ++file_no_;
  pos_ = 4;
  started_ = false;
  last_send_ = Clock::now();
}

void ReplicationStream::open() {
  if (started_ && pos_ <= kFileBytes) return;
  if (!started_)
    start_file();
  else
    rotate();
}

void ReplicationStream::emit(std::vector<std::byte>& ev) {
  const std::uint64_t end = pos_ + ev.size();
  put_le(ev, 13, end & 0xFFFFFFFFu, 4);
  binlog::seal_event(ev, true);
  send(ev);
  pos_ = end;
  ++events_;
}

void ReplicationStream::send(const std::vector<std::byte>& ev) {
  try {
    listener_.send(binlog::Bytes(ev.data(), ev.size()), stop_);
  } catch (const Error& e) {
    if (e.code() == ErrorCode::kServer) throw Reconnect{e.what()};
    throw;
  }
  last_send_ = Clock::now();
}

// A stream file's first events: the artificial Rotate naming it, then the log's format
// description (checksums on, not in use, no start time: not a server restart).
void ReplicationStream::start_file() {
  if (fde_.empty())
    throw Error(ErrorCode::kUsage, "--server-applier: the log's format description is missing");
  rotate_event(stream_file(file_no_), 0, kArtificial);
  put_le(own_, 13, 0, 4);  // (artificial: no position)
  binlog::seal_event(own_, true);
  send(own_);
  format_event();
  emit(own_);
  started_ = true;
}

// The stream goes on in a new file (log positions are 32 bits): the Rotate that ends this one,
// then the next file's format description.
void ReplicationStream::rotate() {
  rotate_event(stream_file(file_no_ + 1), static_cast<std::uint32_t>(std::time(nullptr)), 0);
  emit(own_);
  ++file_no_;
  pos_ = 4;
  format_event();
  emit(own_);
}

// A Rotate event naming `name` (position 4) in own_, room for its checksum left.
void ReplicationStream::rotate_event(const std::string& name, std::uint32_t when,
                                     std::uint16_t flags) {
  own_.assign(27, std::byte{0});
  put_le(own_, 0, when, 4);
  own_[4] = static_cast<std::byte>(EventType::kRotate);
  put_le(own_, 5, stream_id_, 4);
  put_le(own_, 17, flags, 2);
  put_le(own_, 19, 4, 8);
  const auto* n = reinterpret_cast<const std::byte*>(name.data());
  own_.insert(own_.end(), n, n + name.size());
  own_.resize(own_.size() + 4);
}

// The log's format description in own_, as the stream's: checksums on, not in use, no start
// time (not a server restart).
void ReplicationStream::format_event() {
  own_ = fde_;
  put_le(own_, 17, 0, 2);
  put_le(own_, 19 + 2 + 50, 0, 4);       // created
  own_[own_.size() - 5] = std::byte{1};  // CRC32
}

void ReplicationStream::heartbeat() {
  const std::string name = stream_file(file_no_);
  own_.assign(19, std::byte{0});
  own_[4] = static_cast<std::byte>(EventType::kHeartbeat);
  put_le(own_, 5, stream_id_, 4);
  put_le(own_, 13, pos_ & 0xFFFFFFFFu, 4);
  put_le(own_, 17, kArtificial, 2);
  const auto* n = reinterpret_cast<const std::byte*>(name.data());
  own_.insert(own_.end(), n, n + name.size());
  own_.resize(own_.size() + 4);
  binlog::seal_event(own_, true);
  send(own_);
  flush();
}

void ReplicationStream::flush() {
  try {
    listener_.flush(stop_);
  } catch (const Error& e) {
    if (e.code() == ErrorCode::kServer) throw Reconnect{e.what()};
    throw;
  }
}

}  // namespace binrecover::recovery
