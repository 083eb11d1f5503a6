// What the fake server of remote_fuzz sends: the input's reader, MySQL protocol packets (OK,
// EOF, ERR, result sets, the handshake greeting), the answers to binrecover's queries and the
// binlog stream, valid or made from the input.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "binlog/checksum.h"

namespace remote_fuzz {

namespace binlog = binrecover::binlog;

enum Flag : std::uint8_t {
  kMysql = 0x01,
  kCrc = 0x02,
  kVerify = 0x04,
  kBlocking = 0x08,
  kSeek = 0x10,
  kGtidsBefore = 0x20,
  kActive = 0x40,
  kLongerTimeout = 0x80,
};

// ---- the input ----

struct Input {
  const std::uint8_t* p = nullptr;
  std::size_t n = 0;
  bool empty() const { return n == 0; }
  std::uint8_t u8() {
    if (n == 0) return 0;
    --n;
    return *p++;
  }
  std::uint16_t u16() {
    const unsigned lo = u8();
    return static_cast<std::uint16_t>(lo | (unsigned{u8()} << 8));
  }
  std::string take(std::size_t k) {
    k = std::min(k, n);
    std::string s(reinterpret_cast<const char*>(p), k);
    p += k;
    n -= k;
    return s;
  }
};

// ---- packets ----

inline void put_u16(std::string& s, unsigned v) {
  s += static_cast<char>(v & 0xff);
  s += static_cast<char>((v >> 8) & 0xff);
}
inline void put_u32(std::string& s, std::uint32_t v) {
  put_u16(s, v & 0xffff);
  put_u16(s, v >> 16);
}

inline void lenenc_int(std::string& s, std::uint64_t v) {
  if (v < 251) {
    s += static_cast<char>(v);
  } else if (v < (1U << 16)) {
    s += '\xfc';
    put_u16(s, static_cast<unsigned>(v));
  } else {
    s += '\xfd';
    s += static_cast<char>(v & 0xff);
    s += static_cast<char>((v >> 8) & 0xff);
    s += static_cast<char>((v >> 16) & 0xff);
  }
}
inline void lenenc_str(std::string& s, std::string_view v) {
  lenenc_int(s, v.size());
  s += v;
}

// Frames `payload` (under 16 MiB) as packet `seq` (incremented).
inline void packet(std::string& out, std::uint8_t& seq, std::string_view payload) {
  const std::size_t n = payload.size();
  out += static_cast<char>(n & 0xff);
  out += static_cast<char>((n >> 8) & 0xff);
  out += static_cast<char>((n >> 16) & 0xff);
  out += static_cast<char>(seq++);
  out += payload;
}

constexpr std::uint32_t kClientDeprecateEof = 1U << 24;
// As tests/integration/hostile_server.py: LONG_PASSWORD, FOUND_ROWS, LONG_FLAG,
// CONNECT_WITH_DB, LOCAL_FILES, PROTOCOL_41, TRANSACTIONS, SECURE_CONNECTION,
// MULTI_STATEMENTS, MULTI_RESULTS, PS_MULTI_RESULTS, PLUGIN_AUTH, CONNECT_ATTRS,
// PLUGIN_AUTH_LENENC_CLIENT_DATA, DEPRECATE_EOF. No TLS, no compression.
constexpr std::uint32_t kServerCaps = 0x1 | 0x2 | 0x4 | 0x8 | 0x80 | 0x200 | 0x2000 | 0x8000 |
                                      1U << 16 | 1U << 17 | 1U << 18 | 1U << 19 | 1U << 20 |
                                      1U << 21 | kClientDeprecateEof;
constexpr unsigned kStatusAutocommit = 2;

inline std::string greeting(bool mysql) {
  std::string g = "\x0a";
  g += mysql ? "8.0.36" : "10.11.6-MariaDB-fuzz";
  g += '\0';
  put_u32(g, 7);  // connection id
  g += "ABCDEFGH";
  g += '\0';
  put_u16(g, kServerCaps & 0xffff);
  g += static_cast<char>(mysql ? 255 : 45);
  put_u16(g, kStatusAutocommit);
  put_u16(g, kServerCaps >> 16);
  g += static_cast<char>(21);
  g.append(10, '\0');
  g += "IJKLMNOPQRST";
  g += '\0';
  g += "mysql_native_password";
  g += '\0';
  return g;
}

// The greeting, which goes with sequence number 0.
inline std::string greeting_packet(bool mysql) {
  std::string out;
  std::uint8_t seq = 0;
  packet(out, seq, greeting(mysql));
  return out;
}

inline std::string ok_payload() {
  std::string p("\x00\x00\x00", 3);
  put_u16(p, kStatusAutocommit);
  put_u16(p, 0);
  return p;
}

inline std::string eof_payload(bool deprecate_eof) {
  std::string p = "\xfe";
  if (deprecate_eof) {  // an OK packet with the EOF header
    p += std::string("\x00\x00", 2);
    put_u16(p, kStatusAutocommit);
    put_u16(p, 0);
  } else {
    put_u16(p, 0);
    put_u16(p, kStatusAutocommit);
  }
  return p;
}

inline std::string err_payload(unsigned code, std::string_view msg) {
  std::string p = "\xff";
  put_u16(p, code);
  p += "#HY000";
  p += msg;
  return p;
}

inline std::string column_def(std::string_view name) {
  std::string c;
  for (std::string_view part : {std::string_view("def"), std::string_view(), std::string_view(),
                                std::string_view(), name, name})
    lenenc_str(c, part);
  c += '\x0c';
  put_u16(c, 45);
  put_u32(c, 1024);
  c += '\xfd';  // VAR_STRING
  put_u16(c, 0);
  c += '\0';
  c += std::string("\0\0", 2);
  return c;
}

// A text result set, packets from sequence number 1.
inline std::string result(const std::vector<std::string>& columns,
                          const std::vector<std::vector<std::optional<std::string>>>& rows,
                          bool deprecate_eof) {
  std::string out;
  std::uint8_t seq = 1;
  std::string head;
  lenenc_int(head, columns.size());
  packet(out, seq, head);
  for (const auto& c : columns) packet(out, seq, column_def(c));
  if (!deprecate_eof) packet(out, seq, eof_payload(false));
  for (const auto& row : rows) {
    std::string r;
    for (const auto& v : row) {
      if (v)
        lenenc_str(r, *v);
      else
        r += '\xfb';
    }
    packet(out, seq, r);
  }
  packet(out, seq, eof_payload(deprecate_eof));
  return out;
}

inline std::string single(std::string_view payload) {
  std::string out;
  std::uint8_t seq = 1;
  packet(out, seq, payload);
  return out;
}

// The queries binrecover sends, in order.
enum class Query : std::uint8_t { kMaxPacket, kShowLogs, kSelectChecksum, kSet };

inline std::vector<Query> session_queries() { return {Query::kMaxPacket, Query::kShowLogs}; }

inline std::vector<Query> source_queries(std::uint8_t flags) {
  std::vector<Query> q = {Query::kMaxPacket, Query::kSet, Query::kSelectChecksum, Query::kSet};
  if ((flags & kMysql) == 0) q.push_back(Query::kSet);  // @mariadb_slave_capability
  if ((flags & kBlocking) != 0) {
    q.push_back(Query::kSet);
    q.push_back(Query::kSet);
  }
  return q;
}

inline std::string default_answer(Query q, std::uint8_t flags, bool deprecate_eof) {
  switch (q) {
    case Query::kMaxPacket:
      return result({"@@max_allowed_packet"}, {{std::string("16777216")}}, deprecate_eof);
    case Query::kShowLogs:
      if ((flags & kMysql) != 0)
        return result({"Log_name", "File_size", "Encrypted"},
                      {{std::string("mysql-bin.000001"), std::string("4114"), std::string("No")}},
                      deprecate_eof);
      return result({"Log_name", "File_size"},
                    {{std::string("mysql-bin.000001"), std::string("4114")}}, deprecate_eof);
    case Query::kSelectChecksum:
      return result({"@@global.binlog_checksum"},
                    {{std::string((flags & kCrc) != 0 ? "CRC32" : "NONE")}}, deprecate_eof);
    case Query::kSet:
      break;
  }
  return single(ok_payload());
}

// Stage b: one answer from the input.
inline std::string fuzzed_answer(Input& in, bool deprecate_eof) {
  const std::uint8_t kind = in.u8();
  switch (kind % 4) {
    case 0: {
      const unsigned ncols = in.u8() % 5, nrows = in.u8() % 8;
      std::vector<std::string> cols;
      for (unsigned k = 0; k < ncols; ++k) cols.push_back("c" + std::to_string(k));
      std::vector<std::vector<std::optional<std::string>>> rows;
      for (unsigned r = 0; r < nrows; ++r) {
        std::vector<std::optional<std::string>> row;
        for (unsigned k = 0; k < ncols; ++k) {
          const std::uint8_t len = in.u8();
          if (len == 255)
            row.emplace_back(std::nullopt);
          else
            row.emplace_back(in.take(len));
        }
        rows.push_back(std::move(row));
      }
      return result(cols, rows, deprecate_eof);
    }
    case 1: {
      const unsigned code = in.u16();
      return single(err_payload(code, in.take(in.u8())));
    }
    case 2:
      return single(std::string(1, '\0') + in.take(in.u8()));
    default: {
      std::string out;
      std::uint8_t seq = 1;
      for (unsigned k = in.u8() % 8; k > 0; --k) {
        std::string payload = in.take(in.u16());
        // libmariadb 3.3 reads a result's column count as a length-encoded integer even past
        // the end of its packet (a first packet of the one byte 0xfe: eight bytes of what the
        // buffer held before), then allocates that count times sizeof(MYSQL_FIELD) before it
        // reads one column: gigabytes asked of malloc, virtual only as the columns never come,
        // but past this fuzzer's malloc limit. The library's, not code binrecover can change
        // (tests/fuzz/regressions-remote/libmariadb-huge-column-count): a 2-byte count here.
        if (seq == 1 && !payload.empty() && (payload[0] == '\xfd' || payload[0] == '\xfe'))
          payload[0] = '\xfc';
        packet(out, seq, payload);
      }
      return out;
    }
  }
}

// A v4 event (with its CRC32 when `crc`).
inline std::string event(std::uint8_t type, std::string_view body, std::uint32_t log_pos,
                         std::uint16_t flags, bool crc) {
  std::string e;
  put_u32(e, 0);
  e += static_cast<char>(type);
  put_u32(e, 1);
  const std::size_t size = 19 + body.size() + (crc ? 4 : 0);
  put_u32(e, static_cast<std::uint32_t>(size));
  put_u32(e, log_pos);
  put_u16(e, flags);
  e += body;
  if (crc) put_u32(e, binlog::crc32(0, e.data(), e.size()));
  return e;
}

// Stage b's stream: the artificial Rotate that names the file, the end of the logs.
inline std::string default_stream(std::uint8_t flags, const std::string& name) {
  std::string body;
  put_u32(body, 4);
  put_u32(body, 0);
  body += name;
  std::string out;
  std::uint8_t seq = 1;
  packet(out, seq, std::string(1, '\0') + event(4, body, 0, 0x20, (flags & kCrc) != 0));
  if ((flags & kBlocking) == 0) packet(out, seq, eof_payload(false));
  return out;
}

// Stage c's stream, from the body.
inline std::string fuzzed_stream(Input& in) {
  std::string out;
  std::uint8_t seq = 1;
  while (!in.empty()) {
    const std::uint8_t pflags = in.u8();
    std::string p = in.take(in.u16());
    if ((pflags & 0x01) != 0 && p.size() >= 1 + 13) {
      const auto n = static_cast<std::uint32_t>(p.size() - 1);
      for (int k = 0; k < 4; ++k) p[1 + 9 + k] = static_cast<char>((n >> (8 * k)) & 0xff);
    }
    if ((pflags & 0x02) != 0 && p.size() >= 1 + 19 + 4) {
      const std::uint32_t c = binlog::crc32(0, p.data() + 1, p.size() - 5);
      for (int k = 0; k < 4; ++k) p[p.size() - 4 + k] = static_cast<char>((c >> (8 * k)) & 0xff);
    }
    if ((pflags & 0x04) != 0) ++seq;
    packet(out, seq, p);
  }
  return out;
}

}  // namespace remote_fuzz
