#include "recovery/server/replication_source.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <ctime>

#include "binlog/error.h"
#include "recovery/libs/crypto_api.h"

namespace binrecover::recovery {

using binrecover::Error;
using binrecover::ErrorCode;

namespace {

// Capability flags (include/mysql_com.h).
constexpr std::uint32_t kLongPassword = 0x1;
constexpr std::uint32_t kLongFlag = 0x4;
constexpr std::uint32_t kConnectWithDb = 0x8;
constexpr std::uint32_t kProtocol41 = 0x200;
constexpr std::uint32_t kSsl = 0x800;
constexpr std::uint32_t kTransactions = 0x2000;
constexpr std::uint32_t kSecureConnection = 0x8000;
constexpr std::uint32_t kPluginAuth = 0x80000;
constexpr std::uint32_t kConnectAttrs = 0x100000;
constexpr std::uint32_t kPluginAuthLenencData = 0x200000;
constexpr std::uint32_t kServerCaps = kLongPassword | kLongFlag | kConnectWithDb | kProtocol41 |
                                      kTransactions | kSecureConnection | kPluginAuth;
constexpr std::uint16_t kStatusAutocommit = 0x0002;
constexpr std::size_t kMaxPacket = 0xFFFFFF;
constexpr std::size_t kWriteAt = std::size_t{256} << 10;  // gathered bytes written out from here
constexpr const char* kNativePassword = "mysql_native_password";

int ms_until(std::chrono::steady_clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                        deadline - std::chrono::steady_clock::now())
                        .count();
  return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 100));
}

void put_u16(std::vector<std::byte>& out, std::uint16_t v) {
  out.push_back(static_cast<std::byte>(v & 0xFF));
  out.push_back(static_cast<std::byte>(v >> 8));
}
void put_u24(std::vector<std::byte>& out, std::uint32_t v) {
  for (int b = 0; b < 3; ++b) out.push_back(static_cast<std::byte>((v >> (8 * b)) & 0xFF));
}
void put_u32(std::vector<std::byte>& out, std::uint32_t v) {
  for (int b = 0; b < 4; ++b) out.push_back(static_cast<std::byte>((v >> (8 * b)) & 0xFF));
}
void put_bytes(std::vector<std::byte>& out, const void* data, std::size_t n) {
  const auto* p = static_cast<const std::byte*>(data);
  out.insert(out.end(), p, p + n);
}
void put_str(std::vector<std::byte>& out, std::string_view s) {
  put_bytes(out, s.data(), s.size());
}
void put_lenenc(std::vector<std::byte>& out, std::uint64_t v) {
  if (v < 251) {
    out.push_back(static_cast<std::byte>(v));
  } else if (v < 0x10000) {
    out.push_back(std::byte{0xFC});
    put_u16(out, static_cast<std::uint16_t>(v));
  } else if (v < 0x1000000) {
    out.push_back(std::byte{0xFD});
    put_u24(out, static_cast<std::uint32_t>(v));
  } else {
    out.push_back(std::byte{0xFE});
    put_u32(out, static_cast<std::uint32_t>(v));
    put_u32(out, static_cast<std::uint32_t>(v >> 32));
  }
}
void put_lenenc_str(std::vector<std::byte>& out, std::string_view s) {
  put_lenenc(out, s.size());
  put_str(out, s);
}

// mysql_native_password: SHA1(password) XOR SHA1(scramble + SHA1(SHA1(password))).
std::vector<std::byte> native_token(const std::string& password, const std::byte* scramble) {
  const libs::CryptoApi& crypto = libs::crypto();
  unsigned char h1[SHA_DIGEST_LENGTH], h2[SHA_DIGEST_LENGTH], h3[SHA_DIGEST_LENGTH];
  crypto.SHA1(reinterpret_cast<const unsigned char*>(password.data()), password.size(), h1);
  crypto.SHA1(h1, sizeof h1, h2);
  unsigned char mix[20 + SHA_DIGEST_LENGTH];
  std::memcpy(mix, scramble, 20);
  std::memcpy(mix + 20, h2, sizeof h2);
  crypto.SHA1(mix, sizeof mix, h3);
  std::vector<std::byte> token(SHA_DIGEST_LENGTH);
  for (std::size_t i = 0; i < token.size(); ++i) token[i] = static_cast<std::byte>(h1[i] ^ h3[i]);
  return token;
}

bool same_token(const std::vector<std::byte>& a, binlog::Bytes b) {
  if (a.size() != b.size()) return false;
  unsigned diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned>(a[i] ^ b[i]);
  return diff == 0;
}

std::string upper(std::string_view s) {
  std::string u(s);
  for (char& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return u;
}

std::string trimmed(std::string_view s) {
  while (!s.empty() && (std::isspace(static_cast<unsigned char>(s.front())) || s.front() == ';'))
    s.remove_prefix(1);
  while (!s.empty() && (std::isspace(static_cast<unsigned char>(s.back())) || s.back() == ';'))
    s.remove_suffix(1);
  return std::string(s);
}

// The assignments of a SET statement: (lower-case name, value with quotes taken off).
std::vector<std::pair<std::string, std::string>> set_assignments(std::string_view sql) {
  std::vector<std::pair<std::string, std::string>> out;
  std::string_view rest = sql.substr(3);  // after SET
  while (!rest.empty()) {
    // Up to the next comma outside quotes.
    std::size_t i = 0;
    char quote = 0;
    for (; i < rest.size(); ++i) {
      const char c = rest[i];
      if (quote) {
        if (c == quote) quote = 0;
      } else if (c == '\'' || c == '"') {
        quote = c;
      } else if (c == ',') {
        break;
      }
    }
    const std::string part = trimmed(rest.substr(0, i));
    rest = i < rest.size() ? rest.substr(i + 1) : std::string_view{};
    const auto eq = part.find('=');
    if (eq == std::string::npos) {
      out.emplace_back(upper(part), std::string());
      continue;
    }
    std::string name = trimmed(std::string_view(part).substr(0, eq));
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string value = trimmed(std::string_view(part).substr(eq + 1));
    if (value.size() >= 2 && (value.front() == '\'' || value.front() == '"') &&
        value.back() == value.front()) {
      const char q = value.front();
      std::string v;
      for (std::size_t k = 1; k + 1 < value.size(); ++k) {
        v.push_back(value[k]);
        if (value[k] == q && k + 2 < value.size() && value[k + 1] == q) ++k;
      }
      value = v;
    }
    out.emplace_back(name, value);
  }
  return out;
}

[[noreturn]] void io_fail(const std::string& what) {
  throw Error(ErrorCode::kIo, what + ": " + std::strerror(errno));
}

}  // namespace

ReplicationListener::ReplicationListener(ListenerOptions opts) : opts_(std::move(opts)) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(opts_.port);
  const int rc = ::getaddrinfo(opts_.address.c_str(), service.c_str(), &hints, &found);
  if (rc != 0)
    throw Error(ErrorCode::kUsage,
                "cannot listen on " + opts_.address + ": " + std::string(::gai_strerror(rc)));
  std::string why = "no address";
  for (addrinfo* a = found; a != nullptr && listen_fd_ < 0; a = a->ai_next) {
    const int fd =
        ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0) continue;
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, 4) != 0) {
      why = std::strerror(errno);
      ::close(fd);
      continue;
    }
    listen_fd_ = fd;
  }
  ::freeaddrinfo(found);
  if (listen_fd_ < 0)
    throw Error(ErrorCode::kIo,
                "cannot listen on " + opts_.address + " port " + service + ": " + why);
  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  if (::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&bound), &len) != 0)
    io_fail("cannot read the listening port");
  port_ = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                            : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  out_.reserve(kWriteAt + (std::size_t{64} << 10));
}

ReplicationListener::~ReplicationListener() {
  disconnect();
  if (listen_fd_ >= 0) ::close(listen_fd_);
}

void ReplicationListener::disconnect() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  out_.clear();
  in_.clear();
}

std::optional<DumpRequest> ReplicationListener::next_dump(std::chrono::milliseconds timeout,
                                                          const std::function<bool()>& stop) {
  disconnect();
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (stop && stop()) return std::nullopt;
    pollfd p{listen_fd_, POLLIN, 0};
    if (::poll(&p, 1, ms_until(deadline)) <= 0) continue;
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) continue;
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    fd_ = fd;
    try {
      // A client has a few seconds to log in and ask for its dump.
      const auto by =
          std::min(deadline, std::chrono::steady_clock::now() + std::chrono::seconds(30));
      if (login(by))
        if (auto req = serve_commands(by)) return req;
    } catch (const Error&) {  // (a client that went away mid-login)
    }
    disconnect();
  }
  return std::nullopt;
}

bool ReplicationListener::read_packet(std::vector<std::byte>& payload,
                                      std::chrono::steady_clock::time_point deadline) {
  payload.clear();
  for (;;) {
    while (in_.size() >= 4) {
      const std::size_t len = static_cast<std::size_t>(in_[0]) |
                              (static_cast<std::size_t>(in_[1]) << 8) |
                              (static_cast<std::size_t>(in_[2]) << 16);
      if (in_.size() < 4 + len) break;
      seq_ = static_cast<std::uint8_t>(static_cast<std::uint8_t>(in_[3]) + 1);
      payload.insert(payload.end(), in_.begin() + 4, in_.begin() + 4 + static_cast<long>(len));
      in_.erase(in_.begin(), in_.begin() + 4 + static_cast<long>(len));
      if (len < kMaxPacket) return true;
      if (payload.size() > (std::size_t{1} << 26)) return false;  // (no client command is this big)
    }
    if (std::chrono::steady_clock::now() >= deadline) return false;
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, ms_until(deadline)) <= 0) continue;
    std::byte buf[4096];
    const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n == 0) return false;
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      return false;
    }
    in_.insert(in_.end(), buf, buf + n);
  }
}

void ReplicationListener::queue_packet(binlog::Bytes payload) {
  std::size_t at = 0;
  for (;;) {
    const std::size_t n = std::min(payload.size() - at, kMaxPacket);
    put_u24(out_, static_cast<std::uint32_t>(n));
    out_.push_back(static_cast<std::byte>(seq_++));
    out_.insert(out_.end(), payload.begin() + static_cast<long>(at),
                payload.begin() + static_cast<long>(at + n));
    at += n;
    if (n < kMaxPacket) break;  // (a piece of exactly the maximum is followed by an empty one)
  }
}

void ReplicationListener::write_out(const std::function<bool()>& stop) {
  std::size_t at = 0;
  while (at < out_.size()) {
    if (fd_ < 0) throw Error(ErrorCode::kServer, "the target's replication connection is closed");
    pollfd p{fd_, POLLOUT, 0};
    const int ready = ::poll(&p, 1, 200);
    if (ready == 0) {
      if (stop && stop())
        throw Error(ErrorCode::kInterrupted, "stopped while the target took no more events");
      continue;
    }
    if (ready < 0) {
      if (errno == EINTR) continue;
      io_fail("poll");
    }
    if ((p.revents & (POLLERR | POLLHUP)) != 0 && (p.revents & POLLOUT) == 0) {
      disconnect();
      throw Error(ErrorCode::kServer, "the target closed its replication connection");
    }
    const ssize_t n = ::send(fd_, out_.data() + at, out_.size() - at, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      const std::string why = std::strerror(errno);
      disconnect();
      throw Error(ErrorCode::kServer, "the target's replication connection failed: " + why);
    }
    at += static_cast<std::size_t>(n);
  }
  out_.clear();
}

void ReplicationListener::send_ok() {
  std::vector<std::byte> p{std::byte{0}, std::byte{0}, std::byte{0}};  // OK, 0 rows, insert id 0
  put_u16(p, kStatusAutocommit);
  put_u16(p, 0);  // warnings
  queue_packet(p);
}

void ReplicationListener::send_error(std::uint16_t code, const char* state,
                                     const std::string& message) {
  std::vector<std::byte> p{std::byte{0xFF}};
  put_u16(p, code);
  p.push_back(std::byte{'#'});
  put_str(p, std::string_view(state, 5));
  put_str(p, message);
  queue_packet(p);
}

void ReplicationListener::send_result(
    const std::vector<std::string>& columns,
    const std::vector<std::vector<std::optional<std::string>>>& rows) {
  std::vector<std::byte> p;
  put_lenenc(p, columns.size());
  queue_packet(p);
  for (const auto& name : columns) {
    p.clear();
    for (std::string_view s : {std::string_view("def"), std::string_view(), std::string_view(),
                               std::string_view(), std::string_view(name), std::string_view()})
      put_lenenc_str(p, s);
    p.push_back(std::byte{0x0C});
    put_u16(p, 33);                // utf8_general_ci
    put_u32(p, 1024);              // display length
    p.push_back(std::byte{0xFD});  // VAR_STRING
    put_u16(p, 0);                 // flags
    p.push_back(std::byte{0});     // decimals
    put_u16(p, 0);
    queue_packet(p);
  }
  const auto eof = [&] {
    p.assign({std::byte{0xFE}, std::byte{0}, std::byte{0}});
    put_u16(p, kStatusAutocommit);
    queue_packet(p);
  };
  eof();
  for (const auto& row : rows) {
    p.clear();
    for (const auto& v : row) {
      if (v)
        put_lenenc_str(p, *v);
      else
        p.push_back(std::byte{0xFB});
    }
    queue_packet(p);
  }
  eof();
}

bool ReplicationListener::login(std::chrono::steady_clock::time_point deadline) {
  std::byte scramble[20];
  if (::getrandom(scramble, sizeof scramble, 0) != static_cast<ssize_t>(sizeof scramble))
    io_fail("getrandom");
  for (std::byte& b : scramble)  // printable and never NUL, as servers make them
    b = static_cast<std::byte>(33 + static_cast<unsigned>(b) % 94);
  std::vector<std::byte> g{std::byte{10}};
  put_str(g, opts_.server_version);
  g.push_back(std::byte{0});
  put_u32(g, 1);  // connection id
  put_bytes(g, scramble, 8);
  g.push_back(std::byte{0});
  put_u16(g, static_cast<std::uint16_t>(kServerCaps & 0xFFFF));
  g.push_back(std::byte{33});  // utf8_general_ci
  put_u16(g, kStatusAutocommit);
  put_u16(g, static_cast<std::uint16_t>(kServerCaps >> 16));
  g.push_back(std::byte{21});  // the scramble's length with its NUL
  g.insert(g.end(), 10, std::byte{0});
  put_bytes(g, scramble + 8, 12);
  g.push_back(std::byte{0});
  put_str(g, kNativePassword);
  g.push_back(std::byte{0});
  seq_ = 0;
  queue_packet(g);
  write_out({});

  std::vector<std::byte> r;
  if (!read_packet(r, deadline) || r.size() < 32) return false;
  binlog::ByteCursor c(r, 0);
  const std::uint32_t flags = c.u32le();
  if ((flags & kProtocol41) == 0 || (flags & kSsl) != 0) {
    send_error(1043, "08S01", "binrecover's replication source speaks protocol 4.1, no TLS");
    write_out({});
    return false;
  }
  c.skip(4 + 1 + 23);  // max packet, charset, filler
  std::string user;
  while (c.remaining() > 0) {
    const auto ch = static_cast<char>(c.u8());
    if (ch == '\0') break;
    user.push_back(ch);
  }
  binlog::Bytes token;
  if (flags & kPluginAuthLenencData)
    token = c.bytes(static_cast<std::size_t>(c.packed_int()));
  else if (flags & kSecureConnection)
    token = c.bytes(c.u8());
  if (flags & kConnectWithDb)
    while (c.remaining() > 0 && c.u8() != 0) {
    }
  std::string plugin;
  if (flags & kPluginAuth)
    while (c.remaining() > 0) {
      const auto ch = static_cast<char>(c.u8());
      if (ch == '\0') break;
      plugin.push_back(ch);
    }
  (void)kConnectAttrs;  // (attributes, if any, follow: not needed)
  std::vector<std::byte> switched;
  if (!plugin.empty() && plugin != kNativePassword) {
    // The client meant another method: ask for mysql_native_password with the same scramble.
    std::vector<std::byte> sw{std::byte{0xFE}};
    put_str(sw, kNativePassword);
    sw.push_back(std::byte{0});
    put_bytes(sw, scramble, sizeof scramble);
    sw.push_back(std::byte{0});
    queue_packet(sw);
    write_out({});
    if (!read_packet(switched, deadline)) return false;
    token = binlog::Bytes(switched.data(), switched.size());
  }
  if (user != opts_.user || !same_token(native_token(opts_.password, scramble), token)) {
    send_error(1045, "28000", "Access denied for user '" + user + "'");
    write_out({});
    return false;
  }
  send_ok();
  write_out({});
  return true;
}

void ReplicationListener::answer_query(const std::string& query, DumpRequest& req) {
  const std::string q = trimmed(query);
  const std::string u = upper(q);
  const auto one = [&](const std::string& column, std::optional<std::string> value) {
    send_result({column}, {{std::move(value)}});
  };
  if (u == "SELECT UNIX_TIMESTAMP()") {
    one("UNIX_TIMESTAMP()", std::to_string(std::time(nullptr)));
  } else if (u == "SHOW VARIABLES LIKE 'SERVER_ID'") {
    send_result({"Variable_name", "Value"}, {{"server_id", std::to_string(opts_.server_id)}});
  } else if (u == "SELECT @@GLOBAL.SERVER_ID") {
    one("@@GLOBAL.SERVER_ID", std::to_string(opts_.server_id));
  } else if (u.rfind("SET ", 0) == 0) {
    for (const auto& [name, value] : set_assignments(q)) {
      if (name == "@master_heartbeat_period" || name == "@source_heartbeat_period") {
        req.heartbeat_ns = std::strtoull(value.c_str(), nullptr, 10);
      } else if (name == "@master_binlog_checksum" || name == "@source_binlog_checksum") {
        // "= @@global.binlog_checksum": what this source writes, CRC32.
        checksum_ = upper(value).find("BINLOG_CHECKSUM") != std::string::npos ? "CRC32" : value;
        req.checksums = upper(checksum_) == "CRC32";
      } else if (name == "@slave_connect_state") {
        req.connect_state = value;
      }
    }
    send_ok();
  } else if (u == "SELECT @MASTER_BINLOG_CHECKSUM" || u == "SELECT @SOURCE_BINLOG_CHECKSUM") {
    one(q.substr(7), checksum_.empty() ? std::nullopt : std::optional<std::string>(checksum_));
  } else if (u == "SELECT @@GLOBAL.GTID_DOMAIN_ID") {
    one("@@GLOBAL.gtid_domain_id", "0");
  } else if (u.rfind("SELECT BINLOG_GTID_POS(", 0) == 0) {
    one(q.substr(7), std::nullopt);
  } else if (u.rfind("SHOW VARIABLES LIKE ", 0) == 0) {
    send_result({"Variable_name", "Value"}, {});
  } else if (u == "SELECT VERSION()" || u == "SELECT @@VERSION") {
    one(q.substr(7), opts_.server_version);
  } else {
    send_error(1064, "42000", "binrecover's replication source does not answer this: " + q);
  }
}

std::optional<DumpRequest> ReplicationListener::serve_commands(
    std::chrono::steady_clock::time_point deadline) {
  DumpRequest req;
  std::vector<std::byte> p;
  while (read_packet(p, deadline)) {
    if (p.empty()) return std::nullopt;
    const auto cmd = static_cast<std::uint8_t>(p[0]);
    switch (cmd) {
      case 0x01:  // COM_QUIT
        return std::nullopt;
      case 0x03:  // COM_QUERY
        answer_query(std::string(reinterpret_cast<const char*>(p.data()) + 1, p.size() - 1), req);
        break;
      case 0x0E:  // COM_PING
      case 0x15:  // COM_REGISTER_SLAVE
        send_ok();
        break;
      case 0x12: {  // COM_BINLOG_DUMP: u32 pos / u16 flags / u32 server id / file name
        if (p.size() < 11) return std::nullopt;
        binlog::ByteCursor c(p, 0);
        c.skip(1);
        req.position = c.u32le();
        req.flags = c.u16le();
        req.replica_server_id = c.u32le();
        req.file.assign(reinterpret_cast<const char*>(p.data()) + 11, p.size() - 11);
        return req;  // (the events follow: no answer of its own)
      }
      default:
        send_error(1047, "08S01",
                   "binrecover's replication source does not take command " + std::to_string(cmd));
        break;
    }
    write_out({});
  }
  return std::nullopt;
}

void ReplicationListener::send(binlog::Bytes event, const std::function<bool()>& stop) {
  if (fd_ < 0) throw Error(ErrorCode::kServer, "the target's replication connection is closed");
  const std::size_t total = event.size() + 1;  // the OK byte before each event
  if (total < kMaxPacket) {
    put_u24(out_, static_cast<std::uint32_t>(total));
    out_.push_back(static_cast<std::byte>(seq_++));
    out_.push_back(std::byte{0});
    out_.insert(out_.end(), event.begin(), event.end());
  } else {
    event_.clear();
    event_.push_back(std::byte{0});
    event_.insert(event_.end(), event.begin(), event.end());
    queue_packet(event_);
    event_.clear();
    event_.shrink_to_fit();
  }
  bytes_sent_ += event.size();
  if (out_.size() >= kWriteAt) write_out(stop);
}

void ReplicationListener::flush(const std::function<bool()>& stop) {
  if (!out_.empty()) write_out(stop);
  turn_away_others();
}

void ReplicationListener::turn_away_others() {
  for (;;) {
    int other = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (other < 0) return;
    // The stream's state aside while the newcomer is answered: a client that does not log in
    // is refused as any other (1045); one that does is told the source is taken (1040).
    std::swap(other, fd_);
    std::vector<std::byte> out, in;
    std::swap(out, out_);
    std::swap(in, in_);
    const std::uint8_t seq = seq_;
    try {
      if (login(std::chrono::steady_clock::now() + std::chrono::seconds(2))) {
        send_error(1040, "08004", "binrecover's replication source serves one replica at a time");
        write_out({});
      }
    } catch (const Error&) {
    }
    if (fd_ >= 0) ::close(fd_);
    fd_ = other;
    out_ = std::move(out);
    in_ = std::move(in);
    seq_ = seq;
  }
}

}  // namespace binrecover::recovery
