#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <variant>

#include "binlog/byte_cursor.h"
#include "binlog/event_type.h"

namespace binrecover::binlog {

inline constexpr std::uint16_t kLogEventBinlogInUse = 0x1;  // header flag on the first event
inline constexpr std::uint16_t kLogEventSuppressUse = 0x8;
// An event a reader that does not know its type may skip (MySQL 5.6+, e.g. Aurora padding).
inline constexpr std::uint16_t kLogEventIgnorable = 0x80;  // query: do not print `use db`
inline constexpr std::uint16_t kStmtEndFlag = 0x1;         // rows event flag: statement ends

enum class ChecksumAlg : std::uint8_t { kOff = 0, kCrc32 = 1, kUndefined = 255 };

// What the format description (or the v1/v3 start event) says about the events that follow.
struct FormatContext {
  std::uint16_t binlog_version = 4;
  std::uint8_t header_length = 19;
  std::array<std::uint8_t, 256> post_header_len{};  // index = event type code
  ChecksumAlg checksum = ChecksumAlg::kOff;
  bool mariadb = false;
  std::array<int, 3> server_version{};  // {major, minor, patch}

  // Servers of MySQL's 5.1/5.2 "a_drop5"/"a_drop6" development trees (5.1.1-5.1.5, 5.2.0-5.2.2)
  // numbered event types 16-22 differently; their format description says so by its version
  // and 22 event types (MySQL 5.1-5.7 Format_description_log_event::event_type_permutation).
  bool drop_tree_types = false;

  std::uint8_t post_header(EventType t) const {
    return post_header_len[static_cast<std::uint8_t>(t)];
  }
  // The type code a header's on-disk code stands for.
  std::uint8_t event_type(std::uint8_t code) const {
    static constexpr std::uint8_t kDropTree[23] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11,
                                                   12, 13, 14, 15, 19, 20, 21, 22, 16, 17, 18};
    return drop_tree_types && code < 23 ? kDropTree[code] : code;
  }
  // Defaults for a v4 log before its FDE is read, and for v1/v3 logs.
  static FormatContext for_version(std::uint16_t binlog_version);
};

// Common header. v1 logs (MySQL 3.23) have 13 bytes; v3 and v4 have 19.
//   u32 timestamp / u8 type / u32 server_id / u32 event_size / [u32 log_pos / u16 flags]
struct EventHeader {
  std::uint32_t timestamp = 0;
  std::uint8_t type = 0;
  std::uint32_t server_id = 0;
  std::uint32_t event_size = 0;
  // End position of this event (0 in v1 logs and relay-log quirks; v3 logs store the start,
  // decode_event adds the size as servers do).
  std::uint32_t log_pos = 0;
  std::uint16_t flags = 0;
};

// FORMAT_DESCRIPTION_EVENT (15), MySQL libbinlogevents control_events.h:
//   u16 binlog_version / char[50] server_version / u32 create_timestamp / u8 header_length /
//   u8 post_header_len[N] / [u8 checksum_alg / u32 crc, servers with checksums]
struct FormatDescription {
  std::uint16_t binlog_version = 0;
  std::string_view server_version;
  std::uint32_t created = 0;
  FormatContext context;
};

// START_EVENT_V3 (1): u16 binlog_version / char[50] server_version / u32 created.
struct StartV3 {
  std::uint16_t binlog_version = 0;
  std::string_view server_version;
  std::uint32_t created = 0;
};

// ROTATE_EVENT (4): [u64 position, binlog v4 and v3] / str next_file (rest of the body).
struct Rotate {
  std::uint64_t position = 4;
  std::string_view next_file;
};

struct Stop {};

// Session state carried in a query event's status variables (sql/log_event.h Q_*_CODE).
struct QueryStatus {
  std::optional<std::uint32_t> flags2;      // 0 Q_FLAGS2_CODE
  std::optional<std::uint64_t> sql_mode;    // 1 Q_SQL_MODE_CODE
  std::optional<std::string_view> catalog;  // 2 / 6 Q_CATALOG(_NZ)_CODE
  std::optional<std::pair<std::uint16_t, std::uint16_t>> auto_increment;  // 3 increment, offset
  std::optional<std::array<std::uint16_t, 3>> charset;  // 4 client, connection, server
  std::optional<std::string_view> time_zone;            // 5 Q_TIME_ZONE_CODE
  std::optional<std::uint16_t> lc_time_names;           // 7
  std::optional<std::uint16_t> charset_database;        // 8
  std::optional<std::uint64_t> table_map_for_update;    // 9
  std::optional<std::string_view> invoker_user;         // 11 Q_INVOKER
  std::optional<std::string_view> invoker_host;
  // 12 Q_UPDATED_DB_NAMES: up to 16 names; over_max_dbs when the server gave up listing them.
  std::array<std::string_view, 16> updated_dbs{};
  std::uint8_t updated_db_count = 0;
  bool has_updated_dbs = false;
  bool updated_dbs_over_max = false;
  std::optional<std::uint32_t> microseconds;               // 13 Q_MICROSECONDS / 128 Q_HRNOW
  std::optional<std::uint8_t> explicit_defaults_ts;        // 16
  std::optional<std::uint64_t> ddl_xid;                    // 17 / MariaDB 129 Q_XID
  std::optional<std::uint16_t> default_collation_utf8mb4;  // 18
  std::optional<std::uint8_t> sql_require_primary_key;     // 19
  std::optional<std::uint8_t> default_table_encryption;    // 20
  std::optional<std::uint8_t> gtid_flags3;                 // MariaDB 130
  Bytes character_set_collations;                          // MariaDB 131, raw pairs
  std::uint8_t unknown_code = 0;  // first status code we could not parse (0 = none)
};

// QUERY_EVENT (2), also the base of EXECUTE_LOAD_QUERY (18):
//   post-header: u32 thread_id / u32 exec_time / u8 db_len / u16 error_code / u16 status_len (v4)
//   body: status vars / str db / u8 0 / str query (rest)
struct Query {
  std::uint32_t thread_id = 0;
  std::uint32_t exec_time = 0;
  std::uint16_t error_code = 0;
  std::string_view db;
  std::string_view query;
  QueryStatus status;
  // EXECUTE_LOAD_QUERY only: u32 file_id / u32 fn_pos_start / u32 fn_pos_end / u8 dup_handling
  std::uint32_t file_id = 0;
  std::uint32_t fn_pos_start = 0;
  std::uint32_t fn_pos_end = 0;
  std::uint8_t dup_handling = 0;
  bool compressed = false;  // MariaDB QUERY_COMPRESSED: `query` holds the compressed bytes
};

// XID_EVENT (16): u64 xid.
struct Xid {
  std::uint64_t xid = 0;
};

// INTVAR_EVENT (5): u8 type (1 LAST_INSERT_ID, 2 INSERT_ID) / u64 value.
struct Intvar {
  std::uint8_t type = 0;
  std::uint64_t value = 0;
};

// RAND_EVENT (13): u64 seed1 / u64 seed2.
struct Rand {
  std::uint64_t seed1 = 0;
  std::uint64_t seed2 = 0;
};

// USER_VAR_EVENT (14): u32 name_len / str name / u8 is_null /
//   [u8 value_type / u32 charset / u32 value_len / value / [u8 flags]]
struct UserVar {
  std::string_view name;
  bool is_null = true;
  std::uint8_t value_type = 0;  // 0 STRING, 1 REAL, 2 INT, 4 DECIMAL
  std::uint32_t charset = 0;
  Bytes value;
  std::uint8_t flags = 0;  // 1 = unsigned
};

// TABLE_MAP_EVENT (19): post-header u48 table_id (u32 when post_header_len is 6) / u16 flags;
//   body: u8 db_len / str db / u8 0 / u8 table_len / str table / u8 0 / packed column_count /
//   u8 types[column_count] / packed meta_len / metadata / null_bits / [optional metadata]
struct TableMap {
  std::uint64_t table_id = 0;
  std::uint16_t flags = 0;
  std::string_view db;
  std::string_view table;
  std::uint64_t column_count = 0;
  Bytes column_types;
  Bytes metadata;
  Bytes null_bits;
  Bytes optional_metadata;
  // File offsets of metadata and optional_metadata, for error messages.
  std::uint64_t metadata_offset = 0;
  std::uint64_t optional_metadata_offset = 0;
};

// WRITE/UPDATE/DELETE_ROWS (v0, v1, v2, MariaDB compressed), PARTIAL_UPDATE_ROWS:
//   post-header u48 table_id (u32 when post_header_len is 6) / u16 flags /
//   [v2: u16 extra_len (counting itself) / extra data]
//   body: packed column_count / columns bitmap / [update: after-image bitmap] / rows (rest)
// Rows stay undecoded here: SQL output in BINLOG form needs only the raw event.
struct Rows {
  RowsKind kind = RowsKind::kWrite;
  int version = 1;
  bool compressed = false;
  std::uint64_t table_id = 0;
  std::uint16_t flags = 0;
  Bytes extra;
  std::uint64_t column_count = 0;
  Bytes columns_before;
  Bytes columns_after;
  Bytes rows;
};

// GTID_LOG_EVENT (33) and ANONYMOUS_GTID_LOG_EVENT (34), libbinlogevents control_events.h:
//   u8 flags / u8 sid[16] / i64 gno / [u8 lt_type / i64 last_committed / i64 sequence_number /
//   [u56 immediate_commit_ts (bit 55: original follows) / [u56 original_commit_ts]] /
//   [packed transaction_length] / [u32 immediate_server_version (bit 31: original follows) /
//   [u32 original_server_version]]]
// GTID_TAGGED_LOG_EVENT (42, MySQL 8.3+) carries the same fields in MySQL's serialization
// format: varlen format version / varlen size / varlen last non-ignorable field id /
// { varlen field id / value }: 0 flags, 1 uuid (16 varlen bytes), 2 gno, 3 tag (varlen length /
// bytes), 4 last_committed, 5 sequence_number, 6 immediate_commit_ts, 7 original_commit_ts,
// 8 transaction_length, 9 immediate_server_version, 10 original_server_version, 11 ticket.
struct Gtid {
  bool anonymous = false;
  std::string_view tag;  // tagged GTIDs only
  std::uint8_t flags = 0;
  std::array<std::uint8_t, 16> sid{};
  std::int64_t gno = 0;
  std::int64_t last_committed = 0;
  std::int64_t sequence_number = 0;
  std::optional<std::uint64_t> immediate_commit_ts;
  std::optional<std::uint64_t> original_commit_ts;
  std::optional<std::uint64_t> transaction_length;
  std::optional<std::uint32_t> immediate_server_version;
  std::optional<std::uint32_t> original_server_version;
};

// PREVIOUS_GTIDS_LOG_EVENT (35): u64 n_sids / { u8 sid[16] / u64 n_intervals /
//   { i64 start / i64 end_exclusive } }.  Kept raw; formatted on demand.
// With tags (MySQL 8.3+) the first word is u8 format (1) / u48 n_sids / u8 format (1), and each
// sid is followed by its tag: varlen length / bytes.
struct PreviousGtids {
  Bytes data;
};

// MariaDB GTID_EVENT (162), sql/log_event.h Gtid_log_event:
//   u64 seq_no / u32 domain_id / u8 flags2 / [FL_GROUP_COMMIT_ID: u64 commit_id] /
//   [FL_PREPARED_XA|FL_COMPLETED_XA: u32 format_id / u8 gtrid_len / u8 bqual_len / data]
//   / [u8 flags_extra ...]
struct MariaGtid {
  static constexpr std::uint8_t kStandalone = 1;
  static constexpr std::uint8_t kGroupCommitId = 2;
  static constexpr std::uint8_t kTransactional = 4;
  static constexpr std::uint8_t kAllowParallel = 8;
  static constexpr std::uint8_t kWaited = 16;
  static constexpr std::uint8_t kDdl = 32;
  static constexpr std::uint8_t kPreparedXa = 64;
  static constexpr std::uint8_t kCompletedXa = 128;
  std::uint64_t seq_no = 0;
  std::uint32_t domain_id = 0;
  std::uint8_t flags = 0;
  std::uint64_t commit_id = 0;
  std::uint32_t xa_format_id = 0;
  std::uint8_t xa_gtrid_len = 0;
  std::uint8_t xa_bqual_len = 0;
  Bytes xa_data;
};

// MariaDB GTID_LIST_EVENT (163): u32 count (low 28 bits) / { u32 domain / u32 server / u64 seq }.
struct MariaGtidList {
  std::uint32_t count = 0;
  std::uint8_t flags = 0;
  Bytes entries;  // count * 16 bytes
};

// MariaDB BINLOG_CHECKPOINT_EVENT (161): u32 name_len / str name.
struct BinlogCheckpoint {
  std::string_view file;
};

// MariaDB ANNOTATE_ROWS_EVENT (160) and MySQL ROWS_QUERY_LOG_EVENT (29, u8 length first, which
// is ignored: the text runs to the end of the body).
struct RowsQuery {
  std::string_view query;
};

// XA_PREPARE_LOG_EVENT (38): u8 one_phase / u32 format_id / u32 gtrid_len / u32 bqual_len / data.
struct XaPrepare {
  bool one_phase = false;
  std::uint32_t format_id = 0;
  std::uint32_t gtrid_len = 0;
  std::uint32_t bqual_len = 0;
  Bytes data;
};

// INCIDENT_EVENT (26): u16 type / u8 msg_len / str message.
struct Incident {
  std::uint16_t type = 0;
  std::string_view message;
};

// HEARTBEAT_LOG_EVENT (27): the log name is the body.
struct Heartbeat {
  std::string_view log_ident;
};

// BEGIN_LOAD_QUERY (17) and APPEND_BLOCK (9): u32 file_id / data (rest).
struct LoadBlock {
  std::uint32_t file_id = 0;
  Bytes data;
};

// TRANSACTION_PAYLOAD_EVENT (40), MySQL 8.0.20+ binlog_transaction_compression
// (libbinlogevents Transaction_payload_event): a list of fields, each
//   packed type / packed length / value (a packed integer)
// ending with type 0 (no length), then the payload: the transaction's events, compressed.
//   type 1 payload_size / 2 compression_type (0 zstd, 255 none) / 3 uncompressed_size
// The inner events have 19-byte headers and no checksums.
struct TransactionPayload {
  static constexpr std::uint8_t kZstd = 0;
  static constexpr std::uint8_t kNone = 255;
  std::uint64_t payload_size = 0;
  std::uint8_t compression = kNone;
  std::uint64_t uncompressed_size = 0;
  Bytes payload;
};

// MariaDB START_ENCRYPTION_EVENT (164): u8 scheme / u32 key_version / u8 nonce[12].
struct StartEncryption {
  std::uint8_t scheme = 0;
  std::uint32_t key_version = 0;
};

// LOAD_EVENT (6), NEW_LOAD_EVENT (12) and CREATE_FILE_EVENT (8) of MySQL 3.23-4.x LOAD DATA
// (log_event.cc Load_log_event::copy_log_event, Create_file_log_event):
//   post-header: u32 thread_id / u32 exec_time / u32 skip_lines / u8 table_len / u8 db_len /
//   u32 num_fields [/ CREATE_FILE: u32 file_id]
//   body: the FIELDS/LINES options — LOAD_EVENT: one byte each for field_term, enclosed,
//   line_term, line_start, escaped, then u8 opt_flags / u8 empty_flags (bit 0x1 field_term ..
//   0x10 escaped: that one is empty); the others: field_term, enclosed, line_term, line_start,
//   escaped each as u8 length + bytes, then u8 opt_flags / u8 field_len[num_fields] / the field
//   names, each NUL-terminated / table NUL / db NUL / the file name (NUL-terminated in
//   CREATE_FILE, which then carries the file's first block; the rest of the event otherwise).
struct LoadData {
  static constexpr std::uint8_t kOptEnclosed = 0x2;  // OPTIONALLY ENCLOSED BY
  static constexpr std::uint8_t kReplace = 0x4;
  static constexpr std::uint8_t kIgnore = 0x8;
  std::uint32_t thread_id = 0;
  std::uint32_t exec_time = 0;
  std::uint32_t skip_lines = 0;
  std::uint32_t file_id = 0;  // CREATE_FILE
  std::string_view field_term, enclosed, line_term, line_start, escaped;
  std::uint8_t opt_flags = 0;
  std::uint32_t num_fields = 0;
  Bytes field_names;  // num_fields NUL-terminated names
  std::string_view table, db, fname;
  Bytes block;  // CREATE_FILE: the first block of the data
};

// EXEC_LOAD_EVENT (10) and DELETE_FILE_EVENT (11): u32 file_id (run, or drop, the LOAD DATA
// whose data CREATE_FILE and APPEND_BLOCK carried).
struct LoadFileRef {
  std::uint32_t file_id = 0;
};

// Anything else: a type we know but do not decode, or one nobody defines. Its raw bytes remain.
struct Unknown {};

using EventBody =
    std::variant<Unknown, FormatDescription, StartV3, Rotate, Stop, Query, Xid, Intvar, Rand,
                 UserVar, TableMap, Rows, Gtid, PreviousGtids, MariaGtid, MariaGtidList,
                 BinlogCheckpoint, RowsQuery, XaPrepare, Incident, Heartbeat, LoadBlock,
                 TransactionPayload, StartEncryption, LoadData, LoadFileRef>;

struct Event {
  std::uint64_t pos = 0;  // offset of the event's first byte in its file
  // Events unpacked from a MySQL transaction payload carry the payload's position and have
  // no checksum of their own.
  bool in_payload = false;
  // The body did not decode and --force-read asked to go on: the body is Unknown, and the
  // transaction holding the event is left out (loudly) by the reading path.
  bool damaged = false;
  EventHeader header;
  EventBody body;
  Bytes raw;  // the whole event, header and checksum included

  EventType type() const { return static_cast<EventType>(header.type); }
  std::uint64_t end_pos() const { return pos + raw.size(); }
};

// Parses the common header at the start of `raw` (header_length 13 or 19).
EventHeader parse_header(Bytes raw, std::uint8_t header_length, std::uint64_t pos);

// Decodes one framed event. `raw` is the whole event as framed by a source; `ctx` is the format
// in force. The checksum trailer (if any) has already been verified by the reader and is left out
// of the body here. Throws binrecover::Error with the absolute offset on malformed bodies.
Event decode_event(Bytes raw, std::uint64_t pos, const FormatContext& ctx);

// Decodes a format description body into a new context (checksum algorithm included).
FormatDescription decode_format_description(Bytes raw, std::uint64_t pos,
                                            std::uint8_t header_length);

// Server version "10.11.19-MariaDB-log" -> {10, 11, 19}.
std::array<int, 3> parse_server_version(std::string_view v);
// Whether a server of this version writes the checksum algorithm into its FDE
// (MySQL 5.6.1+, MariaDB 5.3+).
bool version_has_checksum(const std::array<int, 3>& v, bool mariadb);

}  // namespace binrecover::binlog
