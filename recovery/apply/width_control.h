#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace binrecover::recovery {

// How many of a parallel replay's sessions take units: all of them (--parallel N) or one, by
// what each width achieves on this log, this target, this machine, measured as the replay goes.
//
// Where units can overlap and the target has the cores, N sessions apply more per second; on a
// log where every unit waits for the one before it (a DDL every few transactions, a table
// without keys written by every unit, one-row commits on a machine of two cores) N sessions
// only add the hand-over between threads, the sessions' settings sent again and the context
// switches: `--parallel 8` was 5-30% slower than one session there (docs/performance-replay.md).
//
// The replay runs in epochs (128 units, counting a unit's text by 16 KiB as one more, and at
// least 25 ms): after a first one at N (sessions opening, keys read; 32 units), one at N, then
// one on a single session; the faster goes on for 8 epochs, then the other is tried for one
// again, compared with the mean of the two epochs before it: it takes over when faster by 4%
// (the first choice: faster at all) and goes on for 8 epochs; else the width before goes on,
// twice as long as the time before (up to 64 epochs). Units committed on one session run
// strictly in the log's order (ApplyEngine::take). The result is the same either way: only the
// speed differs.
//
// What the log allows is measured too: each unit's level in its dependencies (one more than
// the highest of the units it waits for: a chain of units each waiting for the one before
// climbs a level a unit, units side by side share one). An epoch whose units are not at least
// 1.5 a level (every unit waits for the one before it: a table without keys, a hot row, rows
// that InnoDB's duplicate checks chain) has nothing for N sessions to overlap: one session
// takes them, the first epoch at N is not measured, and N is not tried again until an epoch
// allows it (each such epoch at N cost the handing over and the switches for nothing). So do
// two units run again for a lock in an epoch on N (retried()).

class WidthControl {
 public:
  using Clock = std::chrono::steady_clock;
  // `workers` > 1. `flip_every` (a test's BINRECOVER_TEST_WIDTH_FLIP): the width changes every
  // that many units whatever the times (0: measured).
  explicit WidthControl(std::size_t workers, std::uint64_t flip_every = 0);

  // A unit of `bytes` of text at dependency level `level` committed at `now`; returns the
  // width for the units after it.
  std::size_t committed(std::size_t bytes, Clock::time_point now, std::uint64_t level = 0);
  // A unit ran again for a lock (a lock its write set did not show: InnoDB's duplicate check
  // of a unique key locks the next record too). Two in an epoch on N sessions end it on one
  // (as an epoch with nothing to overlap: the table is chained from then on, and N is tried
  // again with that once the run on one session is over).
  void retried() { ++epoch_retries_; }
  std::size_t width() const { return width_; }
  // Units committed while one session took them, and how often the width changed.
  std::uint64_t narrowed() const { return narrowed_; }
  std::uint64_t changes() const { return changes_; }

 private:
  enum class Phase : std::uint8_t { kWarmUp, kRun, kProbe };
  void end_epoch(double rate, double allows);
  void set_width(std::size_t width);
  // The epoch had nothing to overlap: one session, N tried again once an epoch allows it.
  void narrow_for_now();
  std::size_t other(std::size_t width) const { return width == 1 ? workers_ : 1; }

  std::size_t workers_;
  std::uint64_t flip_every_;
  std::size_t width_;
  std::size_t best_;
  Phase phase_ = Phase::kWarmUp;
  int run_left_ = 0;
  int run_length_ = 0;
  double best_rate_ = 0;  // of the last epochs at best_ (two, where there were)
  double last_rate_ = 0;  // of the epoch before, at best_ (0: none)
  bool decided_ = false;  // the first choice was made
  double work_ = 0;       // of the epoch so far
  std::uint64_t epoch_units_ = 0, low_level_ = 0, high_level_ = 0;  // of the epoch so far
  std::uint64_t epoch_retries_ = 0;
  bool started_ = false;
  Clock::time_point epoch_start_;
  std::uint64_t units_ = 0, narrowed_ = 0, changes_ = 0;
};

}  // namespace binrecover::recovery
