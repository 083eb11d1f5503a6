#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "recovery/reading/filter.h"
#include "recovery/reading/walker.h"
#include "recovery/server/apply.h"
#include "recovery/sql/schema.h"
#include "recovery/sql/sql_sink.h"

namespace binrecover::recovery {

// --gtids: what replay does with the transactions' GTIDs.
enum class GtidMode : std::uint8_t {
  kKeep,         // as SQL output: the server records the original GTIDs
  kSkipApplied,  // keep, and leave out the transactions the server already has
  kStrip,        // as --skip-gtids: the server gives the transactions new GTIDs
};

// --in-doubt: what --resume does with a unit that is not a transaction (DDL, XA, a statement
// on a non-transactional table) that was being applied when the replay stopped, when the
// target cannot tell by its GTIDs whether it has it.
enum class InDoubt : std::uint8_t { kRefuse, kApplied, kNotApplied };

struct ReplayOptions {
  std::string state_file = "binrecover-replay.state";  // --state-file (current folder)
  bool resume = false;                                 // --resume
  bool idempotent = false;                             // --idempotent (MySQL targets)
  GtidMode gtids = GtidMode::kKeep;
  // --progress-table: the target's table that records, inside each transaction applied, where
  // the replay is; "auto": the target's own GTIDs when it records them (and the GTIDs are
  // kept), else binrecover.replay_progress; "": none, the state file alone, fsynced after
  // every transaction.
  std::string progress_table = "auto";
  InDoubt in_doubt = InDoubt::kRefuse;
  std::size_t parallel = 1;           // --parallel: workers (sessions) applying at once
  bool preserve_commit_order = true;  // false: --no-preserve-commit-order
  // --server-applier: the target's own replication applier applies the log, binrecover its
  // replication source (recovery/apply/server_applier.h), listening on --listen.
  bool server_applier = false;
  std::string listen_host = "127.0.0.1";
  unsigned listen_port = 0;                              // 0: a free port
  std::uint64_t window_bytes = std::uint64_t{64} << 20;  // sent ahead of what is applied
  // --merge-transactions: up to this many consecutive small transactions of row changes
  // (InnoDB DML; of one MariaDB GTID domain and server) go to the target as one transaction
  // (1: each as it is). Not with --no-preserve-commit-order.
  std::size_t merge_transactions = 1;
};

// Where a replay got to: the end of the last transaction the server committed.
struct ReplayState {
  std::string file;                  // the binlog's name (its display name)
  std::uint64_t position = 4;        // the next event to apply starts here
  std::string gtid;                  // of that transaction, when it had one
  std::string server;                // the target it was applied to (host, port, server id/uuid)
  std::uint64_t server_started = 0;  // when the target started (seconds; 0: unknown)
  // A unit that is not a transaction being applied (in `file`, from `in_doubt_begin` to
  // `in_doubt_end`, GTID `in_doubt_gtid`): written before it runs, cleared once it has.
  std::uint64_t in_doubt_begin = 0, in_doubt_end = 0;
  std::string in_doubt_gtid{};
  // and the target's binary log then (MariaDB: a restart opens a new one, which tells a restart
  // in the second the target had started in, where server_started cannot)
  std::string in_doubt_binlog{};
  // MariaDB: the target's binary log when the replay wrote the state (about once a second): a
  // restart opens a new one (see in_doubt_binlog)
  std::string target_binlog{};
  // --server-applier: the target's global settings before the replay changed them
  // ("slave_parallel_threads=0,slave_ddl_exec_mode=IDEMPOTENT"), given back at the end (also by
  // a --resume after a kill); "" : none changed.
  std::string settings_before{};
  // MariaDB: the target's gtid_binlog_state when the replay started (its first run), kept by
  // every state after; nullopt: not known (MySQL, a target that does not binlog, an older
  // state file).
  std::optional<std::string> target_gtids_at_start{};
  // The write's number in its run (StateStore: the later of STATE and STATE.journal; 0: none).
  std::uint64_t write = 0;
};

// nullopt when there is no such file. Throws Error(kUsage) for a file that is not a state file.
std::optional<ReplayState> read_replay_state(const std::string& path);
// Replaces the file atomically: a private temporary file beside it, rename; with `durable`
// fsynced first and the folder after. Throws Error(kIo).
void write_replay_state(const std::string& path, const ReplayState& state, bool durable = true);

struct ReplayProgress {
  const std::string& file;
  std::uint64_t position;      // in `file`
  std::uint64_t events;        // events read and handed to the workers
  std::uint64_t transactions;  // transactions committed on the target
  std::uint64_t bytes_done;    // binlog bytes behind us, over all inputs
  std::uint64_t bytes_total;   // 0 when unknown (standard input)
  std::size_t workers = 1;
  std::size_t busy = 0;  // workers applying a unit right now
  // --server-applier: transactions sent to the target and not yet applied there (busy is 0).
  std::size_t in_flight = 0;
  bool server_applier = false;
};
using ReplayProgressFn = std::function<void(const ReplayProgress&)>;

struct ReplayResult {
  RunStats stats;
  std::uint64_t transactions_applied = 0;
  std::uint64_t events_applied = 0;
  std::optional<ReplayState> last;  // nullopt: no transaction applied
  std::size_t workers = 1;
  std::uint64_t parallel_units = 0;  // units the workers applied beside others
  std::uint64_t barriers = 0;        // units applied alone (DDL, statements, unknown tables)
  std::uint64_t pipelined = 0;       // packets sent before the answer of the one before
  std::uint64_t retries = 0;         // units run again after a deadlock or lock wait timeout
  // Units that held a table whole (a key the write sets cannot tell: no unique key, more rows
  // than a write set keeps, a value of a collation the target could not weigh): they wait for
  // every earlier unit on the table.
  std::uint64_t held_whole = 0;
  std::size_t max_busy = 0;  // the most workers applying at the same time
  std::size_t sessions = 0;  // the workers' sessions opened (ApplyEngine::grow)
  // (several workers) Units committed while one session took them (WidthControl: the log ran
  // faster so), and how often the number of sessions taking units changed.
  std::uint64_t narrowed = 0, width_changes = 0;
  // How lock waits of the transaction whose turn it is were seen (ApplyEngine::lock_watch:
  // "none", "off", "innodb_trx", "performance_schema"), and how often later ones rolled back
  std::string lock_watch = "none";
  std::uint64_t watch_yields = 0;
  // --merge-transactions: transactions applied as part of a larger one, and those ones
  std::uint64_t merged_transactions = 0, merged_groups = 0;
  double seconds = 0;
};

// Applies the inputs to the server, as `binrecover ... | mysql` would, but one whole unit at a
// time on opts.parallel sessions of its own (`conn`; `session` is a control session on the
// same server), exactly once across stops (docs/usage.md, "Replay"):
//  - units that cannot conflict are applied at the same time: what the source's logical clock
//    or commit groups say, and write sets made here from the row events (the target's primary,
//    unique and foreign keys); DDL, statements as the log has them, tables without the
//    target's keys, and units too large to hold are barriers, applied alone; with the commit
//    order kept, a reader of the target only ever sees a prefix of the source's history;
//  - each transaction writes its worker's row of the target's progress table inside itself,
//    right after its BEGIN (what the target committed and where the replay got to can never
//    differ); the state file is rewritten now and then for reading, and fsynced at the end;
//  - a unit that is not a transaction (DDL, XA, non-transactional statements) is marked in
//    doubt in the state file (fsynced) before it runs and recorded there (fsynced) after;
//  - with opts.resume the run continues after the later of the progress rows and the state
//    file (files before its file are skipped, --start-position is replaced; units the rows say
//    were committed after that point are left out); a unit left in doubt is looked up by its
//    GTID on the target, or settled by opts.in_doubt, else refused;
//  - the state file is locked (a second run with it is refused), as are the target's progress
//    rows (GET_LOCK); a resume on another server than the state file's is refused;
//  - SIGINT and SIGTERM stop it after the units being applied (Error kInterrupted).
// Without opts.resume an existing state file is refused so nothing is applied twice by
// accident. Throws Error: kServer (exit 6) at the first failing statement, after rolling its
// transaction back; the message ends with the coordinates to resume from.
// `schema` (may be null) names the columns for --rows-as-sql in logs without metadata.
ReplayResult run_replay(std::vector<InputFile> inputs, DecodeOptions decode, FilterOptions filter,
                        SqlOptions sql, const ReplayOptions& opts, const ConnectionOptions& conn,
                        Session& session, const binlog::WarningSink& warn,
                        const ReplayProgressFn& progress = {}, Schema* schema = nullptr);

}  // namespace binrecover::recovery
