// Fixtures of the reader tests: events built byte by byte, a binlog file under construction,
// a temporary folder, and the ReaderTest fixture (FDE, query, XID with CRC32s).
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <malloc.h>
#include <unistd.h>
#include <zlib.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "binlog/arena.h"
#include "binlog/checksum.h"
#include "binlog/error.h"
#include "binlog/reader.h"
#include "binlog/source.h"
#include "tests/binlog/wire.h"

namespace binrecover::binlog::reader_test {

inline constexpr std::uint32_t kTimestamp = 1700000000;

using fixtures::put_le32;
using fixtures::Wire;

// The 19-byte v4 common header; event_size and log_pos are set by Binlog::add().
inline Wire header(std::uint8_t type, std::uint16_t flags = 0) {
  Wire w;
  w.u32le(kTimestamp)  // timestamp
      .u8(type)        // event type code
      .u32le(1)        // server_id
      .u32le(0)        // event_size (set by add)
      .u32le(0)        // log_pos (set by add)
      .u16le(flags);   // flags
  return w;
}
inline Wire header(EventType t, std::uint16_t flags = 0) {
  return header(static_cast<std::uint8_t>(t), flags);
}

// MariaDB 10.11 format description announcing CRC32 checksums.
inline Wire fde(std::uint16_t flags = 0) {
  std::array<std::uint8_t, 171> lens{};
  auto set = [&lens](EventType t, std::uint8_t n) { lens[static_cast<std::size_t>(t) - 1] = n; };
  set(EventType::kStartV3, 56);
  set(EventType::kQuery, 13);
  set(EventType::kRotate, 8);
  set(EventType::kFormatDescription, 56 + 1 + 171);
  set(EventType::kExecuteLoadQuery, 26);
  set(EventType::kTableMap, 8);
  set(EventType::kWriteRowsV1, 8);
  set(EventType::kMariaGtid, 19);
  Wire w = header(EventType::kFormatDescription, flags);
  w.u16le(4)                                // binlog_version
      .padded("10.11.6-MariaDB-log", 50)    // server_version
      .u32le(kTimestamp)                    // create_timestamp
      .u8(19);                              // common header length
  for (std::uint8_t len : lens) w.u8(len);  // post_header_len[1..171]
  w.u8(1);                                  // checksum_alg: CRC32 (trailer added by add)
  return w;
}

inline Wire query(std::string_view db, std::string_view sql) {
  Wire w = header(EventType::kQuery);
  w.u32le(5)          // thread_id
      .u32le(0)       // exec_time
      .u8(db.size())  // db_len
      .u16le(0)       // error_code
      .u16le(0)       // status_vars_len
      .str(db)        // default database
      .u8(0)          // NUL
      .str(sql);      // query
  return w;
}

inline Wire xid(std::uint64_t id) {
  Wire w = header(EventType::kXid);
  w.u64le(id);  // xid
  return w;
}

// A binlog file under construction: the magic, then events at their real offsets.
class Binlog {
 public:
  Binlog() : bytes_{std::byte{0xfe}, std::byte{0x62}, std::byte{0x69}, std::byte{0x6e}} {}

  // Appends `event` with event_size and log_pos filled in and, with `crc`, the CRC32 trailer
  // computed over the finished event; returns the event's offset.
  std::uint64_t add(Wire event, bool crc = true) {
    std::vector<std::byte>& b = event.bytes();
    const std::uint64_t pos = bytes_.size();
    const std::size_t size = b.size() + (crc ? 4 : 0);
    put_le32(b, 9, size);
    put_le32(b, 13, pos + size);
    if (crc) event.u32le(::crc32(0L, reinterpret_cast<const Bytef*>(b.data()), b.size()));
    bytes_.insert(bytes_.end(), b.begin(), b.end());
    return pos;
  }
  // Raw bytes with no framing at all.
  void append(const std::vector<std::byte>& raw) {
    bytes_.insert(bytes_.end(), raw.begin(), raw.end());
  }
  std::vector<std::byte>& bytes() { return bytes_; }

 private:
  std::vector<std::byte> bytes_;
};

// A header claiming `event_size` bytes, followed by `body` bytes only.
inline std::vector<std::byte> forged_header(std::uint32_t event_size, std::size_t body) {
  Wire w = header(EventType::kQuery);
  put_le32(w.bytes(), 9, event_size);
  w.bytes().resize(w.size() + body, std::byte{'x'});
  return w.bytes();
}

class TempDir {
 public:
  TempDir() {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "binrecover-reader-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string write(const std::string& name, const std::vector<std::byte>& bytes) const {
    const std::filesystem::path p = path_ / name;
    std::ofstream out(p, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
    return p.string();
  }

 private:
  std::filesystem::path path_;
};

// Resident memory of this process, for checks that nothing big was allocated.
inline std::uint64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::uint64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

// Runs `f` and returns the code of the binrecover::Error it throws.
template <typename F>
inline ErrorCode error_code_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.code();
  }
  ADD_FAILURE() << "expected a binrecover::Error";
  return ErrorCode::kUsage;
}

class ReaderTest : public ::testing::Test {
 protected:
  // A file of FDE, query, XID, all with correct CRC32s.
  void SetUp() override {
    fde_pos_ = log_.add(fde());
    query_pos_ = log_.add(query("shop", "INSERT INTO t VALUES (1)"));
    xid_pos_ = log_.add(xid(9));
  }
  std::string write(const std::string& name) { return dir_.write(name, log_.bytes()); }

  TempDir dir_;
  Binlog log_;
  std::uint64_t fde_pos_ = 0, query_pos_ = 0, xid_pos_ = 0;
  std::vector<std::string> warnings_;
  WarningSink sink_ = [this](const std::string& w) { warnings_.push_back(w); };
};

}  // namespace binrecover::binlog::reader_test
