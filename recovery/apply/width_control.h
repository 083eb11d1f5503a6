#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

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
// least 25 ms). It starts on one session: a first epoch of 32 units (keys read) tells whether
// the log allows N sessions anything (below); where it does, the other sessions open beside
// the next epoch (open_ahead(); not compared: slower by a third on 2 cores), then one epoch on
// one session and one at N are measured (after a change of width, the first 16 units are
// not: those taken at the width before, the workers waking). N is chosen where faster by 4%
// (it costs the machine more CPU for what it wins: on 2 cores 28% more for 1-5% less time on the
// bench log without a sync at each commit), else one session, and goes on for 8 epochs; then the
// other is tried for one again, compared with the mean of the two epochs before it, by the same
// rule (one session takes over from N where within 4% of N's rate). The choice kept, the width
// before goes on twice as long as the time before (up to 64 epochs). Units committed on one
// session run strictly in the log's order (ApplyEngine::take). The result is
// the same either way: only the speed differs. (Started at N, the first epoch opened the
// sessions while units waited for them: on 2 cores it ran at a third of one session's rate,
// 3% of a 2,600-unit log's time, and a chain of units opened them for nothing.)
//
// What the log allows is measured too: the longest chain of the epoch's own units (each unit's
// level in the epoch is one more than the highest of the epoch's units it waits for; a unit
// applied alone comes after every one before it, and so does one handed over when every unit
// before it had committed: the reader was the slower, nothing overlapped it, whatever its
// write set says, and a chain whose links had committed by then looked free). An epoch whose
// units are not at least 1.5 a level (every unit waits for the one before it: a table without
// keys, a hot row, rows that InnoDB's duplicate checks chain) has nothing for N sessions to
// overlap: one session takes them for 8 epochs, and N is not tried until the last epoch of such
// a run allows it (and one more has opened the sessions): each such epoch at N cost the handing
// over and the switches for nothing. Each time N ends so again before it held a whole run, one
// session goes on twice as long (16, 32, up to 64 epochs): units side by side by their write sets
// that InnoDB's locks chain met their retries again every 10 epochs. An epoch of fewer than 4 units
// (large ones) cannot tell, and does not stop N. Two units run again for a lock on N sessions end
// their epoch there, as one with nothing to overlap (retried()). (Levels counted from the log's
// start made chains that grow at different speeds, eight hot rows say, look ever longer: an epoch
// of 160 units counted 500 levels, and N was never tried again.)
//
// Keys only where they are used (wants_keys()). What N needs costs whether or not N is taken:
// each unit's write set read against the target's keys (about 10 us of the reader's CPU a
// unit), the catalog and the collations' weights asked of the target (12 ms of its CPU on a log
// of five collations), the sessions opened, an epoch at N measured. On a log that replays in
// half a second that was 5-18% of serial's time on a target without disk syncs, and nothing
// N could win back. So the replay starts quiet: one session, units read without their keys
// (each one after every unit before it, as serially), for its first half second (kQuiet), or
// 100 ms where the rest of its inputs will take a second or more at that rate (expect_left);
// then keys are read, and the warm-up epoch starts with the first unit read with them. On one
// session afterwards, keys are read only for the last two epochs of each run (the one whose
// overlap decides, and the one before it, while the units read before it commit); a run that
// ends with nothing to overlap goes on for 8 epochs more. An epoch's levels are those of its
// units read with keys; one with fewer than 4 of them cannot tell (the window read before
// keys were wanted can hold more than two epochs of units): the run goes on, keys read, until
// an epoch tells, and at N such an epoch does not end N.

class WidthControl {
 public:
  using Clock = std::chrono::steady_clock;
  // How long a replay runs quiet (one session, no keys) before the warm-up.
  static constexpr std::chrono::milliseconds kQuiet{500};
  // `workers` > 1. `flip_every` (a test's BINRECOVER_TEST_WIDTH_FLIP): the width changes every
  // that many units whatever the times (0: measured; no quiet, keys read while at N). `quiet`: how
  // long the replay runs quiet (kQuiet).
  explicit WidthControl(std::size_t workers, std::uint64_t flip_every = 0,
                        Clock::duration quiet = kQuiet);

  // Unit `seq` of `bytes` of text, which waited for the units `deps` (null: applied alone,
  // after every unit before it), committed at `now`; returns the width for the units after it.
  // A unit commits after every unit it waits for. `keyed`: it was read with its keys (its
  // deps are its write set's; else it waited for the unit before it, and counts as alone).
  std::size_t committed(std::size_t bytes, Clock::time_point now, std::uint64_t seq,
                        const std::vector<std::uint64_t>* deps, bool keyed = true);
  // Whether the units read now should be read with their keys (their write sets).
  bool wants_keys() const;
  // The replay expects `left` more at the rate so far (its inputs' sizes known): once 100 ms
  // have shown the rate, a second or more left ends the quiet at once (N has the time to win
  // back what it costs; the half second is for logs of unknown length).
  void expect_left(Clock::time_point now, Clock::duration left);
  // Quiet, and keys not wanted yet (expect_left() is worth calling).
  bool quiet() const { return phase_ == Phase::kQuiet && !quiet_over_; }
  // A unit ran again for a lock at `now` (a lock its write set did not show: InnoDB's duplicate
  // check of a unique key locks the next record too); returns the width for the units after
  // it. Two in an epoch on N sessions end it there, on one session (as an epoch with nothing
  // to overlap: the table is chained from then on, and N is tried again with that once the run
  // on one session is over). (Ended at the epoch's end, an epoch at N on a unique key's moves
  // ran eight units again, not two.)
  std::size_t retried(Clock::time_point now);
  std::size_t width() const { return width_; }
  // Whether the sessions for N should be open: N is to be tried (an epoch allowed it). They
  // open beside the epoch before the one at N, which is then measured as it is.
  bool open_ahead() const { return ahead_; }
  // Units committed while one session took them, and how often the width changed.
  std::uint64_t narrowed() const { return narrowed_; }
  std::uint64_t changes() const { return changes_; }

 private:
  enum class Phase : std::uint8_t { kQuiet, kWarmUp, kRun, kProbe };
  void start_epoch(Clock::time_point now);
  void end_epoch(double rate, double allows);
  void set_width(std::size_t width);
  // The unit's level in the epoch, remembered for the units that wait for it.
  std::uint64_t level_in_epoch(std::uint64_t seq, const std::vector<std::uint64_t>* deps);
  // The sessions for N to open beside the next epoch (not compared), then one on one session.
  void open_ahead_now();
  // The epoch had nothing to overlap: one session, N tried again once an epoch allows it.
  void narrow_for_now();
  std::size_t other(std::size_t width) const { return width == 1 ? workers_ : 1; }

  std::size_t workers_;
  std::uint64_t flip_every_;
  Clock::duration quiet_;
  bool quiet_over_ = false;  // (kQuiet) its time is up: keys wanted
  std::size_t width_;
  std::size_t best_;
  Phase phase_;
  int run_left_ = 0;
  int run_length_ = 0;
  int narrow_run_ = 8;    // epochs on one session the next narrow_for_now() gives (kFirstRun)
  double best_rate_ = 0;  // of the last epochs at best_ (two, where there were)
  double last_rate_ = 0;  // of the epoch before, at best_ (0: none)
  bool ahead_ = false;    // open_ahead()
  bool opening_ = false;  // the sessions open beside this epoch: its rate is not compared
  double work_ = 0;       // of the epoch so far
  std::uint64_t epoch_units_ = 0, epoch_keyed_ = 0, high_level_ = 0;  // of the epoch so far
  std::uint64_t epoch_ = 0;  // (counts the epochs: levels are per epoch)
  std::uint64_t floor_ = 0;  // the level of the epoch's last unit applied alone
  struct Level {
    std::uint64_t seq = 0, epoch = 0, level = 0;
  };
  std::vector<Level> levels_;  // by seq % size: the units committed lately
  std::uint64_t epoch_retries_ = 0;
  bool started_ = false;
  int settling_ = 0;  // units not measured after a change of width
  Clock::time_point epoch_start_;
  std::uint64_t units_ = 0, narrowed_ = 0, changes_ = 0;
};

}  // namespace binrecover::recovery
