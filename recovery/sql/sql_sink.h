#pragma once

#include <cstdint>
#include <ctime>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "binlog/charsets.h"
#include "binlog/events.h"
#include "binlog/row_values.h"
#include "recovery/reading/transaction.h"
#include "recovery/reading/walker.h"
#include "recovery/sql/output.h"
#include "recovery/sql/row_sql.h"
#include "recovery/sql/schema.h"
#include "recovery/sql/statement_text.h"
#include "recovery/sql/table_cache.h"
#include "recovery/text/base64.h"

namespace binrecover::recovery {

class TempFile;

enum class Base64Output : std::uint8_t {
  kAuto,        // BINLOG '...' for row events (and the format description)
  kDecodeRows,  // no BINLOG for rows: only the -v comments (not replayable)
  kNever,       // no BINLOG statement at all; a row event is an error (mysqlbinlog's NEVER)
};

struct SqlOptions {
  bool short_form = false;       // -s: statements only, no comments, no BINLOG
  bool hexdump = false;          // -H: hex dump of every event as comments
  bool skip_gtids = false;       // --skip-gtids
  bool disable_log_bin = false;  // -D: SET sql_log_bin=0 for the replay
  // --local-load: where the data of LOAD DATA statements is written for the replaying client
  // (LOAD DATA LOCAL INFILE). Empty: a new folder under $TMPDIR, made on first use.
  std::string local_load_dir;
  int verbose = 0;  // -v: rows as "### INSERT ..." comments; -vv: with column types
  // "# Number of rows: N" after each statement's rows (mariadb-binlog's --print-row-count):
  // nullopt as the log's own tool does (MariaDB logs yes, MySQL logs no; not with -s).
  std::optional<bool> row_count;
  bool event_positions = true;  // "# at N" lines (--skip-print-row-event-positions: none)
  bool annotations = true;      // Annotate_rows / Rows_query comments (--skip-annotate-...)
  Base64Output base64_output = Base64Output::kAuto;
  bool rows_as_sql = false;  // --rows-as-sql: executable INSERT/UPDATE/DELETE instead of BINLOG
  // --trigger-tables=binlog (with rows_as_sql): the rows of a statement that changes a table
  // with triggers (known from --schema and the log's DDL) go as a BINLOG statement, which
  // fires no trigger on the target (their effects are logged rows of their own); the rows
  // before it in the statement stay plain SQL. Otherwise such rows are plain SQL, warned once.
  bool trigger_tables_binlog = false;
  // The server the SQL is for is MariaDB (--target-flavor=mariadb; replay: its server says
  // so). For a MySQL log: no MySQL GTID statements (GTID_NEXT), sql_mode with MySQL's own
  // bits mapped as a MariaDB replica maps them (fractional seconds rounded, as MySQL 5.6.4+
  // did, not truncated as MariaDB does by default), and MySQL 8's utf8mb4 collations (ids 255
  // and up, which MariaDB does not have) as utf8mb4_unicode_520_ci.
  bool target_mariadb = false;
  bool target_mysql = false;  // --target-flavor=mysql given
  // The longest BINLOG statement to write (bytes of text, 0: no limit), for a server whose
  // max_allowed_packet is smaller than a statement's row events: the events go in several
  // BINLOG statements, and a rows event too large on its own is cut at row boundaries into
  // several events (STMT_END_F on the last), as the server itself cuts events at
  // binlog_row_event_max_size. Each BINLOG statement then closes its statement (STMT_END_F)
  // and the next one repeats the table maps. A single row larger than the limit goes whole.
  // The default is just under the 16 MiB max_allowed_packet of the mysql and mariadb clients
  // and of MariaDB servers: every statement that replays with the defaults is written whole,
  // and a statement of many row events (a bulk INSERT ... SELECT) neither fails the replay nor
  // makes memory grow with its size. Replay sets it from the server's max_allowed_packet.
  static constexpr std::size_t kDefaultMaxBinlogStatement = (std::size_t{16} << 20) - (64 << 10);
  std::size_t max_binlog_statement = kDefaultMaxBinlogStatement;
  // --rewrite-db FROM->TO: the default database, row events' tables and database-qualified
  // names in statements are written with the new name.
  std::vector<std::pair<std::string, std::string>> rewrite_db;
  // For a server session (replay): no comments, and each statement marked in the Output as it
  // is written (its text, the event it belongs to), so nothing has to be lexed again.
  bool apply = false;
  // Every transaction sets the whole session state it needs (default database, pseudo thread,
  // sql_mode, character sets, ...), not only what changed since the one before: a parallel
  // replay applies units on several sessions, and a resumed one may leave some out.
  bool self_contained_units = false;
  // --set-charset=NAME (mysqlbinlog): SET NAMES NAME at the start, the client's character sets
  // restored at the end. A name of letters, digits and '_' only (cli/ checks).
  std::string set_charset;
  // --idempotent (mysqlbinlog): SET @@SESSION.RBR_EXEC_MODE=IDEMPOTENT at the start (MySQL
  // 5.7+: an insert of an existing key overwrites the row, an update or delete of a missing
  // row is skipped). cli/ refuses it for MariaDB.
  bool idempotent = false;
  // --require-row-format (mysqlbinlog 8.0.19+): SET @@SESSION.REQUIRE_ROW_FORMAT=1 at the
  // start, and an event a row-format-only session refuses is an error (exit 5) here already:
  // a DML statement, a temporary table, LOAD DATA, INSERT_ID / LAST_INSERT_ID, RAND seeds and
  // user variables.
  bool require_row_format = false;
  // --print-table-metadata (mysqlbinlog): each table map's comment goes on with its columns
  // ("# Columns(...)") and primary key ("# Primary Key(...)") as the log's own client prints
  // them (recovery/sql/event_info.h append_table_metadata).
  bool print_table_metadata = false;
};

// Called after the sink wrote a unit (an event outside transactions, or a whole transaction):
// replay applies and records each there.
using UnitHook = std::function<void(const UnitInfo& unit)>;

// mysqlbinlog-compatible SQL text: comments with positions, DELIMITER /*!*/;, the session
// state each statement needs, BINLOG '<base64>' for row events. The mysql and mariadb clients
// replay it as mysqlbinlog's output. It is the reading path's consumer for SQL output, replay
// and drills.
// MySQL 8.0.21+'s atomic CREATE TABLE ... SELECT: a query event "CREATE TABLE ... START
// TRANSACTION", the rows and COMMIT after it in the same transaction.
bool is_atomic_ctas(const binlog::Event& ev);

class SqlSink : public WalkConsumer {
 public:
  SqlSink(Output& out, SqlOptions opts);
  ~SqlSink() override;

  void set_unit_hook(UnitHook hook) { on_unit_ = std::move(hook); }
  void begin();
  // Table definitions for logs without column names (--schema), kept current by the DDL of
  // every transaction read (see observe), filtered out or not. Without one, --rows-as-sql
  // stops on a table map without names.
  void set_schema(Schema* schema) {
    schema_ = schema;
    if (opts_.rows_as_sql) tables_.set_schema(schema);  // (-v shows the log's own names)
  }
  // The reading path's consumer: every event read, before the filters (its DDL updates the
  // schema); units the filters keep; units left out (a comment says why).
  void observe(const binlog::Event& ev) override {
    if (schema_ != nullptr) schema_->observe(ev);
    if (opts_.rows_as_sql && is_atomic_ctas(ev)) ctas_read_ = true;
  }
  // (--rows-as-sql: the DDL before the range names the generated columns)
  bool learns_before_start() const override { return schema_ != nullptr && opts_.rows_as_sql; }
  void learn(const binlog::Event& ev) override { schema_->observe(ev); }
  void begin_unit(const UnitInfo& u, const binlog::FormatContext& ctx) override;
  void event(const binlog::Event& ev, std::uint8_t marks,
             const binlog::FormatContext& ctx) override;
  void end_unit(const UnitInfo& u) override;
  void abort_unit(const UnitInfo& u) override;
  void left_out(const UnitInfo& u, LeftOut why) override;
  bool wants_gtid() const override { return static_cast<bool>(on_unit_); }  // replay's state
  // A comment line ("# ..."), e.g. for a dropped incomplete transaction.
  void comment(std::string_view text);
  void finish();
  // The folder LOAD DATA files went to, if any were written.
  const std::string& load_dir() const { return load_dir_; }

 private:
  void event_header(const binlog::Event& ev, const binlog::FormatContext& ctx);
  void write_event(const binlog::Event& ev, const binlog::FormatContext& ctx);
  void write_event_text(const binlog::Event& ev, const binlog::FormatContext& ctx);
  // One writer per event type (recovery/sql/event_writers.cc); the template: the events SQL
  // output has nothing to replay for.
  void write_body(const binlog::Event& ev, const binlog::FormatDescription& b,
                  const binlog::FormatContext& ctx);
  void write_body(const binlog::Event& ev, const binlog::StartV3& b,
                  const binlog::FormatContext& ctx);
  void write_body(const binlog::Event& ev, const binlog::Rotate& b,
                  const binlog::FormatContext& ctx);
  void write_body(const binlog::Event& ev, const binlog::Stop& b, const binlog::FormatContext& ctx);
  void write_body(const binlog::Event& ev, const binlog::Query& b,
                  const binlog::FormatContext& ctx);
  void write_body(const binlog::Event& ev, const binlog::Xid& b, const binlog::FormatContext& ctx);
  void write_body(const binlog::Event& ev, const binlog::Intvar& b,
                  const binlog::FormatContext& ctx);
  void write_body(const binlog::Event& ev, const binlog::Rand& b, const binlog::FormatContext& ctx);
  void write_body(const binlog::Event& ev, const binlog::UserVar& b,
                  const binlog::FormatContext& ctx);
  void write_body(const binlog::Event& ev, const binlog::TableMap& b,
                  const binlog::FormatContext& ctx);
  void write_body(const binlog::Event& ev, const binlog::Rows& b, const binlog::FormatContext& ctx);
  void write_body(const binlog::Event& ev, const binlog::Gtid& b, const binlog::FormatContext& ctx);
  void write_body(const binlog::Event& ev, const binlog::PreviousGtids& b,
                  const binlog::FormatContext& ctx);
  void write_body(const binlog::Event& ev, const binlog::MariaGtid& b,
                  const binlog::FormatContext& ctx);
  void write_body(const binlog::Event& ev, const binlog::MariaGtidList& b,
                  const binlog::FormatContext& ctx);
  void write_body(const binlog::Event& ev, const binlog::BinlogCheckpoint& b,
                  const binlog::FormatContext& ctx);
  void write_body(const binlog::Event& ev, const binlog::RowsQuery& b,
                  const binlog::FormatContext& ctx);
  void write_body(const binlog::Event& ev, const binlog::XaPrepare& b,
                  const binlog::FormatContext& ctx);
  void write_body(const binlog::Event& ev, const binlog::Incident& b,
                  const binlog::FormatContext& ctx);
  void write_body(const binlog::Event& ev, const binlog::Heartbeat& b,
                  const binlog::FormatContext& ctx);
  void write_body(const binlog::Event& ev, const binlog::TransactionPayload& b,
                  const binlog::FormatContext& ctx);
  void write_body(const binlog::Event& ev, const binlog::LoadBlock& b,
                  const binlog::FormatContext& ctx);
  void write_body(const binlog::Event& ev, const binlog::LoadData& b,
                  const binlog::FormatContext& ctx);
  void write_body(const binlog::Event& ev, const binlog::LoadFileRef& b,
                  const binlog::FormatContext& ctx);
  template <typename T>
  void write_body(const binlog::Event& ev, const T& b, const binlog::FormatContext& ctx);
  void query(const binlog::Event& ev, const binlog::Query& q, const binlog::FormatContext& ctx);
  void session_state(const binlog::Query& q, const binlog::FormatContext& ctx);
  void flags2_line(std::uint32_t flags2, const binlog::FormatContext& ctx);
  // An event outside transactions (format description, rotate, GTID list, ...).
  void write_meta(const binlog::Event& ev, const binlog::FormatContext& ctx);
  void base64_event(const binlog::Event& ev, const binlog::FormatContext& ctx);
  // The database name as written (after --rewrite-db).
  std::string_view db_name(std::string_view db) const;
  void reset_statement();
  void flush_binlog_statement();
  void emit_binlog_statement();
  // max_binlog_statement: statements cut between events and rows events cut between rows.
  // `stable`: raw is the event's own bytes (they outlive the call in a held transaction).
  void push_limited(binlog::Bytes raw, bool is_rows, std::size_t flags_at, bool crc, bool stable);
  void add_statement_event(binlog::Bytes raw, bool stable);  // into text_
  void encode_held();
  void encode_pending_maps();
  std::size_t limited_budget() const;
  void hexdump(const binlog::Event& ev, const binlog::FormatContext& ctx);
  void time_text(std::uint32_t ts);
  std::uint16_t target_collation(std::uint16_t id, const binlog::FormatContext& ctx) const;
  void start_event(std::uint16_t binlog_version, std::string_view server_version,
                   std::uint32_t when, bool at_startup, bool in_use);
  // Ends a statement: the delimiter, and with opts_.apply the statement's mark.
  void delimiter(Output::Statement::Kind kind = Output::Statement::Kind::kSql,
                 bool verbatim = false) {
    const std::size_t end = buf_.size();
    append("/*!*/;\n");
    if (opts_.apply) out_.statement(end, buf_.size(), kind, at_, type_, verbatim);
  }
  // A statement of the header or footer, outside DELIMITER /*!*/ (ended by ";").
  void plain_statement(std::string_view text);
  // With opts_.apply: marks the statements whose delimiters start at `ends`.
  void mark_statements(const std::vector<std::size_t>& ends);
  // Before statements binrecover writes itself (--rows-as-sql): the session they are written
  // for (sql_mode NO_AUTO_VALUE_ON_ZERO, as a replica applies rows, and NO_BACKSLASH_ESCAPES,
  // under which the mysql client reads every quoted name as the server does; utf8mb4 names),
  // once until a logged statement sets its own.
  void generated_session();
  // A statement with a name the client would misread outside NO_BACKSLASH_ESCAPES
  // (client_reads_ident_alike): that mode around it, the session's own mode after it.
  void nbe_begin();
  void nbe_end();
  void use_statement(std::string_view db);
  // --require-row-format: throws for an event a row-format-only session refuses.
  void check_row_format(const binlog::Event& ev, std::string_view sql) const;
  // A logged statement the mysql client would misread: PREPAREd from its text in hex.
  void prepared_statement(std::string_view sql, const binlog::Collation* client);
  std::vector<std::size_t> stmt_ends_;
  void append(std::string_view s) { out_.append(s); }

  Output& out_;
  SqlOptions opts_;
  UnitHook on_unit_;
  bool comments_ = true;             // comment lines: not for -s, nor for a server session
  std::optional<std::uint64_t> at_;  // the event being written (statement marks)
  std::uint8_t type_ = 0;
  bool in_meta_ = false;   // the unit being written is an event outside transactions
  bool streamed_ = false;  // ... a transaction whose events are not held: nothing may point
                           // at an event after its call
  fmt::memory_buffer& buf_;
  StatementText text_;  // BINLOG statement being assembled
  bool rows_pending_ = false;
  bool force_stmt_end_ = false;  // emit the current rows event with STMT_END_F set
  bool trigger_stmt_ = false;    // trigger_tables_binlog: this statement's rows go as BINLOG
  // rows_as_sql: the unit being read holds MySQL's CREATE TABLE ... START TRANSACTION (an
  // atomic CREATE TABLE ... SELECT), after which the server takes only BINLOG row events
  // (error 3977): its rows go as BINLOG statements, the format description first.
  bool ctas_read_ = false;
  bool unit_binlog_rows_ = false;
  std::vector<std::byte> fde_raw_;  // rows_as_sql: the file's format description, not written
  bool fde_written_ = false;
  bool mysql_log_ = true;  // the format description is not MariaDB's
  // The immediate_server_version of the last GTID event written (MySQL 8.0.14+; 999999, MySQL's
  // UNDEFINED_SERVER_VERSION, before one or when it has none): mysqlbinlog 8.0.30+ follows a
  // table map's comment with "# has_generated_invisible_primary_key=0|1" when it is 80030+.
  std::uint32_t immediate_server_version_ = kUndefinedServerVersion;
  static constexpr std::uint32_t kUndefinedServerVersion = 999999;
  void write_fde_binlog(binlog::Bytes raw);
  void release_gtid_next();
  void commit_time_comment(std::string_view name, std::uint64_t micros);
  // A MySQL log written for a MariaDB server.
  bool to_mariadb(const binlog::FormatContext& ctx) const {
    return opts_.target_mariadb && !ctx.mariadb;
  }
  bool binlog_maps() const {
    return !opts_.rows_as_sql || opts_.trigger_tables_binlog || unit_binlog_rows_;
  }
  void drop_pending_maps();
  bool decode_rows() const { return opts_.rows_as_sql || opts_.verbose > 0; }
  // "# Number of rows: N" after each statement (SqlOptions::row_count). By default as
  // mariadb-binlog for MariaDB logs, but only with -v, which decodes the rows anyway: counting
  // them for the BINLOG statements alone would walk every row (30% more CPU).
  bool row_count_on() const {
    return !opts_.apply && opts_.row_count.value_or(!mysql_log_ && comments_ && opts_.verbose > 0 &&
                                                    !opts_.rows_as_sql);
  }
  void count_rows_of(const binlog::Event& ev, const binlog::Rows& b, const SqlTable* t);
  void row_count_line();
  std::uint64_t stmt_rows_ = 0;  // rows of the statement so far (for row_count_on)
  TableCache tables_;            // decoded table maps
  Schema* schema_ = nullptr;
  // -v: the rows events of the statement being written, decoded when it ends (render_verbose
  // into buf_; into verbose_ first when a table map or the end of a call comes before that).
  struct PendingRows {
    const binlog::Event* event;
    const SqlTable* table;
  };
  std::vector<PendingRows> verbose_pending_;
  void render_verbose(fmt::memory_buffer& out);
  fmt::memory_buffer verbose_;  // -v comments of the statement
  // ... of a streamed transaction's statement, when they grow large (they follow its BINLOG).
  std::unique_ptr<TempFile> verbose_spill_;
  static constexpr std::size_t kVerboseSetAside = std::size_t{1} << 20;
  std::vector<std::byte> row_scratch_;  // uncompressed rows
  std::vector<std::byte> scratch_;      // a patched copy of one event
  std::vector<std::byte> renamed_map_;  // a table map with its database renamed
  std::string rewritten_;               // a statement with its databases renamed
  std::vector<std::byte> piece_;        // one part of a rows event cut for max_binlog_statement
  std::vector<std::size_t> row_ends_;   // where its rows end
  std::vector<std::byte> stmt_maps_;    // the table maps of the statement being written
  std::size_t stmt_map_count_ = 0;
  binlog::Bytes held_;                // its last rows event, not yet encoded
  std::vector<std::byte> held_copy_;  // ... when it had to be copied
  bool holding_ = false;
  std::vector<std::byte> pending_maps_;  // table maps after it, not yet encoded
  std::size_t held_flags_at_ = 0;
  bool held_crc_ = false;

  // What the replaying session already has, so each SET is printed only when it changes.
  struct PrintedState {
    std::string db;
    bool thread_printed = false;
    std::uint32_t thread_id = 0;
    std::optional<std::uint32_t> flags2;
    std::optional<std::uint64_t> sql_mode;
    std::optional<std::pair<std::uint16_t, std::uint16_t>> auto_increment;
    std::optional<std::array<std::uint16_t, 3>> charset;
    std::string time_zone;
    bool time_zone_printed = false;
    std::optional<std::uint16_t> lc_time_names;
    std::optional<std::uint16_t> charset_database;
    std::optional<std::uint16_t> default_collation_utf8mb4;
    std::optional<std::uint8_t> sql_require_primary_key;
    std::optional<std::uint8_t> default_table_encryption;
    std::optional<std::uint8_t> explicit_defaults_ts;
    std::optional<std::uint32_t> gtid_domain;
    std::optional<std::uint32_t> gtid_server;
    std::optional<bool> skip_parallel;
    bool mysql_gtid_next = false;  // GTID_NEXT must be reset to AUTOMATIC at the end
    bool generated = false;        // the session of generated_session()
  } st_;

  // LOAD DATA: the files written so far, by the server's file id.
  std::string load_file_path(std::uint32_t file_id, std::uint64_t pos, bool create);
  void write_load_block(const binlog::Event& ev, const binlog::LoadBlock& b, bool begin);
  void load_data_query(const binlog::Event& ev, const binlog::Query& q);
  void create_file(const binlog::Event& ev, const binlog::LoadData& l);
  void exec_load(const binlog::Event& ev, std::uint32_t file_id);
  struct PendingLoad {  // a 4.x LOAD DATA between its CREATE_FILE and EXEC_LOAD
    std::uint32_t file_id = 0;
    std::uint32_t thread_id = 0;
    std::string db;
    std::string statement;
  };
  std::vector<PendingLoad> pending_loads_;
  std::vector<std::pair<std::uint32_t, std::string>> load_files_;
  std::string load_dir_;
  std::uint64_t load_seq_ = 0;

  std::uint32_t cached_ts_ = 0;
  char cached_time_[64] = {};
};

}  // namespace binrecover::recovery
