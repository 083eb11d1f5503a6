#include "binlog/events.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "binlog/error.h"
#include "binlog/event_type.h"
#include "tests/binlog/wire.h"

namespace binrecover::binlog {
namespace {

constexpr std::uint64_t kPos = 1000;  // file offset every fixture is decoded at
constexpr std::uint32_t kTimestamp = 1700000000;
constexpr std::uint32_t kServerId = 7;
constexpr std::size_t kHeader = 19;  // v4 common header
constexpr std::size_t kNever = std::numeric_limits<std::size_t>::max();

constexpr std::array<std::uint8_t, 16> kSid = {0x3e, 0x11, 0xfa, 0x47, 0x71, 0xca, 0x11, 0xe1,
                                               0x9e, 0x33, 0xc8, 0x0a, 0xa9, 0x42, 0x95, 0x62};

using fixtures::put_le32;
using fixtures::Wire;

// The 19-byte v4 common header; event_size and log_pos are filled in by seal().
Wire header(std::uint8_t type, std::uint16_t flags = 0) {
  Wire w;
  w.u32le(kTimestamp)    // timestamp
      .u8(type)          // event type code
      .u32le(kServerId)  // server_id
      .u32le(0)          // event_size (seal)
      .u32le(0)          // log_pos (seal)
      .u16le(flags);     // flags
  return w;
}
Wire header(EventType t, std::uint16_t flags = 0) {
  return header(static_cast<std::uint8_t>(t), flags);
}

// Sets event_size and log_pos; with `crc`, appends the CRC32 trailer the way servers compute it
// (over the whole event, size and position included).
std::vector<std::byte> seal(Wire w, bool crc) {
  std::vector<std::byte>& b = w.bytes();
  const std::size_t size = b.size() + (crc ? 4 : 0);
  put_le32(b, 9, size);
  put_le32(b, 13, kPos + size);
  if (crc) w.u32le(::crc32(0L, reinterpret_cast<const Bytef*>(b.data()), b.size()));
  return std::move(b);
}

// Post-header lengths for types 1..171 as MariaDB 10.11 writes them in its format description
// (sql/log_event_server.cc, Format_description_log_event, binlog version 4).
std::array<std::uint8_t, 171> mariadb_post_header_lens() {
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
FormatContext mariadb_context() {
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

void PrintTo(const Fixture& f, std::ostream* os) { *os << f.name; }

Fixture make(std::string name, Wire w, std::size_t throw_below, std::size_t decode_from,
             FormatContext ctx = mariadb_context(), bool crc = false) {
  return {std::move(name), seal(std::move(w), crc), ctx, throw_below, decode_from};
}

Event decode(const Fixture& f) { return decode_event(f.bytes, kPos, f.ctx); }

std::string text(Bytes b) { return std::string(as_text(b)); }

std::vector<int> ints(Bytes b) {
  std::vector<int> out;
  for (std::byte x : b) out.push_back(static_cast<int>(x));
  return out;
}

// ---------------------------------------------------------------------------------------------
// Fixtures

Fixture fde_mariadb(std::uint8_t alg = 1, std::string name = "FormatDescriptionMariaDb1011") {
  Wire w = header(EventType::kFormatDescription);
  w.u16le(4)                                                      // binlog_version
      .padded("10.11.6-MariaDB-log", 50)                          // server_version, NUL-padded
      .u32le(kTimestamp)                                          // create_timestamp
      .u8(19);                                                    // common header length
  for (std::uint8_t len : mariadb_post_header_lens()) w.u8(len);  // post_header_len[1..171]
  w.u8(alg);  // checksum_alg (1 = CRC32); seal() appends the 4-byte CRC32 trailer
  // 57 fixed bytes, then at least the algorithm byte and the trailer.
  return make(std::move(name), std::move(w), kHeader + 57 + 5, kNever, mariadb_context(), true);
}

// MySQL 5.5: no checksum algorithm byte, no trailer, 27 event types.
Fixture fde_mysql55() {
  Wire w = header(EventType::kFormatDescription);
  w.u16le(4)                     // binlog_version
      .padded("5.5.62-log", 50)  // server_version
      .u32le(kTimestamp)         // create_timestamp
      .u8(19);                   // common header length
  const std::uint8_t lens[27] = {56, 13, 0, 8,  0, 18, 0, 4, 4, 4, 4, 18, 0, 0,
                                 84, 0,  4, 26, 8, 0,  0, 0, 8, 8, 8, 2,  0};
  // post_header_len[1..27]: StartV3, Query, Stop, Rotate, Intvar, Load, Slave, CreateFile,
  // AppendBlock, ExecLoad, DeleteFile, NewLoad, Rand, UserVar, FormatDescription, Xid,
  // BeginLoadQuery, ExecuteLoadQuery, TableMap, 3 x pre-GA rows, 3 x rows v1, Incident, Heartbeat
  for (std::uint8_t len : lens) w.u8(len);
  return make("FormatDescriptionMySql55", std::move(w), kHeader + 57, kHeader + 57);
}

Fixture rotate() {
  Wire w = header(EventType::kRotate);
  w.u64le(4)                     // position in the next file
      .str("mysql-bin.000002");  // next file name (rest of the body, no NUL)
  return make("Rotate", std::move(w), kHeader + 8, kHeader + 8);
}

Fixture stop() { return make("Stop", header(EventType::kStop), kHeader, kHeader); }

constexpr std::string_view kQueryText = "INSERT INTO crm.tags VALUES (1)";

// Status variables of a MySQL 5.7 / MariaDB query event, every code binrecover reads.
Wire classic_status_vars() {
  Wire s;
  s.u8(0).u32le(0x0c000000);  // Q_FLAGS2_CODE / flags2 (no FK checks, relaxed unique checks)
  s.u8(1).u64le(0x54200000);  // Q_SQL_MODE_CODE / sql_mode (STRICT_TRANS_TABLES,...)
  s.u8(6).u8(3).str("std");   // Q_CATALOG_NZ_CODE / length / catalog
  s.u8(3).u16le(2).u16le(1);  // Q_AUTO_INCREMENT / increment / offset
  s.u8(4).u16le(33).u16le(45).u16le(8);  // Q_CHARSET_CODE / client / connection / server
  s.u8(5).u8(6).str("SYSTEM");           // Q_TIME_ZONE_CODE / length / name
  s.u8(7).u16le(2);                      // Q_LC_TIME_NAMES_CODE / locale number
  s.u8(8).u16le(46);                     // Q_CHARSET_DATABASE_CODE / collation
  s.u8(11).u8(4).str("root").u8(9).str("localhost");  // Q_INVOKER / user / host
  s.u8(12).u8(2).str("shop").u8(0).str("crm").u8(0);  // Q_UPDATED_DB_NAMES / count / names
  s.u8(13).u24le(123456);                             // Q_MICROSECONDS
  return s;
}

// Query event: post-header, status block, db, NUL, query text. Prefixes that stop before the
// query text throw; the text itself is free-length.
Fixture query_with(std::string name, EventType type, const Wire& status, std::string_view db,
                   std::string_view sql, FormatContext ctx = mariadb_context(), bool crc = false) {
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

Fixture query() {
  return query_with("QueryClassicStatusVars", EventType::kQuery, classic_status_vars(), "shop",
                    kQueryText);
}

Fixture query_mariadb() {
  Wire s;
  s.u8(0).u32le(0);               // Q_FLAGS2_CODE
  s.u8(128).u24le(654321);        // Q_HRNOW / microseconds
  s.u8(129).u64le(0x1122334455);  // Q_XID
  s.u8(130).u8(4).u64le(12);      // Q_GTID_FLAGS3 / FL_COMMIT_ALTER_E1 / sa_seq_no
  s.u8(131).u8(2);                // Q_CHARACTER_SET_COLLATIONS / count
  s.u16le(33).u16le(192);         //   charset / collation
  s.u16le(45).u16le(224);         //   charset / collation
  s.u8(8).u16le(46);              // Q_CHARSET_DATABASE_CODE, parsed after the MariaDB codes
  return query_with("QueryMariaDbStatusVars", EventType::kQuery, s, "shop",
                    "ALTER TABLE t ENGINE=InnoDB");
}

Fixture query_mysql8() {
  Wire s;
  s.u8(2).u8(3).str("def").u8(0);  // Q_CATALOG_CODE (5.0.0-5.0.3) / length / catalog / NUL
  s.u8(9).u64le(5);                // Q_TABLE_MAP_FOR_UPDATE_CODE
  s.u8(10).u32le(0);               // Q_MASTER_DATA_WRITTEN_CODE (skipped)
  s.u8(14).u64le(0);               // Q_COMMIT_TS (skipped)
  s.u8(16).u8(1);                  // Q_EXPLICIT_DEFAULTS_FOR_TIMESTAMP
  s.u8(17).u64le(999);             // Q_DDL_LOGGED_WITH_XID
  s.u8(18).u16le(255);             // Q_DEFAULT_COLLATION_FOR_UTF8MB4
  s.u8(19).u8(1);                  // Q_SQL_REQUIRE_PRIMARY_KEY
  s.u8(20).u8(1);                  // Q_DEFAULT_TABLE_ENCRYPTION
  s.u8(12).u8(254);                // Q_UPDATED_DB_NAMES / OVER_MAX_DBS_IN_EVENT_MTS
  return query_with("QueryMySql8StatusVars", EventType::kQuery, s, "shop",
                    "CREATE TABLE t (a INT)");
}

Fixture query_unknown_status() {
  Wire s;
  s.u8(0).u32le(0x4000);  // Q_FLAGS2_CODE
  s.u8(250);              // a code nobody defines: parsing stops here
  s.u8(0xaa).u8(0xbb);    //   its unknown payload
  s.u8(8).u16le(46);      // Q_CHARSET_DATABASE_CODE, unreachable after the unknown code
  return query_with("QueryUnknownStatusCode", EventType::kQuery, s, "shop", "DELETE FROM t");
}

Fixture query_checksummed() {
  FormatContext ctx = mariadb_context();
  ctx.checksum = ChecksumAlg::kCrc32;
  Wire s;
  s.u8(0).u32le(0);  // Q_FLAGS2_CODE
  return query_with("QueryWithChecksum", EventType::kQuery, s, "shop", "BEGIN", ctx, true);
}

Fixture query_compressed() {
  Wire s;
  s.u8(0).u32le(0);  // Q_FLAGS2_CODE
  // Query text compressed by MariaDB: u8 header (0x80 | length bytes) / u8 length / zlib data.
  return query_with("QueryCompressed", EventType::kMariaQueryCompressed, s, "shop",
                    std::string_view("\x81\x05\x78\x9c\x73", 5));
}

constexpr std::string_view kLoadQuery =
    "LOAD DATA INFILE '/tmp/SQL_LOAD-7-1-5.data' REPLACE INTO TABLE `t` FIELDS TERMINATED BY ','";

Fixture execute_load_query() {
  Wire s;
  s.u8(0).u32le(0);  // Q_FLAGS2_CODE
  const std::size_t fn_start = kLoadQuery.find("INFILE");
  const std::size_t fn_end = kLoadQuery.find("' ") + 1;
  Wire w = header(EventType::kExecuteLoadQuery);
  w.u32le(77)            // thread_id
      .u32le(0)          // exec_time
      .u8(4)             // db_len
      .u16le(0)          // error_code
      .u16le(s.size())   // status_vars_len
      .u32le(5)          // file_id
      .u32le(fn_start)   // fn_pos_start
      .u32le(fn_end)     // fn_pos_end
      .u8(2)             // dup_handling: LOAD_DUP_REPLACE
      .append(s)         // status variables
      .str("shop")       // default database
      .u8(0)             // NUL
      .str(kLoadQuery);  // query
  const std::size_t fixed = kHeader + 26 + s.size() + 4 + 1;
  return make("ExecuteLoadQuery", std::move(w), fixed, fixed);
}

Fixture xid() {
  Wire w = header(EventType::kXid);
  w.u64le(0x0102030405060708);  // xid
  return make("Xid", std::move(w), kHeader + 8, kHeader + 8);
}

Fixture intvar() {
  Wire w = header(EventType::kIntvar);
  w.u8(2)           // type: INSERT_ID_EVENT
      .u64le(101);  // value
  return make("Intvar", std::move(w), kHeader + 9, kHeader + 9);
}

Fixture rand_event() {
  Wire w = header(EventType::kRand);
  w.u64le(0x1111222233334444)      // seed1
      .u64le(0x5555666677778888);  // seed2
  return make("Rand", std::move(w), kHeader + 16, kHeader + 16);
}

Fixture user_var_string() {
  Wire w = header(EventType::kUserVar);
  w.u32le(4)          // name_len
      .str("name")    // name
      .u8(0)          // is_null
      .u8(0)          // value_type: STRING_RESULT
      .u32le(33)      // charset: utf8mb3_general_ci
      .u32le(5)       // value_len
      .str("hello");  // value (no flags byte: it is optional)
  const std::size_t all = w.size();
  return make("UserVarString", std::move(w), all, all);
}

Fixture user_var_int() {
  Wire w = header(EventType::kUserVar);
  w.u32le(3)                                             // name_len
      .str("big")                                        // name
      .u8(0)                                             // is_null
      .u8(2)                                             // value_type: INT_RESULT
      .u32le(63)                                         // charset: binary
      .u32le(8)                                          // value_len
      .u64le(std::numeric_limits<std::uint64_t>::max())  // value
      .u8(1);                                            // flags: UNSIGNED_F
  const std::size_t without_flags = w.size() - 1;
  return make("UserVarIntUnsigned", std::move(w), without_flags, without_flags);
}

Fixture user_var_null() {
  Wire w = header(EventType::kUserVar);
  w.u32le(1)     // name_len
      .str("n")  // name
      .u8(1);    // is_null: nothing follows
  return make("UserVarNull", std::move(w), kHeader + 6, kHeader + 6);
}

// Table map body after the post-header: shop.tags (id INT, name VARCHAR(255), price DECIMAL(10,2)).
// Table map body after the post-header: shop.tags (id INT, name VARCHAR(255), price
// DECIMAL(10,2)). Returns the size after the column types, where MySQL 5.1.15-5.1.17 ended the
// event (no metadata, no null bits).
std::size_t table_map_body(Wire& w) {
  w.u8(4)           // db_len
      .str("shop")  // db
      .u8(0)        // NUL
      .u8(4)        // table_len
      .str("tags")  // table
      .u8(0)        // NUL
      .u8(3)        // column_count (packed integer)
      .u8(3)        // column type: MYSQL_TYPE_LONG
      .u8(15)       // column type: MYSQL_TYPE_VARCHAR
      .u8(246);     // column type: MYSQL_TYPE_NEWDECIMAL
  const std::size_t after_types = w.size();
  w.u8(4)           // metadata length (packed integer)
      .u16le(1020)  // VARCHAR metadata: max length in bytes
      .u8(10)       // NEWDECIMAL metadata: precision
      .u8(2)        // NEWDECIMAL metadata: scale
      .u8(0x06);    // null bits: name and price nullable
  return after_types;
}

// Prefixes ending after the column types decode as a 5.1.15-era table map; those cutting into
// the metadata or the null bits are checked by TableMapCutInsideMetadataThrows.
Fixture table_map() {
  Wire w = header(EventType::kTableMap);
  w.u48le(0x010203040506)  // table_id
      .u16le(1);           // flags: TM_BIT_LEN_EXACT_F
  const std::size_t after_types = table_map_body(w);
  const std::size_t fixed = w.size();
  w.u8(1)         // optional metadata: SIGNEDNESS
      .u8(1)      //   length
      .u8(0x00);  //   all signed
  return make("TableMap", std::move(w), after_types, fixed);
}

FormatContext four_byte_table_id_context() {
  FormatContext ctx = mariadb_context();
  ctx.post_header_len[static_cast<std::uint8_t>(EventType::kTableMap)] = 6;
  ctx.post_header_len[static_cast<std::uint8_t>(EventType::kWriteRowsV1)] = 6;
  return ctx;
}

Fixture table_map_4byte_id() {
  Wire w = header(EventType::kTableMap);
  w.u32le(0x01020304)  // table_id, 4 bytes (post-header length 6)
      .u16le(1);       // flags
  const std::size_t after_types = table_map_body(w);
  const std::size_t fixed = w.size();
  return make("TableMapFourByteTableId", std::move(w), after_types, fixed,
              four_byte_table_id_context());
}

Fixture write_rows_v1() {
  Wire w = header(EventType::kWriteRowsV1);
  w.u48le(0x010203040506)  // table_id
      .u16le(1)            // flags: STMT_END_F
      .u8(3)               // column_count (packed)
      .u8(0x07);           // columns present bitmap
  const std::size_t fixed = w.size();
  w.u8(0x00)       // row: null bitmap
      .u32le(1)    // row: id
      .u8(3)       // row: name length
      .str("abc")  // row: name
      .u8(0x80)    // row: price 1.00, DECIMAL(10,2) binary: integer 00000001 (4 bytes,
      .u8(0x00)    //   big-endian, sign bit flipped) ...
      .u8(0x00)    //
      .u8(0x01)    //
      .u8(0x00);   //   ... then the fraction .00 (1 byte)
  return make("WriteRowsV1", std::move(w), fixed, fixed);
}

Fixture update_rows_v1() {
  Wire w = header(EventType::kUpdateRowsV1);
  w.u48le(42)     // table_id
      .u16le(1)   // flags: STMT_END_F
      .u8(2)      // column_count
      .u8(0x03)   // before-image columns bitmap
      .u8(0x01);  // after-image columns bitmap
  const std::size_t fixed = w.size();
  w.u8(0)          // before image: null bitmap
      .u32le(1)    // before image: id
      .u32le(10)   // before image: qty
      .u8(0)       // after image: null bitmap
      .u32le(11);  // after image: id
  return make("UpdateRowsV1", std::move(w), fixed, fixed);
}

Fixture write_rows_v2_extra() {
  Wire w = header(EventType::kWriteRowsV2);
  w.u48le(42)     // table_id
      .u16le(1)   // flags: STMT_END_F
      .u16le(7)   // extra_len, counting itself: 5 bytes of extra data follow
      .u8(0)      // extra data: tag RW_V_EXTRAINFO_TAG
      .u8(3)      // extra data: length
      .u8(1)      // extra data: format
      .u8(0xab)   // extra data: payload
      .u8(0xcd)   // extra data: payload
      .u8(1)      // column_count
      .u8(0x01);  // columns bitmap
  const std::size_t fixed = w.size();
  w.u8(0).u32le(5);  // row: null bitmap / id
  return make("WriteRowsV2ExtraData", std::move(w), fixed, fixed);
}

Fixture delete_rows_v2() {
  Wire w = header(EventType::kDeleteRowsV2);
  w.u48le(43)     // table_id
      .u16le(0)   // flags
      .u16le(2)   // extra_len: no extra data
      .u8(1)      // column_count
      .u8(0x01);  // columns bitmap
  const std::size_t fixed = w.size();
  w.u8(0).u32le(6);  // row: null bitmap / id
  return make("DeleteRowsV2", std::move(w), fixed, fixed);
}

Fixture write_rows_4byte_id() {
  Wire w = header(EventType::kWriteRowsV1);
  w.u32le(0x01020304)  // table_id, 4 bytes (post-header length 6)
      .u16le(1)        // flags
      .u8(1)           // column_count
      .u8(0x01);       // columns bitmap
  const std::size_t fixed = w.size();
  w.u8(0).u32le(7);  // row
  return make("WriteRowsFourByteTableId", std::move(w), fixed, fixed, four_byte_table_id_context());
}

Fixture update_rows_compressed_v1() {
  Wire w = header(EventType::kMariaUpdateRowsCompressedV1);
  w.u48le(44)     // table_id
      .u16le(1)   // flags
      .u8(1)      // column_count
      .u8(0x01)   // before-image bitmap
      .u8(0x01);  // after-image bitmap
  const std::size_t fixed = w.size();
  w.u8(0x81).u8(0x0a).u8(0x78).u8(0x9c);  // compressed rows (kept raw)
  return make("UpdateRowsCompressedV1", std::move(w), fixed, fixed);
}

constexpr std::uint64_t kImmediateTs = 1700000000123456;
constexpr std::uint64_t kOriginalTs = 1700000000000001;

// MySQL 8.0 GTID_LOG_EVENT with every optional field.
Fixture pre_ga_write_rows() {
  Wire w = header(EventType::kPreGaWriteRows);  // post-header length 0 in the FDE: 8 assumed
  w.u48le(45)                                   // table_id
      .u16le(0)                                 // flags
      .u8(1)                                    // column_count
      .u8(0x01);                                // columns bitmap
  const std::size_t fixed = w.size();
  w.u8(0).u32le(8);  // row
  return make("PreGaWriteRows", std::move(w), fixed, fixed);
}

// MySQL 8 PARTIAL_UPDATE_ROWS_EVENT (39): a v2 post-header, two bitmaps. MariaDB's FDE gives it
// post-header length 0, so the decoder assumes 10.
Fixture partial_update_rows() {
  Wire w = header(EventType::kPartialUpdateRows);
  w.u48le(46)     // table_id
      .u16le(1)   // flags
      .u16le(2)   // extra_len: no extra data
      .u8(2)      // column_count
      .u8(0x03)   // before-image bitmap
      .u8(0x02);  // after-image bitmap
  const std::size_t fixed = w.size();
  w.u8(0x11).u8(0x22);  // rows (kept raw)
  return make("PartialUpdateRows", std::move(w), fixed, fixed);
}

Fixture gtid_mysql8() {
  Wire w = header(EventType::kGtid);
  w.u8(1)                                  // flags: may have SBR
      .raw(kSid)                           // sid
      .u64le(23)                           // gno
      .u8(2)                               // lt_type: LOGICAL_TIMESTAMP_TYPECODE
      .u64le(5)                            // last_committed
      .u64le(6)                            // sequence_number
      .u56le(kImmediateTs | (1ULL << 55))  // immediate_commit_timestamp, original follows
      .u56le(kOriginalTs)                  // original_commit_timestamp
      .u8(0xfc)                            // transaction_length: packed, u16 follows
      .u16le(300)                          //   300
      .u32le(80036 | (1U << 31))           // immediate_server_version, original follows
      .u32le(80035);                       // original_server_version
  return make("GtidMySql8", std::move(w), kHeader + 25, kNever);
}

// MySQL 5.7 GTID_LOG_EVENT: logical clock only.
Fixture gtid_mysql57() {
  Wire w = header(EventType::kGtid);
  w.u8(0)         // flags
      .raw(kSid)  // sid
      .u64le(9)   // gno
      .u8(2)      // lt_type
      .u64le(3)   // last_committed
      .u64le(4);  // sequence_number
  return make("GtidMySql57", std::move(w), kHeader + 25, kNever);
}

Fixture anonymous_gtid() {
  Wire w = header(EventType::kAnonymousGtid);
  w.u8(1)                   // flags
      .zeros(16)            // sid: none
      .u64le(0)             // gno
      .u8(2)                // lt_type
      .u64le(10)            // last_committed
      .u64le(11)            // sequence_number
      .u56le(kImmediateTs)  // immediate_commit_timestamp, no original follows
      .u8(200)              // transaction_length, one-byte packed integer
      .u32le(80036);        // immediate_server_version, no original follows
  return make("AnonymousGtid", std::move(w), kHeader + 25, kNever);
}

Fixture previous_gtids() {
  Wire w = header(EventType::kPreviousGtids);
  w.u64le(2)        // n_sids
      .raw(kSid)    // sid 1
      .u64le(1)     //   n_intervals
      .u64le(1)     //   start
      .u64le(101);  //   end (exclusive)
  std::array<std::uint8_t, 16> sid2 = kSid;
  sid2[15] = 0x63;
  w.raw(sid2)      // sid 2
      .u64le(2)    //   n_intervals
      .u64le(1)    //   start
      .u64le(5)    //   end
      .u64le(7)    //   start
      .u64le(10);  //   end
  const std::size_t all = w.size();
  return make("PreviousGtids", std::move(w), all, all);
}

Fixture maria_gtid_standalone() {
  Wire w = header(EventType::kMariaGtid);
  w.u64le(42)      // seq_no
      .u32le(3)    // domain_id
      .u8(1 | 32)  // flags2: FL_STANDALONE | FL_DDL
      .zeros(6);   // padding to GTID_HEADER_LEN (19)
  // The decoder needs only the first 13 bytes (see MariaGtidShorterThanPostHeaderIsRejected).
  return make("MariaGtidStandalone", std::move(w), kHeader + 19, kHeader + 19);
}

Fixture maria_gtid_commit_id() {
  Wire w = header(EventType::kMariaGtid);
  w.u64le(43)             // seq_no
      .u32le(0)           // domain_id
      .u8(2 | 4 | 8)      // flags2: FL_GROUP_COMMIT_ID | FL_TRANSACTIONAL | FL_ALLOW_PARALLEL
      .u64le(987654321);  // commit_id
  return make("MariaGtidCommitId", std::move(w), kHeader + 21, kHeader + 21);
}

Fixture maria_gtid_xa() {
  Wire w = header(EventType::kMariaGtid);
  w.u64le(44)      // seq_no
      .u32le(0)    // domain_id
      .u8(64 | 4)  // flags2: FL_PREPARED_XA | FL_TRANSACTIONAL
      .u32le(1)    // XID format_id
      .u8(3)       // gtrid_length
      .u8(2)       // bqual_length
      .str("abc")  // gtrid
      .str("de");  // bqual
  const std::size_t all = w.size();
  return make("MariaGtidXa", std::move(w), all, all);
}

Fixture maria_gtid_list() {
  Wire w = header(EventType::kMariaGtidList);
  w.u32le(2 | (1U << 28))  // count (low 28 bits) / flags (high 4 bits)
      .u32le(0)            // domain_id
      .u32le(1)            // server_id
      .u64le(100)          // seq_no
      .u32le(1)            // domain_id
      .u32le(2)            // server_id
      .u64le(7);           // seq_no
  const std::size_t all = w.size();
  return make("MariaGtidList", std::move(w), all, all);
}

Fixture binlog_checkpoint() {
  Wire w = header(EventType::kMariaBinlogCheckpoint);
  w.u32le(16)                    // name length
      .str("mysql-bin.000001");  // binlog file name
  const std::size_t all = w.size();
  return make("BinlogCheckpoint", std::move(w), all, all);
}

Fixture annotate_rows() {
  Wire w = header(EventType::kMariaAnnotateRows);
  w.str("INSERT INTO t VALUES (1)");  // the statement (whole body)
  return make("AnnotateRows", std::move(w), kHeader, kHeader);
}

Fixture rows_query() {
  Wire w = header(EventType::kRowsQuery);
  w.u8(24)                               // length (ignored: the text runs to the end)
      .str("INSERT INTO t VALUES (2)");  // the statement
  return make("RowsQuery", std::move(w), kHeader + 1, kHeader + 1);
}

Fixture xa_prepare() {
  Wire w = header(EventType::kXaPrepare);
  w.u8(0)          // one_phase
      .u32le(1)    // format_id
      .u32le(3)    // gtrid_length
      .u32le(2)    // bqual_length
      .str("abc")  // gtrid
      .str("de");  // bqual
  const std::size_t all = w.size();
  return make("XaPrepare", std::move(w), all, all);
}

Fixture incident() {
  Wire w = header(EventType::kIncident);
  w.u16le(1)                // type: INCIDENT_LOST_EVENTS
      .u8(11)               // message length
      .str("lost events");  // message
  const std::size_t all = w.size();
  return make("Incident", std::move(w), kHeader + 2, all);
}

Fixture heartbeat() {
  Wire w = header(EventType::kHeartbeat);
  w.str("mysql-bin.000003");  // log name (whole body)
  return make("Heartbeat", std::move(w), kHeader, kHeader);
}

Fixture begin_load_query() {
  Wire w = header(EventType::kBeginLoadQuery);
  w.u32le(5)               // file_id
      .str("1,a\n2,b\n");  // file data (rest)
  return make("BeginLoadQuery", std::move(w), kHeader + 4, kHeader + 4);
}

Fixture append_block() {
  Wire w = header(EventType::kAppendBlock);
  w.u32le(5)          // file_id
      .str("3,c\n");  // more file data
  return make("AppendBlock", std::move(w), kHeader + 4, kHeader + 4);
}

// MySQL 4.1 LOAD DATA: CREATE_FILE with the options, names and first block (the layout of
// binlog_old_version_4_1.000001 in the corpus, field by field).
Fixture create_file() {
  Wire w = header(EventType::kCreateFile);
  w.u32le(1)     // thread_id
      .u32le(0)  // exec_time
      .u32le(2)  // skip_lines
      .u8(2)     // table name length
      .u8(4)     // db name length
      .u32le(2)  // num_fields
      .u32le(7)  // file_id
      .u8(1)
      .str("\t")  // FIELDS TERMINATED BY
      .u8(1)
      .str("\"")  // ENCLOSED BY
      .u8(1)
      .str("\n")  // LINES TERMINATED BY
      .u8(0)      // STARTING BY ''
      .u8(1)
      .str("\\")      // ESCAPED BY
      .u8(0x2 | 0x4)  // opt_flags: OPTIONALLY ENCLOSED, REPLACE
      .u8(1)
      .u8(3)  // field name lengths
      .str(std::string_view("a\0bcd\0", 6))
      .str(std::string_view("t3\0", 3))
      .str(std::string_view("test\0", 5))
      .str(std::string_view("big_file.dat\0", 13));
  const std::size_t names_end = w.size();
  w.str("Aarhus\nAaron\n");  // the first block of data
  return make("CreateFile", std::move(w), names_end, names_end, FormatContext::for_version(3));
}

Fixture exec_load() {
  Wire w = header(EventType::kExecLoad);
  w.u32le(7);  // file_id
  return make("ExecLoad", std::move(w), kHeader + 4, kHeader + 4, FormatContext::for_version(3));
}

Fixture start_encryption() {
  Wire w = header(EventType::kMariaStartEncryption);
  w.u8(1)          // scheme
      .u32le(7)    // key_version
      .zeros(12);  // nonce
  // The decoder reads scheme and key_version only (see StartEncryptionShortNonceIsRejected).
  return make("StartEncryption", std::move(w), kHeader + 17, kHeader + 17);
}

Fixture start_v3() {
  Wire w = header(EventType::kStartV3);
  w.u16le(3)                     // binlog_version
      .padded("4.0.30-log", 50)  // server_version
      .u32le(kTimestamp);        // created
  const std::size_t all = w.size();
  return make("StartV3", std::move(w), all, all, FormatContext::for_version(3));
}

Fixture transaction_payload() {
  Wire w = header(EventType::kTransactionPayload);
  w.u8(2);              // field: compression type
  w.u8(1);              //   length
  w.u8(0);              //   ZSTD
  w.u8(1);              // field: payload size
  w.u8(1);              //   length
  w.u8(4);              //   4 bytes
  w.u8(0);              // end of fields
  w.u32le(0xfd2fb528);  // payload: a zstd frame magic
  // How much of a cut payload still decodes depends on how far the header fields are parsed
  // (work in progress elsewhere), so only the common header is held to throwing here.
  return make("TransactionPayload", std::move(w), kHeader, kNever);
}

Fixture unknown_type() {
  Wire w = header(99);
  w.u32le(0xdeadbeef);  // whatever type 99 carries
  return make("UnknownType99", std::move(w), kHeader, kHeader);
}

Fixture ignorable() {
  Wire w = header(EventType::kIgnorable, 0x80);  // LOG_EVENT_IGNORABLE_F
  w.str("later server's data");                  // body binrecover does not decode
  return make("IgnorableKnownButUndecoded", std::move(w), kHeader, kHeader);
}

std::vector<Fixture> all_fixtures() {
  return {fde_mariadb(),
          fde_mysql55(),
          rotate(),
          stop(),
          query(),
          query_mariadb(),
          query_mysql8(),
          query_unknown_status(),
          query_checksummed(),
          query_compressed(),
          execute_load_query(),
          xid(),
          intvar(),
          rand_event(),
          user_var_string(),
          user_var_int(),
          user_var_null(),
          table_map(),
          table_map_4byte_id(),
          write_rows_v1(),
          update_rows_v1(),
          write_rows_v2_extra(),
          delete_rows_v2(),
          write_rows_4byte_id(),
          update_rows_compressed_v1(),
          pre_ga_write_rows(),
          partial_update_rows(),
          gtid_mysql8(),
          gtid_mysql57(),
          anonymous_gtid(),
          previous_gtids(),
          maria_gtid_standalone(),
          maria_gtid_commit_id(),
          maria_gtid_xa(),
          maria_gtid_list(),
          binlog_checkpoint(),
          annotate_rows(),
          rows_query(),
          xa_prepare(),
          incident(),
          heartbeat(),
          begin_load_query(),
          append_block(),
          create_file(),
          exec_load(),
          start_encryption(),
          start_v3(),
          transaction_payload(),
          unknown_type(),
          ignorable()};
}

// ---------------------------------------------------------------------------------------------
// Truncated prefixes

enum class Outcome { kDecoded, kThrew };

void PrintTo(Outcome o, std::ostream* os) { *os << (o == Outcome::kDecoded ? "decoded" : "threw"); }

// Decodes the first `len` bytes of `bytes` from an exact-size heap copy (so ASan sees any
// over-read) whose event_size field says `len`: only the body is short, as after damage.
Outcome decode_prefix(const std::vector<std::byte>& bytes, std::size_t len,
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

class PrefixTest : public ::testing::TestWithParam<Fixture> {};

TEST_P(PrefixTest, EveryTruncatedPrefixDecodesOrThrows) {
  const Fixture& f = GetParam();
  ASSERT_LE(f.throw_below, f.bytes.size());
  ASSERT_GE(f.throw_below, kHeader);
  for (std::size_t len = 0; len <= f.bytes.size(); ++len) {
    const Outcome out = decode_prefix(f.bytes, len, f.ctx);
    if (len < f.throw_below) {
      EXPECT_EQ(out, Outcome::kThrew) << "prefix of " << len << " bytes decoded";
    }
    if (len >= f.decode_from) {
      EXPECT_EQ(out, Outcome::kDecoded) << "prefix of " << len << " bytes threw";
    }
  }
  EXPECT_EQ(decode_prefix(f.bytes, f.bytes.size(), f.ctx), Outcome::kDecoded);
}

INSTANTIATE_TEST_SUITE_P(AllFixtures, PrefixTest, ::testing::ValuesIn(all_fixtures()),
                         [](const ::testing::TestParamInfo<Fixture>& info) {
                           return info.param.name;
                         });

// ---------------------------------------------------------------------------------------------
// Decoded values

TEST(EventsTest, HeaderFieldsAndRawView) {
  const Fixture f = xid();
  const Event ev = decode(f);
  EXPECT_EQ(ev.pos, kPos);
  EXPECT_EQ(ev.header.timestamp, kTimestamp);
  EXPECT_EQ(ev.header.type, static_cast<std::uint8_t>(EventType::kXid));
  EXPECT_EQ(ev.type(), EventType::kXid);
  EXPECT_EQ(ev.header.server_id, kServerId);
  EXPECT_EQ(ev.header.event_size, 27u);
  EXPECT_EQ(ev.header.log_pos, kPos + 27);
  EXPECT_EQ(ev.header.flags, 0u);
  EXPECT_EQ(ev.raw.data(), f.bytes.data());
  EXPECT_EQ(ev.raw.size(), 27u);
  EXPECT_EQ(ev.end_pos(), kPos + 27);
}

TEST(EventsTest, FormatDescriptionMariaDbWithCrc32) {
  const Fixture f = fde_mariadb();
  ASSERT_EQ(f.bytes.size(), 252u);  // what MariaDB 10.x writes: the first event ends at 256
  const Event ev = decode(f);
  const auto* fde = std::get_if<FormatDescription>(&ev.body);
  ASSERT_NE(fde, nullptr);
  EXPECT_EQ(fde->binlog_version, 4u);
  EXPECT_EQ(fde->server_version, "10.11.6-MariaDB-log");
  EXPECT_EQ(fde->created, kTimestamp);
  const FormatContext& c = fde->context;
  EXPECT_EQ(c.binlog_version, 4u);
  EXPECT_EQ(c.header_length, 19u);
  EXPECT_TRUE(c.mariadb);
  EXPECT_EQ(c.server_version, (std::array<int, 3>{10, 11, 6}));
  EXPECT_EQ(c.checksum, ChecksumAlg::kCrc32);
  EXPECT_EQ(c.post_header(EventType::kStartV3), 56u);
  EXPECT_EQ(c.post_header(EventType::kQuery), 13u);
  EXPECT_EQ(c.post_header(EventType::kRotate), 8u);
  EXPECT_EQ(c.post_header(EventType::kExecuteLoadQuery), 26u);
  EXPECT_EQ(c.post_header(EventType::kTableMap), 8u);
  EXPECT_EQ(c.post_header(EventType::kWriteRowsV1), 8u);
  EXPECT_EQ(c.post_header(EventType::kWriteRowsV2), 10u);
  EXPECT_EQ(c.post_header(EventType::kMariaGtid), 19u);
  EXPECT_EQ(c.post_header(EventType::kMariaGtidList), 4u);
  EXPECT_EQ(c.post_header(EventType::kMariaDeleteRowsCompressed), 10u);
  // The algorithm byte and the trailer are not post-header lengths.
  EXPECT_EQ(c.post_header_len[172], 0u);
  EXPECT_EQ(c.post_header_len[173], 0u);
}

TEST(EventsTest, FormatDescriptionChecksumAlgorithmOff) {
  const Fixture f = fde_mariadb(0, "FdeAlgOff");
  const Event ev = decode(f);
  const auto& fde = std::get<FormatDescription>(ev.body);
  EXPECT_EQ(fde.context.checksum, ChecksumAlg::kOff);
  EXPECT_EQ(fde.context.post_header(EventType::kMariaDeleteRowsCompressed), 10u);
}

TEST(EventsTest, FormatDescriptionUnknownChecksumAlgorithmIsBadEvent) {
  const Fixture f = fde_mariadb(7, "FdeAlg7");
  try {
    (void)decode(f);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kBadEvent);
    EXPECT_TRUE(e.has_offset());
  }
}

TEST(EventsTest, FormatDescriptionHeaderLengthBelow19IsBadEvent) {
  Fixture f = fde_mariadb();
  f.bytes[kHeader + 56] = std::byte{13};  // common header length
  try {
    (void)decode(f);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kBadEvent);
  }
}

TEST(EventsTest, FormatDescriptionMySql55HasNoChecksum) {
  const Fixture f = fde_mysql55();
  ASSERT_EQ(f.bytes.size(), 103u);
  const Event ev = decode(f);
  const auto* fde = std::get_if<FormatDescription>(&ev.body);
  ASSERT_NE(fde, nullptr);
  EXPECT_EQ(fde->server_version, "5.5.62-log");
  const FormatContext& c = fde->context;
  EXPECT_FALSE(c.mariadb);
  EXPECT_EQ(c.server_version, (std::array<int, 3>{5, 5, 62}));
  EXPECT_EQ(c.checksum, ChecksumAlg::kOff);
  EXPECT_EQ(c.post_header(EventType::kQuery), 13u);
  EXPECT_EQ(c.post_header(EventType::kFormatDescription), 84u);
  EXPECT_EQ(c.post_header(EventType::kTableMap), 8u);
  EXPECT_EQ(c.post_header(EventType::kDeleteRowsV1), 8u);
  EXPECT_EQ(c.post_header(EventType::kIncident), 2u);
  EXPECT_EQ(c.post_header(EventType::kHeartbeat), 0u);
  EXPECT_EQ(c.post_header(EventType::kIgnorable), 0u);  // type 28 is past the 27 listed
}

TEST(EventsTest, Rotate) {
  const Fixture f = rotate();
  const Event r_ev = decode(f);
  const auto& r = std::get<Rotate>(r_ev.body);
  EXPECT_EQ(r.position, 4u);
  EXPECT_EQ(r.next_file, "mysql-bin.000002");
}

TEST(EventsTest, RotateInBinlogV1HasNoPosition) {
  FormatContext ctx = mariadb_context();
  ctx.post_header_len[static_cast<std::uint8_t>(EventType::kRotate)] = 0;  // as in binlog v1
  Wire w = header(EventType::kRotate);
  w.str("old-bin.002");  // next file name only: no position in front
  const Fixture f = make("RotateV1", std::move(w), kHeader, kHeader, ctx);
  const Event r_ev = decode(f);
  const auto& r = std::get<Rotate>(r_ev.body);
  EXPECT_EQ(r.position, 4u);
  EXPECT_EQ(r.next_file, "old-bin.002");
}

TEST(EventsTest, Stop) {
  const Fixture f = stop();
  EXPECT_TRUE(std::holds_alternative<Stop>(decode(f).body));
}

TEST(EventsTest, QueryClassicStatusVariables) {
  const Fixture f = query();
  const Event q_ev = decode(f);
  const auto* q = std::get_if<Query>(&q_ev.body);
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->thread_id, 77u);
  EXPECT_EQ(q->exec_time, 3u);
  EXPECT_EQ(q->error_code, 0u);
  EXPECT_EQ(q->db, "shop");
  EXPECT_EQ(q->query, kQueryText);
  EXPECT_FALSE(q->compressed);
  const QueryStatus& st = q->status;
  EXPECT_EQ(st.flags2, 0x0c000000u);
  EXPECT_EQ(st.sql_mode, 0x54200000u);
  EXPECT_EQ(st.catalog, std::string_view("std"));
  EXPECT_EQ(st.auto_increment, (std::pair<std::uint16_t, std::uint16_t>{2, 1}));
  EXPECT_EQ(st.charset, (std::array<std::uint16_t, 3>{33, 45, 8}));
  EXPECT_EQ(st.time_zone, std::string_view("SYSTEM"));
  EXPECT_EQ(st.lc_time_names, 2u);
  EXPECT_EQ(st.charset_database, 46u);
  EXPECT_EQ(st.invoker_user, std::string_view("root"));
  EXPECT_EQ(st.invoker_host, std::string_view("localhost"));
  EXPECT_TRUE(st.has_updated_dbs);
  EXPECT_FALSE(st.updated_dbs_over_max);
  ASSERT_EQ(st.updated_db_count, 2u);
  EXPECT_EQ(st.updated_dbs[0], "shop");
  EXPECT_EQ(st.updated_dbs[1], "crm");
  EXPECT_EQ(st.microseconds, 123456u);
  EXPECT_EQ(st.unknown_code, 0u);
  EXPECT_FALSE(st.ddl_xid.has_value());
  EXPECT_FALSE(st.table_map_for_update.has_value());
}

TEST(EventsTest, QueryMariaDbStatusVariables) {
  const Fixture f = query_mariadb();
  const Event q_ev = decode(f);
  const auto* q = std::get_if<Query>(&q_ev.body);
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->query, "ALTER TABLE t ENGINE=InnoDB");
  const QueryStatus& st = q->status;
  EXPECT_EQ(st.flags2, 0u);
  EXPECT_EQ(st.microseconds, 654321u);
  EXPECT_EQ(st.ddl_xid, 0x1122334455u);
  EXPECT_EQ(st.gtid_flags3, 4u);
  EXPECT_EQ(ints(st.character_set_collations), (std::vector<int>{33, 0, 192, 0, 45, 0, 224, 0}));
  EXPECT_EQ(st.charset_database, 46u);  // the 8-byte sa_seq_no was skipped correctly
  EXPECT_EQ(st.unknown_code, 0u);
}

TEST(EventsTest, QueryGtidFlags3WithoutSequenceNumber) {
  Wire s;
  s.u8(130).u8(2);    // Q_GTID_FLAGS3 / FL_START_ALTER_E1: no sa_seq_no follows
  s.u8(8).u16le(46);  // Q_CHARSET_DATABASE_CODE
  const Fixture f = query_with("StartAlter", EventType::kQuery, s, "shop", "ALTER TABLE t");
  const Event q_ev = decode(f);
  const auto& q = std::get<Query>(q_ev.body);
  EXPECT_EQ(q.status.gtid_flags3, 2u);
  EXPECT_EQ(q.status.charset_database, 46u);
}

TEST(EventsTest, QueryMySql8StatusVariables) {
  const Fixture f = query_mysql8();
  const Event q_ev = decode(f);
  const auto* q = std::get_if<Query>(&q_ev.body);
  ASSERT_NE(q, nullptr);
  const QueryStatus& st = q->status;
  EXPECT_EQ(st.catalog, std::string_view("def"));
  EXPECT_EQ(st.table_map_for_update, 5u);
  EXPECT_EQ(st.explicit_defaults_ts, 1u);
  EXPECT_EQ(st.ddl_xid, 999u);
  EXPECT_EQ(st.default_collation_utf8mb4, 255u);
  EXPECT_EQ(st.sql_require_primary_key, 1u);
  EXPECT_EQ(st.default_table_encryption, 1u);
  EXPECT_TRUE(st.has_updated_dbs);
  EXPECT_TRUE(st.updated_dbs_over_max);
  EXPECT_EQ(st.updated_db_count, 0u);
  EXPECT_EQ(st.unknown_code, 0u);
  EXPECT_EQ(q->query, "CREATE TABLE t (a INT)");
}

TEST(EventsTest, QueryUnknownStatusCodeStopsParsingButFindsQuery) {
  const Fixture f = query_unknown_status();
  const Event q_ev = decode(f);
  const auto* q = std::get_if<Query>(&q_ev.body);
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->status.flags2, 0x4000u);
  EXPECT_EQ(q->status.unknown_code, 250u);
  EXPECT_FALSE(q->status.charset_database.has_value());
  EXPECT_EQ(q->db, "shop");
  EXPECT_EQ(q->query, "DELETE FROM t");
}

TEST(EventsTest, QueryMoreThan16UpdatedDbsSetsOverMax) {
  Wire s;
  s.u8(12).u8(17);                                                    // Q_UPDATED_DB_NAMES / count
  for (int i = 0; i < 17; ++i) s.str("d" + std::to_string(i)).u8(0);  // names
  const Fixture f = query_with("ManyDbs", EventType::kQuery, s, "", "DROP TABLE a");
  const Event q_ev = decode(f);
  const auto& q = std::get<Query>(q_ev.body);
  EXPECT_EQ(q.status.updated_db_count, 16u);
  EXPECT_TRUE(q.status.updated_dbs_over_max);
  EXPECT_EQ(q.status.updated_dbs[15], "d15");
  EXPECT_EQ(q.db, "");
  EXPECT_EQ(q.query, "DROP TABLE a");
}

TEST(EventsTest, QueryDatabaseNotNulTerminatedIsBadEvent) {
  Fixture f = query();
  const std::size_t nul_at = f.bytes.size() - kQueryText.size() - 1;
  ASSERT_EQ(f.bytes[nul_at], std::byte{0});
  f.bytes[nul_at] = std::byte{'x'};
  try {
    (void)decode(f);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kBadEvent);
  }
}

TEST(EventsTest, QueryChecksumTrailerIsNotPartOfTheText) {
  const Fixture f = query_checksummed();
  const Event q_ev = decode(f);
  const auto& q = std::get<Query>(q_ev.body);
  EXPECT_EQ(q.query, "BEGIN");
  EXPECT_EQ(q.db, "shop");
}

TEST(EventsTest, QueryCompressedKeepsCompressedBytes) {
  const Fixture f = query_compressed();
  const Event q_ev = decode(f);
  const auto& q = std::get<Query>(q_ev.body);
  EXPECT_TRUE(q.compressed);
  EXPECT_EQ(q.query, std::string_view("\x81\x05\x78\x9c\x73", 5));
}

TEST(EventsTest, ExecuteLoadQuery) {
  const Fixture f = execute_load_query();
  const Event q_ev = decode(f);
  const auto& q = std::get<Query>(q_ev.body);
  EXPECT_EQ(q.thread_id, 77u);
  EXPECT_EQ(q.file_id, 5u);
  EXPECT_EQ(q.fn_pos_start, kLoadQuery.find("INFILE"));
  EXPECT_EQ(q.fn_pos_end, kLoadQuery.find("' ") + 1);
  EXPECT_EQ(q.dup_handling, 2u);
  EXPECT_EQ(q.status.flags2, 0u);
  EXPECT_EQ(q.db, "shop");
  EXPECT_EQ(q.query, kLoadQuery);
}

TEST(EventsTest, Xid) {
  const Fixture f = xid();
  EXPECT_EQ(std::get<Xid>(decode(f).body).xid, 0x0102030405060708u);
}

TEST(EventsTest, Intvar) {
  const Fixture f = intvar();
  const Event iv_ev = decode(f);
  const auto& iv = std::get<Intvar>(iv_ev.body);
  EXPECT_EQ(iv.type, 2u);
  EXPECT_EQ(iv.value, 101u);
}

TEST(EventsTest, Rand) {
  const Fixture f = rand_event();
  const Event r_ev = decode(f);
  const auto& r = std::get<Rand>(r_ev.body);
  EXPECT_EQ(r.seed1, 0x1111222233334444u);
  EXPECT_EQ(r.seed2, 0x5555666677778888u);
}

TEST(EventsTest, UserVarString) {
  const Fixture f = user_var_string();
  const Event v_ev = decode(f);
  const auto& v = std::get<UserVar>(v_ev.body);
  EXPECT_EQ(v.name, "name");
  EXPECT_FALSE(v.is_null);
  EXPECT_EQ(v.value_type, 0u);
  EXPECT_EQ(v.charset, 33u);
  EXPECT_EQ(text(v.value), "hello");
  EXPECT_EQ(v.flags, 0u);
}

TEST(EventsTest, UserVarIntUnsigned) {
  const Fixture f = user_var_int();
  const Event v_ev = decode(f);
  const auto& v = std::get<UserVar>(v_ev.body);
  EXPECT_EQ(v.name, "big");
  EXPECT_FALSE(v.is_null);
  EXPECT_EQ(v.value_type, 2u);
  EXPECT_EQ(v.charset, 63u);
  EXPECT_EQ(ints(v.value), (std::vector<int>(8, 0xff)));
  EXPECT_EQ(v.flags, 1u);
}

TEST(EventsTest, UserVarNull) {
  const Fixture f = user_var_null();
  const Event v_ev = decode(f);
  const auto& v = std::get<UserVar>(v_ev.body);
  EXPECT_EQ(v.name, "n");
  EXPECT_TRUE(v.is_null);
  EXPECT_TRUE(v.value.empty());
}

TEST(EventsTest, TableMap) {
  const Fixture f = table_map();
  const Event tm_ev = decode(f);
  const auto* tm = std::get_if<TableMap>(&tm_ev.body);
  ASSERT_NE(tm, nullptr);
  EXPECT_EQ(tm->table_id, 0x010203040506u);
  EXPECT_EQ(tm->flags, 1u);
  EXPECT_EQ(tm->db, "shop");
  EXPECT_EQ(tm->table, "tags");
  EXPECT_EQ(tm->column_count, 3u);
  EXPECT_EQ(ints(tm->column_types), (std::vector<int>{3, 15, 246}));
  EXPECT_EQ(ints(tm->metadata), (std::vector<int>{0xfc, 0x03, 10, 2}));
  EXPECT_EQ(ints(tm->null_bits), (std::vector<int>{0x06}));
  EXPECT_EQ(ints(tm->optional_metadata), (std::vector<int>{1, 1, 0}));
}

TEST(EventsTest, TableMapWithoutMetadataFromMySql5115) {
  const Fixture f = table_map();
  const std::size_t after_types = kHeader + 8 + 6 + 6 + 1 + 3;
  const Event ev = decode_event(Bytes(f.bytes).first(after_types), kPos, f.ctx);
  const auto& tm = std::get<TableMap>(ev.body);
  EXPECT_EQ(tm.table, "tags");
  EXPECT_EQ(tm.column_count, 3u);
  EXPECT_EQ(ints(tm.column_types), (std::vector<int>{3, 15, 246}));
  EXPECT_TRUE(tm.metadata.empty());
  EXPECT_TRUE(tm.null_bits.empty());
  EXPECT_TRUE(tm.optional_metadata.empty());
}

TEST(EventsTest, TableMapCutInsideMetadataThrows) {
  const Fixture f = table_map();
  const std::size_t after_types = kHeader + 8 + 6 + 6 + 1 + 3;
  const std::size_t after_null_bits = after_types + 1 + 4 + 1;
  for (std::size_t len = after_types + 1; len < after_null_bits; ++len)
    EXPECT_EQ(decode_prefix(f.bytes, len, f.ctx), Outcome::kThrew) << len;
  EXPECT_EQ(decode_prefix(f.bytes, after_types, f.ctx), Outcome::kDecoded);
}

TEST(EventsTest, TableMapFourByteTableId) {
  const Fixture f = table_map_4byte_id();
  const Event tm_ev = decode(f);
  const auto& tm = std::get<TableMap>(tm_ev.body);
  EXPECT_EQ(tm.table_id, 0x01020304u);
  EXPECT_EQ(tm.flags, 1u);
  EXPECT_EQ(tm.db, "shop");
  EXPECT_EQ(tm.table, "tags");
  EXPECT_TRUE(tm.optional_metadata.empty());
}

TEST(EventsTest, TableMapColumnCountPastEndIsAnError) {
  Wire w = header(EventType::kTableMap);
  w.u48le(1).u16le(0);     // table_id / flags
  w.u8(1).str("d").u8(0);  // db
  w.u8(1).str("t").u8(0);  // table
  w.u8(0xfe);              // column_count: packed, u64 follows
  w.u64le(1ULL << 40);     //   2^40 columns
  w.u8(3);                 // one column type
  const Fixture f = make("Bad", std::move(w), 0, kNever);
  EXPECT_THROW((void)decode(f), Error);
}

TEST(EventsTest, WriteRowsV1) {
  const Fixture f = write_rows_v1();
  const Event r_ev = decode(f);
  const auto* r = std::get_if<Rows>(&r_ev.body);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->kind, RowsKind::kWrite);
  EXPECT_EQ(r->version, 1);
  EXPECT_FALSE(r->compressed);
  EXPECT_EQ(r->table_id, 0x010203040506u);
  EXPECT_EQ(r->flags, kStmtEndFlag);
  EXPECT_TRUE(r->extra.empty());
  EXPECT_EQ(r->column_count, 3u);
  EXPECT_EQ(ints(r->columns_before), (std::vector<int>{0x07}));
  EXPECT_TRUE(r->columns_after.empty());
  EXPECT_EQ(r->rows.size(), 1u + 4 + 1 + 3 + 5);
  EXPECT_EQ(static_cast<int>(r->rows[5]), 3);  // the name's length byte
}

TEST(EventsTest, UpdateRowsV1HasTwoBitmaps) {
  const Fixture f = update_rows_v1();
  const Event r_ev = decode(f);
  const auto& r = std::get<Rows>(r_ev.body);
  EXPECT_EQ(r.kind, RowsKind::kUpdate);
  EXPECT_EQ(r.version, 1);
  EXPECT_EQ(r.table_id, 42u);
  EXPECT_EQ(r.column_count, 2u);
  EXPECT_EQ(ints(r.columns_before), (std::vector<int>{0x03}));
  EXPECT_EQ(ints(r.columns_after), (std::vector<int>{0x01}));
  EXPECT_EQ(r.rows.size(), 9u + 5u);
  EXPECT_EQ(static_cast<int>(r.rows[1]), 1);  // before image: id
}

TEST(EventsTest, WriteRowsV2SkipsExtraData) {
  const Fixture f = write_rows_v2_extra();
  const Event r_ev = decode(f);
  const auto& r = std::get<Rows>(r_ev.body);
  EXPECT_EQ(r.kind, RowsKind::kWrite);
  EXPECT_EQ(r.version, 2);
  EXPECT_EQ(r.table_id, 42u);
  EXPECT_EQ(r.flags, 1u);
  EXPECT_EQ(r.column_count, 1u);
  EXPECT_EQ(ints(r.columns_before), (std::vector<int>{0x01}));
  EXPECT_EQ(ints(r.rows), (std::vector<int>{0, 5, 0, 0, 0}));
}

TEST(EventsTest, WriteRowsV2ExposesExtraData) {
  // BUG (binlog/events.cc decode_rows, the v2 extra-data branch): with the post-header length every
  // server writes for v2 rows events (10), the extra data lies after the post-header, so the
  // `else` branch runs: it skips the bytes and sets `r.extra = {}`. Rows::extra is therefore
  // always empty for real events although events.h documents it as the extra data.
  // Fix: after `post` is consumed, take the part not inside the post-header from `cur`, e.g.
  //   if (post.remaining() >= extra) r.extra = post.bytes(extra);
  //   else { post.skip(post.remaining()); r.extra = cur.bytes(extra); }  // ph == 10 case
  // (for ph > 10 the post-header's extra bytes are unknown future fields, not extra data).
  const Fixture f = write_rows_v2_extra();
  const Event r_ev = decode(f);
  const auto& r = std::get<Rows>(r_ev.body);
  EXPECT_EQ(ints(r.extra), (std::vector<int>{0, 3, 1, 0xab, 0xcd}));
}

TEST(EventsTest, DeleteRowsV2WithoutExtraData) {
  const Fixture f = delete_rows_v2();
  const Event r_ev = decode(f);
  const auto& r = std::get<Rows>(r_ev.body);
  EXPECT_EQ(r.kind, RowsKind::kDelete);
  EXPECT_EQ(r.version, 2);
  EXPECT_EQ(r.table_id, 43u);
  EXPECT_EQ(r.flags, 0u);
  EXPECT_TRUE(r.extra.empty());
  EXPECT_EQ(r.column_count, 1u);
  EXPECT_EQ(ints(r.rows), (std::vector<int>{0, 6, 0, 0, 0}));
}

TEST(EventsTest, RowsV2ExtraLengthBelowTwoIsBadEvent) {
  Wire w = header(EventType::kWriteRowsV2);
  w.u48le(42)    // table_id
      .u16le(0)  // flags
      .u16le(1)  // extra_len: 1 cannot count its own two bytes
      .u8(1)     // column_count
      .u8(1);    // columns bitmap
  const Fixture f = make("Bad", std::move(w), 0, kNever);
  try {
    (void)decode(f);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kBadEvent);
  }
}

TEST(EventsTest, RowsFourByteTableId) {
  const Fixture f = write_rows_4byte_id();
  const Event r_ev = decode(f);
  const auto& r = std::get<Rows>(r_ev.body);
  EXPECT_EQ(r.table_id, 0x01020304u);
  EXPECT_EQ(r.flags, 1u);
  EXPECT_EQ(r.column_count, 1u);
  EXPECT_EQ(ints(r.rows), (std::vector<int>{0, 7, 0, 0, 0}));
}

TEST(EventsTest, RowsCompressedV1) {
  const Fixture f = update_rows_compressed_v1();
  const Event r_ev = decode(f);
  const auto& r = std::get<Rows>(r_ev.body);
  EXPECT_EQ(r.kind, RowsKind::kUpdate);
  EXPECT_EQ(r.version, 1);
  EXPECT_TRUE(r.compressed);
  EXPECT_EQ(r.table_id, 44u);
  EXPECT_EQ(ints(r.rows), (std::vector<int>{0x81, 0x0a, 0x78, 0x9c}));
}

TEST(EventsTest, RowsPreGaAndPartialUpdate) {
  const Fixture pre_ga = pre_ga_write_rows();
  const Event r0_ev = decode(pre_ga);
  const auto& r0 = std::get<Rows>(r0_ev.body);
  EXPECT_EQ(r0.kind, RowsKind::kWrite);
  EXPECT_EQ(r0.version, 0);
  EXPECT_EQ(r0.table_id, 45u);
  EXPECT_EQ(ints(r0.rows), (std::vector<int>{0, 8, 0, 0, 0}));
  const Fixture partial = partial_update_rows();
  const Event r_ev = decode(partial);
  const auto& r = std::get<Rows>(r_ev.body);
  EXPECT_EQ(r.kind, RowsKind::kPartialUpdate);
  EXPECT_EQ(r.version, 2);
  EXPECT_EQ(r.table_id, 46u);
  EXPECT_EQ(ints(r.columns_before), (std::vector<int>{0x03}));
  EXPECT_EQ(ints(r.columns_after), (std::vector<int>{0x02}));
  EXPECT_EQ(ints(r.rows), (std::vector<int>{0x11, 0x22}));
}

TEST(EventsTest, RowsBitmapPastEndIsAnError) {
  Wire w = header(EventType::kWriteRowsV1);
  w.u48le(1)         // table_id
      .u16le(0)      // flags
      .u8(0xfc)      // column_count: packed, u16 follows
      .u16le(4000);  //   4000 columns: a 500-byte bitmap that is not there
  const Fixture f = make("Bad", std::move(w), 0, kNever);
  EXPECT_THROW((void)decode(f), Error);
}

TEST(EventsTest, GtidMySql8FullLayout) {
  const Fixture f = gtid_mysql8();
  const Event g_ev = decode(f);
  const auto* g = std::get_if<Gtid>(&g_ev.body);
  ASSERT_NE(g, nullptr);
  EXPECT_FALSE(g->anonymous);
  EXPECT_EQ(g->flags, 1u);
  EXPECT_EQ(g->sid, kSid);
  EXPECT_EQ(g->gno, 23);
  EXPECT_EQ(g->last_committed, 5);
  EXPECT_EQ(g->sequence_number, 6);
  EXPECT_EQ(g->immediate_commit_ts, kImmediateTs);
  EXPECT_EQ(g->original_commit_ts, kOriginalTs);
  EXPECT_EQ(g->transaction_length, 300u);
  EXPECT_EQ(g->immediate_server_version, 80036u);
  EXPECT_EQ(g->original_server_version, 80035u);
}

TEST(EventsTest, GtidMySql57LogicalClockOnly) {
  const Fixture f = gtid_mysql57();
  const Event g_ev = decode(f);
  const auto& g = std::get<Gtid>(g_ev.body);
  EXPECT_EQ(g.gno, 9);
  EXPECT_EQ(g.last_committed, 3);
  EXPECT_EQ(g.sequence_number, 4);
  EXPECT_FALSE(g.immediate_commit_ts.has_value());
  EXPECT_FALSE(g.original_commit_ts.has_value());
  EXPECT_FALSE(g.transaction_length.has_value());
  EXPECT_FALSE(g.immediate_server_version.has_value());
}

TEST(EventsTest, AnonymousGtidOriginalsDefaultToImmediate) {
  const Fixture f = anonymous_gtid();
  const Event g_ev = decode(f);
  const auto& g = std::get<Gtid>(g_ev.body);
  EXPECT_TRUE(g.anonymous);
  EXPECT_EQ(g.sid, (std::array<std::uint8_t, 16>{}));
  EXPECT_EQ(g.gno, 0);
  EXPECT_EQ(g.last_committed, 10);
  EXPECT_EQ(g.sequence_number, 11);
  EXPECT_EQ(g.immediate_commit_ts, kImmediateTs);
  EXPECT_EQ(g.original_commit_ts, kImmediateTs);
  EXPECT_EQ(g.transaction_length, 200u);
  EXPECT_EQ(g.immediate_server_version, 80036u);
  EXPECT_EQ(g.original_server_version, 80036u);
}

TEST(EventsTest, PreviousGtidsKeepsTheWholeBody) {
  const Fixture f = previous_gtids();
  const Event p_ev = decode(f);
  const auto& p = std::get<PreviousGtids>(p_ev.body);
  ASSERT_EQ(p.data.size(), 8u + 2 * (16 + 8) + 3 * 16);
  EXPECT_EQ(p.data.data(), f.bytes.data() + kHeader);
}

TEST(EventsTest, PreviousGtidsIntervalCountPastEndIsBadEvent) {
  Wire w = header(EventType::kPreviousGtids);
  w.u64le(1)              // n_sids
      .raw(kSid)          // sid
      .u64le(1ULL << 60)  // n_intervals: absurd
      .u64le(1)           // start
      .u64le(2);          // end
  const Fixture f = make("Bad", std::move(w), 0, kNever);
  try {
    (void)decode(f);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kBadEvent);
  }
}

// A tagged Previous_gtids (MySQL 8.4+): a tag is letters, digits and '_' (MySQL's rule);
// anything else, which would be written into SQL literals and comments, is a damaged event.
Fixture tagged_previous_gtids(std::string_view tag) {
  Wire w = header(EventType::kPreviousGtids);
  w.u64le((1ULL << 56) | (1ULL << 8))                  // tagged format, one sid
      .raw(kSid)                                       // sid
      .u8(static_cast<std::uint8_t>(tag.size() << 1))  // varlen tag length
      .str(tag)                                        // the tag
      .u64le(1)                                        // n_intervals
      .u64le(1)                                        // start
      .u64le(2);                                       // end
  return make("TaggedPrevious", std::move(w), 0, kNever);
}

TEST(EventsTest, PreviousGtidsTagsAreMySqlTagsOnly) {
  EXPECT_NO_THROW((void)decode(tagged_previous_gtids("night_job_2")));
  for (const std::string_view bad :
       {std::string_view("a';DROP DATABASE x;--"), std::string_view("tag\nDROP"),
        std::string_view("9lives"), std::string_view("t\x1b]0;x")}) {
    try {
      (void)decode(tagged_previous_gtids(bad));
      FAIL() << "expected an error for " << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kBadEvent) << bad;
    }
  }
}

TEST(EventsTest, MariaGtidStandalone) {
  const Fixture f = maria_gtid_standalone();
  const Event g_ev = decode(f);
  const auto& g = std::get<MariaGtid>(g_ev.body);
  EXPECT_EQ(g.seq_no, 42u);
  EXPECT_EQ(g.domain_id, 3u);
  EXPECT_EQ(g.flags, MariaGtid::kStandalone | MariaGtid::kDdl);
  EXPECT_EQ(g.commit_id, 0u);
  EXPECT_TRUE(g.xa_data.empty());
}

TEST(EventsTest, MariaGtidWithCommitId) {
  const Fixture f = maria_gtid_commit_id();
  const Event g_ev = decode(f);
  const auto& g = std::get<MariaGtid>(g_ev.body);
  EXPECT_EQ(g.seq_no, 43u);
  EXPECT_EQ(g.domain_id, 0u);
  EXPECT_EQ(g.flags,
            MariaGtid::kGroupCommitId | MariaGtid::kTransactional | MariaGtid::kAllowParallel);
  EXPECT_EQ(g.commit_id, 987654321u);
}

TEST(EventsTest, MariaGtidWithXa) {
  const Fixture f = maria_gtid_xa();
  const Event g_ev = decode(f);
  const auto& g = std::get<MariaGtid>(g_ev.body);
  EXPECT_EQ(g.seq_no, 44u);
  EXPECT_EQ(g.flags, MariaGtid::kPreparedXa | MariaGtid::kTransactional);
  EXPECT_EQ(g.xa_format_id, 1u);
  EXPECT_EQ(g.xa_gtrid_len, 3u);
  EXPECT_EQ(g.xa_bqual_len, 2u);
  EXPECT_EQ(text(g.xa_data), "abcde");
}

TEST(EventsTest, MariaGtidXaPartLongerThan64IsBadEvent) {
  Wire w = header(EventType::kMariaGtid);
  w.u64le(1)       // seq_no
      .u32le(0)    // domain_id
      .u8(64)      // flags2: FL_PREPARED_XA
      .u32le(1)    // format_id
      .u8(65)      // gtrid_length: over the 64-byte limit
      .u8(0)       // bqual_length
      .zeros(65);  // data
  const Fixture f = make("Bad", std::move(w), 0, kNever);
  try {
    (void)decode(f);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kBadEvent);
  }
}

TEST(EventsTest, MariaGtidShorterThanPostHeaderIsRejected) {
  // DEVIATION (binlog/events.cc decode_event, case kMariaGtid): MariaDB's
  // Gtid_log_event reader rejects an event shorter than header + post_header_len[GTID_EVENT]
  // (GTID_HEADER_LEN = 19); decode_maria_gtid reads only 13 bytes, so a standalone GTID cut
  // inside its 6 padding bytes decodes as if whole. Fix, in the same style as the
  // PREVIOUS_GTIDS check: before decoding,
  //   { ByteCursor check = cur; check.skip(ctx.post_header(type)); }  // throws kTruncated
  const Fixture f = maria_gtid_standalone();
  for (std::size_t len = kHeader + 13; len < kHeader + 19; ++len)
    EXPECT_EQ(decode_prefix(f.bytes, len, f.ctx), Outcome::kThrew) << len;
}

TEST(EventsTest, MariaGtidList) {
  const Fixture f = maria_gtid_list();
  const Event l_ev = decode(f);
  const auto& l = std::get<MariaGtidList>(l_ev.body);
  EXPECT_EQ(l.count, 2u);
  EXPECT_EQ(l.flags, 1u);
  ASSERT_EQ(l.entries.size(), 32u);
  EXPECT_EQ(static_cast<int>(l.entries[4]), 1);    // first server_id
  EXPECT_EQ(static_cast<int>(l.entries[8]), 100);  // first seq_no
  EXPECT_EQ(static_cast<int>(l.entries[16]), 1);   // second domain_id
}

TEST(EventsTest, MariaGtidListCountPastEndIsBadEvent) {
  Wire w = header(EventType::kMariaGtidList);
  w.u32le(0x0fffffff)  // count: 268 million entries
      .zeros(16);      // one entry
  const Fixture f = make("Bad", std::move(w), 0, kNever);
  try {
    (void)decode(f);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kBadEvent);
  }
}

TEST(EventsTest, BinlogCheckpoint) {
  const Fixture f = binlog_checkpoint();
  EXPECT_EQ(std::get<BinlogCheckpoint>(decode(f).body).file, "mysql-bin.000001");
}

TEST(EventsTest, AnnotateRows) {
  const Fixture f = annotate_rows();
  EXPECT_EQ(std::get<RowsQuery>(decode(f).body).query, "INSERT INTO t VALUES (1)");
}

TEST(EventsTest, RowsQuerySkipsItsLengthByte) {
  const Fixture f = rows_query();
  EXPECT_EQ(std::get<RowsQuery>(decode(f).body).query, "INSERT INTO t VALUES (2)");
}

TEST(EventsTest, XaPrepare) {
  const Fixture f = xa_prepare();
  const Event x_ev = decode(f);
  const auto& x = std::get<XaPrepare>(x_ev.body);
  EXPECT_FALSE(x.one_phase);
  EXPECT_EQ(x.format_id, 1u);
  EXPECT_EQ(x.gtrid_len, 3u);
  EXPECT_EQ(x.bqual_len, 2u);
  EXPECT_EQ(text(x.data), "abcde");
}

TEST(EventsTest, XaPreparePartLongerThan64IsBadEvent) {
  Wire w = header(EventType::kXaPrepare);
  w.u8(1)           // one_phase
      .u32le(1)     // format_id
      .u32le(1000)  // gtrid_length: over 64
      .u32le(0)     // bqual_length
      .zeros(8);    // some data
  const Fixture f = make("Bad", std::move(w), 0, kNever);
  try {
    (void)decode(f);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kBadEvent);
  }
}

TEST(EventsTest, Incident) {
  const Fixture f = incident();
  const Event i_ev = decode(f);
  const auto& i = std::get<Incident>(i_ev.body);
  EXPECT_EQ(i.type, 1u);
  EXPECT_EQ(i.message, "lost events");
}

TEST(EventsTest, IncidentWithoutMessage) {
  const Fixture f = incident();
  const Event i_ev = decode_event(Bytes(f.bytes).first(kHeader + 2), kPos, f.ctx);
  const auto& i = std::get<Incident>(i_ev.body);
  EXPECT_EQ(i.type, 1u);
  EXPECT_EQ(i.message, "");
}

TEST(EventsTest, Heartbeat) {
  const Fixture f = heartbeat();
  EXPECT_EQ(std::get<Heartbeat>(decode(f).body).log_ident, "mysql-bin.000003");
}

TEST(EventsTest, BeginLoadQueryAndAppendBlock) {
  const Fixture begin = begin_load_query();
  const Event b_ev = decode(begin);
  const auto& b = std::get<LoadBlock>(b_ev.body);
  EXPECT_EQ(b.file_id, 5u);
  EXPECT_EQ(text(b.data), "1,a\n2,b\n");
  const Fixture append = append_block();
  const Event ev = decode(append);
  EXPECT_EQ(ev.type(), EventType::kAppendBlock);
  const auto& a = std::get<LoadBlock>(ev.body);
  EXPECT_EQ(a.file_id, 5u);
  EXPECT_EQ(text(a.data), "3,c\n");
}

TEST(EventsTest, CreateFileAndExecLoad) {
  const Fixture f = create_file();
  const Event ev = decode(f);
  const auto& l = std::get<LoadData>(ev.body);
  EXPECT_EQ(l.thread_id, 1u);
  EXPECT_EQ(l.skip_lines, 2u);
  EXPECT_EQ(l.file_id, 7u);
  EXPECT_EQ(l.field_term, "\t");
  EXPECT_EQ(l.enclosed, "\"");
  EXPECT_EQ(l.line_term, "\n");
  EXPECT_EQ(l.line_start, "");
  EXPECT_EQ(l.escaped, "\\");
  EXPECT_EQ(l.opt_flags, LoadData::kOptEnclosed | LoadData::kReplace);
  EXPECT_EQ(l.num_fields, 2u);
  EXPECT_EQ(text(l.field_names), std::string("a\0bcd\0", 6));
  EXPECT_EQ(l.table, "t3");
  EXPECT_EQ(l.db, "test");
  EXPECT_EQ(l.fname, "big_file.dat");
  EXPECT_EQ(text(l.block), "Aarhus\nAaron\n");
  EXPECT_EQ(std::get<LoadFileRef>(decode(exec_load()).body).file_id, 7u);
}

TEST(EventsTest, DropTreeServersPermuteEventTypes) {
  // A 5.2.2-a_drop6p13 format description with 22 event types: code 16 is a table map, 17-19
  // pre-GA rows, 20 Xid, 21-22 the LOAD DATA query events (ver_5_1-wl2325_r.001 in the corpus).
  Wire w = header(EventType::kFormatDescription);
  w.u16le(4).padded("5.2.2-a_drop6p13-debug-log", 50).u32le(kTimestamp).u8(19);
  for (int t = 1; t <= 22; ++t) w.u8(static_cast<std::uint8_t>(t == 16 ? 8 : t == 20 ? 0 : 30 + t));
  const Fixture fde =
      make("DropFde", std::move(w), kHeader, kHeader, FormatContext::for_version(4));
  const FormatContext ctx = std::get<FormatDescription>(decode(fde).body).context;
  EXPECT_TRUE(ctx.drop_tree_types);
  EXPECT_EQ(ctx.event_type(16), static_cast<std::uint8_t>(EventType::kTableMap));
  EXPECT_EQ(ctx.event_type(17), static_cast<std::uint8_t>(EventType::kPreGaWriteRows));
  EXPECT_EQ(ctx.event_type(20), static_cast<std::uint8_t>(EventType::kXid));
  EXPECT_EQ(ctx.event_type(22), static_cast<std::uint8_t>(EventType::kExecuteLoadQuery));
  EXPECT_EQ(ctx.event_type(2), static_cast<std::uint8_t>(EventType::kQuery));
  EXPECT_EQ(ctx.post_header(EventType::kTableMap), 8);  // the length listed 16th
  EXPECT_EQ(ctx.post_header(EventType::kXid), 0);       // the length listed 20th
  // Any other version keeps the numbering.
  Wire v = header(EventType::kFormatDescription);
  v.u16le(4).padded("5.1.23-rc-debug-log", 50).u32le(kTimestamp).u8(19);
  for (int t = 1; t <= 22; ++t) v.u8(0);
  const Fixture plain =
      make("PlainFde", std::move(v), kHeader, kHeader, FormatContext::for_version(4));
  EXPECT_FALSE(std::get<FormatDescription>(decode(plain).body).context.drop_tree_types);
}

TEST(EventsTest, StartEncryption) {
  const Fixture f = start_encryption();
  const Event s_ev = decode(f);
  const auto& s = std::get<StartEncryption>(s_ev.body);
  EXPECT_EQ(s.scheme, 1u);
  EXPECT_EQ(s.key_version, 7u);
}

TEST(EventsTest, StartEncryptionShortNonceIsRejected) {
  // DEVIATION (binlog/events.cc decode_event, case kMariaStartEncryption): MariaDB's
  // Start_encryption_log_event accepts only an event of exactly 19 + 17 bytes (scheme,
  // key_version, 12-byte nonce); the decoder never reads the nonce, so an event cut inside it
  // decodes. Fix: `cur.skip(12);` after key_version (or keep the nonce in the struct).
  const Fixture f = start_encryption();
  for (std::size_t len = kHeader + 5; len < f.bytes.size(); ++len)
    EXPECT_EQ(decode_prefix(f.bytes, len, f.ctx), Outcome::kThrew) << len;
}

TEST(EventsTest, StartV3) {
  const Fixture f = start_v3();
  const Event s_ev = decode(f);
  const auto& s = std::get<StartV3>(s_ev.body);
  EXPECT_EQ(s.binlog_version, 3u);
  EXPECT_EQ(s.server_version, "4.0.30-log");
  EXPECT_EQ(s.created, kTimestamp);
}

TEST(EventsTest, TransactionPayloadDecodes) {
  const Fixture f = transaction_payload();
  const Event ev = decode(f);
  EXPECT_TRUE(std::holds_alternative<TransactionPayload>(ev.body));
  EXPECT_EQ(ev.raw.size(), kHeader + 7 + 4);
}

TEST(EventsTest, UnknownTypeKeepsRawBytes) {
  const Fixture f = unknown_type();
  const Event ev = decode(f);
  EXPECT_TRUE(std::holds_alternative<Unknown>(ev.body));
  EXPECT_EQ(ev.header.type, 99u);
  EXPECT_EQ(ev.raw.size(), kHeader + 4);
}

TEST(EventsTest, KnownUndecodedTypeIsUnknown) {
  const Fixture f = ignorable();
  const Event ev = decode(f);
  EXPECT_TRUE(std::holds_alternative<Unknown>(ev.body));
  EXPECT_EQ(ev.header.flags, 0x80u);
}

TEST(EventsTest, ParseServerVersion) {
  EXPECT_EQ(parse_server_version("10.11.19-MariaDB-log"), (std::array<int, 3>{10, 11, 19}));
  EXPECT_EQ(parse_server_version("8.0.36"), (std::array<int, 3>{8, 0, 36}));
  EXPECT_EQ(parse_server_version("5.1"), (std::array<int, 3>{5, 1, 0}));
  EXPECT_EQ(parse_server_version(""), (std::array<int, 3>{0, 0, 0}));
  EXPECT_TRUE(version_has_checksum({5, 6, 1}, false));
  EXPECT_FALSE(version_has_checksum({5, 6, 0}, false));
  EXPECT_TRUE(version_has_checksum({5, 3, 0}, true));
  EXPECT_FALSE(version_has_checksum({5, 2, 9}, true));
}

}  // namespace
}  // namespace binrecover::binlog
