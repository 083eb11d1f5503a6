#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "binlog/byte_cursor.h"

namespace binrecover::recovery {

// binrecover as a replication source: the server side of the MySQL client/server protocol, as
// much of it as a MariaDB replica's I/O thread uses (protocol 10 greeting, a
// mysql_native_password login, the queries it asks when it connects, COM_REGISTER_SLAVE,
// COM_BINLOG_DUMP), so that a target applies a log with its own replication applier (`replay
// --server-applier`). One replica at a time; anyone who does not know the run's password is
// refused. (Layouts: MariaDB's sql/sql_acl.cc send_server_handshake_packet, sql/slave.cc
// get_master_version_and_clock and request_dump, sql/sql_repl.cc; docs/design.md.)

struct ListenerOptions {
  std::string address = "127.0.0.1";  // where to listen: the target connects here
  unsigned port = 0;                  // 0: a free port
  std::string user = "binrecover";
  std::string password;         // what the replica must log in with (made per run)
  std::uint32_t server_id = 0;  // the source's server id, as the replica is told
  std::string server_version = "10.11.99-MariaDB-binrecover";
};

// What a replica asked for when it started its dump.
struct DumpRequest {
  std::uint32_t replica_server_id = 0;
  std::string file;  // COM_BINLOG_DUMP's file and position (positional replication)
  std::uint32_t position = 4;
  // COM_BINLOG_DUMP's flags (MariaDB: 2 = BINLOG_SEND_ANNOTATE_ROWS_EVENT, the replica wants
  // the Annotate_rows events).
  std::uint16_t flags = 0;
  // @slave_connect_state (MariaDB GTID replication): the last GTID of each domain the replica
  // has, "D-S-N,..." ("" : none); nullopt: positional.
  std::optional<std::string> connect_state;
  bool checksums = false;  // the replica asked for the source's checksums: events carry CRC32
  std::uint64_t heartbeat_ns = 0;  // @master_heartbeat_period (0: none)
};

class ReplicationListener {
 public:
  // Listens on opts.address:opts.port. Throws Error(kIo) when it cannot.
  explicit ReplicationListener(ListenerOptions opts);
  ~ReplicationListener();
  ReplicationListener(const ReplicationListener&) = delete;
  ReplicationListener& operator=(const ReplicationListener&) = delete;

  unsigned port() const { return port_; }

  // Waits for a replica (at most `timeout`; `stop` is asked every 100 ms), logs it in and
  // answers its queries up to its dump request. A client that does not give the user and
  // password is refused (error 1045) and the wait goes on. nullopt: the time ran out, or
  // `stop` said so. A connection the replica drops before its dump request is waited past too.
  std::optional<DumpRequest> next_dump(std::chrono::milliseconds timeout,
                                       const std::function<bool()>& stop);

  // One event of the dump (its header, body and checksum as the replica is to get them):
  // gathered, and written out in large pieces. Throws Error(kServer) once the replica has gone
  // (connected() is then false); `stop` is asked while the replica does not take more.
  void send(binlog::Bytes event, const std::function<bool()>& stop);
  // What was gathered, out to the replica.
  void flush(const std::function<bool()>& stop);
  std::size_t pending() const { return out_.size(); }
  bool connected() const { return fd_ >= 0; }
  void disconnect();
  // Bytes of events sent over this listener's life.
  std::uint64_t bytes_sent() const { return bytes_sent_; }

 private:
  bool login(std::chrono::steady_clock::time_point deadline);
  // Clients that connect while a replica is served: answered and sent away.
  void turn_away_others();
  std::optional<DumpRequest> serve_commands(std::chrono::steady_clock::time_point deadline);
  // Reads one whole packet (payload) of the client, with `deadline`; false: closed or timed out.
  bool read_packet(std::vector<std::byte>& payload, std::chrono::steady_clock::time_point deadline);
  void queue_packet(binlog::Bytes payload);
  void write_out(const std::function<bool()>& stop);
  void send_ok();
  void send_error(std::uint16_t code, const char* state, const std::string& message);
  void send_result(const std::vector<std::string>& columns,
                   const std::vector<std::vector<std::optional<std::string>>>& rows);
  void answer_query(const std::string& query, DumpRequest& req);

  ListenerOptions opts_;
  int listen_fd_ = -1;
  int fd_ = -1;  // the replica's connection
  unsigned port_ = 0;
  std::uint8_t seq_ = 0;          // the next packet's sequence number
  std::vector<std::byte> out_;    // packets not yet written
  std::vector<std::byte> in_;     // bytes read and not yet taken
  std::vector<std::byte> event_;  // (scratch: one event's packet payload)
  std::uint64_t bytes_sent_ = 0;
  std::string checksum_ = "";  // @master_binlog_checksum as the replica set it
};

}  // namespace binrecover::recovery
