#include <mutex>
#include <string_view>
#include <utility>

#include "recovery/apply/apply_engine.h"  // (ApplyEngine's; its own header)

// The apply engine's commits: a unit's COMMIT in its turn (the commit order kept), parked for
// the worker that holds the turn, or held for the next unit's first packet on the same session
// (Applier::Hooks::hold_commit); and the bookkeeping after each.

namespace binrecover::recovery {

void ApplyEngine::mark_committed(Slot& slot) {
  slot.state = State::kDone;
  done_above_[slot.task.seq] = slot.task.place;
  committed_ += slot.task.units;
  note_width(slot.bytes, slot.task.seq, slot.arrived_alone ? nullptr : &slot.task.deps,
             slot.task.keyed);
  advance_low_water();  // (last: a slot its worker let go of leaves the window there)
}

bool ApplyEngine::claim_turn(Worker& w, Slot& slot) {
  std::lock_guard lock(mu_);
  // (the units whose COMMITs this worker holds or has in flight commit first on its session)
  std::uint64_t turn = low_water_ + 1;
  if (w.sent != nullptr && w.sent->task.seq == turn) ++turn;
  if (w.held != nullptr && w.held->task.seq == turn) ++turn;
  if (turn != slot.task.seq || stopping_ || (error_ && slot.task.seq > error_seq_)) return false;
  slot.commit = Commit::kCommitting;
  return true;
}

void ApplyEngine::commit_in_order(Worker& w, Slot& slot, std::string_view commit) {
  {
    std::unique_lock lock(mu_);
    if (low_water_ + 1 != slot.task.seq) {
      // Not its turn: parked, its session and COMMIT left for the worker holding the turn.
      slot.commit = Commit::kParked;
      slot.session = w.session.get();
      slot.commit_text.assign(commit);
      slot.cv.wait(lock, [&] {
        if (slot.commit == Commit::kCommitted || slot.commit == Commit::kFailed) return true;
        return slot.commit == Commit::kParked &&
               (slot.abort || stopping_ || (error_ && slot.task.seq > error_seq_) ||
                low_water_ + 1 == slot.task.seq);
      });
      if (slot.commit == Commit::kCommitted) return;  // (its bookkeeping done too)
      if (slot.commit == Commit::kFailed) {
        slot.commit = Commit::kNone;
        const Error e = *slot.commit_error;
        throw e;
      }
      if (low_water_ + 1 != slot.task.seq) {
        slot.commit = Commit::kNone;
        throw Aborted{};
      }
    }
    slot.commit = Commit::kCommitting;
  }
  // Its turn: this worker commits it, then each parked unit after it, in order.
  try {
    w.session->execute(commit);
  } catch (const Error&) {
    std::lock_guard lock(mu_);
    slot.commit = Commit::kNone;
    throw;
  }
  commit_parked_after(slot);
}

void ApplyEngine::commit_parked_after(Slot& slot) {
  for (Slot* s = &slot;;) {
    if (opts_.on_commit) {
      try {
        opts_.on_commit(s->task.place);
      } catch (const Error& e) {
        fail(s->task.seq, e, s->task.place);
      }
    }
    Slot* next = nullptr;
    {
      std::lock_guard lock(mu_);
      s->commit = Commit::kCommitted;
      mark_committed(*s);
      if (s != &slot) s->cv.notify_all();
      next = slot_of(low_water_ + 1);
      if (next != nullptr && next->commit == Commit::kParked && !next->abort &&
          !(error_ && next->task.seq > error_seq_) && !stopping_) {
        next->commit = Commit::kCommitting;
      } else {
        if (next != nullptr) next->cv.notify_all();  // (its turn: it commits itself)
        next = nullptr;
      }
    }
    // An idle worker is woken for the units this commit made ready only while this worker goes
    // on committing parked units: else it goes back to take() itself (as does the worker whose
    // parked unit just committed), which wakes one more only when two are ready. (A wake-up per
    // commit cost a chain of dependent units a context switch each.)
    if (next != nullptr)
      wake();
    else
      cv_.notify_all();
    if (next == nullptr) return;
    try {
      next->session->execute(next->commit_text);
    } catch (const Error& e) {
      std::lock_guard lock(mu_);
      next->commit = Commit::kFailed;
      next->commit_error = e;
      next->cv.notify_all();
      return;
    }
    s = next;
  }
}

void ApplyEngine::committed_unit(Worker& w, Slot& slot) {
  if (opts_.on_commit) opts_.on_commit(slot.task.place);
  {
    std::lock_guard lock(mu_);
    if (!opts_.preserve_commit_order) w.committed.emplace_back(slot.task.seq, slot.task.place);
    mark_committed(slot);
  }
  cv_.notify_all();  // (this worker goes back to take(): see commit_parked_after)
}

void ApplyEngine::held_committed(Worker& w, Slot& slot) {
  if (ordered()) {
    commit_parked_after(slot);  // (a failure of its bookkeeping is the replay's error there)
  } else {
    try {
      committed_unit(w, slot);
    } catch (const Error& e) {
      throw HeldCommitFailed(e);
    }
  }
  if (w.held == &slot) w.held = nullptr;
  if (w.sent == &slot) w.sent = nullptr;
  release(slot);
}

void ApplyEngine::release(Slot& slot) {
  std::lock_guard lock(mu_);
  slot.released = true;
  advance_low_water();
}

void ApplyEngine::answer_held(Worker& w, std::unique_lock<std::mutex>& lock, bool send) {
  lock.unlock();
  try {
    if (send)
      w.applier->send_held();
    else
      w.applier->settle();
  } catch (const HeldCommitFailed& e) {
    held_failed(w, e);
  } catch (const HeldUnitFailed& e) {
    held_unit_failed(w, e);
  }
  lock.lock();
}

void ApplyEngine::held_failed(Worker& w, const Error& e) {
  // (the oldest COMMIT failed: the one in flight, where there is one; the held unit after it
  // is not applied either, its statements never ran)
  Slot& failed =
      w.sent != nullptr ? *std::exchange(w.sent, nullptr) : *std::exchange(w.held, nullptr);
  Slot* const after = std::exchange(w.held, nullptr);
  w.applier->forget_state();
  {
    std::lock_guard lock(mu_);
    for (Slot* s : {&failed, after}) {
      if (s == nullptr) continue;
      if (s->commit == Commit::kCommitting) s->commit = Commit::kNone;
      s->state = State::kWaiting;  // not applied
      s->released = true;
    }
  }
  // (then the error, which wakes drain(): woken before the unit was let go of, it waited on
  // for a unit no longer running, and a replay whose target was killed hung there)
  fail(failed.task.seq, e, failed.task.place);
}

}  // namespace binrecover::recovery
