// libFuzzer target for the client side of the replication protocol (issue 29, item 6): a
// hostile server. An in-process fake server on 127.0.0.1 (one listening socket for the run, a
// thread per input) serves bytes made from the input to binrecover's real client code:
// recovery::Session (libmariadb's handshake, then SELECT @@max_allowed_packet),
// recovery::remote_logs (SHOW BINARY LOGS), recovery::RemoteSource (its SET and SELECT
// queries, then COM_BINLOG_DUMP: Rotate names, heartbeats, the format description, ERR and EOF
// packets) read through binlog::EventReader, or recovery::remote_gtids_before. Refusals
// (binrecover::Error) are the point; a crash, sanitizer report, leak or hang is a finding.
//
// The server never waits for a command: it sends what the input makes for a connection at once
// (the client reads it as it goes, as from a server that answers fast), then ends its side
// (shutdown) and reads what the client sends until it closes. So an input that stops anywhere
// (an answer cut short, a stream without its end) ends at once: no read timeout is ever waited.
// Only the handshake response of the client is read first (its capability flags say how result
// sets end).
//
// Input: byte 0 the stage (% 3), byte 1 flags, bytes 2-3 a position (little-endian), the rest
// the stage's body.
//   stage 0 (a) the handshake, raw: the body is sent as it is (greeting, auth switch, auth
//     result, with their own packet headers), followed by the valid answers to the queries of
//     Session and remote_logs (one connection).
//   stage 1 (b) a valid handshake; the body is the answers to the queries, in the order
//     binrecover sends them: connection 1 (Session, remote_logs) SELECT @@max_allowed_packet,
//     SHOW BINARY LOGS; connection 2 (RemoteSource) SELECT @@max_allowed_packet, SET
//     @master_binlog_checksum, SELECT @@global.binlog_checksum, SET @source_binlog_checksum,
//     SET @mariadb_slave_capability (MariaDB), SET @master_heartbeat_period and SET
//     @source_heartbeat_period (flag 0x08); then a stream of the artificial Rotate and EOF.
//     Each answer: a kind byte, then
//       kind % 4 == 0  a result set: columns (byte % 5), rows (byte % 8), then each value a
//                      length byte (255: NULL) and that many bytes
//       kind % 4 == 1  an ERR packet: u16 code, a length byte, the message
//       kind % 4 == 2  an OK packet: 0x00 and (length byte) bytes after it
//       kind % 4 == 3  raw packets: a count byte (% 8), each a u16 length and the payload
//     (framed here with the right sequence numbers). Queries past the body get valid answers.
//   stage 2 (c) a valid handshake and valid answers, then the binlog stream from the body, one
//     packet each: a flags byte (0x01: set the event's length field from the packet, 0x02: set
//     its CRC32, 0x04: skip a sequence number), a u16 length, the payload (its first byte the
//     OK 0x00 / EOF 0xfe / ERR 0xff marker), framed here (one connection).
// Flags: 0x01 a MySQL 8.0 server (else MariaDB 10.11), 0x02 binlog_checksum CRC32 (else NONE),
// 0x04 the reader verifies checksums (else --force-read without), 0x08 a blocking read with
// heartbeats every second, 0x10 RemoteSource::seek(position) first, 0x20 remote_gtids_before
// instead of reading events, 0x40 the file is the active one, 0x80 a read timeout of 2 s (else
// 1 s: Session then reports every failed read as a timeout, however fast it failed).
//
// Seeds: tests/fuzz/seeds/remote/ (stage c from testdata/row/mysql-bin.000001's events, with
// heartbeats, a seek, both checksum settings; stage b and a). REMOTE_FUZZ_DEBUG=1 prints what
// the client sent and how each input ended. REMOTE_FUZZ_NO_LOCAL_FILES=1 makes a local file the
// client sends to the server (a LOAD DATA LOCAL request answered) a finding.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "binlog/checksum.h"
#include "binlog/error.h"
#include "binlog/reader.h"
#include "recovery/server/apply.h"
#include "recovery/server/remote_source.h"
#include "tests/fuzz/server_packets.h"

namespace {

using binrecover::Error;
namespace recovery = binrecover::recovery;
namespace binlog = binrecover::binlog;

bool debug = false;
bool no_local_files = false;  // REMOTE_FUZZ_NO_LOCAL_FILES (Conn::check)

using namespace remote_fuzz;

// ---- the server ----

int listen_fd = -1;
unsigned listen_port = 0;
int stop_pipe[2] = {-1, -1};

// One connection: everything is sent at once, then our side is shut, then what the client sends
// is read (and dropped) until it closes. Never blocks without watching the stop pipe.
class Conn {
 public:
  explicit Conn(int fd) : fd_(fd) {}
  ~Conn() { ::close(fd_); }
  Conn(const Conn&) = delete;
  Conn& operator=(const Conn&) = delete;

  bool stopped() const { return stopped_; }

  // The client's next packet (its payload), or false when it closed first (or a stop).
  bool read_packet(std::string& payload) {
    for (;;) {
      if (in_.size() >= 4) {
        const std::size_t n = static_cast<std::uint8_t>(in_[0]) |
                              std::size_t{static_cast<std::uint8_t>(in_[1])} << 8 |
                              std::size_t{static_cast<std::uint8_t>(in_[2])} << 16;
        if (in_.size() >= 4 + n) {
          payload = in_.substr(4, n);
          in_.erase(0, 4 + n);
          return true;
        }
      }
      if (!wait(POLLIN) || !receive()) return false;
    }
  }

  // Sends `data` (reading whatever comes meanwhile); false when the client went away.
  bool send_all(std::string_view data) {
    std::size_t off = 0;
    while (off < data.size()) {
      const short ev = wait(POLLIN | POLLOUT);
      if (ev == 0) return false;
      if ((ev & (POLLIN | POLLHUP | POLLERR)) != 0 && !receive()) return false;
      if ((ev & POLLOUT) != 0) {
        const ssize_t n =
            ::send(fd_, data.data() + off, data.size() - off, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return false;
        if (n > 0) off += static_cast<std::size_t>(n);
      }
    }
    return true;
  }

  // Ends our side and reads until the client closes.
  void finish() {
    ::shutdown(fd_, SHUT_WR);
    while (wait(POLLIN) != 0 && receive()) {
    }
  }

  // What the client sent (after the handshake response, in stages b and c): shown with
  // REMOTE_FUZZ_DEBUG; with REMOTE_FUZZ_NO_LOCAL_FILES, a packet that is not a command (sequence
  // number not 0) and not empty is a local file sent to the server (a LOAD DATA LOCAL request
  // answered), which aborts.
  void check(int conn, bool after_handshake) {
    while (in_.size() >= 4) {
      const std::size_t n = static_cast<std::uint8_t>(in_[0]) |
                            std::size_t{static_cast<std::uint8_t>(in_[1])} << 8 |
                            std::size_t{static_cast<std::uint8_t>(in_[2])} << 16;
      if (in_.size() < 4 + n) break;
      const unsigned seq = static_cast<std::uint8_t>(in_[3]);
      const std::string p = in_.substr(4, n);
      in_.erase(0, 4 + n);
      if (debug) {
        std::string text;
        for (char c : std::string_view(p).substr(p.empty() ? 0 : 1, 80))
          text += c >= 32 && c < 127 ? c : '.';
        std::fprintf(stderr, "remote_fuzz: connection %d: packet %u, command %u, %zu bytes: %s\n",
                     conn, seq, p.empty() ? 256U : static_cast<unsigned char>(p[0]), p.size(),
                     text.c_str());
      }
      if (no_local_files && after_handshake && seq != 0 && !p.empty()) {
        std::fprintf(stderr,
                     "remote_fuzz: the client sent %zu bytes of a local file the server asked "
                     "for (LOAD DATA LOCAL INFILE)\n",
                     p.size());
        std::abort();
      }
    }
  }

 private:
  // Waits for `events` on the socket, or the stop pipe (then 0).
  short wait(short events) {
    for (;;) {
      pollfd p[2] = {{fd_, events, 0}, {stop_pipe[0], POLLIN, 0}};
      const int r = ::poll(p, 2, -1);
      if (r < 0 && errno == EINTR) continue;
      if (r < 0 || (p[1].revents & POLLIN) != 0) {
        stopped_ = true;
        return 0;
      }
      if (p[0].revents != 0) return p[0].revents;
    }
  }
  // Reads what is there; false at the client's end (or an error).
  bool receive() {
    char buf[65536];
    const ssize_t n = ::recv(fd_, buf, sizeof buf, MSG_DONTWAIT);
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
    if (n == 0) return false;
    if (debug || in_.size() < (1U << 20)) in_.append(buf, static_cast<std::size_t>(n));
    return true;
  }

  int fd_;
  bool stopped_ = false;
  std::string in_;
};

struct Script {
  std::uint8_t stage = 0, flags = 0;
  Input body;
  std::string name;  // stage b's stream: the file the client asks for

  // What connection `conn` gets.
  void serve(Conn& c, int conn) {
    if (stage == 0) {
      std::string out = body.take(body.n);
      // libmariadb 3.3 dereferences a null server version when the greeting is an ERR packet
      // with error code 65535 (MariaDB's progress report) and more than 3 bytes: it reads the
      // version (mariadb_connection(): strstr) to decide whether it is one, before it has one.
      // A crash of the library that binrecover cannot avoid (reported with the input in
      // tests/fuzz/regressions-remote/libmariadb-greeting-progress-packet): not that code.
      if (out.size() >= 7 && out.compare(4, 3, "\xff\xff\xff") == 0) out[5] = '\xfe';
      if (conn == 0)
        for (Query q : session_queries()) out += default_answer(q, flags, false);
      c.send_all(out);
      return;
    }
    if (!c.send_all(greeting_packet((flags & kMysql) != 0))) return;
    std::string response;
    if (!c.read_packet(response)) return;
    std::uint32_t caps = 0;
    for (std::size_t k = 0; k < 4 && k < response.size(); ++k)
      caps |= std::uint32_t{static_cast<std::uint8_t>(response[k])} << (8 * k);
    const bool deprecate_eof = (caps & kClientDeprecateEof) != 0;
    std::string out;
    std::uint8_t seq = 2;
    packet(out, seq, ok_payload());
    if (stage == 1) {
      const std::vector<Query> qs = conn == 0 ? session_queries() : source_queries(flags);
      for (Query q : qs)
        out += body.empty() ? default_answer(q, flags, deprecate_eof)
                            : fuzzed_answer(body, deprecate_eof);
      if (conn != 0) out += default_stream(flags, name);
    } else {
      for (Query q : source_queries(flags)) out += default_answer(q, flags, deprecate_eof);
      out += fuzzed_stream(body);
    }
    c.send_all(out);
  }
};

void server_thread(Script* s) {
  for (int conn = 0;; ++conn) {
    pollfd p[2] = {{listen_fd, POLLIN, 0}, {stop_pipe[0], POLLIN, 0}};
    if (::poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      std::abort();
    }
    if ((p[1].revents & POLLIN) != 0) break;
    const int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) continue;
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    Conn c(fd);
    s->serve(c, conn);
    if (!c.stopped()) c.finish();
    if (debug || no_local_files) c.check(conn, s->stage != 0);
    if (c.stopped()) break;
  }
  char b;
  while (::read(stop_pipe[0], &b, 1) < 0 && errno == EINTR) {
  }
  // Connections the client made and gave up on before they were served (none expected).
  for (;;) {
    const int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) break;
    ::close(fd);
  }
}

void setup() {
  std::signal(SIGPIPE, SIG_IGN);
  // An auth plugin that asks (dialog) reads the terminal or standard input: nothing there.
  const int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null >= 0) {
    ::dup2(null, 0);
    ::close(null);
  }
  debug = std::getenv("REMOTE_FUZZ_DEBUG") != nullptr;
  no_local_files = std::getenv("REMOTE_FUZZ_NO_LOCAL_FILES") != nullptr;
  listen_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  const int one = 1;
  ::setsockopt(listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;  // ephemeral
  socklen_t len = sizeof a;
  if (listen_fd < 0 || ::bind(listen_fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::listen(listen_fd, 16) != 0 ||
      ::getsockname(listen_fd, reinterpret_cast<sockaddr*>(&a), &len) != 0 ||
      ::pipe2(stop_pipe, O_CLOEXEC) != 0) {
    std::perror("remote_fuzz: the fake server");
    std::abort();
  }
  listen_port = ntohs(a.sin_port);
}

// ---- the client: binrecover ----

void client(const Script& s, std::uint16_t position) {
  recovery::RemoteOptions ro;
  ro.connection.host = "127.0.0.1";
  ro.connection.port = listen_port;
  ro.connection.user = "fuzz";
  ro.connection.password = "fuzz";
  ro.connection.read_defaults = false;
  // (ro.connection.local_files is not set: every LOAD DATA LOCAL request is refused)
  ro.connection.protocol = recovery::ConnectionOptions::Protocol::kTcp;
  ro.connection.read_timeout = (s.flags & kLongerTimeout) != 0 ? 2 : 1;
  ro.server_id = 4242;
  if ((s.flags & kBlocking) != 0) {
    ro.blocking = true;
    ro.heartbeat_seconds = 1;
  }
  ro.warn = [](const std::string&) {};
  recovery::RemoteLog log{"mysql-bin.000001", 4114, (s.flags & kActive) != 0};
  auto report = [](const char* what, const Error& e) {
    if (debug) std::fprintf(stderr, "remote_fuzz: %s: %s\n", what, e.what());
  };
  if (s.stage != 2) {
    try {
      recovery::Session session(ro.connection);
      const std::vector<recovery::RemoteLog> logs = recovery::remote_logs(session);
      log = logs.back();
      if ((s.flags & kActive) == 0) log = logs.front();
      if (debug)
        std::fprintf(stderr, "remote_fuzz: %zu logs, version %s, max_allowed_packet %llu\n",
                     logs.size(), session.server_version().c_str(),
                     static_cast<unsigned long long>(session.max_allowed_packet()));
    } catch (const Error& e) {
      report("session", e);
      return;
    }
    if (s.stage == 0) return;
  }
  try {
    if ((s.flags & kGtidsBefore) != 0) {
      const std::string gtids = recovery::remote_gtids_before(ro, log.name);
      if (debug) std::fprintf(stderr, "remote_fuzz: gtids before: %s\n", gtids.c_str());
      return;
    }
    recovery::RemoteSource src(ro, log);
    binlog::ReaderOptions opts;
    opts.verify_checksum = (s.flags & kVerify) != 0;
    opts.force_read = !opts.verify_checksum;
    binlog::EventReader reader(src, opts, [](const std::string&) {});
    if ((s.flags & kSeek) != 0) src.seek(position);
    int events = 0;
    while (reader.next()) ++events;
    if (debug)
      std::fprintf(stderr, "remote_fuzz: %d events, next file '%s'\n", events,
                   src.next_file().c_str());
  } catch (const Error& e) {
    report("stream", e);
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setup();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Input in{data, size};
  Script s;
  s.stage = in.u8() % 3;
  s.flags = in.u8();
  const std::uint16_t position = in.u16();
  s.body = in;
  s.name = "mysql-bin.000001";
  std::thread server(server_thread, &s);
  client(s, position);
  const char b = 1;
  while (::write(stop_pipe[1], &b, 1) < 0 && errno == EINTR) {
  }
  server.join();
  return 0;
}
