#pragma once

#include <cstdint>
#include <string_view>

namespace binrecover::binlog {

// Event type codes as written in byte 4 of every event header. MySQL's codes from
// libbinlogevents/include/binlog_event.h; MariaDB's (160+) from sql/log_event.h.
enum class EventType : std::uint8_t {
  kUnknown = 0,
  kStartV3 = 1,
  kQuery = 2,
  kStop = 3,
  kRotate = 4,
  kIntvar = 5,
  kLoad = 6,
  kSlave = 7,
  kCreateFile = 8,
  kAppendBlock = 9,
  kExecLoad = 10,
  kDeleteFile = 11,
  kNewLoad = 12,
  kRand = 13,
  kUserVar = 14,
  kFormatDescription = 15,
  kXid = 16,
  kBeginLoadQuery = 17,
  kExecuteLoadQuery = 18,
  kTableMap = 19,
  kPreGaWriteRows = 20,
  kPreGaUpdateRows = 21,
  kPreGaDeleteRows = 22,
  kWriteRowsV1 = 23,
  kUpdateRowsV1 = 24,
  kDeleteRowsV1 = 25,
  kIncident = 26,
  kHeartbeat = 27,
  kIgnorable = 28,
  kRowsQuery = 29,
  kWriteRowsV2 = 30,
  kUpdateRowsV2 = 31,
  kDeleteRowsV2 = 32,
  kGtid = 33,
  kAnonymousGtid = 34,
  kPreviousGtids = 35,
  kTransactionContext = 36,
  kViewChange = 37,
  kXaPrepare = 38,
  kPartialUpdateRows = 39,
  kTransactionPayload = 40,
  kHeartbeatV2 = 41,
  kGtidTagged = 42,
  kMariaAnnotateRows = 160,
  kMariaBinlogCheckpoint = 161,
  kMariaGtid = 162,
  kMariaGtidList = 163,
  kMariaStartEncryption = 164,
  kMariaQueryCompressed = 165,
  kMariaWriteRowsCompressedV1 = 166,
  kMariaUpdateRowsCompressedV1 = 167,
  kMariaDeleteRowsCompressedV1 = 168,
  kMariaWriteRowsCompressed = 169,
  kMariaUpdateRowsCompressed = 170,
  kMariaDeleteRowsCompressed = 171,
};

// The name SHOW BINLOG EVENTS prints in its Event_type column (MariaDB's spelling where the
// servers differ; "Unknown_N" for codes nobody defines).
std::string_view event_type_name(std::uint8_t code);
inline std::string_view event_type_name(EventType t) {
  return event_type_name(static_cast<std::uint8_t>(t));
}
// Whether binrecover has a decoder for this code.
bool is_known_event_type(std::uint8_t code);

enum class RowsKind : std::uint8_t { kWrite, kUpdate, kDelete, kPartialUpdate };

// Rows events of every generation: returns false when `t` is not a rows event.
struct RowsTypeInfo {
  RowsKind kind;
  int version;  // 0 = pre-GA (5.1.0-5.1.15), 1, 2
  bool compressed;
};
bool rows_type_info(EventType t, RowsTypeInfo* out);

}  // namespace binrecover::binlog
