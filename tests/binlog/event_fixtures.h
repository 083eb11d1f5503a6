#pragma once

// The events_test fixtures: one event of every kind in bytes (as MariaDB 10.11 and MySQL write
// them), the context to decode it in, and what its truncated prefixes must do; shared by the
// tests of each event family (events_*_test.cc) and the prefix test over all of them.

#include <zlib.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "binlog/error.h"
#include "binlog/event_type.h"
#include "binlog/events.h"
#include "tests/binlog/wire.h"

namespace binrecover::binlog::event_fixtures {

using fixtures::put_le32;
using fixtures::Wire;

inline constexpr std::uint64_t kPos = 1000;  // file offset every fixture is decoded at

inline constexpr std::uint32_t kTimestamp = 1700000000;

inline constexpr std::uint32_t kServerId = 7;

inline constexpr std::size_t kHeader = 19;  // v4 common header

inline constexpr std::size_t kNever = std::numeric_limits<std::size_t>::max();

inline constexpr std::array<std::uint8_t, 16> kSid = {
    0x3e, 0x11, 0xfa, 0x47, 0x71, 0xca, 0x11, 0xe1, 0x9e, 0x33, 0xc8, 0x0a, 0xa9, 0x42, 0x95, 0x62};

// The 19-byte v4 common header; event_size and log_pos are filled in by seal().
inline Wire header(std::uint8_t type, std::uint16_t flags = 0) {
  Wire w;
  w.u32le(kTimestamp)    // timestamp
      .u8(type)          // event type code
      .u32le(kServerId)  // server_id
      .u32le(0)          // event_size (seal)
      .u32le(0)          // log_pos (seal)
      .u16le(flags);     // flags
  return w;
}

inline Wire header(EventType t, std::uint16_t flags = 0) {
  return header(static_cast<std::uint8_t>(t), flags);
}

// Sets event_size and log_pos; with `crc`, appends the CRC32 trailer the way servers compute it
// (over the whole event, size and position included).
inline std::vector<std::byte> seal(Wire w, bool crc) {
  std::vector<std::byte>& b = w.bytes();
  const std::size_t size = b.size() + (crc ? 4 : 0);
  put_le32(b, 9, size);
  put_le32(b, 13, kPos + size);
  if (crc) w.u32le(::crc32(0L, reinterpret_cast<const Bytef*>(b.data()), b.size()));
  return std::move(b);
}

// Post-header lengths for types 1..171 as MariaDB 10.11 writes them in its format description
// (sql/log_event_server.cc, Format_description_log_event, binlog version 4).
inline std::array<std::uint8_t, 171> mariadb_post_header_lens() {
  std::array<std::uint8_t, 171> l{};
  auto set = [&l](EventType t, std::uint8_t n) { l[static_cast<std::size_t>(t) - 1] = n; };
  set(EventType::kStartV3, 56);
  set(EventType::kQuery, 13);
  set(EventType::kRotate, 8);
  set(EventType::kLoad, 18);
  set(EventType::kCreateFile, 4);
  set(EventType::kAppendBlock, 4);
  set(EventType::kExecLoad, 4);
  set(EventType::kDeleteFile, 4);
  set(EventType::kNewLoad, 18);
  set(EventType::kFormatDescription, 56 + 1 + 171);
  set(EventType::kBeginLoadQuery, 4);
  set(EventType::kExecuteLoadQuery, 26);
  set(EventType::kTableMap, 8);
  set(EventType::kWriteRowsV1, 8);
  set(EventType::kUpdateRowsV1, 8);
  set(EventType::kDeleteRowsV1, 8);
  set(EventType::kIncident, 2);
  set(EventType::kWriteRowsV2, 10);
  set(EventType::kUpdateRowsV2, 10);
  set(EventType::kDeleteRowsV2, 10);
  set(EventType::kMariaBinlogCheckpoint, 4);
  set(EventType::kMariaGtid, 19);
  set(EventType::kMariaGtidList, 4);
  set(EventType::kMariaQueryCompressed, 13);
  set(EventType::kMariaWriteRowsCompressedV1, 8);
  set(EventType::kMariaUpdateRowsCompressedV1, 8);
  set(EventType::kMariaDeleteRowsCompressedV1, 8);
  set(EventType::kMariaWriteRowsCompressed, 10);
  set(EventType::kMariaUpdateRowsCompressed, 10);
  set(EventType::kMariaDeleteRowsCompressed, 10);
  return l;
}

// The context in force after a MariaDB 10.11 format description, checksums off.
inline FormatContext mariadb_context() {
  FormatContext ctx = FormatContext::for_version(4);
  const auto lens = mariadb_post_header_lens();
  for (std::size_t i = 0; i < lens.size(); ++i) ctx.post_header_len[i + 1] = lens[i];
  return ctx;
}

// One event in bytes, the context to decode it in, and what its truncated prefixes must do:
// prefixes shorter than `throw_below` cut into a fixed-size field and must throw; prefixes at
// least `decode_from` long only shorten a free-length tail and must decode.
struct Fixture {
  std::string name;
  std::vector<std::byte> bytes;
  FormatContext ctx;
  std::size_t throw_below = 0;
  std::size_t decode_from = kNever;
};

inline void PrintTo(const Fixture& f, std::ostream* os) { *os << f.name; }

inline Fixture make(std::string name, Wire w, std::size_t throw_below, std::size_t decode_from,
                    FormatContext ctx = mariadb_context(), bool crc = false) {
  return {std::move(name), seal(std::move(w), crc), ctx, throw_below, decode_from};
}

inline Event decode(const Fixture& f) { return decode_event(f.bytes, kPos, f.ctx); }

inline std::string text(Bytes b) { return std::string(as_text(b)); }

inline std::vector<int> ints(Bytes b) {
  std::vector<int> out;
  for (std::byte x : b) out.push_back(static_cast<int>(x));
  return out;
}

inline constexpr std::string_view kQueryText = "INSERT INTO crm.tags VALUES (1)";

// Query event: post-header, status block, db, NUL, query text. Prefixes that stop before the
// query text throw; the text itself is free-length.
inline Fixture query_with(std::string name, EventType type, const Wire& status, std::string_view db,
                          std::string_view sql, FormatContext ctx = mariadb_context(),
                          bool crc = false) {
  Wire w = header(type);
  w.u32le(77)                // thread_id
      .u32le(3)              // exec_time
      .u8(db.size())         // db_len
      .u16le(0)              // error_code
      .u16le(status.size())  // status_vars_len
      .append(status)        // status variables
      .str(db)               // default database
      .u8(0)                 // NUL after the database
      .str(sql);             // query (rest of the body)
  const std::size_t fixed = kHeader + 13 + status.size() + db.size() + 1 + (crc ? 4 : 0);
  return make(std::move(name), std::move(w), fixed, fixed, ctx, crc);
}

inline constexpr std::string_view kLoadQuery =
    "LOAD DATA INFILE '/tmp/SQL_LOAD-7-1-5.data' REPLACE INTO TABLE `t` FIELDS TERMINATED BY ','";

inline constexpr std::uint64_t kImmediateTs = 1700000000123456;

inline constexpr std::uint64_t kOriginalTs = 1700000000000001;

Fixture fde_mariadb(std::uint8_t alg = 1, std::string name = "FormatDescriptionMariaDb1011");

// MySQL 5.5: no checksum algorithm byte, no trailer, 27 event types.
Fixture fde_mysql55();

Fixture rotate();

Fixture stop();

// Status variables of a MySQL 5.7 / MariaDB query event, every code binrecover reads.
Wire classic_status_vars();

Fixture query();

Fixture query_mariadb();

Fixture query_mysql8();

Fixture query_unknown_status();

Fixture query_checksummed();

Fixture query_compressed();

Fixture execute_load_query();

Fixture xid();

Fixture intvar();

Fixture rand_event();

Fixture user_var_string();

Fixture user_var_int();

Fixture user_var_null();

// Table map body after the post-header: shop.tags (id INT, name VARCHAR(255), price DECIMAL(10,2)).
// Table map body after the post-header: shop.tags (id INT, name VARCHAR(255), price
// DECIMAL(10,2)). Returns the size after the column types, where MySQL 5.1.15-5.1.17 ended the
// event (no metadata, no null bits).
std::size_t table_map_body(Wire& w);

// Prefixes ending after the column types decode as a 5.1.15-era table map; those cutting into
// the metadata or the null bits are checked by TableMapCutInsideMetadataThrows.
Fixture table_map();

FormatContext four_byte_table_id_context();

Fixture table_map_4byte_id();

Fixture write_rows_v1();

Fixture update_rows_v1();

Fixture write_rows_v2_extra();

Fixture delete_rows_v2();

Fixture write_rows_4byte_id();

Fixture update_rows_compressed_v1();

// MySQL 8.0 GTID_LOG_EVENT with every optional field.
Fixture pre_ga_write_rows();

// MySQL 8 PARTIAL_UPDATE_ROWS_EVENT (39): a v2 post-header, two bitmaps. MariaDB's FDE gives it
// post-header length 0, so the decoder assumes 10.
Fixture partial_update_rows();

Fixture gtid_mysql8();

// MySQL 5.7 GTID_LOG_EVENT: logical clock only.
Fixture gtid_mysql57();

Fixture anonymous_gtid();

Fixture previous_gtids();

Fixture maria_gtid_standalone();

Fixture maria_gtid_commit_id();

Fixture maria_gtid_xa();

Fixture maria_gtid_list();

Fixture binlog_checkpoint();

Fixture annotate_rows();

Fixture rows_query();

Fixture xa_prepare();

Fixture incident();

Fixture heartbeat();

Fixture begin_load_query();

Fixture append_block();

// MySQL 4.1 LOAD DATA: CREATE_FILE with the options, names and first block (the layout of
// binlog_old_version_4_1.000001 in the corpus, field by field).
Fixture create_file();

Fixture exec_load();

Fixture start_encryption();

Fixture start_v3();

Fixture transaction_payload();

Fixture unknown_type();

Fixture ignorable();

std::vector<Fixture> all_fixtures();

enum class Outcome { kDecoded, kThrew };

inline void PrintTo(Outcome o, std::ostream* os) {
  *os << (o == Outcome::kDecoded ? "decoded" : "threw");
}

// Decodes the first `len` bytes of `bytes` from an exact-size heap copy (so ASan sees any
// over-read) whose event_size field says `len`: only the body is short, as after damage.
inline Outcome decode_prefix(const std::vector<std::byte>& bytes, std::size_t len,
                             const FormatContext& ctx) {
  if (len > bytes.size()) len = bytes.size();
  // A range-constructed vector is an exact-size heap block too (capacity == size).
  std::vector<std::byte> buf(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(len));
  for (std::size_t i = 0; i < 4 && 9 + i < len; ++i)
    buf[9 + i] = static_cast<std::byte>((len >> (8 * i)) & 0xff);
  try {
    (void)decode_event(Bytes(buf.data(), len), kPos, ctx);
    return Outcome::kDecoded;
  } catch (const Error&) {
    return Outcome::kThrew;
  }
}

}  // namespace binrecover::binlog::event_fixtures
