#include "binlog/event_type.h"

namespace binrecover::binlog {

std::string_view event_type_name(std::uint8_t code) {
  switch (static_cast<EventType>(code)) {
    case EventType::kUnknown:
      return "Unknown";
    case EventType::kStartV3:
      return "Start_v3";
    case EventType::kQuery:
      return "Query";
    case EventType::kStop:
      return "Stop";
    case EventType::kRotate:
      return "Rotate";
    case EventType::kIntvar:
      return "Intvar";
    case EventType::kLoad:
      return "Load";
    case EventType::kSlave:
      return "Slave";
    case EventType::kCreateFile:
      return "Create_file";
    case EventType::kAppendBlock:
      return "Append_block";
    case EventType::kExecLoad:
      return "Exec_load";
    case EventType::kDeleteFile:
      return "Delete_file";
    case EventType::kNewLoad:
      return "New_load";
    case EventType::kRand:
      return "RAND";
    case EventType::kUserVar:
      return "User var";
    case EventType::kFormatDescription:
      return "Format_desc";
    case EventType::kXid:
      return "Xid";
    case EventType::kBeginLoadQuery:
      return "Begin_load_query";
    case EventType::kExecuteLoadQuery:
      return "Execute_load_query";
    case EventType::kTableMap:
      return "Table_map";
    case EventType::kPreGaWriteRows:
      return "Write_rows_event_old";
    case EventType::kPreGaUpdateRows:
      return "Update_rows_event_old";
    case EventType::kPreGaDeleteRows:
      return "Delete_rows_event_old";
    case EventType::kWriteRowsV1:
      return "Write_rows_v1";
    case EventType::kUpdateRowsV1:
      return "Update_rows_v1";
    case EventType::kDeleteRowsV1:
      return "Delete_rows_v1";
    case EventType::kIncident:
      return "Incident";
    case EventType::kHeartbeat:
      return "Heartbeat";
    case EventType::kIgnorable:
      return "Ignorable";
    case EventType::kRowsQuery:
      return "Rows_query";
    case EventType::kWriteRowsV2:
      return "Write_rows";
    case EventType::kUpdateRowsV2:
      return "Update_rows";
    case EventType::kDeleteRowsV2:
      return "Delete_rows";
    case EventType::kGtid:
      return "Gtid";
    case EventType::kAnonymousGtid:
      return "Anonymous_Gtid";
    case EventType::kPreviousGtids:
      return "Previous_gtids";
    case EventType::kTransactionContext:
      return "Transaction_context";
    case EventType::kViewChange:
      return "View_change";
    case EventType::kXaPrepare:
      return "XA_prepare";
    case EventType::kPartialUpdateRows:
      return "Update_rows_partial";
    case EventType::kTransactionPayload:
      return "Transaction_payload";
    case EventType::kHeartbeatV2:
      return "Heartbeat_v2";
    case EventType::kGtidTagged:
      return "Gtid_tagged_log_event";  // as the server's SHOW BINLOG EVENTS names it
    case EventType::kMariaAnnotateRows:
      return "Annotate_rows";
    case EventType::kMariaBinlogCheckpoint:
      return "Binlog_checkpoint";
    case EventType::kMariaGtid:
      return "Gtid";
    case EventType::kMariaGtidList:
      return "Gtid_list";
    case EventType::kMariaStartEncryption:
      return "Start_encryption";
    case EventType::kMariaQueryCompressed:
      return "Query_compressed";
    case EventType::kMariaWriteRowsCompressedV1:
      return "Write_rows_compressed_v1";
    case EventType::kMariaUpdateRowsCompressedV1:
      return "Update_rows_compressed_v1";
    case EventType::kMariaDeleteRowsCompressedV1:
      return "Delete_rows_compressed_v1";
    case EventType::kMariaWriteRowsCompressed:
      return "Write_rows_compressed";
    case EventType::kMariaUpdateRowsCompressed:
      return "Update_rows_compressed";
    case EventType::kMariaDeleteRowsCompressed:
      return "Delete_rows_compressed";
  }
  return "Unknown";
}

bool is_known_event_type(std::uint8_t code) {
  return (code >= 1 && code <= 42) || (code >= 160 && code <= 171);
}

bool rows_type_info(EventType t, RowsTypeInfo* out) {
  switch (t) {
    case EventType::kPreGaWriteRows:
      *out = {RowsKind::kWrite, 0, false};
      return true;
    case EventType::kPreGaUpdateRows:
      *out = {RowsKind::kUpdate, 0, false};
      return true;
    case EventType::kPreGaDeleteRows:
      *out = {RowsKind::kDelete, 0, false};
      return true;
    case EventType::kWriteRowsV1:
      *out = {RowsKind::kWrite, 1, false};
      return true;
    case EventType::kUpdateRowsV1:
      *out = {RowsKind::kUpdate, 1, false};
      return true;
    case EventType::kDeleteRowsV1:
      *out = {RowsKind::kDelete, 1, false};
      return true;
    case EventType::kWriteRowsV2:
      *out = {RowsKind::kWrite, 2, false};
      return true;
    case EventType::kUpdateRowsV2:
      *out = {RowsKind::kUpdate, 2, false};
      return true;
    case EventType::kDeleteRowsV2:
      *out = {RowsKind::kDelete, 2, false};
      return true;
    case EventType::kPartialUpdateRows:
      *out = {RowsKind::kPartialUpdate, 2, false};
      return true;
    case EventType::kMariaWriteRowsCompressedV1:
      *out = {RowsKind::kWrite, 1, true};
      return true;
    case EventType::kMariaUpdateRowsCompressedV1:
      *out = {RowsKind::kUpdate, 1, true};
      return true;
    case EventType::kMariaDeleteRowsCompressedV1:
      *out = {RowsKind::kDelete, 1, true};
      return true;
    case EventType::kMariaWriteRowsCompressed:
      *out = {RowsKind::kWrite, 2, true};
      return true;
    case EventType::kMariaUpdateRowsCompressed:
      *out = {RowsKind::kUpdate, 2, true};
      return true;
    case EventType::kMariaDeleteRowsCompressed:
      *out = {RowsKind::kDelete, 2, true};
      return true;
    default:
      return false;
  }
}

}  // namespace binrecover::binlog
