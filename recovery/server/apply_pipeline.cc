// The Applier's pipelining (Applier::Hooks::pipeline): a unit's last packet, its COMMIT held
// for the next packet, goes without waiting for its answer; the next packet goes with a guard
// at its head, and then the answers are read, oldest first. One round trip's wait a
// transaction less: the server runs the next packet while this side reads the answer of the
// one before and makes the one after.
//
// The guard, `SET @@SESSION.lc_time_names = IF(@@error_count = 0, @@SESSION.lc_time_names,
// '<no locale>')`, fails (1649: unknown locale) where the statement before it failed: the server
// then stops its packet there, and nothing of it runs, the held COMMIT at its head least of all;
// else it sets the setting to what it is. (It costs the server a few microseconds: a SELECT ...
// INTO raising a subquery's error cost three times as much, which was more than the round trip
// it saves on one machine.) Each session asks its server once whether it keeps to that
// (guard_holds) before it leaves a packet in flight.
// The servers count an error until a statement that reads a table runs: after a failure the
// session got over (a unit run again after a lock wait, its ROLLBACK), a packet of BEGIN and
// BINLOG statements alone (no progress row: the target's GTIDs keep the progress) leaves it
// counted, and the next guard fails though that packet ran: nothing of the guarded one ran, it
// goes again without the guard, and the session sends no packet ahead any more.

#include <utility>

#include "recovery/server/apply.h"
#include "recovery/server/remote_source.h"

namespace binrecover::recovery {

using namespace statement_kinds;  // NOLINT(google-build-using-namespace): its classifiers

bool Applier::may_leave_pending() {
  if (!session_.may_pipeline()) return false;
  // (LOAD DATA LOCAL: the server answers with a request for the file, and would read the next
  // packet as its content; the log's own text: anything)
  for (const SqlItem* item : batch_items_)
    if (item->verbatim || starts_with_ci(item->text, "LOAD")) return false;
  return guard_holds();
}

bool Applier::guard_holds() {
  if (guard_) return *guard_;
  guard_ = false;
  std::size_t done = 0;
  session_.multi_statements(true);
  try {  // (a failing statement)
    session_.execute_batch("SELECT (SELECT 1 UNION ALL SELECT 2) INTO @binrecover_guard", done);
    return false;
  } catch (const Error& e) {
    if (!is_server_error(e, 1242)) return false;
  }
  try {  // (the guard after it fails, and nothing after it in its packet runs)
    session_.execute_batch(std::string(kPipelineGuard) + ";\nDO 0", done);
    return false;
  } catch (const Error& e) {
    if (!is_server_error(e, kPipelineGuardError) || done != 0) return false;
  }
  // After a statement that ran, the guard passes: one that reads a table (a statement that
  // reads none, SET, DO, BEGIN, ROLLBACK, BINLOG, leaves the error before it counted).
  try {
    session_.execute_batch(
        "SELECT 1 FROM information_schema.ENGINES LIMIT 0;\n" + std::string(kPipelineGuard), done);
  } catch (const Error&) {
    return false;
  }
  guard_ = done == 2;
  return *guard_;
}

void Applier::flush_pipelined(bool leave_pending) {
  if (pending_ && !guarded_) read_pending(false);  // (not after a packet in flight: no guard)
  const bool after_pending = pending_;
  statements_ += batch_items_.size();
  ++round_trips_;
  session_.multi_statements(true);  // (on already where a packet is in flight)
  std::optional<Error> send_error;
  try {
    session_.send(batch_);
  } catch (const Error& e) {
    send_error = e;
  }
  // The packet in flight answered first (throws where it failed: this one's guard failed then).
  if (after_pending) read_pending(!send_error);
  if (send_error) {
    const SqlItem& item = *batch_items_.front();
    batch_items_.clear();
    if (held_sending_) held_failed(*send_error);
    fail(item, std::string(send_error->what()) + " in: " + snippet(item.text));
  }
  if (!leave_pending) {
    read_batch_answer();
    return;
  }
  pending_ = true;
  pipelined_.fetch_add(1, std::memory_order_relaxed);
  pending_items_.clear();
  pending_owned_.swap(owned_);  // (the texts made for its statements: merged BINLOG ones)
  for (const SqlItem* item : batch_items_) {
    pending_items_.push_back(*item);
    // (the held COMMIT's text changes with the next one held; the guard's is a constant)
    if (item == &held_item_) {
      pending_owned_.emplace_back(item->text);
      pending_items_.back().text = pending_owned_.back();
    }
  }
  pending_has_commit_ = held_sending_;
  pending_commit_ = guarded_ ? 1 : 0;
  pending_done_ = held_sending_ ? std::exchange(held_done_, nullptr) : nullptr;
  held_sending_ = false;
  guarded_ = false;
  batch_.clear();
  batch_items_.clear();
}

void Applier::read_batch_answer() {
  std::size_t done = 0;
  try {
    session_.read_sent(done);
    check_ran(done, batch_items_.size());
  } catch (const Error& e) {
    if (guarded_ && done == 0 && is_server_error(e, kPipelineGuardError)) {
      // The packet before it ran, and yet the guard failed (the server kept an error's count
      // past a statement that ran): nothing of this one ran. It goes again without its guard,
      // and this session leaves no packet in flight any more.
      guard_ = false;
      guarded_ = false;
      batch_.erase(0, kPipelineGuard.size() + 2);
      batch_items_.erase(batch_items_.begin());
      flush_batch();
      return;
    }
    const std::size_t commit_at = guarded_ ? 1 : 0;
    const SqlItem& item = *batch_items_[std::min(done, batch_items_.size() - 1)];
    for (std::size_t k = 0; k < done && k < batch_items_.size(); ++k)
      logged_ = logged_ || logs_group(*batch_items_[k]);
    batch_items_.clear();
    guarded_ = false;
    if (held_sending_) {
      if (done <= commit_at) held_failed(e);
      held_ran();
    }
    fail(item, std::string(e.what()) + " in: " + snippet(item.text));
  }
  for (const SqlItem* item : batch_items_) logged_ = logged_ || logs_group(*item);
  batch_.clear();
  batch_items_.clear();
  guarded_ = false;
  if (held_sending_) held_ran();
}

void Applier::read_pending(bool next_sent) {
  pending_ = false;
  std::size_t done = 0;
  std::optional<Error> error;
  try {
    session_.read_sent(done);
    check_ran(done, pending_items_.size());
  } catch (const Error& e) {
    error = e;
  }
  const std::function<void()> commit_ran =
      pending_has_commit_ ? std::exchange(pending_done_, nullptr) : nullptr;
  if (!error) {
    if (!commit_ran) return;
    try {
      commit_ran();  // (the COMMIT at its head ran: that unit's bookkeeping)
    } catch (const Error&) {
      if (next_sent) {  // (its answer read before anything else goes)
        std::size_t d = 0;
        try {
          session_.read_sent(d);
        } catch (const Error&) {
        }
      }
      throw;
    }
    return;
  }
  // It failed: the packet after it, if sent, stopped at its guard (read here).
  bool next_ran = false;
  if (next_sent) {
    std::size_t d = 0;
    try {
      session_.read_sent(d);
      next_ran = true;
    } catch (const Error&) {
      next_ran = d > 0;
    }
  }
  const SqlItem& item = pending_items_[std::min(done, pending_items_.size() - 1)];
  Error e = item_error(item, std::string(error->what()) + " in: " + snippet(item.text));
  if (next_ran)  // (never, where guard_holds() said yes)
    e = item_error(item, std::string(error->what()) + " in: " + snippet(item.text) +
                             "; the server ran the statements sent after it too (a COMMIT among "
                             "them): check the target");
  const bool commit_failed = pending_has_commit_ && done <= pending_commit_;
  if (!commit_failed && commit_ran) {
    try {
      commit_ran();
    } catch (const Error&) {  // (this failure is the replay's error)
    }
  }
  held_ = false;  // (the held unit's transaction is rolled back: its COMMIT never goes)
  held_done_ = nullptr;
  held_sending_ = false;
  guarded_ = false;
  roll_back();
  if (commit_failed) throw HeldCommitFailed(e);
  throw HeldUnitFailed(e);
}

}  // namespace binrecover::recovery
