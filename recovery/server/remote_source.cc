#include "recovery/server/remote_source.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>

#include "binlog/byte_cursor.h"
#include "binlog/error.h"
#include "binlog/event_type.h"
#include "binlog/log_name.h"
#include "binlog/reader.h"
#include "recovery/sql/event_info.h"

namespace binrecover::recovery {

using binrecover::Error;
using binrecover::ErrorCode;

std::vector<RemoteLog> remote_logs(Session& session) {
  std::vector<RemoteLog> out;
  for (const auto& row : session.rows("SHOW BINARY LOGS")) {
    if (row.size() < 2) continue;
    RemoteLog log;
    log.name = row[0];
    binlog::check_log_name(log.name, "the server at " + session.where());
    try {
      log.size = std::stoull(row[1]);
    } catch (...) {
      log.size = 0;
    }
    out.push_back(std::move(log));
  }
  if (out.empty())
    throw Error(ErrorCode::kServer,
                "the server at " + session.where() + " has no binary logs (log-bin is off)");
  out.back().active = true;
  return out;
}

namespace {

// The file a Rotate event names (v4: header, u64 position, the name, the CRC32 when the
// server sends checksums).
std::string rotate_target(binlog::Bytes raw, bool crc) {
  const std::size_t tail = crc ? 4 : 0;
  if (raw.size() < 27 + tail) return {};
  return std::string(reinterpret_cast<const char*>(raw.data()) + 27, raw.size() - 27 - tail);
}

}  // namespace

RemoteSource::RemoteSource(RemoteOptions opts, RemoteLog log)
    : opts_(std::move(opts)), log_(std::move(log)) {}

RemoteSource::~RemoteSource() = default;

void RemoteSource::start(std::uint64_t pos) {
  if (pos > 0xffffffffULL)
    throw Error(ErrorCode::kUsage, "position " + std::to_string(pos) + " of " + log_.name +
                                       " is past 4 GiB, which COM_BINLOG_DUMP cannot ask for");
  session_.reset();
  // A blocking read waits at the end of the logs: the server's heartbeats say it is alive, and
  // two of them missed end the wait (the stream is then made again, or the read fails).
  ConnectionOptions c = opts_.connection;
  if (opts_.blocking && opts_.heartbeat_seconds > 0) c.read_timeout = 2 * opts_.heartbeat_seconds;
  auto s = std::make_unique<Session>(c);
  // The events with their checksums as in the file (a replica that does not say it can take
  // them is refused or sent none), and MariaDB's GTID events as they are (capability 4).
  s->execute("SET @master_binlog_checksum = @@global.binlog_checksum");
  crc_ = s->value("SELECT @@global.binlog_checksum").value_or("NONE") != "NONE";
  try {
    s->execute("SET @source_binlog_checksum = @@global.binlog_checksum");
  } catch (const Error&) {  // MariaDB, and MySQL before 8.0.26
  }
  if (s->mariadb()) s->execute("SET @mariadb_slave_capability = 4");
  if (opts_.heartbeat_seconds > 0) {
    const std::string ns = std::to_string(std::uint64_t{opts_.heartbeat_seconds} * 1000000000ULL);
    s->execute("SET @master_heartbeat_period = " + ns);
    try {
      s->execute("SET @source_heartbeat_period = " + ns);
    } catch (const Error&) {  // MariaDB, and MySQL before 8.0.26
    }
  }
  s->start_binlog_dump(log_.name, static_cast<std::uint32_t>(pos), opts_.server_id,
                       !opts_.blocking);
  session_ = std::move(s);
  named_ = false;
}

bool is_server_error(const Error& e, unsigned code) {
  const std::string what = e.what();
  return what.find("server error " + std::to_string(code) + " ") != std::string::npos ||
         what.find("(error " + std::to_string(code) + ")") != std::string::npos;
}

bool is_permanent_server_error(const Error& e) {
  if (e.code() != ErrorCode::kServer) return true;
  for (unsigned code : {1045U, 1044U, 1227U, 1698U, 1236U, 4052U, 3159U})
    if (is_server_error(e, code)) return true;
  return std::string(e.what()).find("same server_uuid/server_id") != std::string::npos;
}

std::optional<binlog::Frame> RemoteSource::next_frame() {
  if (ended_) return std::nullopt;
  if (!session_) start(next_pos_);
  for (;;) {
    std::optional<binlog::Bytes> p;
    try {
      p = session_->next_binlog_packet();
    } catch (const Error& e) {
      if (!opts_.reconnect || is_permanent_server_error(e)) throw;
      std::string why = e.what();
      for (unsigned& backoff = backoff_;; backoff = std::min(backoff * 2, 30U)) {
        if (opts_.warn)
          opts_.warn(why + ": reconnecting in " + std::to_string(backoff) + " s (" + log_.name +
                     " at " + std::to_string(next_pos_) + ")");
        std::this_thread::sleep_for(std::chrono::seconds(backoff));
        try {
          start(next_pos_);
          backoff = std::min(backoff * 2, 30U);
          break;
        } catch (const Error& again) {
          if (is_permanent_server_error(again)) throw;
          why = again.what();
        }
      }
      continue;
    }
    if (!p) {  // the end of the server's logs: this file is the one being written
      ended_ = true;
      return std::nullopt;
    }
    if (p->size() < 19)
      throw Error(ErrorCode::kServer, "the server sent an event of " + std::to_string(p->size()) +
                                          " bytes while reading " + log_.name);
    binlog::ByteCursor h(*p, 0);
    h.skip(4);
    const auto type = static_cast<binlog::EventType>(h.u8());
    h.skip(4);
    const std::uint32_t size = h.u32le();
    const std::uint32_t log_pos = h.u32le();
    if (size != p->size())
      throw Error(ErrorCode::kServer, "the server sent an event whose length field says " +
                                          std::to_string(size) + " bytes in a packet of " +
                                          std::to_string(p->size()) + " while reading " +
                                          log_.name);
    if (type == binlog::EventType::kRotate && log_pos == 0) {
      // Artificial: the first names this file; a later one, another file, which the server
      // goes on with because this one ended without a Rotate of its own (a server restart).
      const std::string next = rotate_target(*p, crc_);
      binlog::check_log_name(next, "a Rotate event of the server at " + session_->where());
      if (!named_) {
        named_ = true;
        if (next == log_.name) continue;
      }
      if (next == log_.name) continue;
      next_file_ = next;
      if (next_out_) *next_out_ = next_file_;
      ended_ = true;
      return std::nullopt;
    }
    if (log_pos == 0) {
      // Not in the file: heartbeats; the format description when the read starts past it
      // (then it is the file's, handed out once at 4).
      if (type != binlog::EventType::kFormatDescription || fde_sent_) continue;
      fde_sent_ = true;
      if (next_pos_ < 4 + p->size()) next_pos_ = 4 + p->size();
      return binlog::Frame{4, *p};
    }
    if (type == binlog::EventType::kHeartbeat || type == binlog::EventType::kHeartbeatV2) continue;
    if (log_pos < size)
      throw Error(ErrorCode::kServer, "the server sent an event ending at " +
                                          std::to_string(log_pos) + " that is " +
                                          std::to_string(size) + " bytes long, in " + log_.name);
    const std::uint64_t at = log_pos - size;
    if (type == binlog::EventType::kFormatDescription) {
      fde_sent_ = true;
      if (log_.active && at == 4) {
        // The server clears LOG_EVENT_BINLOG_IN_USE_F (0x1) of the file it is writing when it
        // sends the format description; in the file it is set (the checksum is computed with
        // it clear, so it stays valid either way). The file's bytes, as the server has them:
        fde_.assign(p->begin(), p->end());
        fde_[17] |= std::byte{1};
        next_pos_ = at + size;
        return binlog::Frame{at, binlog::Bytes(fde_.data(), fde_.size())};
      }
    }
    if (type == binlog::EventType::kRotate) {  // the file's own: its last event
      ended_ = true;
      next_file_ = rotate_target(*p, crc_);
      binlog::check_log_name(next_file_, "the Rotate event at " + std::to_string(at) + " of " +
                                             log_.name + " from the server at " +
                                             session_->where());
      if (next_out_) *next_out_ = next_file_;
    }
    next_pos_ = at + size;
    backoff_ = 1;  // (an event came: the next loss waits 1 s again)
    return binlog::Frame{at, *p};
  }
}

void RemoteSource::seek(std::uint64_t pos) {
  ended_ = false;
  next_pos_ = pos;
  start(pos);
}

std::string remote_gtids_before(const RemoteOptions& opts, const std::string& file) {
  RemoteOptions o = opts;
  o.blocking = false;
  RemoteSource src(o, RemoteLog{file, 0, false});
  binlog::EventReader reader(src, binlog::ReaderOptions{});
  for (int k = 0; k < 4; ++k) {  // the format description, then Previous_gtids or Gtid_list
    const std::optional<binlog::Event> ev = reader.next();
    if (!ev) break;
    if (const auto* p = std::get_if<binlog::PreviousGtids>(&ev->body)) {
      if (p->data.size() < 8 || binlog::ByteCursor(p->data, 0).u64le() == 0) return {};
      fmt::memory_buffer text;
      append_gtid_set(text, p->data);
      return std::string(text.data(), text.size());
    }
    if (const auto* l = std::get_if<binlog::MariaGtidList>(&ev->body)) {
      fmt::memory_buffer text;
      append_maria_gtid_list(text, *l);
      return std::string(text.data(), text.size());
    }
  }
  return {};
}

}  // namespace binrecover::recovery
