#include "recovery/apply/width_control.h"

#include <algorithm>

namespace binrecover::recovery {

namespace {

// An epoch's work: its units, each 16 KiB of text one more (applying that many bytes of row
// events costs a target about what a one-row commit does), at least this much and this long.
constexpr double kEpochWork = 128;
constexpr double kBytesPerWork = 16384;
constexpr auto kLeastEpoch = std::chrono::milliseconds(25);
// The first epoch (the sessions open, the tables' keys are read) is not compared: this much.
constexpr double kWarmUpWork = 32;
constexpr int kFirstRun = 8;
constexpr int kLongestRun = 64;
constexpr double kMargin = 1.04;
// Units a dependency level an epoch must have for N sessions to be worth trying.
constexpr double kLeastOverlap = 1.5;
// Units run again for a lock in an epoch on N sessions that end it on one.
constexpr std::uint64_t kMostRetries = 2;

}  // namespace

WidthControl::WidthControl(std::size_t workers, std::uint64_t flip_every)
    : workers_(workers), flip_every_(flip_every), width_(workers), best_(workers) {}

std::size_t WidthControl::committed(std::size_t bytes, Clock::time_point now, std::uint64_t level) {
  ++units_;
  if (width_ == 1) ++narrowed_;
  if (flip_every_ != 0) {
    if (units_ % flip_every_ == 0) set_width(other(width_));
    return width_;
  }
  if (!started_) {  // (the epoch starts at the first commit: sessions and keys before it)
    started_ = true;
    epoch_start_ = now;
    return width_;
  }
  work_ += 1 + static_cast<double>(bytes) / kBytesPerWork;
  if (epoch_units_++ == 0) low_level_ = high_level_ = level;
  low_level_ = std::min(low_level_, level);
  high_level_ = std::max(high_level_, level);
  const auto took = now - epoch_start_;
  if (work_ < (phase_ == Phase::kWarmUp ? kWarmUpWork : kEpochWork) || took < kLeastEpoch)
    return width_;
  const double rate = work_ / std::chrono::duration<double>(took).count();
  double allows =
      static_cast<double>(epoch_units_) / static_cast<double>(high_level_ - low_level_ + 1);
  if (width_ != 1 && epoch_retries_ >= kMostRetries) allows = 0;
  work_ = 0;
  epoch_units_ = 0;
  epoch_retries_ = 0;
  epoch_start_ = now;
  end_epoch(rate, allows);
  return width_;
}

void WidthControl::end_epoch(double rate, double allows) {
  const bool overlap = allows >= kLeastOverlap;
  switch (phase_) {
    case Phase::kWarmUp:  // one epoch at N measured, then one session tried
      phase_ = Phase::kRun;
      if (!overlap) {  // (one session at once: nothing to overlap)
        narrow_for_now();
        return;
      }
      run_left_ = 1;
      run_length_ = kFirstRun / 2;  // (N confirmed: kFirstRun epochs; one session: as many)
      return;
    case Phase::kRun:
      if (best_ != 1 && !overlap) {
        narrow_for_now();
        return;
      }
      // (the last two epochs' mean: one epoch's rate varies by a tenth with the target's syncs)
      best_rate_ = last_rate_ > 0 ? (last_rate_ + rate) / 2 : rate;
      last_rate_ = rate;
      if (--run_left_ > 0) return;
      if (best_ == 1 && !overlap) {  // (N tried once an epoch allows it)
        run_left_ = 1;
        return;
      }
      phase_ = Phase::kProbe;
      set_width(other(best_));
      return;
    case Phase::kProbe:
      last_rate_ = 0;
      // (the first choice by the rates alone; then the other width must be faster by a margin
      // to take over: a wrong change costs kFirstRun epochs)
      if (rate > best_rate_ * (decided_ ? kMargin : 1.0)) {
        best_ = width_;
        run_length_ = kFirstRun;
      } else {
        run_length_ = std::min(run_length_ * 2, kLongestRun);
        set_width(best_);
      }
      run_left_ = run_length_;
      phase_ = Phase::kRun;
      decided_ = true;
      return;
  }
}

void WidthControl::narrow_for_now() {
  best_ = 1;
  set_width(1);
  best_rate_ = last_rate_ = 0;
  run_length_ = run_left_ = kFirstRun;
  decided_ = true;
}

void WidthControl::set_width(std::size_t width) {
  if (width == width_) return;
  width_ = width;
  ++changes_;
}

}  // namespace binrecover::recovery
