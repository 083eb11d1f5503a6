#include "recovery/apply/replay.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <thread>
#include <utility>

#include "binlog/error.h"
#include "recovery/apply/apply_engine.h"
#include "recovery/apply/replay_common.h"
#include "recovery/apply/replay_resume.h"
#include "recovery/apply/replay_target.h"
#include "recovery/apply/replayer.h"
#include "recovery/apply/test_pause.h"
#include "recovery/server/remote_source.h"
#include "recovery/sql/sql_quote.h"

namespace binrecover::recovery {

std::string coordinates(const ReplayState& st) {
  std::string s = st.file + ":" + std::to_string(st.position);
  if (!st.gtid.empty()) s += " (GTID " + st.gtid + ")";
  return s;
}

std::string server_identity(Session& session) {
  std::string id = session.where();
  if (auto sid = session.value("SELECT @@server_id")) id += " server_id=" + *sid;
  if (!session.mariadb())
    if (auto uuid = session.value("SELECT @@server_uuid")) id += " uuid=" + *uuid;
  return id;
}

bool same_server(const std::string& recorded, const std::string& identity, Session& session) {
  return recorded.empty() || recorded == identity || recorded == session.where();
}

namespace {
// The stop flag SIGINT and SIGTERM set while a replay runs.
std::atomic<int> g_stop_signal{0};
extern "C" void on_stop_signal(int sig) { g_stop_signal.store(sig); }
}  // namespace

int stop_signal() { return g_stop_signal.load(); }

void wait_for_stop_signal(Session& target) {
  while (stop_signal() == 0) {
    (void)target.value("SELECT 1");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

StopSignals::StopSignals() {
  g_stop_signal.store(0);
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sa.sa_flags = SA_RESTART | SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, &old_int_);
  ::sigaction(SIGTERM, &sa, &old_term_);
}

StopSignals::~StopSignals() {
  ::sigaction(SIGINT, &old_int_, nullptr);
  ::sigaction(SIGTERM, &old_term_, nullptr);
}

namespace {

// Option combinations the target cannot honour, refused before anything is written.
void refuse_combinations(const ReplayOptions& opts, const SqlOptions& sql, Session& session,
                         bool target_gtids) {
  if (opts.idempotent) {  // (before anything is written: refused, nothing to resume)
    if (session.mariadb())
      throw Error(ErrorCode::kUsage,
                  "--idempotent: " + session.where() +
                      " is MariaDB, which has no session rbr_exec_mode (its slave_exec_mode is "
                      "for replication threads only)");
    if (sql.rows_as_sql)
      throw Error(ErrorCode::kUsage,
                  "--idempotent applies to row events, not the plain statements of --rows-as-sql");
  }
  if (opts.merge_transactions > 1 && target_gtids)
    throw Error(ErrorCode::kUsage,
                "--merge-transactions: " + session.where() +
                    " keeps each transaction's GTID (gtid_mode=ON), and a transaction made of "
                    "several would keep only one: give --gtids=strip to merge them under new "
                    "GTIDs");
  if (opts.merge_transactions > 1 && opts.parallel > 1 && !opts.preserve_commit_order)
    throw Error(ErrorCode::kUsage,
                "--merge-transactions needs the commit order (not --no-preserve-commit-order)");
}

// One replay per state file (`key`: this machine and its full path), also from another machine:
// a lock the control session holds for the whole run. Each worker's session holds one of its
// own too: a session of an earlier run that the target still runs (a statement in flight when
// that run was killed goes on until it ends) is waited for, so that what it does is seen before
// anything is read. Returns the lock's name.
std::string take_run_locks(Session& session, const std::string& key,
                           const std::string& state_file) {
  const std::string lock_name =
      "binrecover:" + std::to_string(std::hash<std::string>{}(key)&0xffffffffffffULL);
  if (session.value("SELECT GET_LOCK(" + hex_literal(lock_name) + ", 0)").value_or("0") != "1")
    throw Error(ErrorCode::kUsage, "another binrecover replay holds the state of " + state_file +
                                       " on " + session.where() + ": one replay per state file");
  // (which of them are held, asked at once: usually none)
  std::string free_query = "SELECT CONCAT(";
  for (int w = 0; w < 64; ++w)
    free_query += (w ? ", IS_FREE_LOCK(" : "IS_FREE_LOCK(") +
                  hex_literal(lock_name + ":w" + std::to_string(w)) + ")";
  const std::string free = session.value(free_query + ")").value_or("");
  for (int w = 0; w < 64; ++w) {
    if (free.size() == 64 && free[w] == '1') continue;
    const std::string name = hex_literal(lock_name + ":w" + std::to_string(w));
    if (session.value("SELECT GET_LOCK(" + name + ", 120)").value_or("0") != "1")
      throw Error(ErrorCode::kServer, "a session of an earlier replay with the state file " +
                                          state_file + " is still applying on " + session.where() +
                                          " after 2 minutes: look at its "
                                          "process list");
    session.execute("DO RELEASE_LOCK(" + name + ")");
  }
  return lock_name;
}

// This replay's name on the target: this machine and the state file's full path.
std::string replay_key(const ReplayOptions& opts) {
  std::error_code ec;
  const std::filesystem::path abs = std::filesystem::absolute(opts.state_file, ec);
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  return std::string(host) + ":" + abs.lexically_normal().string();
}

// The progress line and the stop signals, at each unit handed out (and the test-only pause).
class UnitProgress {
 public:
  UnitProgress(const std::vector<InputFile>& inputs, std::uint64_t skipped,
               const ReplayProgressFn& progress, Replayer& replay, Session& session)
      : inputs_(inputs),
        skipped_(skipped),
        progress_(progress),
        replay_(replay),
        session_(session) {
    sizes_ = input_sizes(inputs, total_);
    total_ = total_ > skipped ? total_ - skipped : 0;
  }
  void operator()(const UnitInfo& u) {
    const bool quiet = replay_.engine().quiet() && total_ > 0;
    if (progress_ || quiet) {
      const std::string& file = *u.file;
      while (current_ + 1 < inputs_.size() && inputs_[current_].display_name != file) {
        done_before_ += sizes_[current_];
        ++current_;
      }
      const std::uint64_t at = done_before_ + u.end_pos;
      const std::uint64_t done = at > skipped_ ? at - skipped_ : std::uint64_t{0};
      if (quiet) expect_left(done);
      if (progress_)
        progress_(ReplayProgress{file, u.end_pos, replay_.events(), replay_.engine().committed(),
                                 done, total_, replay_.engine().workers(), replay_.engine().busy(),
                                 0, false});
    }
    if (test_pause_after_units() != 0 && ++units_handed_ == test_pause_after_units()) {
      // (test_pause.h: what was handed out is applied, then nothing more until a signal; the
      // target is asked after it every 50 ms, so its loss ends the run as it would)
      replay_.engine().drain();
      announce_test_pause(test_pause_after_units(), "units applied");
      wait_for_stop_signal(session_);
    }
    if (const int sig = stop_signal(); sig != 0)
      throw Error(ErrorCode::kInterrupted,
                  std::string("stopped by ") + (sig == SIGINT ? "SIGINT" : "SIGTERM"));
  }

 private:
  // (the width control quiet) What is left of the inputs at the rate so far.
  void expect_left(std::uint64_t done) {
    const auto now = std::chrono::steady_clock::now();
    if (!first_) {
      first_ = std::make_pair(now, done);
      return;
    }
    // (the control ends the quiet no sooner than 100 ms in: not asked, its lock not taken,
    // before 90 ms of units read)
    if (done <= first_->second || done >= total_ || now - first_->first < kLeastSample) return;
    const double per_byte = std::chrono::duration<double>(now - first_->first).count() /
                            static_cast<double>(done - first_->second);
    replay_.engine().expect_left(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(per_byte * static_cast<double>(total_ - done))));
  }

  static constexpr auto kLeastSample = std::chrono::milliseconds(90);
  const std::vector<InputFile>& inputs_;
  std::optional<std::pair<std::chrono::steady_clock::time_point, std::uint64_t>> first_;
  std::uint64_t skipped_;
  const ReplayProgressFn& progress_;
  Replayer& replay_;
  Session& session_;
  std::vector<std::uint64_t> sizes_;
  std::uint64_t total_ = 0;
  std::size_t current_ = 0;
  std::uint64_t done_before_ = 0;
  std::uint64_t units_handed_ = 0;
};

// The engine's sessions: how many, their lock and settings, the commit order, and where the
// progress goes (the progress table `table`, the target's GTIDs, or the state file after every
// commit).
EngineOptions engine_options(const ReplayOptions& opts, Session& session,
                             const std::string& lock_name, const std::string& table,
                             const std::string& key_literal, bool by_gtids, StateStore& store,
                             const Resume& r) {
  EngineOptions eo;
  eo.workers = std::max<std::size_t>(1, opts.parallel);
  eo.session_lock = lock_name;
  if (opts.idempotent) {
    eo.session_statements.emplace_back("SET SESSION rbr_exec_mode = IDEMPOTENT");
    session.execute(eo.session_statements.back());
  }
  eo.preserve_commit_order = opts.preserve_commit_order;
  if (!table.empty()) {
    eo.progress_table = table;
    eo.run_key = key_literal;
  } else if (!by_gtids) {
    // No progress rows: the state file after every commit, durably, in commit order.
    eo.preserve_commit_order = true;
    eo.on_commit = [&store, identity = r.identity, started_at = r.started_at](const UnitPlace& p) {
      store.write(ReplayState{p.file, p.end_pos, p.gtid, identity, started_at}, true);
    };
  }
  return eo;
}

// A stop (an error, a signal): what committed before it kept, the state file written (unless a
// unit stays in doubt), and the error said again with where to --resume.
[[noreturn]] void stop_with_state(const Error& e, Replayer& replay, StateStore& store,
                                  const std::vector<InputFile>& inputs, const FilterOptions& filter,
                                  const Resume& r) {
  try {
    replay.engine().drain();  // (the workers finish or roll back what they hold)
  } catch (const Error&) {
  }
  replay.update_last();
  if (!replay.sink().load_dir().empty() && r.sql.local_load_dir.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(replay.sink().load_dir(), ec);
  }
  std::optional<ReplayState> last = replay.last();
  if (!last && !inputs.empty() &&
      (e.code() == ErrorCode::kServer || e.code() == ErrorCode::kInterrupted)) {
    // Nothing committed yet: the run's own start is where to resume.
    last = ReplayState{inputs.front().display_name, filter.start_position.value_or(4), "",
                       r.identity, r.started_at};
    last->target_binlog = replay.target_binlog();
  }
  // A unit in doubt stays so when the connection was lost while it ran; a statement the
  // server refused was not applied.
  const bool lost =
      is_server_error(e, 2013) || is_server_error(e, 2006) || is_server_error(e, 2055);
  const bool keep_doubt =
      (replay.in_doubt() && e.code() == ErrorCode::kServer && lost) || replay.refused_in_doubt();
  std::string where = "; nothing was applied";
  if (last) {
    if (!keep_doubt) store.write(*last, true);
    const bool unordered = r.opts.parallel > 1 && !r.opts.preserve_commit_order;
    where = "; the last transaction applied ends at " + coordinates(*last) +
            (unordered ? " (and the progress rows name those committed after it)" : "") +
            (e.code() == ErrorCode::kInterrupted ? ": continue there with --resume"
                                                 : ": fix the cause, then continue there with "
                                                   "--resume") +
            " (state in " + r.opts.state_file + ")";
  }
  // (MySQL 9 with foreign keys in the SQL layer logs a cascade's child rows before the
  // parent's, and refuses the parent's row event where its key changed only in letter case:
  // its own replica stops there too; as statements they apply)
  if (is_server_error(e, 1451))
    where +=
        "; a MySQL 9 target with foreign keys in the SQL layer (innodb_native_foreign_keys="
        "OFF) refuses a cascade's parent row whose key changed only in letter case: "
        "--rows-as-sql applies such transactions";
  throw e.extended(where);
}

// What the replay did, for --report and the summary.
void report_figures(Replayer& replay, ReplayResult& result) {
  result.transactions_applied = replay.engine().committed();
  result.events_applied = replay.events();
  result.parallel_units = replay.units_parallel();
  result.barriers = replay.barriers();
  result.held_whole = replay.held_whole();
  result.retries = replay.engine().retries();
  result.pipelined = replay.engine().pipelined();
  result.max_busy = replay.engine().max_busy();
  result.sessions = replay.engine().sessions();
  result.narrowed = replay.engine().narrowed();
  result.width_changes = replay.engine().width_changes();
  result.lock_watch = lock_watch_name(replay.engine().lock_watch());
  result.watch_yields = replay.engine().watch_yields();
  result.merged_transactions = replay.merged_units();
  result.merged_groups = replay.merged_groups();
}

}  // namespace

ReplayResult run_replay(std::vector<InputFile> inputs, DecodeOptions decode, FilterOptions filter,
                        SqlOptions sql, const ReplayOptions& opts, const ConnectionOptions& conn,
                        Session& session, const binlog::WarningSink& warn,
                        const ReplayProgressFn& progress, Schema* schema) {
  const auto started = std::chrono::steady_clock::now();
  ReplayResult result;
  const StopSignals signals;  // (from the start: a stop before the first unit is honoured there)
  const StateLock lock(opts.state_file);
  const std::string identity = server_identity(session);
  StateStore store(opts.state_file);
  std::optional<ReplayState> prior = store.read();
  if (!prior) store.reset();

  // What records the progress exactly (docs/usage.md, "Replay"): a MySQL target's own GTIDs
  // when it has gtid_mode=ON and they are kept (gtid_executed is an exact set, committed with
  // each transaction; nothing else is written to the target); else the progress table,
  // written inside each transaction. (MariaDB's GTIDs cannot serve: gtid_binlog_pos keeps only
  // the last sequence number per domain and server id, and a restored copy that has the
  // source's server id logs its own transactions under the source's GTIDs.)
  const bool no_log_bin =
      sql.disable_log_bin || session.value("SELECT @@GLOBAL.log_bin").value_or("0") != "1";
  // (MariaDB: the target's GTIDs now, kept by every state of the replay: an XA unit later than
  // them that the target has was applied by this replay, see Replayer::mark_in_doubt)
  std::optional<std::string> gtids_at_start;
  if (prior)
    gtids_at_start = prior->target_gtids_at_start;
  else if (!opts.resume && session.mariadb() && !no_log_bin && opts.gtids != GtidMode::kStrip)
    gtids_at_start = session.value("SELECT @@GLOBAL.gtid_binlog_state").value_or("");
  store.keep_target_gtids_at_start(gtids_at_start);
  const bool target_gtids = opts.gtids != GtidMode::kStrip && !session.mariadb() &&
                            session.value("SELECT @@GLOBAL.gtid_mode").value_or("") == "ON";
  refuse_combinations(opts, sql, session, target_gtids);
  const bool by_gtids = opts.progress_table == "auto" && target_gtids;
  const bool use_table = !opts.progress_table.empty() && !by_gtids;
  std::string table;
  ProgressRows rows;
  const std::string key = replay_key(opts);
  const std::string key_literal = hex_literal(key);
  const std::string lock_name = take_run_locks(session, key, opts.state_file);
  const std::uint64_t started_at = target_started_at(session);
  leave_out_progress(opts.progress_table, filter);
  if (use_table) {
    // The table is binlogged where its rows are (replicas of the target then have it too).
    if (no_log_bin) session.execute("SET SESSION sql_log_bin = 0");
    table = progress_table(session, opts.progress_table == "auto" ? "binrecover.replay_progress"
                                                                  : opts.progress_table);
    rows = read_progress(session, table, key_literal, inputs, identity);
  }

  const Resume r{opts, sql, identity, started_at, by_gtids};
  std::set<std::pair<std::string, std::uint64_t>> skip;
  // (a resumed run: when the target had started and the binary log it wrote, by the state
  // file; a unit in doubt there settled, the target's restart is answered)
  std::uint64_t prior_started = prior ? prior->server_started : 0;
  std::string prior_binlog = prior ? prior->target_binlog : std::string();
  if (prior && prior->in_doubt_end > 0) {
    prior_started = started_at;
    prior_binlog = session.mariadb() ? current_binlog(session) : std::string();
  }
  if (opts.resume)
    skip = resume(r, session, prior, rows, inputs, filter, decode, result.last, warn);
  else if (prior)
    throw Error(ErrorCode::kUsage,
                "the replay state file " + opts.state_file +
                    " exists: an earlier replay applied up to " + coordinates(*prior) +
                    ". Continue it with --resume, or remove the file to start over");
  // A new replay forgets the rows of an earlier one with the same state file (its state file
  // was removed to start over).
  if (!opts.resume && use_table && (rows.mark || !rows.applied.empty()))
    session.execute("DELETE FROM " + table + " WHERE run_key = " + key_literal);

  if (opts.gtids == GtidMode::kStrip) sql.skip_gtids = true;
  if (opts.gtids == GtidMode::kSkipApplied) add_target_gtids(session, filter.applied_gtids);

  EngineOptions eo = engine_options(opts, session, lock_name, use_table ? table : std::string(),
                                    key_literal, by_gtids, store, r);
  result.workers = eo.workers;
  Replayer replay(opts, sql, conn, session, identity, started_at, by_gtids, std::move(eo),
                  std::move(skip), store);
  if (schema != nullptr) replay.sink().set_schema(schema);
  replay.last() = result.last;
  replay.set_paths(inputs);
  replay.set_start(gtids_at_start, opts.resume && prior.has_value(), prior_started,
                   std::move(prior_binlog));
  replay.set_progress(
      UnitProgress(inputs, filter.start_position.value_or(4) - 4, progress, replay, session));

  WalkOptions wo;
  wo.decode = decode;
  wo.filter = filter;
  try {
    replay.begin();
    result.stats = walk(inputs, wo, replay, warn);
    replay.finish();
  } catch (const Error& e) {
    stop_with_state(e, replay, store, inputs, filter, r);
  }
  result.last = replay.last();
  if (result.last) store.write(*result.last, true);
  if (replay.resumed_skips() > 0 && warn)
    warn("--resume: " + std::to_string(replay.resumed_skips()) +
         " unit(s) that are not transactions (DDL, XA, writes to non-transactional tables) "
         "where the replay continued were on the target already (their GTIDs say so): left out");
  report_figures(replay, result);
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (!replay.sink().load_dir().empty() && sql.local_load_dir.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(replay.sink().load_dir(), ec);
  }
  return result;
}

}  // namespace binrecover::recovery
