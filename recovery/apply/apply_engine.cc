#include "recovery/apply/apply_engine.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <limits>
#include <utility>

#include "recovery/apply/test_pause.h"
#include "recovery/server/remote_source.h"
#include "recovery/sql/sql_quote.h"

namespace binrecover::recovery {

namespace {

// Deadlock, lock wait timeout: the unit is run again.
bool retryable(const Error& e) { return is_server_error(e, 1213) || is_server_error(e, 1205); }

constexpr int kMaxRetries = 20;

}  // namespace

void ApplyEngine::set_prelude(std::shared_ptr<const Prelude> prelude) {
  prelude_ = std::move(prelude);
}

std::string ApplyEngine::progress_statement(std::size_t worker, const UnitPlace& place) const {
  if (opts_.progress_table.empty()) return {};
  return "REPLACE INTO " + opts_.progress_table +
         " (run_key, worker, file, position, gtid, applied) VALUES (" + opts_.run_key + ", " +
         std::to_string(worker) + ", " + hex_literal(place.file) + ", " +
         std::to_string(place.end_pos) + ", " + hex_literal(place.gtid) + ", '')";
}

// Without the commit order: the low-water mark, and what this worker committed above it
// (the units' files and first positions, "file\tpos\n" each) with this unit.
std::string ApplyEngine::unordered_progress(Worker& w, const Slot& slot) {
  if (opts_.progress_table.empty()) return {};
  UnitPlace mark;
  std::string applied;
  {
    std::lock_guard lock(mu_);
    if (low_water_place_) mark = *low_water_place_;
    std::erase_if(w.committed, [&](const auto& c) { return c.first <= low_water_; });
  }
  for (const auto& [seq, place] : w.committed)
    applied += place.file + "\t" + std::to_string(place.first_pos) + "\n";
  // (a unit whose COMMIT this worker holds commits at the head of this one's first packet: its
  // row, which this one's replaces, named it)
  for (const Slot* s : {w.sent, w.held})
    if (s != nullptr)
      applied += s->task.place.file + "\t" + std::to_string(s->task.place.first_pos) + "\n";
  applied += slot.task.place.file + "\t" + std::to_string(slot.task.place.first_pos) + "\n";
  return "REPLACE INTO " + opts_.progress_table +
         " (run_key, worker, file, position, gtid, applied) VALUES (" + opts_.run_key + ", " +
         std::to_string(w.index) + ", " + hex_literal(mark.file) + ", " +
         std::to_string(mark.end_pos) + ", " + hex_literal(mark.gtid) + ", " +
         hex_literal(applied) + ")";
}

void ApplyEngine::throw_if_failed() {
  if (error_) throw *error_;
}

void ApplyEngine::submit(ApplyTask task) {
  bool ready = false;
  auto slot = std::make_unique<Slot>();
  slot->bytes = task.text.size();
  slot->task = std::move(task);
  {
    std::unique_lock lock(mu_);
    room_wanted_ = true;
    room_cv_.wait(lock, [&] {
      return error_ || stopping_ ||
             (slots_.size() < opts_.max_waiting &&
              (slots_.empty() || waiting_bytes_ + slot->bytes <= opts_.max_bytes));
    });
    room_wanted_ = false;
    throw_if_failed();
    slot->task.seq = next_seq_++;
    slot->arrived_alone = low_water_ + 1 == slot->task.seq;
    waiting_bytes_ += slot->bytes;
    // (an idle worker is woken for it only when it may start now: else the commit it waits
    // for wakes one, and a wake-up for nothing per unit cost a chain of dependent units
    // a context switch each)
    ready = std::all_of(slot->task.deps.begin(), slot->task.deps.end(),
                        [&](std::uint64_t d) { return is_committed(d); });
    slots_.push_back(std::move(slot));
    if (ready && work_waiters_ == 0) grow();
  }
  cv_.notify_all();
  if (ready) work_cv_.notify_one();
}

bool ApplyEngine::drained() const {
  if (!error_) return low_water_ + 1 == next_seq_;
  // After an error: every unit before it committed, nothing after it running any more.
  return std::none_of(slots_.begin(), slots_.end(), [&](const auto& s) {
    return s->state == State::kRunning || (s->task.seq < error_seq_ && s->state != State::kDone);
  });
}

void ApplyEngine::drain() {
  std::unique_lock lock(mu_);
  draining_ = true;
  if (!drained()) test_announce_drain();
  while (!drained()) {
    if (error_)
      cv_.wait(lock);
    else
      drain_cv_.wait(lock);
  }
  draining_ = false;
  throw_if_failed();
}

bool ApplyEngine::is_committed(std::uint64_t seq) const {
  return seq <= low_water_ || done_above_.count(seq) != 0;
}

std::optional<UnitPlace> ApplyEngine::low_water() const {
  std::lock_guard lock(mu_);
  return low_water_place_;
}

void ApplyEngine::advance_low_water() {
  // (the caller holds mu_) Every unit committed, in the window or applied directly, is in
  // done_above_ until the mark passes it.
  for (auto it = done_above_.find(low_water_ + 1); it != done_above_.end();
       it = done_above_.find(low_water_ + 1)) {
    low_water_place_ = it->second;
    ++low_water_;
    done_above_.erase(it);
  }
  // Finished slots their workers let go of leave the window in order.
  bool left = false;
  while (!slots_.empty() && slots_.front()->state == State::kDone && slots_.front()->released) {
    waiting_bytes_ -= slots_.front()->bytes;
    slots_.pop_front();
    left = true;
  }
  if (left && room_wanted_ && slots_.size() <= opts_.max_waiting / 2) room_cv_.notify_one();
  if (gate_ != 0 && gate_ <= low_water_) gate_ = 0;
  if (draining_ && low_water_ + 1 == next_seq_) drain_cv_.notify_all();
}

std::uint64_t ApplyEngine::pipelined() const {
  std::lock_guard lock(mu_);
  std::uint64_t n = 0;
  // (the sessions opened: one being opened is set up by its own thread)
  const std::size_t opened = std::max<std::size_t>(1, started_ - (opening_ ? 1 : 0));
  for (std::size_t i = 0; i < opened && i < workers_.size(); ++i)
    if (workers_[i]->applier) n += workers_[i]->applier->pipelined();
  return n;
}

ApplyEngine::Slot* ApplyEngine::slot_of(std::uint64_t seq) {
  for (auto& s : slots_)
    if (s->task.seq == seq) return s.get();
  return nullptr;
}

ApplyEngine::Slot* ApplyEngine::take(Worker& w) {
  std::unique_lock lock(mu_);
  idle_[w.index] = 1;
  for (;;) {
    if (stopping_) {
      if (w.applier->in_flight()) settle(w, lock);  // (a COMMIT in flight: its outcome read)
      if (w.held != nullptr) {                      // (not sent: its session's end rolls it back)
        w.applier->drop_held();
        w.held = nullptr;
      }
      idle_[w.index] = 0;
      return nullptr;
    }
    // One session at a time (WidthControl): the idle worker of the lowest number takes the
    // units (the first, but where it still holds a unit taken before, parked for its turn),
    // each once every unit before it committed: it is the turn's, never parked itself.
    const bool one = width_ == 1;
    if (one && !lowest_idle(w)) {
      if (w.held != nullptr) {
        send_held(w, lock);
        continue;
      }
      work_cv_.notify_one();  // (a wake-up it may have had was meant for the one that takes)
      idle_cv_.wait(lock);
      continue;
    }
    // A unit whose COMMIT this worker holds commits at the head of the next unit's first
    // packet: for that unit (the next one, one session taking units) it counts as committed.
    // (the same for one whose COMMIT went in its packet left in flight)
    const std::uint64_t held = w.held != nullptr ? w.held->task.seq : 0;
    const std::uint64_t sent = w.sent != nullptr ? w.sent->task.seq : 0;
    const auto committed = [&](std::uint64_t d) {
      return d == held || d == sent || is_committed(d);
    };
    std::uint64_t next = low_water_ + 1;
    if (sent == next) ++next;
    if (held == next) ++next;
    Slot* found = nullptr;
    for (auto& s : slots_) {
      if (one && s->task.seq > next) break;
      if (s->state != State::kWaiting) continue;
      // (the unit that failed is not run again: a non-transactional table would keep its rows
      // from every run until the replay noticed)
      if (error_ && s->task.seq >= error_seq_) continue;
      // A unit that met a lock held by later ones runs again before any later one starts.
      if (gate_ != 0 && s->task.seq > gate_) break;
      if (s->retry_after != 0 && !committed(s->retry_after)) continue;
      if (!std::all_of(s->task.deps.begin(), s->task.deps.end(), committed)) continue;
      if (behind_contended(*s)) continue;
      if (found != nullptr) {  // (another is ready too: one more idle worker for it)
        if (work_waiters_ == 0)
          grow();
        else
          work_cv_.notify_one();
        break;
      }
      found = s.get();
    }
    // (a held COMMIT goes alone where no next unit is ready for this session now)
    if (held != 0 && (found == nullptr || !one || found->task.seq != held + 1)) {
      send_held(w, lock);
      continue;
    }
    if (found != nullptr) {
      idle_[w.index] = 0;
      w.may_hold = one;
      found->state = State::kRunning;
      found->connection = w.connection;
      found->abort = false;
      found->released = false;
      return found;
    }
    ++work_waiters_;
    work_cv_.wait(lock);
    --work_waiters_;
  }
}

bool ApplyEngine::lowest_idle(const Worker& w) const {
  for (std::size_t i = 0; i < w.index; ++i)
    if (idle_[i] != 0) return false;
  return true;
}

void ApplyEngine::run_worker(Worker& w) {
  std::uint64_t holds = 0;  // (test_pause_holding)
  while (Slot* slot = take(w)) {
    const std::size_t now = ++busy_;
    std::size_t seen = max_busy_.load();
    while (now > seen && !max_busy_.compare_exchange_weak(seen, now)) {
    }
    apply(w, *slot);
    --busy_;
    // (a unit whose COMMIT it holds stays in the window until its bookkeeping is done:
    // held_committed; let go of before, it left as it was marked committed, there)
    if (w.held != slot) {
      std::lock_guard lock(mu_);
      slot->released = true;
      advance_low_water();
    } else if (test_pause_holding_due(++holds)) {
      if (w.applier->in_flight()) {
        std::unique_lock lock(mu_);
        settle(w, lock);
      }
      test_pause_holding(holds);
    }
    // (this worker looks for the next unit itself first: a unit waiting for this one goes on
    // in the same session, and take() wakes another worker only for one more)
    cv_.notify_all();
  }
}

// A unit runs after the prelude it was read with (its task's): a log whose format description
// changed between files (another server, binlog_checksum set) has units of the old one still
// running when the reader has the new one. (Workers never read prelude_: the reader replaces
// it while they run.)
void ApplyEngine::run_prelude(Worker& w, const std::shared_ptr<const Prelude>& prelude) {
  if (w.prelude == prelude || !prelude) return;
  // A MySQL session that applied a unit still names its GTID; a BINLOG statement may not run
  // then. (its own statement: a COMMIT held first)
  if (mysql_target_ && w.prelude) {
    w.applier->send_held();
    w.session->execute("SET @@SESSION.GTID_NEXT='AUTOMATIC'");
  }
  w.applier->apply(prelude->text, prelude->statements);
  w.prelude = prelude;
}

void ApplyEngine::note_width(std::size_t bytes, std::uint64_t seq,
                             const std::vector<std::uint64_t>* deps, bool keyed) {
  if (!width_control_) return;
  const std::size_t width =
      width_control_->committed(bytes, WidthControl::Clock::now(), seq, deps, keyed);
  publish_control();
  if (!ahead_ && width_control_->open_ahead()) {
    ahead_ = true;
    grow();
  }
  set_width(width);
}

void ApplyEngine::expect_left(std::chrono::steady_clock::duration left) {
  std::lock_guard lock(mu_);
  if (!width_control_) return;
  width_control_->expect_left(WidthControl::Clock::now(), left);
  publish_control();
}

void ApplyEngine::publish_control() {
  keys_wanted_.store(width_control_->wants_keys(), std::memory_order_relaxed);
  quiet_.store(width_control_->quiet(), std::memory_order_relaxed);
}

void ApplyEngine::set_width(std::size_t width) {
  if (width == width_) return;
  width_ = width;
  // (wider: the idle workers look for units; narrower: those waiting for one go idle)
  if (width > 1)
    idle_cv_.notify_all();
  else
    work_cv_.notify_all();
}

void ApplyEngine::fail(std::uint64_t seq, const Error& e, const UnitPlace& place) {
  {
    std::lock_guard lock(mu_);
    if (!error_ || seq < error_seq_) {
      error_ = e;
      if (error_->file().empty()) error_->with_file(place.path.empty() ? place.file : place.path);
      // (an error without an event of its own, a COMMIT's say, names its unit: else the unit
      // being read when the replay noticed was named, past the last one committed)
      if (!error_->has_offset()) error_->with_offset(place.first_pos);
      error_seq_ = seq;
    }
    for (auto& s : slots_) s->cv.notify_all();  // parked units after it roll back
    room_cv_.notify_all();
    drain_cv_.notify_all();  // (drain() waits on cv_ from now on)
  }
  wake();
}

void ApplyEngine::apply(Worker& w, Slot& slot) {
  for (int attempt = 0;; ++attempt) {
    try {
      apply_once(w, slot);
      return;
    } catch (const HeldCommitFailed& e) {
      // The unit before it (its COMMIT at the head of this one's first packet) failed: this one
      // is not applied (what ran of it after that COMMIT is rolled back).
      before_failed(w, slot, [&] { held_failed(w, e); });
      return;
    } catch (const HeldUnitFailed& e) {
      // The unit before it failed in its packet left in flight: nothing of this one ran.
      before_failed(w, slot, [&] { held_unit_failed(w, e); });
      return;
    } catch (const Aborted&) {
      // Rolled back so that an earlier unit gets the locks this one held.
      try {
        roll_back(w, slot);
      } catch (const Error& e) {
        fail(slot.task.seq, e, slot.task.place);
        std::lock_guard lock(mu_);
        slot.state = State::kWaiting;
        return;
      }
      w.applier->forget_state();
      ++retries_;
      note_contended(slot.task);
      std::lock_guard lock(mu_);
      slot.state = State::kWaiting;
      wake();
      return;
    } catch (const Error& e) {
      if (!again_after(w, slot, e, attempt)) return;
    }
  }
}

void ApplyEngine::before_failed(Worker& w, Slot& slot, const std::function<void()>& handle) {
  try {
    roll_back(w, slot);
  } catch (const Error&) {
  }
  handle();
  std::lock_guard lock(mu_);
  if (slot.commit == Commit::kCommitting) slot.commit = Commit::kNone;  // (claim_turn)
  slot.state = State::kWaiting;
  wake();
}

void ApplyEngine::apply_once(Worker& w, Slot& slot) {
  run_prelude(w, slot.task.prelude);
  const std::string progress = opts_.preserve_commit_order
                                   ? progress_statement(w.index, slot.task.place)
                                   : unordered_progress(w, slot);
  Applier::Hooks hooks;
  hooks.after_begin = progress;
  hooks.last_is_commit = slot.task.xa;
  // (after units applied alone, its first, or a retry's 1 s wait: the short wait)
  if (!w.slow && (w.waits_default || w.waits_long)) {
    hooks.before = short_wait();
    w.waits_default = w.waits_long = false;
  }
  bool in_order = false;
  if (ordered()) {
    hooks.commit = [&](std::string_view commit) {
      commit_in_order(w, slot, commit);
      in_order = true;
    };
    // (a unit whose turn has come when it starts commits in the same round trip)
    hooks.commit_now = [&] { return claim_turn(w, slot); };
  }
  if (w.may_hold && !slot.task.xa && !w.slow) {
    hooks.hold_commit = [this, &w, &slot] { held_committed(w, slot); };
    // (not where each commit writes the state file: two COMMITs could run before its write)
    hooks.pipeline = !opts_.on_commit;
  }
  const Applier::Outcome out = w.applier->apply(slot.task.text, slot.task.statements, hooks);
  // (a COMMIT held before this unit and not answered yet went in the packet left in flight)
  if (w.held != nullptr) w.sent = std::exchange(w.held, nullptr);
  if (out.held) {  // (its bookkeeping once its COMMIT ran: held_committed)
    w.held = &slot;
    return;
  }
  if (out.committed_now) {
    commit_parked_after(slot);
    in_order = true;
  }
  if (!in_order) committed_unit(w, slot);
  w.slow = false;  // (its next unit's first packet sets the short wait again: waits_long)
}

bool ApplyEngine::again_after(Worker& w, Slot& slot, const Error& e, int& attempt) {
  {
    std::lock_guard lock(mu_);
    if (slot.commit == Commit::kCommitting) slot.commit = Commit::kNone;  // (claim_turn)
  }
  // (the applier rolled back a failing statement's transaction; a failed COMMIT too)
  try {
    roll_back(w, slot);
  } catch (const Error&) {
  }
  w.applier->forget_state();
  if (retryable(e)) note_contended(slot.task);
  if (retryable(e) && ordered() && fast_fail_) {
    // Not its turn: it met a lock of an earlier unit, or a later one's that may go on
    // holding it: it runs again once every unit before it committed (then, as the turn
    // holder, a failure is a retry below). Not counted as an attempt.
    std::unique_lock lock(mu_);
    if (low_water_ + 1 != slot.task.seq) {
      ++retries_;
      cv_.wait(lock, [&] {
        return stopping_ || low_water_ + 1 == slot.task.seq ||
               (error_ && error_seq_ < slot.task.seq);
      });
      if (low_water_ + 1 != slot.task.seq) {  // (stopped: not applied)
        slot.state = State::kWaiting;
        wake();
        return false;
      }
      --attempt;
      return true;
    }
  }
  if (retryable(e) && attempt < kMaxRetries) {
    ++retries_;
    // (the turn holder runs again with a short wait: later units roll back meanwhile, and a
    // lock of a session not ours is waited for as before)
    if (!wait_longer(w, slot)) {
      std::lock_guard lock(mu_);
      slot.state = State::kWaiting;
      wake();
      return false;
    }
    if (ordered()) {
      // Later units waiting for their turn may hold what this one waits for: they roll
      // back, and none after it starts until it committed.
      std::lock_guard lock(mu_);
      yield_to(slot.task.seq);
    }
    wake();
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min(5 * (attempt + 1), 100)));
    return true;
  }
  fail(slot.task.seq, e, slot.task.place);
  std::lock_guard lock(mu_);
  slot.state = State::kWaiting;  // not applied
  wake();
  return false;
}

void ApplyEngine::held_unit_failed(Worker& w, const Error& e) {
  if (w.sent != nullptr) {  // (the COMMIT in flight before it was not seen to run)
    held_failed(w, e);
    return;
  }
  Slot* const held = std::exchange(w.held, nullptr);
  if (held == nullptr) return;
  w.applier->forget_state();
  if (retryable(e)) note_contended(held->task);
  bool again = false;
  {
    std::lock_guard lock(mu_);
    again = retryable(e) && ++held->held_retries <= kMaxRetries && !stopping_;
    if (held->commit == Commit::kCommitting) held->commit = Commit::kNone;
    held->state = State::kWaiting;  // not applied
    held->released = true;
  }
  if (!again) {
    fail(held->task.seq, e, held->task.place);
    return;
  }
  ++retries_;
  // (it runs again first, as the unit after the last committed, waiting for a lock as a
  // retry does: again_after)
  if (wait_longer(w, *held)) wake();
}

bool ApplyEngine::wait_longer(Worker& w, const Slot& slot) {
  if (!fast_fail_ || w.slow) return true;
  try {
    w.session->execute("SET SESSION innodb_lock_wait_timeout = 1");
    w.slow = w.waits_long = true;
  } catch (const Error& e) {
    fail(slot.task.seq, e, slot.task.place);
    return false;
  }
  return true;
}

void ApplyEngine::roll_back(Worker& w, const Slot& slot) {
  if (slot.task.xa_xid.empty()) {
    w.session->execute("ROLLBACK");
    return;
  }
  // (XA END fails where the unit stopped after it: the transaction is ended already)
  try {
    w.session->execute("XA END " + slot.task.xa_xid);
  } catch (const Error&) {
  }
  w.session->execute("XA ROLLBACK " + slot.task.xa_xid);
}

void ApplyEngine::note_contended(const ApplyTask& task) {
  {
    std::lock_guard lock(mu_);
    if (width_control_) set_width(width_control_->retried(WidthControl::Clock::now()));
  }
  std::lock_guard lock(contended_mu_);
  contended_.insert(task.tables.begin(), task.tables.end());
}

// (mu_ held) Units handed over before their table was found contended carry no chain on it
// (UnitScheduler adds it to later ones): they too wait for the units before them there.
bool ApplyEngine::behind_contended(const Slot& slot) const {
  std::lock_guard lock(contended_mu_);
  if (contended_.empty()) return false;
  for (const std::uint64_t t : slot.task.tables) {
    if (contended_.count(t) == 0) continue;
    for (const auto& e : slots_) {
      if (e->task.seq >= slot.task.seq) break;
      if (!is_committed(e->task.seq) &&
          std::find(e->task.tables.begin(), e->task.tables.end(), t) != e->task.tables.end())
        return true;
    }
  }
  return false;
}

}  // namespace binrecover::recovery
