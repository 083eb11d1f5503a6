#include <chrono>
#include <cstdlib>
#include <limits>

#include "recovery/apply/apply_engine.h"  // (ApplyEngine's; its own header)
#include "recovery/sql/sql_quote.h"

// The apply engine's sessions: the first opened with the engine, the others when the first
// unit for the workers comes, each set up as the first one decided; and their end.

namespace binrecover::recovery {

ApplyEngine::ApplyEngine(const ConnectionOptions& conn, EngineOptions opts)
    : opts_(std::move(opts)), conn_(conn) {
  if (opts_.workers == 0) opts_.workers = 1;
  if (opts_.max_waiting == 0) opts_.max_waiting = 16 * opts_.workers;
  idle_.assign(opts_.workers, 0);
  if (opts_.workers > 1) {
    // (a test's: the width changes every that many units, whatever the times)
    const char* flip = std::getenv("BINRECOVER_TEST_WIDTH_FLIP");
    width_control_.emplace(opts_.workers, flip ? std::strtoull(flip, nullptr, 10) : 0);
    width_ = width_control_->width();
    publish_control();
  }
  // The first session, at once: it tells what the others are set to, and applies the units
  // that go alone. The others open one by one once the width control is to try N sessions
  // (beside the epoch before, WidthControl::open_ahead()), or while a unit is ready and no
  // worker is idle to take it (grow()): a log whose every unit goes alone (DDL, MyISAM) or
  // waits for the one before it never waits for them. (Eight opened at the first unit cost a
  // log of 20 transactions 12 ms more than serial replay on 2 cores.)
  for (std::size_t i = 0; i < opts_.workers; ++i) {
    workers_.push_back(std::make_unique<Worker>());
    workers_.back()->index = i;
  }
  open_session(*workers_.front());
  mysql_target_ = !workers_.front()->session->mariadb();
  Worker* first = workers_.front().get();
  first->thread = std::thread([this, first] { run_worker(*first); });
}

void ApplyEngine::grow() {
  if (stopping_ || opening_ || started_ >= workers_.size() || (width_ == 1 && !ahead_)) return;
  // (one at a time: a unit still ready when the session opens asks for the next one)
  opening_ = true;
  Worker* p = workers_[started_++].get();
  // (the turn watch with the second session: before, one session has no lock to wait for)
  const bool watch = ordered() && !fast_fail_ && started_ == 2;
  p->thread = std::thread([this, p, watch] {
    if (watch) start_turn_watch(conn_);
    try {
      open_session(*p);
    } catch (const Error& e) {
      std::lock_guard lock(mu_);
      opening_ = false;
      // (the replay stops once what was handed out has committed)
      if (!error_) {
        error_ = e;
        error_seq_ = std::numeric_limits<std::uint64_t>::max();
      }
      room_cv_.notify_all();
      cv_.notify_all();
      drain_cv_.notify_all();
      return;
    }
    {
      std::lock_guard lock(mu_);
      opening_ = false;
      if (ahead_) grow();  // (the next one, while this one waits for units)
    }
    run_worker(*p);
  });
}

void ApplyEngine::open_session(Worker& worker) {
  Worker* w = &worker;
  const std::size_t i = w->index;
  w->session = std::make_unique<Session>(conn_);
  // (the first session's version and rules are set before the others open)
  if (i != 0) w->session->share_comment_rules(*workers_.front()->session);
  w->applier = std::make_unique<Applier>(*w->session);
  if (!opts_.session_lock.empty() &&
      w->session
              ->value("SELECT GET_LOCK(" +
                      hex_literal(opts_.session_lock + ":w" + std::to_string(i)) + ", 10)")
              .value_or("0") != "1")
    throw Error(ErrorCode::kServer, "another session holds the replay's lock " +
                                        opts_.session_lock + ":w" + std::to_string(i));
  for (const std::string& stmt : opts_.session_statements) w->session->execute(stmt);
  if (opts_.workers > 1) {
    // A unit waiting for its turn to commit may hold a lock an earlier one needs: a short
    // wait turns that into a retry (the earlier unit's), not a stall.
    // With the order kept on MariaDB, no wait at all (it allows 0): a unit that meets a lock
    // fails at once; an earlier unit waiting out the timeout for a later one parked for its
    // turn (InnoDB's duplicate check locks the next record of a unique index, which no write
    // set names) cost a second each (apply() says what a failure does).
    if (i == 0) fast_fail_ = opts_.preserve_commit_order && w->session->mariadb();
    if (i == 0)
      w->session->execute(short_wait());
    else
      w->waits_default = true;     // (set in its first unit's first packet: apply())
    if (ordered() && !fast_fail_)  // (the turn watch looks for it in the target's lock waits)
      w->connection = std::strtoull(
          w->session->value("SELECT CONNECTION_ID()").value_or("0").c_str(), nullptr, 10);
  }
  // Row changes apply the same in any isolation; READ COMMITTED takes no gap locks, which
  // units that do not share a row would otherwise wait on each other for, and a later unit on
  // an XA transaction the log left prepared (MySQL: 1205 in serial replay, where the source
  // never waited); mysqlbinlog and MySQL's applier apply rows so. (Not where the session
  // binlogs statements: the server refuses DML in that combination.)
  if (i == 0) {
    try {
      read_committed_ = w->session
                            ->value(
                                "SELECT @@SESSION.sql_log_bin = 0 OR @@GLOBAL.log_bin = 0 OR "
                                "@@SESSION.binlog_format <> 'STATEMENT'")
                            .value_or("0") == "1";
    } catch (const Error&) {  // (a server without binlog_format: keep its default)
    }
  }
  if (read_committed_)
    w->session->execute("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED");
}

ApplyEngine::~ApplyEngine() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    for (auto& s : slots_) s->cv.notify_all();
  }
  cv_.notify_all();
  room_cv_.notify_all();
  drain_cv_.notify_all();
  work_cv_.notify_all();
  idle_cv_.notify_all();
  for (auto& w : workers_)
    if (w->thread.joinable()) w->thread.join();
  if (watch_thread_.joinable()) watch_thread_.join();
}

}  // namespace binrecover::recovery
