// SQL output, one writer per event type: what each event of the binlog becomes in the SQL text
// (recovery/sql/sql_sink.h).
#include <algorithm>
#include <ctime>

#include "binlog/charsets.h"
#include "binlog/error.h"
#include "binlog/event_edit.h"
#include "binlog/maria_compression.h"
#include "binlog/row_layout.h"
#include "recovery/sql/event_info.h"
#include "recovery/sql/row_sql.h"
#include "recovery/sql/sql_sink.h"
#include "recovery/sql/text_writer.h"

namespace binrecover::recovery {

using namespace binlog;

// Events SQL output has nothing to replay for.
template <typename T>
void SqlSink::write_body(const Event& ev, const T& /*b*/, const FormatContext& /*ctx*/) {
  auto it = std::back_inserter(buf_);
  const bool sf = !comments_;
  const EventType type = ev.type();
  if (!sf) fmt::format_to(it, "{} (not replayed)\n", event_type_name(type));
}

// The start of a file (Format_description, or Start_v3 of 3.23 and 4.0 logs): the comment, and
// the ROLLBACK of a server start (a transaction cut by a crash is not committed).
void SqlSink::start_event(std::uint16_t binlog_version, std::string_view server_version,
                          std::uint32_t when, bool at_startup, bool in_use) {
  if (comments_) {
    fmt::format_to(std::back_inserter(buf_), "Start: binlog v {}, server v ", binlog_version);
    append_comment_text(buf_, server_version);
    append(" created ");
    time_text(when);
    if (at_startup) append(" at startup");
    append("\n");
    if (in_use) append("# Warning: this binlog is either in use or was not closed properly.\n");
  }
  if (at_startup) {
    append("ROLLBACK");
    delimiter();
  }
}

void SqlSink::write_body(const Event& ev, const FormatDescription& b, const FormatContext& ctx) {
  mysql_log_ = !ctx.mariadb && b.server_version.find("MariaDB") == std::string_view::npos;
  if (opts_.idempotent && (opts_.target_mariadb || (!mysql_log_ && !opts_.target_mysql)))
    throw Error(ErrorCode::kUsage,
                "--idempotent is MySQL's (RBR_EXEC_MODE, which MariaDB ignores): this SQL is for "
                "MariaDB (a MariaDB log; --target-flavor=mysql if it is for MySQL)",
                ev.pos);
  start_event(b.binlog_version, b.server_version, b.created != 0 ? b.created : ev.header.timestamp,
              b.created != 0, (ev.header.flags & kLogEventBinlogInUse) != 0);
  fde_written_ = false;
  fde_raw_.clear();
  if (!opts_.short_form && opts_.base64_output != Base64Output::kNever) {
    // (DECODE-ROWS writes no BINLOG statement for rows, and so none for the format: as
    // mysqlbinlog and mariadb-binlog)
    if (binlog_maps() && opts_.base64_output != Base64Output::kDecodeRows)
      write_fde_binlog(ev.raw);
    else  // plain SQL needs no BINLOG statement, unless an atomic CREATE ... SELECT comes
      fde_raw_.assign(ev.raw.begin(), ev.raw.end());
  }
  // Each file starts a fresh print state, as mysqlbinlog's: the output of one file stays
  // replayable on its own.
  st_ = PrintedState{};
}

void SqlSink::write_fde_binlog(Bytes raw) {
  append("BINLOG '\n");
  append_base64(buf_, raw);
  append("\n'");
  delimiter();
  // MySQL 5.7+ sets GTID_NEXT to NOT_YET_DETERMINED when it runs a BINLOG statement holding
  // a Format_description event: a statement that follows without a GTID of its own would then
  // be ANONYMOUS, which a server with GTID_MODE=ON refuses (error 1782), and so would the
  // final ROLLBACK. As mysqlbinlog, set it back, for MySQL's logs (mariadb-binlog writes
  // nothing there; MariaDB, which has no GTID_NEXT, skips MySQL 5.7+ version comments anyway).
  if (mysql_log_) {
    append("/*!50700 SET @@SESSION.GTID_NEXT='AUTOMATIC'*/");
    delimiter();
  }
  fde_written_ = true;
}

void SqlSink::write_body(const Event& /*ev*/, const StartV3& b, const FormatContext& /*ctx*/) {
  start_event(b.binlog_version, b.server_version, b.created, b.created != 0, false);
}

void SqlSink::write_body(const Event& /*ev*/, const Rotate& b, const FormatContext& /*ctx*/) {
  auto it = std::back_inserter(buf_);
  const bool sf = !comments_;
  if (!sf) {
    append("Rotate to ");
    append_comment_text(buf_, b.next_file);
    fmt::format_to(it, "  pos: {}\n", b.position);
  }
}

void SqlSink::write_body(const Event& /*ev*/, const Stop& /*b*/, const FormatContext& /*ctx*/) {
  const bool sf = !comments_;
  if (!sf) append("Stop\n");
}

void SqlSink::write_body(const Event& ev, const Query& b, const FormatContext& ctx) {
  query(ev, b, ctx);
}

void SqlSink::write_body(const Event& /*ev*/, const Xid& b, const FormatContext& /*ctx*/) {
  const bool sf = !comments_;
  if (!sf) Writer(buf_) << "Xid = " << b.xid << "\n";
  append("COMMIT");
  delimiter();
}

void SqlSink::write_body(const Event& /*ev*/, const Intvar& b, const FormatContext& /*ctx*/) {
  auto it = std::back_inserter(buf_);
  const bool sf = !comments_;
  if (!sf) append("Intvar\n");
  fmt::format_to(it, "SET {}={}", b.type == 1 ? "LAST_INSERT_ID" : "INSERT_ID", b.value);
  delimiter();
}

void SqlSink::write_body(const Event& /*ev*/, const Rand& b, const FormatContext& /*ctx*/) {
  auto it = std::back_inserter(buf_);
  const bool sf = !comments_;
  if (!sf) append("Rand\n");
  fmt::format_to(it, "SET @@RAND_SEED1={}, @@RAND_SEED2={}", b.seed1, b.seed2);
  delimiter();
}

void SqlSink::write_body(const Event& /*ev*/, const UserVar& b, const FormatContext& /*ctx*/) {
  const bool sf = !comments_;
  if (!sf) append("User_var\n");
  const bool nbe = !client_reads_ident_alike(b.name);
  if (nbe) nbe_begin();
  append("SET @");
  append_quoted_ident(buf_, b.name);
  append(":=");
  append_user_var_value(buf_, b, true);
  delimiter();
  if (nbe) nbe_end();
}

void SqlSink::write_body(const Event& ev, const TableMap& b, const FormatContext& ctx) {
  const bool sf = !comments_;
  if (opts_.base64_output == Base64Output::kNever && !opts_.rows_as_sql)
    throw Error(ErrorCode::kUnsupportedFormat,
                "--base64-output=NEVER, but the binlog holds row events, which replay "
                "only as BINLOG statements (use --rows-as-sql for plain SQL, or AUTO)",
                ev.pos);
  if (!sf) {
    append("Table_map: ");
    append_comment_ident(buf_, db_name(b.db));
    append(".");
    append_comment_ident(buf_, b.table);
    Writer(buf_) << " mapped to number " << b.table_id << "\n";
    if (mysql_log_ && immediate_server_version_ != kUndefinedServerVersion &&
        immediate_server_version_ >= 80030)  // as mysqlbinlog 8.0.30+, without any option
      Writer(buf_) << "# has_generated_invisible_primary_key="
                   << ((b.flags & 0x0004) != 0 ? "1\n" : "0\n");  // TM_GENERATED_INVISIBLE_PK_F
    if (opts_.print_table_metadata) append_table_metadata(buf_, b, !mysql_log_);
  }
  // Rows waiting for their -v text were read with the maps as they are now.
  if (!verbose_pending_.empty()) render_verbose(verbose_);
  // MySQL 5.1.15-5.1.17 wrote neither column metadata nor null bits: its rows (pre-GA rows
  // events) cannot be decoded, which their own mysqlbinlog -v did not try either.
  const bool no_metadata = b.column_count > 0 && b.null_bits.empty();
  if (decode_rows() && !no_metadata) {
    tables_.update(ev, b, ctx);
  } else if (opts_.max_binlog_statement > 0) {
    // Only for cutting statements: a map whose layout does not decode (5.1.15-5.1.17
    // wrote no metadata) leaves its rows events whole.
    try {
      tables_.update(ev, b, ctx);
    } catch (const Error&) {
    }
  }
  // (--trigger-tables=binlog: every map, dropped at the end of a statement of plain SQL)
  if (binlog_maps() && opts_.base64_output == Base64Output::kAuto) base64_event(ev, ctx);
}

void SqlSink::write_body(const Event& ev, const Rows& b, const FormatContext& ctx) {
  const bool sf = !comments_;
  if (!sf) {
    static constexpr std::string_view kNames[] = {"Write_rows", "Update_rows", "Delete_rows",
                                                  "Update_rows_partial"};
    append(kNames[static_cast<int>(b.kind)]);
    if (b.compressed) append("_compressed");
    Writer(buf_) << ": table id " << b.table_id;
    append_rows_flags(buf_, b.flags, !mysql_log_);
    append("\n");
  }
  const EventType type = ev.type();
  const bool pre_ga = type == EventType::kPreGaWriteRows || type == EventType::kPreGaUpdateRows ||
                      type == EventType::kPreGaDeleteRows;
  if (pre_ga && decode_rows()) {
    if (opts_.rows_as_sql)
      throw Error(ErrorCode::kUnsupportedFormat,
                  "a rows event of MySQL 5.1 before 5.1.18, whose table maps carry no column "
                  "metadata: its rows cannot be written as SQL (without --rows-as-sql they go "
                  "as the BINLOG statement the server applies)",
                  ev.pos);
    if (!sf)
      append(
          "# (no row values: this rows event of MySQL 5.1 before 5.1.18 comes without column "
          "metadata)\n");
  }
  if (decode_rows() && !pre_ga) {
    const SqlTable* t = tables_.find(b.table_id);
    if (t == nullptr)
      throw Error(ErrorCode::kMissingTableMap,
                  "rows event for table id " + std::to_string(b.table_id) + " has no table map",
                  ev.pos);
    if (opts_.rows_as_sql && t->has_triggers && !opts_.trigger_tables_binlog && schema_)
      schema_->warn_trigger_rows(t->info.db, t->info.table, ev.pos);
    if (opts_.rows_as_sql && (unit_binlog_rows_ || (opts_.trigger_tables_binlog &&
                                                    (trigger_stmt_ || t->has_triggers)))) {
      trigger_stmt_ = true;  // this event and the rest of its statement: BINLOG
      base64_event(ev, ctx);
      if ((b.flags & kStmtEndFlag) || force_stmt_end_) {
        flush_binlog_statement();
        trigger_stmt_ = false;
      }
      return;
    }
    if (row_count_on() && (opts_.rows_as_sql || !decode_rows())) count_rows_of(ev, b, t);
    if (opts_.rows_as_sql) {
      Bytes images = b.rows;
      if (b.compressed) {
        row_scratch_.clear();
        maria_uncompress_append(b.rows, row_scratch_, ev.pos);
        images = Bytes(row_scratch_.data(), row_scratch_.size());
      }
      generated_session();
      stmt_ends_.clear();
      const std::size_t from = buf_.size();
      append_rows_sql(buf_, b, images, *t, "/*!*/;\n", ev.pos, &stmt_ends_);
      if (t->client_alters_names && !opts_.apply) {
        // A name the client would alter: each statement run from its hex text.
        const std::string text(buf_.data() + from, buf_.size() - from);
        buf_.resize(from);
        std::size_t start = 0;
        for (std::size_t end : stmt_ends_) {
          append_prepared(buf_, std::string_view(text).substr(start, end - from - start), "utf8mb4",
                          "/*!*/;\n");
          delimiter();
          start = end - from + std::string_view("/*!*/;\n").size();
        }
      }
      mark_statements(stmt_ends_);
      if (((b.flags & kStmtEndFlag) || force_stmt_end_) && opts_.trigger_tables_binlog)
        drop_pending_maps();  // the statement went as plain SQL: its maps are not needed
      if ((b.flags & kStmtEndFlag) || force_stmt_end_) row_count_line();
    } else {
      // The -v text follows the statement's BINLOG: written when the statement ends,
      // straight into the output (no copy of the text).
      verbose_pending_.push_back(PendingRows{&ev, t});
    }
  }
  if (!opts_.rows_as_sql) {
    if (opts_.base64_output == Base64Output::kNever)
      throw Error(ErrorCode::kUnsupportedFormat,
                  "--base64-output=NEVER, but the binlog holds row events", ev.pos);
    if (opts_.base64_output != Base64Output::kDecodeRows) {
      base64_event(ev, ctx);
    } else {
      rows_pending_ = true;  // only the decoded comments are printed
    }
    if (!decode_rows() && row_count_on()) {
      const SqlTable* t = pre_ga ? nullptr : tables_.find(b.table_id);
      if (t != nullptr) count_rows_of(ev, b, t);
    }
    if ((b.flags & kStmtEndFlag) || force_stmt_end_) {
      flush_binlog_statement();
      row_count_line();
    }
  }
}

// The rows of one event, for the statement's count (the -v text counts its own rows).
void SqlSink::count_rows_of(const Event& ev, const Rows& b, const SqlTable* t) {
  Bytes images = b.rows;
  if (b.compressed) {
    row_scratch_.clear();
    maria_uncompress_append(b.rows, row_scratch_, ev.pos);
    images = Bytes(row_scratch_.data(), row_scratch_.size());
  }
  stmt_rows_ += binlog::count_rows(b, images, t->info.layout, ev.pos);
}

void SqlSink::row_count_line() {
  if (row_count_on()) Writer(buf_) << "# Number of rows: " << stmt_rows_ << "\n";
  stmt_rows_ = 0;
}

void SqlSink::write_body(const Event& /*ev*/, const Gtid& b, const FormatContext& ctx) {
  // (mysqlbinlog --skip-gtids passes GTID events over before it reads their server version)
  if (!opts_.skip_gtids)
    immediate_server_version_ = b.immediate_server_version.value_or(kUndefinedServerVersion);
  auto it = std::back_inserter(buf_);
  const bool sf = !comments_;
  // As mysqlbinlog 9.7 prints it, whatever the log's version (zeros where the event has no
  // such field: MySQL 5.6 and 5.7 logs).
  const bool rbr_only = (b.flags & 1) == 0;  // (FLAG_MAY_HAVE_SBR not set)
  const std::uint64_t original = b.original_commit_ts.value_or(0);
  const std::uint64_t immediate = b.immediate_commit_ts.value_or(original);
  if (!sf) {
    fmt::format_to(it,
                   "{}\tlast_committed={}\tsequence_number={}\trbr_only={}\t"
                   "original_committed_timestamp={}\timmediate_commit_timestamp={}\t"
                   "transaction_length={}\n",
                   b.anonymous ? "Anonymous_GTID" : "GTID", b.last_committed, b.sequence_number,
                   rbr_only ? "yes" : "no", original, immediate, b.transaction_length.value_or(0));
  }
  if (opts_.skip_gtids || to_mariadb(ctx) || opts_.apply) {
    // (the session settings below are a replica's; MariaDB has none of them)
  } else {
    if (rbr_only) {
      append("/*!50718 SET TRANSACTION ISOLATION LEVEL READ COMMITTED*/");
      delimiter();
    }
    if (!sf) {
      commit_time_comment("original_commit_timestamp", original);
      commit_time_comment("immediate_commit_timestamp", immediate);
    }
    fmt::format_to(it, "/*!80001 SET @@session.original_commit_timestamp={}*/", original);
    delimiter();
    // (999999: a log of 8.0.13 and before, which has no server versions)
    const std::uint32_t none = b.original_commit_ts ? 999999 : 0;
    fmt::format_to(it, "/*!80014 SET @@session.original_server_version={}*/",
                   b.original_server_version.value_or(none));
    delimiter();
    fmt::format_to(it, "/*!80014 SET @@session.immediate_server_version={}*/",
                   b.immediate_server_version.value_or(b.original_server_version.value_or(none)));
    delimiter();
  }
  if (!opts_.skip_gtids && !to_mariadb(ctx)) {  // (MariaDB has no GTID_NEXT)
    append("SET @@SESSION.GTID_NEXT= '");
    if (b.anonymous) {
      append("ANONYMOUS");
    } else {
      append_uuid(buf_, b.sid);
      if (!b.tag.empty()) fmt::format_to(it, ":{}", b.tag);
      fmt::format_to(it, ":{}", b.gno);
    }
    append("'");
    delimiter();
    st_.mysql_gtid_next = true;
  }
}

// "# original_commit_timestamp=1646108972492330 (2022-03-01 04:29:32.492330 UTC)", in the
// local time zone (--timezone), as mysqlbinlog writes it.
void SqlSink::commit_time_comment(std::string_view name, std::uint64_t micros) {
  const auto secs = static_cast<std::time_t>(micros / 1000000);
  std::tm tm{};
  localtime_r(&secs, &tm);
  char when[64];
  char zone[16];
  std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
  std::strftime(zone, sizeof zone, "%Z", &tm);
  fmt::format_to(std::back_inserter(buf_), "# {}={} ({}.{:06} {})\n", name, micros, when,
                 micros % 1000000, zone);
}

void SqlSink::write_body(const Event& /*ev*/, const PreviousGtids& b,
                         const FormatContext& /*ctx*/) {
  const bool sf = !comments_;
  if (!sf) {
    append("Previous-GTIDs\n# ");
    if (b.data.size() >= 8 && ByteCursor(b.data, 0).u64le() == 0)
      append("[empty]");
    else
      append_gtid_set(buf_, b.data, ",\n# ");  // (every line a comment, as mysqlbinlog's)
    append("\n");
  }
}

void SqlSink::write_body(const Event& ev, const MariaGtid& b, const FormatContext& /*ctx*/) {
  auto it = std::back_inserter(buf_);
  const bool sf = !comments_;
  if (!sf) {
    Writer(buf_) << "GTID " << std::uint64_t{b.domain_id} << "-"
                 << std::uint64_t{ev.header.server_id} << "-" << b.seq_no;
    if (b.flags & MariaGtid::kGroupCommitId) fmt::format_to(it, " cid={}", b.commit_id);
    if (b.flags & MariaGtid::kDdl) append(" ddl");
    if (b.flags & MariaGtid::kTransactional) append(" trans");
    if (b.flags & MariaGtid::kWaited) append(" waited");
    append("\n");
  }
  if (!opts_.skip_gtids) {
    const bool skip_parallel = !(b.flags & MariaGtid::kAllowParallel);
    if (st_.skip_parallel != skip_parallel) {
      st_.skip_parallel = skip_parallel;
      fmt::format_to(it, "/*M!100101 SET @@session.skip_parallel_replication={}*/",
                     skip_parallel ? 1 : 0);
      delimiter();
    }
    if (st_.gtid_domain != b.domain_id) {
      st_.gtid_domain = b.domain_id;
      fmt::format_to(it, "/*M!100001 SET @@session.gtid_domain_id={}*/", b.domain_id);
      delimiter();
    }
    if (st_.gtid_server != ev.header.server_id) {
      st_.gtid_server = ev.header.server_id;
      fmt::format_to(it, "/*M!100001 SET @@session.server_id={}*/", ev.header.server_id);
      delimiter();
    }
    fmt::format_to(it, "/*M!100001 SET @@session.gtid_seq_no={}*/", b.seq_no);
    delimiter();
  }
  if (b.flags & MariaGtid::kPreparedXa) {
    append("XA START ");
    append_xid(buf_, b.xa_format_id, b.xa_data, b.xa_gtrid_len, b.xa_bqual_len);
    delimiter();
  } else if (!(b.flags & MariaGtid::kStandalone)) {
    append("START TRANSACTION\n");
    delimiter();
  }
}

void SqlSink::write_body(const Event& /*ev*/, const MariaGtidList& b,
                         const FormatContext& /*ctx*/) {
  const bool sf = !comments_;
  if (!sf) {
    append("Gtid list [");
    append_maria_gtid_list(buf_, b);
    append("]\n");
  }
}

void SqlSink::write_body(const Event& /*ev*/, const BinlogCheckpoint& b,
                         const FormatContext& /*ctx*/) {
  const bool sf = !comments_;
  if (!sf) {
    append("Binlog checkpoint ");
    append_comment_text(buf_, b.file);
    append("\n");
  }
}

void SqlSink::write_body(const Event& ev, const RowsQuery& b, const FormatContext& /*ctx*/) {
  const bool sf = !comments_;
  const EventType type = ev.type();
  if (!sf) {
    const bool annotate = type == EventType::kMariaAnnotateRows;
    append(annotate ? "Annotate_rows:\n" : "Rows_query\n");
    std::string_view q = b.query;
    while (!q.empty()) {
      const auto nl = q.find('\n');
      append(annotate ? "#Q> " : "# ");
      append_comment_text(buf_, q.substr(0, nl));
      append("\n");
      if (nl == std::string_view::npos) break;
      q.remove_prefix(nl + 1);
    }
  }
}

void SqlSink::write_body(const Event& /*ev*/, const XaPrepare& b, const FormatContext& /*ctx*/) {
  const bool sf = !comments_;
  if (!sf) append("XA PREPARE\n");
  append(b.one_phase ? "XA COMMIT " : "XA PREPARE ");
  append_xid(buf_, b.format_id, b.data, b.gtrid_len, b.bqual_len);
  if (b.one_phase) append(" ONE PHASE");
  append("\n");
  delimiter();
}

void SqlSink::write_body(const Event& /*ev*/, const Incident& b, const FormatContext& /*ctx*/) {
  auto it = std::back_inserter(buf_);
  const bool sf = !comments_;
  if (!sf) fmt::format_to(it, "Incident: {}\n", incident_name(b.type));
  append("RELOAD DATABASE; # Shall generate syntax error\n");
  delimiter();
}

void SqlSink::write_body(const Event& /*ev*/, const Heartbeat& /*b*/,
                         const FormatContext& /*ctx*/) {
  const bool sf = !comments_;
  if (!sf) append("Heartbeat\n");
}

void SqlSink::write_body(const Event& /*ev*/, const TransactionPayload& b,
                         const FormatContext& /*ctx*/) {
  auto it = std::back_inserter(buf_);
  const bool sf = !comments_;
  if (!sf)
    fmt::format_to(it,
                   "Transaction_Payload\tpayload_size={}\tcompression_type={}\t"
                   "uncompressed_size={}\n# The events of the payload follow, each at "
                   "its position\n",
                   b.payload_size, b.compression == TransactionPayload::kZstd ? "ZSTD" : "NONE",
                   b.uncompressed_size);
}

void SqlSink::write_body(const Event& ev, const LoadBlock& b, const FormatContext& /*ctx*/) {
  auto it = std::back_inserter(buf_);
  const bool sf = !comments_;
  const EventType type = ev.type();
  if (!sf)
    fmt::format_to(it, "\n#{}: file_id: {}  block_len: {}\n",
                   type == EventType::kBeginLoadQuery ? "Begin_load_query" : "Append_block",
                   b.file_id, b.data.size());
  write_load_block(ev, b, type == EventType::kBeginLoadQuery);
}

void SqlSink::write_body(const Event& ev, const LoadData& b, const FormatContext& /*ctx*/) {
  auto it = std::back_inserter(buf_);
  const bool sf = !comments_;
  const EventType type = ev.type();
  if (type != EventType::kCreateFile)
    throw Error(ErrorCode::kUnsupportedFormat,
                "LOAD DATA of a MySQL 3.23/4.0 log (" + std::string(event_type_name(type)) +
                    "): the data file is not in the binlog, it was read from " +
                    std::string(b.fname) + " on the source",
                ev.pos);
  if (!sf) {
    append("Create_file: db: ");
    append_comment_text(buf_, b.db);
    append("  table: ");
    append_comment_text(buf_, b.table);
    fmt::format_to(it, "  file_id: {}  block_len: {}\n", b.file_id, b.block.size());
  }
  create_file(ev, b);
}

void SqlSink::write_body(const Event& ev, const LoadFileRef& b, const FormatContext& /*ctx*/) {
  auto it = std::back_inserter(buf_);
  const bool sf = !comments_;
  const EventType type = ev.type();
  if (type == EventType::kExecLoad) {
    if (!sf) fmt::format_to(it, "Exec_load: file_id: {}\n", b.file_id);
    exec_load(ev, b.file_id);
  } else {
    if (!sf) fmt::format_to(it, "Delete_file: file_id: {}\n", b.file_id);
    std::erase_if(pending_loads_, [&](const auto& p) { return p.file_id == b.file_id; });
  }
}

void SqlSink::write_event_text(const Event& ev, const FormatContext& ctx) {
  const EventType type = ev.type();
  const bool is_rows = std::holds_alternative<Rows>(ev.body);
  if (!is_rows && type != EventType::kTableMap && type != EventType::kMariaAnnotateRows &&
      type != EventType::kRowsQuery)
    flush_binlog_statement();
  if (!opts_.annotations &&
      (type == EventType::kMariaAnnotateRows || type == EventType::kRowsQuery)) {
    // (--skip-annotate-row-events: as mariadb-binlog, the event's position stays)
    if (comments_ && opts_.event_positions) Writer(buf_) << "# at " << ev.pos << "\n";
    return;
  }
  event_header(ev, ctx);
  std::visit([&](const auto& b) { write_body(ev, b, ctx); }, ev.body);
}

}  // namespace binrecover::recovery
