#include "recovery/apply/width_control.h"

#include <algorithm>
#include <utility>

namespace binrecover::recovery {

namespace {

// An epoch's work: its units, each 16 KiB of text one more (applying that many bytes of row
// events costs a target about what a one-row commit does), at least this much and this long.
constexpr double kEpochWork = 128;
constexpr double kBytesPerWork = 16384;
constexpr auto kLeastEpoch = std::chrono::milliseconds(25);
// The first epoch (on one session: the tables' keys are read) is not compared: this much.
constexpr double kWarmUpWork = 32;
constexpr int kFirstRun = 8;
constexpr int kLongestRun = 64;
constexpr double kMargin = 1.04;
// Units a dependency level an epoch must have for N sessions to be worth trying.
constexpr double kLeastOverlap = 1.5;
// Units after a change of width not measured (those taken at the width before, the workers
// waking: the first epoch at N ran at two thirds of the rate of the next).
constexpr int kSettle = 16;
// Fewer units than this in an epoch (each of many KiB) tell nothing of what the log allows.
constexpr std::uint64_t kLeastUnitsToTell = 4;
// Units run again for a lock in an epoch on N sessions that end it on one.
constexpr std::uint64_t kMostRetries = 2;
// What an epoch allows where too few of its units were read with their keys to tell.
constexpr double kUnknown = -1;

// On one session, keys are read for this many epochs at the end of a run (the last decides).
constexpr int kKeyedEpochs = 2;
// The quiet ends early where this much is left after this much has shown the rate.
constexpr auto kPayBack = std::chrono::seconds(1);
constexpr auto kLeastQuiet = std::chrono::milliseconds(100);

}  // namespace

WidthControl::WidthControl(std::size_t workers, std::uint64_t flip_every, Clock::duration quiet)
    : workers_(workers),
      flip_every_(flip_every),
      quiet_(quiet),
      width_(flip_every != 0 ? workers : 1),
      best_(width_),
      phase_(flip_every != 0 ? Phase::kRun : Phase::kQuiet) {}

bool WidthControl::wants_keys() const {
  // (the test's flip: units read on one session go without their keys, and a window of them
  // may run after the flip to N sessions: their order is then theirs alone, ApplyTask::keyed)
  if (flip_every_ != 0) return width_ != 1;
  switch (phase_) {
    case Phase::kQuiet:
      return quiet_over_;
    case Phase::kRun:
      return width_ != 1 || run_left_ <= kKeyedEpochs;
    default:
      return true;
  }
}

std::uint64_t WidthControl::level_in_epoch(std::uint64_t seq,
                                           const std::vector<std::uint64_t>* deps) {
  // (units waited for that committed longer ago than the ring holds: in an earlier epoch)
  constexpr std::size_t kRing = 4096;
  if (levels_.empty()) levels_.resize(kRing);
  std::uint64_t level = deps == nullptr ? high_level_ + 1 : floor_ + 1;
  if (deps != nullptr)
    for (const std::uint64_t d : *deps) {
      const Level& l = levels_[d % kRing];
      if (l.seq == d && l.epoch == epoch_) level = std::max(level, l.level + 1);
    }
  if (deps == nullptr) floor_ = level;
  levels_[seq % kRing] = {seq, epoch_, level};
  return level;
}

void WidthControl::expect_left(Clock::time_point now, Clock::duration left) {
  if (quiet() && started_ && now - epoch_start_ >= kLeastQuiet && left >= kPayBack)
    quiet_over_ = true;
}

std::size_t WidthControl::committed(std::size_t bytes, Clock::time_point now, std::uint64_t seq,
                                    const std::vector<std::uint64_t>* deps, bool keyed) {
  ++units_;
  if (width_ == 1) ++narrowed_;
  if (flip_every_ != 0) {
    if (units_ % flip_every_ == 0) set_width(other(width_));
    return width_;
  }
  if (!keyed) deps = nullptr;  // (it waited for the unit before it)
  if (phase_ == Phase::kQuiet) {
    if (!started_) {  // (quiet from the first commit)
      started_ = true;
      epoch_start_ = now;
    }
    if (!keyed) {
      if (now - epoch_start_ >= quiet_) quiet_over_ = true;
      return width_;
    }
    // The first unit read with its keys committed: the warm-up starts after it.
    phase_ = Phase::kWarmUp;
    epoch_start_ = now;
    return width_;
  }
  if (!started_ || settling_ > 0) {
    // (the epoch starts at the first commit, sessions and keys before it; after a change of
    // width, once the units taken at the width before have committed and the workers woken)
    if (settling_ > 0) --settling_;
    started_ = true;
    epoch_start_ = now;
    return width_;
  }
  work_ += 1 + static_cast<double>(bytes) / kBytesPerWork;
  ++epoch_units_;
  // (the levels are those of the units read with their keys: one read without waited for the
  // one before it, which tells nothing of the log)
  if (keyed) {
    ++epoch_keyed_;
    high_level_ = std::max(high_level_, level_in_epoch(seq, deps));
  }
  const auto took = now - epoch_start_;
  if (work_ < (phase_ == Phase::kWarmUp ? kWarmUpWork : kEpochWork) || took < kLeastEpoch)
    return width_;
  const double rate = work_ / std::chrono::duration<double>(took).count();
  // (an epoch of a few large units cannot tell: as if it allowed N; one of units read without
  // their keys cannot tell yet: kUnknown)
  double allows = epoch_units_ < kLeastUnitsToTell ? kLeastOverlap
                  : epoch_keyed_ < kLeastUnitsToTell
                      ? kUnknown
                      : static_cast<double>(epoch_keyed_) / static_cast<double>(high_level_);
  if (width_ != 1 && epoch_retries_ >= kMostRetries) allows = 0;
  start_epoch(now);
  end_epoch(rate, allows);
  return width_;
}

std::size_t WidthControl::retried(Clock::time_point now) {
  if (++epoch_retries_ < kMostRetries || width_ == 1 || flip_every_ != 0) return width_;
  start_epoch(now);
  end_epoch(0, 0);  // (nothing to overlap)
  return width_;
}

void WidthControl::start_epoch(Clock::time_point now) {
  work_ = 0;
  epoch_units_ = epoch_keyed_ = 0;
  epoch_retries_ = 0;
  high_level_ = floor_ = 0;
  ++epoch_;
  epoch_start_ = now;
}

void WidthControl::end_epoch(double rate, double allows) {
  const bool overlap = allows >= kLeastOverlap;
  // (units read without their keys, of the window read before keys were wanted: at N it does
  // not end N; at the end of a run on one session the run waits, keys read, for an epoch that
  // tells, however many units the window held)
  const bool unknown = allows == kUnknown;
  switch (phase_) {
    case Phase::kQuiet:  // (committed() ends it)
      return;
    case Phase::kWarmUp:  // (one session) then one epoch on one session measured, one at N
      phase_ = Phase::kRun;
      if (!overlap) {  // (nothing to overlap: N not tried until an epoch allows it)
        narrow_for_now();
        return;
      }
      open_ahead_now();
      run_length_ = kFirstRun / 2;  // (one session confirmed: kFirstRun epochs; N: as many)
      return;
    case Phase::kRun:
      if (best_ != 1 && !overlap && !unknown) {
        narrow_for_now();
        return;
      }
      // (the last two epochs' mean: one epoch's rate varies by a tenth with the target's syncs;
      // not the epoch the sessions opened beside, slower by a third on 2 cores)
      if (!std::exchange(opening_, false)) {
        best_rate_ = last_rate_ > 0 ? (last_rate_ + rate) / 2 : rate;
        last_rate_ = rate;
      }
      if (--run_left_ > 0) return;
      if (best_ != 1) narrow_run_ = kFirstRun;  // (N held a whole run: what it had cost is paid)
      if (best_ == 1 && unknown) {
        run_left_ = 1;
        return;
      }
      if (best_ == 1 && !overlap) {  // (N tried once a run's last epoch allows it)
        run_left_ = kFirstRun;
        return;
      }
      if (!ahead_) {  // (and once the sessions are open: else the epoch at N measures them)
        open_ahead_now();
        return;
      }
      phase_ = Phase::kProbe;
      set_width(other(best_));
      return;
    case Phase::kProbe:
      last_rate_ = 0;
      if (width_ != 1 && !overlap &&
          !unknown) {  // (nothing to overlap: one session, whatever the rate)
        phase_ = Phase::kRun;
        narrow_for_now();
        return;
      }
      // N takes over where it is faster by the margin, one session where it is within the
      // margin of N's rate: N costs the machine more (on 2 cores, the bench log with
      // innodb_flush_log_at_trx_commit=2: 28% more CPU for 1-5% less time), so a difference the
      // epochs' noise could make goes to one session; and a wrong change costs kFirstRun epochs
      if (width_ != 1 ? rate > best_rate_ * kMargin : rate * kMargin > best_rate_) {
        best_ = width_;
        run_length_ = kFirstRun;
      } else {
        run_length_ = std::min(run_length_ * 2, kLongestRun);
        set_width(best_);
      }
      run_left_ = run_length_;
      phase_ = Phase::kRun;
      return;
  }
}

void WidthControl::open_ahead_now() {
  ahead_ = true;
  opening_ = true;
  run_left_ = 2;  // (the epoch they open beside, then one measured)
}

void WidthControl::narrow_for_now() {
  best_ = 1;
  set_width(1);
  best_rate_ = last_rate_ = 0;
  // (each time N ends so before it held a whole run, twice as long on one session: a log whose
  // units InnoDB's next-record locks chain went back to N every 10 epochs, and each time met
  // its retries again)
  run_length_ = run_left_ = narrow_run_;
  narrow_run_ = std::min(narrow_run_ * 2, kLongestRun);
}

void WidthControl::set_width(std::size_t width) {
  if (width == width_) return;
  width_ = width;
  ++changes_;
  settling_ = kSettle;
}

}  // namespace binrecover::recovery
