#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "recovery/apply/apply_engine.h"
#include "recovery/apply/merge_group.h"
#include "recovery/apply/replay_common.h"
#include "recovery/apply/replay_target.h"
#include "recovery/apply/unit_scheduler.h"
#include "recovery/apply/xa_units.h"
#include "recovery/server/local_files.h"
#include "recovery/sql/output.h"
#include "recovery/sql/sql_sink.h"

namespace binrecover::recovery {

// One replay: the reading path's consumer. Every unit's SQL is made by the SQL writer (in a
// form that needs nothing of the units before it when there are several workers); a
// transaction of row events on tables the target has keys for goes to the workers with what
// it must wait for, anything else is applied here alone once all before it committed.
class Replayer : public WalkConsumer {
 public:
  Replayer(const ReplayOptions& opts, SqlOptions sql, const ConnectionOptions& conn,
           Session& session, const std::string& identity, std::uint64_t started_at, bool by_gtids,
           EngineOptions engine_opts, std::set<std::pair<std::string, std::uint64_t>> skip,
           StateStore& store);

  SqlSink& sink() { return sink_; }
  ApplyEngine& engine() { return engine_; }
  std::optional<ReplayState>& last() { return last_; }
  std::uint64_t units_parallel() const { return scheduler_.units(); }
  std::uint64_t held_whole() const { return scheduler_.held_whole(); }
  std::uint64_t barriers() const { return barriers_; }
  std::uint64_t events() const { return events_; }
  std::uint64_t merged_groups() const { return merged_groups_; }
  std::uint64_t merged_units() const { return merged_units_; }

  // The SQL header (pseudo-replica mode, sql_log_bin): every worker's session runs it first.
  void begin();
  // Every unit handed over has committed; the footer is not sent (the sessions end).
  void finish();
  void update_last();
  void set_progress(std::function<void(const UnitInfo&)> fn) { progress_ = std::move(fn); }
  // The target's GTIDs when the replay started (MariaDB), whether this run resumes one, and
  // then when the target had started and the binary log it wrote (the state file's).
  void set_start(std::optional<std::string> gtids_at_start, bool resumed,
                 std::uint64_t prior_started = 0, std::string prior_binlog = {});
  // Units a resumed run left out: the target had them (see mark_in_doubt).
  std::uint64_t resumed_skips() const { return resumed_skips_; }
  // The inputs' names in messages, by display name.
  void set_paths(const std::vector<InputFile>& inputs);

  // ---- WalkConsumer ----
  void observe(const binlog::Event& ev) override { sink_.observe(ev); }
  void begin_unit(const UnitInfo& u, const binlog::FormatContext& ctx) override;
  void event(const binlog::Event& ev, std::uint8_t marks,
             const binlog::FormatContext& ctx) override;
  void end_unit(const UnitInfo& u) override;
  void abort_unit(const UnitInfo& u) override;
  void left_out(const UnitInfo& u, LeftOut why) override { sink_.left_out(u, why); }
  bool wants_gtid() const override { return true; }

 private:
  enum class Mode : std::uint8_t { kHeader, kUnits, kFooter };

  SqlOptions prepare(SqlOptions sql);

  // The SQL of a unit (or of a piece of one too large to hold) is ready.
  void on_text(std::string_view text, const std::vector<Output::Statement>& statements);

  // ---- XA units on the workers ----

  // An XA unit (XA START ... XA PREPARE, or the XA COMMIT/ROLLBACK of one handed to the
  // workers before) goes to the workers when the commit order is kept and its GTID tells
  // whether it ran (mark_in_doubt: it needs no mark before it nor a state after it): its last
  // statement is its commit, sent in its turn, so every unit before it has committed when it
  // prepares or commits, as alone. (Applied alone, each one waited for every unit before it
  // and held up every one after it: a log with a third of its units XA was replayed slower by
  // --parallel 8 than serially.) The XA COMMIT/ROLLBACK has the write set of its XA PREPARE:
  // the rows stay locked until it commits, so later units on them wait for it. Returns false
  // for a unit applied alone.
  bool submit_xa(std::string_view text, const std::vector<Output::Statement>& statements);

  // ---- --merge-transactions: consecutive small transactions applied as one ----

  std::optional<MariaUnit> maria() const;

  // The unit joins the group held (which goes first when the unit cannot join it), or goes
  // on its own.
  void hold(std::string_view text, const std::vector<Output::Statement>& statements);

  // The group held, as one transaction (MergeGroup::take), handed to the engine.
  void flush_held();

  UnitPlace place() const;

  // A BEGIN ... COMMIT of the writer's own: the progress row can ride on it.
  static bool is_transaction(std::string_view text,
                             const std::vector<Output::Statement>& statements);

  // (false: the unit is left out, see mark_in_doubt)
  bool open_direct(bool transactional);
  void close_direct();
  // A statement of the unit that is not transaction control: the tables whose keys it may
  // change into ddl_tables_ (or ddl_tables_ reset).
  void note_tables_changed(const binlog::Query& q);
  // A statement of the log's own text (statement-based rows) that writes a table not
  // transactional on the target (or tables its text does not name: a statement that has no
  // table reference the reader understands).
  bool writes_non_transactional(const binlog::Query& q);
  // The name a database of the log has on the target (--rewrite-db).
  std::string_view target_db(std::string_view db) const;
  // (begin_unit) Whether a MariaDB GTID (D-S-N) is later than every one of this run before it
  // of its domain and server; notes it.
  bool later_in_run(const std::string& gtid);
  void apply_direct(std::string_view text, const std::vector<Output::Statement>& statements,
                    bool transactional);

  // Not a transaction (DDL, XA, a statement outside BEGIN ... COMMIT): its outcome cannot
  // ride on a COMMIT, so the state file says it is in doubt before it runs. Returns false for
  // a unit to leave out: one at the start of a resumed run that the target has already (below).
  bool mark_in_doubt();
  // The unit is not marked: its GTID will tell whether it ran (the state written once first).
  void told_by_gtid();
  // The state file written durably once, before the first unit that only a GTID tells: a run
  // stopped before it wrote any is resumed where it began, the target's GTIDs at its start kept.
  void make_state();
  // (a resumed run) The target started again since the run it resumes wrote its state.
  bool target_restarted();

 public:
  // The state file, for reading (or durably).
  void write_state(bool durable);
  bool in_doubt() const { return in_doubt_marked_; }
  // A resumed run stopped at a DDL the restarted target's GTIDs cannot tell (marked in doubt).
  bool refused_in_doubt() const { return refused_; }
  // MariaDB: the target's binary log (when the run started, or at its last state)
  const std::string& target_binlog() const { return target_binlog_; }

 private:
  void unit_written(const UnitInfo& u);
  // (a MySQL target whose GTIDs record the progress, and that binlogs the replay's sessions)
  // Whether the unit is an XA unit its GTID tells: gtid_executed has an XA PREPARE group's GTID
  // once it is prepared (the prepared transaction and its GTID both kept across a crash of the
  // target, from its binary log), an XA COMMIT's or XA ROLLBACK's once it ended, and a resumed run
  // leaves out the GTIDs the target has. Such a unit is not marked in the state file before it
  // runs.
  // Rows of non-transactional tables (MyISAM, Aria) too: gtid_executed has their GTID once the
  // statement that applied them ended; and a DDL into MySQL 8.0 or later (atomic with its GTID).
  bool told_by_mysql_gtid();
  // The unit is not a transaction: the source committed it without an Xid (its tables are not
  // transactional), or a table its rows change is not transactional on the target (a COMMIT
  // cannot take those rows back).
  bool non_transactional() const {
    return (!xid_ || target_alone()) && !xa_ && (rows_ || verbatim_);
  }
  // The unit's rows change a table that is not transactional on the target (alone or with
  // transactional ones: each of its statements goes on its own, Applier::not_one_transaction).
  bool target_alone() const { return target_non_trans_; }
  // ... and it is row events alone (no statement of the log's own text).
  bool non_transactional_rows() const { return non_transactional() && rows_ && !verbatim_; }
  // Whether the target's prepared XA transactions leave their session (MySQL's
  // xa_detach_on_prepare, ON since 8.0.29): an XA COMMIT may then run on another session.
  bool mysql_xa_detached();
  [[noreturn]] void pause_for_test();
  // A piece of a unit marked in doubt failed before any of its statements that change rows
  // ran: it is not on the target, the state says so (a plain --resume applies it again).
  void failed_before_rows();
  // Whether the unit (one that is not a transaction) is one statement on the target, logged as
  // one group with its GTID: row events in one BINLOG statement (up to max_allowed_packet), or
  // one statement of the log's own; not one in pieces.
  bool one_statement() const;

  const ReplayOptions& opts_;
  StateStore& store_;
  Session& session_;
  std::string identity_;
  std::uint64_t started_at_ = 0;      // when the target started (state file)
  bool by_gtids_ = false;             // the target's GTIDs record the progress
  bool workers_write_state_ = false;  // no progress rows: the state file after each commit
  std::vector<std::pair<std::string, std::string>> rewrites_;
  SharedFolder load_folder_;  // the SQL writer's LOAD files: what the target may read
  bool load_folder_known_ = false;
  ApplyEngine engine_;
  UnitScheduler scheduler_;  // (parallel or merging: what each unit waits for)
  std::set<std::pair<std::string, std::uint64_t>> skip_;
  Output out_;
  SqlOptions sql_;
  SqlSink sink_;
  bool parallel_ = false;
  bool keys_wanted_ = false;  // the write set builder runs (parallel or merging)
  bool keyed_ = false;        // ... for this unit (ApplyEngine::wants_keys)
  Mode mode_ = Mode::kUnits;
  Prelude header_;
  UnitInfo unit_;
  std::string file_;
  bool skipping_ = false, verbatim_ = false, ctas_ = false, format_unit_ = false;
  bool schema_may_change_ = false;  // the unit has a statement that is not transaction control
  // (with schema_may_change_) the only tables its statements may change the keys of, by both
  // the log's and --rewrite-db's names; nullopt: any table's (tables_changed_by)
  std::optional<TableNames> ddl_tables_;
  // MariaDB GTIDs: the highest sequence number of this run by "domain-server" (every unit,
  // those left out on resume too), and whether the current unit's is above it.
  std::unordered_map<std::string, std::uint64_t> highest_gtid_;
  bool gtid_later_in_run_ = false;
  bool maria_gtid_ = false;
  MariaUnit maria_;    // the unit's MariaDB GTID (when maria_gtid_)
  bool xa_ = false;    // the unit has XA statements (submit_xa)
  bool xid_ = false;   // the unit ends in an Xid event (its tables are transactional)
  bool rows_ = false;  // the unit has row events
  // Its tables on the target (its row events', its statements'): one that is not
  // transactional there.
  bool target_non_trans_ = false;
  std::uint32_t row_statements_ = 0;  // its row events that end a statement (STMT_END_F)
  std::uint32_t statements_ = 0;      // its statements that are not transaction control
  std::size_t text_size_ = 0;         // its SQL's size (a unit applied alone)
  // A unit too large to hold (in pieces) that is not a transaction (its pieces go as
  // statements of their own); whether its pieces are applied (not: the target has it).
  bool pieces_not_one_ = false, pieces_apply_ = true;
  std::uint64_t pieces_ = 0;  // the unit's pieces so far (test_pause_after_pieces)
  PreparedXas prepared_;      // XA PREPARE groups handed to the workers
  MergeGroup group_;          // --merge-transactions: the units held
  std::uint64_t merged_groups_ = 0, merged_units_ = 0;
  bool in_hook_ = false;
  bool direct_open_ = false, direct_transactional_ = false, in_doubt_marked_ = false;
  bool told_by_gtid_ = false;
  bool refused_ = false;  // (refused_in_doubt)  // the unit that is not a transaction is not marked
                          // (mark_in_doubt)
  std::optional<bool> xa_detached_;    // (asked once: mysql_xa_detached)
  std::optional<bool> mysql_log_bin_;  // (asked once: told_by_mysql_gtid)
  bool mysql_atomic_ddl_ = false;      // (with it) MySQL 8.0+: a DDL commits with its GTID
  GtidWitness witness_;                // whether the target's GTIDs tell if an XA unit ran
  TargetEngines engines_;              // whether the tables written are transactional there
  bool resume_prefix_ = false;         // a resumed run that has applied nothing yet
  std::uint64_t prior_started_ = 0;    // (resumed) the state file's server_started
  std::string prior_binlog_;           // (resumed) and target_binlog
  bool restart_answered_ = false;      // (resumed) --in-doubt answered for the unit it met
  std::string target_binlog_;          // MariaDB: the target's binary log (every state's)
  std::uint64_t resumed_skips_ = 0;
  std::uint64_t direct_seq_ = 0;
  std::uint64_t barriers_ = 0, events_ = 0;
  std::optional<ReplayState> last_;
  std::chrono::steady_clock::time_point last_state_write_ = std::chrono::steady_clock::now();
  std::function<void(const UnitInfo&)> progress_;
  std::unordered_map<std::string, std::string> paths_;
};

}  // namespace binrecover::recovery
