#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "recovery/server/replication_source.h"

namespace binrecover::recovery {

// Thrown when the target's replication connection is lost: the walk starts again once it is
// back (see run_server_applier).
struct Reconnect {
  std::string why;
};

// Writes a little-endian number of `bytes` bytes at `at` in an event being made.
void put_le(std::vector<std::byte>& ev, std::size_t at, std::uint64_t v, int bytes);

// The binlog stream a replica reads from binrecover (--server-applier): stream files named
// binrecover-bin.NNNNNN, each opened by an artificial Rotate naming it and the log's format
// description (checksums on), rotated past 1 GiB (log positions are 32 bits); each event given
// its log position and checksum; heartbeats between transactions. Not thread-safe: its owner
// (the Feed) guards it with its own lock, which the heartbeat thread takes too. Send errors of
// the connection are Reconnect; others (a stop) are thrown as they are.
class ReplicationStream {
 public:
  using Clock = std::chrono::steady_clock;
  ReplicationStream(ReplicationListener& listener, std::uint32_t stream_id,
                    std::function<bool()> stop)
      : listener_(listener), stream_id_(stream_id), stop_(std::move(stop)) {}

  // The log's format description (its raw event), for the stream's own.
  void set_format(std::vector<std::byte> fde) { fde_ = std::move(fde); }
  bool has_format() const { return !fde_.empty(); }
  // A new dump request: the stream goes on in a new file, opened before the next transaction.
  void restart();
  // A transaction is about to go out: the stream file is opened first (or the next one, when
  // this one is past its size).
  void open();
  // `ev` (its checksum room included) out at the stream's next position: log position,
  // checksum, out.
  void emit(std::vector<std::byte>& ev);
  // A heartbeat naming the stream's file and position, and everything sent flushed.
  void heartbeat();
  void flush();

  bool started() const { return started_; }
  Clock::time_point last_send() const { return last_send_; }
  std::uint64_t events() const { return events_; }
  bool connected() { return listener_.connected(); }
  std::uint64_t bytes_sent() { return listener_.bytes_sent(); }

 private:
  void send(const std::vector<std::byte>& ev);
  void start_file();
  void rotate();
  void rotate_event(const std::string& name, std::uint32_t when, std::uint16_t flags);
  void format_event();

  ReplicationListener& listener_;
  std::uint32_t stream_id_;
  std::function<bool()> stop_;
  std::vector<std::byte> fde_;
  std::vector<std::byte> own_;  // the stream's own events (Rotate, format description, heartbeat)
  std::uint32_t file_no_ = 0;
  std::uint64_t pos_ = 4;
  bool started_ = false;
  std::uint64_t events_ = 0;
  Clock::time_point last_send_ = Clock::now();
};

}  // namespace binrecover::recovery
