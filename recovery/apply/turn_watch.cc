// The turn watch of ApplyEngine (recovery/apply/apply_engine.h): with the commit order kept on
// a target whose sessions cannot be told to refuse a lock wait (MySQL: innodb_lock_wait_timeout
// is at least 1 s), a unit parked for its turn keeps its row locks, and InnoDB's duplicate check
// of a unique key also locks the next record, which no write set names. The unit holding the
// turn may so wait for a later one that waits for it: no deadlock InnoDB can see, a second of
// lock wait, then a retry. The watch sees it sooner: the turn holder in LOCK WAIT
// (information_schema.INNODB_TRX) while later units are parked has those roll back at once,
// and they run again after it.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

#include "recovery/apply/apply_engine.h"

namespace binrecover::recovery {

namespace {
// How often the watch looks, and how long a turn holder with parked units after it runs
// before the target is asked whether it waits for a lock: kAsk, then twice as long after each
// answer "no" (up to kAskLongest: a long unit is asked about a few times a second, not every
// few milliseconds). InnoDB refreshes what INNODB_TRX shows only when it was last read over
// 100 ms ago (its cache): asked more often, it would show the same moment for ever.
// performance_schema.data_lock_waits (when the Performance Schema is on, MySQL's default)
// reads the lock system as it is. (Asked first after 10 ms, a unit of a few hundred
// microseconds met a later one's lock and waited 10-20 ms for each of the moves log's
// retries: 9% over serial replay on MySQL.)
constexpr auto kLook = std::chrono::milliseconds(2);
constexpr auto kAsk = std::chrono::milliseconds(2);
constexpr auto kAskLongest = std::chrono::milliseconds(100);
constexpr auto kAskAgainTrx = std::chrono::milliseconds(110);

// The question for CONNECTION, its answer non-zero while that session waits for a row lock.
std::string waits_query(bool lock_waits_table, std::uint64_t connection) {
  if (lock_waits_table)
    return "SELECT COUNT(*) FROM performance_schema.data_lock_waits WHERE "
           "REQUESTING_THREAD_ID = PS_THREAD_ID(" +
           std::to_string(connection) + ")";
  return "SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE "
         "trx_state = 'LOCK WAIT' AND trx_mysql_thread_id = " +
         std::to_string(connection);
}
}  // namespace

void ApplyEngine::start_turn_watch(const ConnectionOptions& conn) {
  std::shared_ptr<Session> monitor;
  bool lock_waits_table = false;
  watch_ = LockWatch::kOff;
  try {
    monitor = std::make_shared<Session>(conn);
    Session& m = *monitor;
    // (the Performance Schema's tables are there but empty when it is off)
    try {
      lock_waits_table = m.value("SELECT @@GLOBAL.performance_schema").value_or("0") == "1" &&
                         m.value(waits_query(true, 0) + " AND 0").has_value();
    } catch (const Error&) {
      lock_waits_table = false;  // (no SELECT on performance_schema, say)
    }
    if (!lock_waits_table) m.value(waits_query(false, 0) + " AND 0");
  } catch (const Error&) {
    return;  // (no PROCESS privilege, say: lock waits are then ended by their timeout)
  }
  watch_ = lock_waits_table ? LockWatch::kLockWaits : LockWatch::kInnodbTrx;
  watch_thread_ =
      std::thread([this, monitor, lock_waits_table] { watch_turn(*monitor, lock_waits_table); });
}

void ApplyEngine::yield_to(std::uint64_t seq) {
  if (gate_ == 0 || seq < gate_) gate_ = seq;
  for (auto& s : slots_)
    if (s->task.seq > seq && s->state == State::kRunning) {
      s->abort = true;
      s->retry_after = seq;
      s->cv.notify_all();
    }
}

void ApplyEngine::watch_turn(Session& monitor, bool lock_waits_table) {
  using Clock = std::chrono::steady_clock;
  const auto ask_again = lock_waits_table ? kAsk : kAskAgainTrx;
  std::uint64_t seen = 0;  // the turn holder seen with parked units after it, since `since`
  Clock::time_point since, asked;
  Clock::duration wait = kAsk;  // (until the next question about `seen`)
  for (;;) {
    std::this_thread::sleep_for(kLook);
    std::uint64_t seq = 0, connection = 0;
    {
      std::lock_guard lock(mu_);
      if (stopping_ || error_) return;
      const Slot* holder = slot_of(low_water_ + 1);
      bool parked_after = false;
      // (its statements may go with its COMMIT, claim_turn(): then it is kCommitting)
      if (holder != nullptr && holder->state == State::kRunning &&
          (holder->commit == Commit::kNone || holder->commit == Commit::kCommitting) &&
          holder->connection != 0)
        for (const auto& s : slots_)
          if (s->task.seq > holder->task.seq && s->commit == Commit::kParked && !s->abort) {
            parked_after = true;
            break;
          }
      if (!parked_after) {
        seen = 0;
        continue;
      }
      if (seen != holder->task.seq) {
        seen = holder->task.seq;
        since = Clock::now();
        wait = kAsk;
        continue;
      }
      const auto now = Clock::now();
      if (now - since < wait || now - asked < ask_again) continue;
      asked = now;
      seq = holder->task.seq;
      connection = holder->connection;
    }
    bool waits = false;
    try {
      waits = monitor.value(waits_query(lock_waits_table, connection)).value_or("0") != "0";
    } catch (const Error&) {
      return;  // (lock waits are then ended by their timeout, as without the watch)
    }
    if (!waits) {  // (asked: again after twice as long if it is still so)
      since = Clock::now();
      wait = std::min<Clock::duration>(wait * 2, kAskLongest);
      continue;
    }
    seen = 0;
    std::lock_guard lock(mu_);
    if (low_water_ + 1 != seq) continue;
    ++watch_yields_;
    yield_to(seq);
    wake();
  }
}

const char* lock_watch_name(ApplyEngine::LockWatch watch) {
  switch (watch) {
    case ApplyEngine::LockWatch::kOff:
      return "off";
    case ApplyEngine::LockWatch::kInnodbTrx:
      return "innodb_trx";
    case ApplyEngine::LockWatch::kLockWaits:
      return "performance_schema";
    case ApplyEngine::LockWatch::kNone:
      break;
  }
  return "none";
}

}  // namespace binrecover::recovery
