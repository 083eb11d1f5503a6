// The fixtures of format descriptions, rotations, statements and table maps (event_fixtures.h).
#include "tests/binlog/event_fixtures.h"

namespace binrecover::binlog::event_fixtures {

Fixture fde_mariadb(std::uint8_t alg, std::string name) {
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

}  // namespace binrecover::binlog::event_fixtures
