#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "binlog/error.h"
#include "binlog/source.h"
#include "recovery/server/apply.h"

namespace binrecover::recovery {

// A binary log file as its server lists it (SHOW BINARY LOGS).
struct RemoteLog {
  std::string name;
  std::uint64_t size = 0;
  bool active = false;  // the last one: the file the server is writing
};

// The server's binary logs, oldest first. Throws Error(kServer) when it has none (log-bin off)
// or the user may not list them (REPLICATION CLIENT / BINLOG MONITOR).
std::vector<RemoteLog> remote_logs(Session& session);

struct RemoteOptions;
// The GTIDs a server's binlog `file` says were logged before it, as text: MySQL's
// Previous_gtids ("uuid:1-5,uuid2:tag:1-3"), MariaDB's Gtid_list (the last GTID of each domain
// and server: "0-1-42,1-2-7"); "" when it has none.
std::string remote_gtids_before(const RemoteOptions& opts, const std::string& file);

// What a remote read needs besides the file.
struct RemoteOptions {
  ConnectionOptions connection;
  std::uint32_t server_id = 0;  // --connection-server-id
  // Wait at the end of the server's logs for more (archive --stop-never) instead of ending
  // there; the server sends a heartbeat every this many seconds while it has nothing (0: none).
  bool blocking = false;
  unsigned heartbeat_seconds = 0;
  // After a lost connection (the server restarting, the network), connect again with backoff
  // (1 s doubling to 30 s) and go on where the last event ended, saying so through `warn`;
  // errors no retry helps (access, privileges, a purged file, a taken server id) still throw.
  bool reconnect = false;
  std::function<void(const std::string&)> warn;
};

// Whether `e` is the server's error `code` (Session writes "server error N (...)" and
// "(error N)").
bool is_server_error(const Error& e, unsigned code);
// Errors a new connection does not cure: access denied, a missing privilege, a binlog the
// server no longer has (1236), another reader with the same server id.
bool is_permanent_server_error(const Error& e);

// One binary log file of a server, read over the replication protocol (COM_BINLOG_DUMP, as a
// replica reads it) and framed like the file itself: the same events at the same positions,
// with their checksums as the server computed them. What the protocol adds is dropped: the
// artificial Rotate that names the file, heartbeats and other events the server marks as not
// in the file (log_pos 0); the format description the server sends first when the read starts
// past it is handed out at position 4. The stream ends after the file's own Rotate event, or
// where the server's logs end (the file being written). seek() asks the server again, from
// that position.
class RemoteSource : public binlog::Source {
 public:
  RemoteSource(RemoteOptions opts, RemoteLog log);
  ~RemoteSource() override;
  RemoteSource(const RemoteSource&) = delete;
  RemoteSource& operator=(const RemoteSource&) = delete;

  std::optional<binlog::Frame> next_frame() override;
  void seek(std::uint64_t pos) override;
  const std::string& name() const override { return log_.name; }
  std::optional<std::uint64_t> size() const override { return log_.size; }
  // After the end: the file the server goes on with (named by this file's Rotate event, or by
  // the artificial Rotate it sends when this file ended without one, e.g. after a restart);
  // empty at the end of the server's logs.
  const std::string& next_file() const { return next_file_; }
  // Where next_file() is also written when the source ends (it may not outlive its reader).
  void report_next_file_to(std::shared_ptr<std::string> out) { next_out_ = std::move(out); }

 private:
  void start(std::uint64_t pos);

  RemoteOptions opts_;
  RemoteLog log_;
  std::unique_ptr<Session> session_;
  bool fde_sent_ = false;       // the format description was handed out
  std::vector<std::byte> fde_;  // ... with the in-use flag the server clears when it sends it
  bool ended_ = false;          // after the file's Rotate
  std::uint64_t next_pos_ = 4;  // where the last event handed out ends (reconnect resumes there)
  bool named_ = false;          // the artificial Rotate naming this file was read
  // The wait before the next reconnect: doubles (to 30 s) while reconnects bring no event, so
  // a server that accepts connections and then sends nothing is not asked again every second.
  unsigned backoff_ = 1;
  bool crc_ = false;  // the server sends checksums
  std::string next_file_;
  std::shared_ptr<std::string> next_out_;
};

}  // namespace binrecover::recovery
