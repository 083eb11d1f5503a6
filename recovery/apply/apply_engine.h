#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_set>
#include <vector>

#include "binlog/error.h"
#include "recovery/apply/width_control.h"
#include "recovery/server/apply.h"
#include "recovery/sql/output.h"

namespace binrecover::recovery {

// Where a unit is in the binlogs: its file, where it starts and ends, its GTID.
struct UnitPlace {
  std::string file;  // its display name
  std::string path;  // the input's name in messages (recovery/walker.h error_name)
  std::uint64_t first_pos = 0;
  std::uint64_t end_pos = 0;
  std::string gtid;
};

// Statements a worker's session must have run before a unit's (the SQL header: pseudo-replica
// mode, sql_log_bin; the binlog's format description as a BINLOG statement). A new prelude
// replaces the old one for the units read after it; a worker runs a unit's own prelude before
// it when its session ran another.
struct Prelude {
  std::string text;
  std::vector<Output::Statement> statements;
};

// One unit given to the workers: its SQL text and statements (a copy), where it is, and the
// units it must wait for (their commit) before it may start.
struct ApplyTask {
  std::uint64_t seq = 0;  // set by submit()
  std::string text;
  std::vector<Output::Statement> statements;
  UnitPlace place;
  std::vector<std::uint64_t> deps;
  std::shared_ptr<const Prelude> prelude;
  std::size_t units = 1;  // the log's transactions in it (--merge-transactions: several)
  // Its deps are its write set's (else it waits for the unit before it: read without its keys,
  // WidthControl::wants_keys()).
  bool keyed = true;
  std::vector<std::uint64_t> tables;  // the tables it writes (table_hash), for contended()
  // An XA unit (only with the commit order kept): its last statement (XA PREPARE, XA COMMIT,
  // XA ROLLBACK) is its commit, sent in its turn. `xa_xid` (an XA START ... XA PREPARE unit):
  // the xid its rollback ends and rolls back before it runs again.
  bool xa = false;
  std::string xa_xid;
};

struct EngineOptions {
  std::size_t workers = 1;
  bool preserve_commit_order = true;
  // The progress table (`db`.`table`, quoted) and this replay's key in it (a hex literal);
  // empty: no progress rows (the caller keeps its state file after every commit).
  std::string progress_table;
  std::string run_key;
  // Each worker's session holds the lock LOCK:wN for its life ("" none): see run_replay.
  std::string session_lock;
  // Run by each session once connected (e.g. SET SESSION rbr_exec_mode = IDEMPOTENT).
  std::vector<std::string> session_statements;
  // Called after each unit committed, in commit order when the order is kept (the state file
  // when there are no progress rows). May throw; the replay stops then.
  std::function<void(const UnitPlace&)> on_commit;
  // How much may wait for a worker: units, and bytes of their text.
  std::size_t max_waiting = 0;  // 0: 16 per worker
  std::size_t max_bytes = std::size_t{64} << 20;
};

// Applies units on `workers` sessions of their own, each unit whole and exactly once:
//  - a unit starts once the units it depends on have committed (ApplyTask::deps);
//  - with the commit order kept, a unit's COMMIT waits until every unit before it committed:
//    what a reader of the target sees is always a prefix of the source's history;
//  - each unit writes its worker's row of the progress table inside its own transaction (right
//    after its BEGIN): with the order kept, where the replay got to; without, the end of the
//    units all committed (the low-water mark) and the units this worker committed after it;
//  - a deadlock or lock wait timeout rolls the unit back and runs it again; when it is a unit
//    that later ones hold locks against while they wait for their turn to commit, those are
//    rolled back first and run again after it.
// The first failing unit stops the replay: units before it still commit, units after it are
// rolled back (with the order kept); its error is thrown by the next submit() or drain().
class ApplyEngine {
 public:
  ApplyEngine(const ConnectionOptions& conn, EngineOptions opts);
  ~ApplyEngine();
  ApplyEngine(const ApplyEngine&) = delete;
  ApplyEngine& operator=(const ApplyEngine&) = delete;

  // Session setup for every worker from now on.
  void set_prelude(std::shared_ptr<const Prelude> prelude);
  const std::shared_ptr<const Prelude>& prelude() const { return prelude_; }
  // The sequence number the next unit (task or direct) gets.
  std::uint64_t next_seq() const { return next_seq_; }
  // Hands a unit to the workers; blocks while too much waits. Throws the first error.
  void submit(ApplyTask task);
  // Waits until every unit handed over committed. Throws the first error.
  void drain();

  // A unit applied here, alone (after drain()), on the first worker's session: a barrier
  // (DDL, statements as the log has them), or a unit too large to hold, in pieces. begin
  // before its first piece, piece for each, end after the last (committed) or abort.
  void begin_direct(const UnitPlace& place);
  // Returns whether the progress row went into this piece (after its BEGIN). Without it, the
  // unit is not one transaction (Applier::Hooks::not_one_transaction); `piece` says which of
  // such a unit's pieces this is.
  bool direct_piece(std::string_view text, const std::vector<Output::Statement>& statements,
                    bool with_progress,
                    Applier::Hooks::Piece piece = Applier::Hooks::Piece::kWhole);
  void end_direct();
  void abort_direct();
  // (after a piece that is not one transaction, also one that threw) Whether a statement of it
  // that changes rows ran (Applier::logged).
  bool direct_logged() const { return workers_.front()->applier->logged(); }

  // The progress statement of worker `w` for a unit that ends at `place`, when the commit
  // order is kept (the direct path, and tests).
  std::string progress_statement(std::size_t worker, const UnitPlace& place) const;

  std::size_t workers() const { return opts_.workers; }
  // Whether the workers commit in the log's order (several workers, the order kept).
  bool ordered() const { return opts_.preserve_commit_order && opts_.workers > 1; }
  std::size_t busy() const { return busy_.load(); }
  std::size_t max_busy() const { return max_busy_.load(); }
  // The workers' sessions opened so far (the first, then as units were ready for more: grow()).
  std::size_t sessions() const {
    std::lock_guard lock(mu_);
    return started_;
  }
  std::uint64_t committed() const { return committed_.load(); }
  std::uint64_t retries() const { return retries_.load(); }
  // Packets the workers sent before the answer of the one before (Applier::pipelined).
  std::uint64_t pipelined() const;
  // (several workers) Units committed while one session took them (WidthControl), and how
  // often the number of sessions taking units changed.
  std::uint64_t narrowed() const {
    std::lock_guard lock(mu_);
    return width_control_ ? width_control_->narrowed() : 0;
  }
  // Whether the units read now should be read with their keys (WidthControl::wants_keys();
  // one worker: yes, merging needs them).
  bool wants_keys() const { return keys_wanted_.load(std::memory_order_relaxed); }
  // The width control is quiet (WidthControl::quiet()), and told what the replay expects left.
  bool quiet() const { return quiet_.load(std::memory_order_relaxed); }
  void expect_left(std::chrono::steady_clock::duration left);
  std::uint64_t width_changes() const {
    std::lock_guard lock(mu_);
    return width_control_ ? width_control_->changes() : 0;
  }
  // How the turn watch sees the target's lock waits (kNone: not needed: one session, the
  // order not kept, or a MariaDB target, whose sessions refuse a lock wait at once; kOff:
  // needed but the target would not say, no PROCESS privilege), and how often it had the
  // units after the turn holder give their locks back.
  enum class LockWatch { kNone, kOff, kInnodbTrx, kLockWaits };
  LockWatch lock_watch() const { return watch_.load(); }
  std::uint64_t watch_yields() const { return watch_yields_.load(); }
  // Whether a unit writing `table` (table_hash) has had to run again for a lock: later units
  // on it then wait for the one before them on it (DependencyTracker::add's `chain`), where
  // the keys cannot tell (InnoDB's duplicate check of a unique key locks the next record too).
  bool contended(std::uint64_t table) const {
    std::lock_guard lock(contended_mu_);
    return contended_.count(table) != 0;
  }
  // The end of the last unit of the contiguous committed prefix, and its sequence number.
  std::optional<UnitPlace> low_water() const;
  std::uint64_t low_water_seq() const {
    std::lock_guard lock(mu_);
    return low_water_;
  }
  // The first worker's session (tests, and the direct path's setup).
  Session& first_session() { return *workers_.front()->session; }

 private:
  enum class State : std::uint8_t { kWaiting, kRunning, kDone };
  // Where a unit's COMMIT is (commit order kept): it is sent by the worker that holds the
  // turn, so that a run of units waiting for it commits one after another without a thread
  // being woken in between.
  enum class Commit : std::uint8_t { kNone, kParked, kCommitting, kCommitted, kFailed };
  struct Slot {
    ApplyTask task;
    State state = State::kWaiting;
    std::uint64_t retry_after = 0;  // run again only once this unit committed
    bool abort = false;             // roll back at the commit turn, run again later
    std::uint64_t connection = 0;   // (running) its worker's session's CONNECTION_ID()
    bool released = false;          // its worker is done with it: it may leave the window
    std::size_t bytes = 0;
    // Every unit before it had committed when it was handed over: it overlapped none of them
    // (the reader was the slower), whatever its write set (WidthControl: as one applied alone).
    bool arrived_alone = false;
    Commit commit = Commit::kNone;
    Session* session = nullptr;  // (parked) the session holding its transaction
    std::string commit_text;     // (parked) its COMMIT
    std::optional<Error> commit_error;
    std::condition_variable cv;  // its worker waits here while parked
    int held_retries = 0;        // runs again after its packet left in flight failed
  };
  struct Worker {
    std::size_t index = 0;
    std::unique_ptr<Session> session;
    std::unique_ptr<Applier> applier;
    std::shared_ptr<const Prelude> prelude;                      // the one its session ran
    std::vector<std::pair<std::uint64_t, UnitPlace>> committed;  // above the low-water mark
    bool slow = false;  // (fast_fail_) its session waits 1 s for a lock: a turn holder's retry
    // Its session is not at the workers' short wait: worker 0 applied a unit alone
    // (begin_direct), which has nothing of ours to wait for, only other sessions, and waits as
    // long as serial replay; another has not applied a unit yet. Its next unit's first packet
    // sets it (apply()).
    bool waits_default = false;
    // Its session waits 1 s for a lock (set for a turn holder's retry: slow): set back by its
    // next unit's first packet, or by a unit applied alone (to DEFAULT), never by a statement
    // of its own after the unit's COMMIT: once the unit counts as committed, the reading thread
    // may already be applying a unit alone on worker 0's session.
    bool waits_long = false;
    std::uint64_t connection = 0;  // (watch_turn) its session's CONNECTION_ID()
    // The unit whose COMMIT its applier holds for the next packet (Applier::Hooks::hold_commit:
    // one session takes the units, and the next one is ready when a unit ends), and whether
    // the unit it takes may hold its COMMIT so. Its thread's alone.
    Slot* held = nullptr;
    bool may_hold = false;
    // The unit whose COMMIT went at the head of a packet left in flight (Applier::Hooks::
    // pipeline, the held unit's last packet): committed once its answer is read. Its thread's.
    Slot* sent = nullptr;
    std::thread thread;
  };
  struct Aborted {};  // a unit rolled back to let an earlier one through

  // The worker's session opened and set up (the first one also decides fast_fail_ and
  // read_committed_, which the others follow).
  void open_session(Worker& w);
  // (mu_ held) A unit is ready and no worker waits for one, or the sessions open ahead of N
  // (ahead_): the next worker started, which opens its session and then takes units (one
  // opening at a time; not on one session unless ahead_, nor once all are started).
  void grow();
  // The workers' wait for a row lock: none where fast_fail_, else MySQL's least, 1 s.
  const char* short_wait() const {
    return fast_fail_ ? "SET SESSION innodb_lock_wait_timeout = 0"
                      : "SET SESSION innodb_lock_wait_timeout = 1";
  }
  void run_worker(Worker& w);
  Slot* take(Worker& w);
  void apply(Worker& w, Slot& slot);
  // One attempt of apply(): its statements, its commit (or its COMMIT held), its bookkeeping.
  void apply_once(Worker& w, Slot& slot);
  // (after an attempt failed with `e`) Whether the unit runs again (`attempt` is its count);
  // else it failed, or waits (the replay stopped).
  bool again_after(Worker& w, Slot& slot, const Error& e, int& attempt);
  void run_prelude(Worker& w, const std::shared_ptr<const Prelude>& prelude);
  // The commit hook of a unit when the order is kept: commits it in its turn (and the parked
  // units after it), or parks it for the worker holding the turn.
  void commit_in_order(Worker& w, Slot& slot, std::string_view commit);
  // Whether it is the unit's turn to commit (every unit before it committed): it then holds the
  // turn, and its COMMIT may go with its statements (Applier::Hooks::commit_now).
  // (Its worker holding the COMMIT of the unit before it, that unit's turn: it commits first,
  // on the same session.)
  bool claim_turn(Worker& w, Slot& slot);
  // The held unit's COMMIT ran (Applier::Hooks::hold_commit): its bookkeeping, as after a
  // COMMIT sent at once. Throws HeldCommitFailed where that fails.
  void held_committed(Worker& w, Slot& slot);
  // The worker is done with the slot: it may leave the window (once committed, in order).
  void release(Slot& slot);
  // (in take(), `lock` held) The worker's held COMMIT sent alone (it waits for no unit while a
  // COMMIT is held, nor passes the turn with one); a failure stops the replay at that unit.
  // Or (`send` false, the replay stopping) only the answer of a packet left in flight read.
  void answer_held(Worker& w, std::unique_lock<std::mutex>& lock, bool send);
  void send_held(Worker& w, std::unique_lock<std::mutex>& lock) { answer_held(w, lock, true); }
  void settle(Worker& w, std::unique_lock<std::mutex>& lock) { answer_held(w, lock, false); }
  // (apply()) The unit before this one on its session failed (`handle` says so: held_failed or
  // held_unit_failed): this one, nothing of which is kept, waits to run again.
  void before_failed(Worker& w, Slot& slot, const std::function<void()>& handle);
  // (the worker's own thread) The unit whose held COMMIT failed (HeldCommitFailed): the
  // replay's error, the unit not applied.
  void held_failed(Worker& w, const Error& e);
  // (the worker's own thread) The held unit's statements failed in its packet left in flight
  // (HeldUnitFailed): it runs again (a lock, up to kMaxRetries), or it is the replay's error.
  void held_unit_failed(Worker& w, const Error& e);
  // (a unit to run again after a lock, fast_fail_) The worker's session waits 1 s for a lock
  // from now on (Worker::slow); false: that failed, the replay's error (the unit's).
  bool wait_longer(Worker& w, const Slot& slot);

  // The unit committed in its turn: its bookkeeping, then the parked units after it, committed
  // one after another on their sessions.
  void commit_parked_after(Slot& slot);
  // (mu_ held) The unit committed: the low-water mark moves, the next unit may commit.
  void mark_committed(Slot& slot);
  // (mu_ held) Unit `seq` of `bytes`, which waited for `deps` (null: applied alone), committed:
  // the width control told (`keyed`: ApplyTask::keyed), the width it says set.
  void note_width(std::size_t bytes, std::uint64_t seq, const std::vector<std::uint64_t>* deps,
                  bool keyed);
  // (mu_ held) The width the control says.
  void set_width(std::size_t width);
  // (mu_ held, or before the workers start) What the reader asks without the lock: wants_keys(),
  // quiet().
  void publish_control();
  void committed_unit(Worker& w, Slot& slot);
  void fail(std::uint64_t seq, const Error& e, const UnitPlace& place);
  bool is_committed(std::uint64_t seq) const;
  void advance_low_water();
  Slot* slot_of(std::uint64_t seq);
  void throw_if_failed();
  // Rolls back what the worker's session holds of the unit (an XA unit: XA END, XA ROLLBACK).
  void roll_back(Worker& w, const Slot& slot);
  std::string unordered_progress(Worker& w, const Slot& slot);

  EngineOptions opts_;
  ConnectionOptions conn_;        // (grow: the workers' sessions)
  std::size_t started_ = 1;       // workers whose thread runs (from the first)
  bool opening_ = false;          // a worker started by grow() is opening its session
  bool ahead_ = false;            // every session opens, one after another (open_ahead())
  std::size_t work_waiters_ = 0;  // workers waiting on work_cv_ for a unit
  bool mysql_target_ = false;
  bool read_committed_ = false;  // the workers' sessions run READ COMMITTED
  // The workers' sessions do not wait for row locks (MariaDB, the commit order kept): see
  // apply().
  bool fast_fail_ = false;
  std::vector<std::unique_ptr<Worker>> workers_;
  // The reader's latest prelude (its thread only: a unit carries its own, ApplyTask::prelude).
  std::shared_ptr<const Prelude> prelude_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  // Idle workers (take()) wait here, woken one at a time: a worker that takes a unit wakes
  // another when one more is ready. (Waking every idle worker at each commit cost a chain of
  // dependent units a context switch per worker per unit: on 2 cores --parallel 8 was 25%
  // slower than serial on one contended table.)
  std::condition_variable work_cv_;
  void wake() {
    cv_.notify_all();
    work_cv_.notify_one();
  }
  // How many workers take units (WidthControl, several workers: all, or one). With one, the
  // idle worker of the lowest number takes them (take()), strictly in the log's order; the
  // other idle ones wait on idle_cv_.
  std::size_t width_ = 1;
  std::optional<WidthControl> width_control_;
  std::atomic<bool> keys_wanted_{true};  // (wants_keys(): the control's, after each commit)
  std::atomic<bool> quiet_{false};       // (quiet(): likewise)
  std::condition_variable idle_cv_;
  std::vector<char> idle_;  // by worker: in take(), holding no unit
  bool lowest_idle(const Worker& w) const;
  // submit() waits here for room in the window, woken once the window is down to half (or
  // empty, or an error): woken at every commit, the reading thread cost a context switch per
  // unit.
  std::condition_variable room_cv_;
  bool room_wanted_ = false;  // submit() waits on room_cv_
  // drain() waits here until every unit handed out committed (advance_low_water() wakes it
  // then) or an error came (fail(); after it, drain() waits on cv_: any change may end it).
  // (On cv_, woken at every commit, the reading thread cost two context switches per unit of
  // the window at each unit applied alone: a DDL log's --parallel 8, at one session, 45%
  // more futex calls than serial replay, 10% slower.)
  std::condition_variable drain_cv_;
  bool draining_ = false;
  bool drained() const;                      // (the caller holds mu_) what drain() waits for
  std::deque<std::unique_ptr<Slot>> slots_;  // in seq order, from the low-water mark on
  std::size_t waiting_bytes_ = 0;
  std::uint64_t next_seq_ = 1;
  std::uint64_t low_water_ = 0;                    // every unit up to here committed
  std::map<std::uint64_t, UnitPlace> done_above_;  // committed above it
  std::optional<UnitPlace> low_water_place_;
  std::optional<Error> error_;
  std::uint64_t error_seq_ = 0;
  bool stopping_ = false;
  std::uint64_t gate_ = 0;  // 0, or a unit run again after a lock wait: none after it starts
  std::atomic<std::size_t> busy_{0};
  std::atomic<std::size_t> max_busy_{0};
  std::atomic<std::uint64_t> committed_{0};
  std::atomic<std::uint64_t> retries_{0};
  // (mu_ not held) The unit ran again for a lock: its tables chained, the width control told.
  void note_contended(const ApplyTask& task);
  bool behind_contended(const Slot& slot) const;
  // The turn watch (recovery/apply/turn_watch.cc), where a lock wait cannot be refused at once
  // (MySQL's least innodb_lock_wait_timeout is 1 s) and the order is kept: a turn holder seen
  // waiting for a row lock while later units hold theirs parked for their turn has those
  // rolled back at once (run again after it), not after its second of lock wait.
  void start_turn_watch(const ConnectionOptions& conn);
  void watch_turn(Session& monitor, bool lock_waits_table);
  // (mu_ held) The units after `seq` give back their locks: parked ones roll back now, running
  // ones at their commit; none after it starts until it committed.
  void yield_to(std::uint64_t seq);
  std::thread watch_thread_;  // (started by the second worker's thread, joined after it)
  std::atomic<LockWatch> watch_{LockWatch::kNone};
  std::atomic<std::uint64_t> watch_yields_{0};
  mutable std::mutex contended_mu_;
  std::unordered_set<std::uint64_t> contended_;
  std::optional<UnitPlace> direct_;
  bool direct_recorded_ = false;
  std::string_view direct_before_;  // (begin_direct) its first piece's first statement
  void forget_direct_before();
};

// The report's name of a lock watch: "none", "off", "innodb_trx", "performance_schema".
const char* lock_watch_name(ApplyEngine::LockWatch watch);

}  // namespace binrecover::recovery
