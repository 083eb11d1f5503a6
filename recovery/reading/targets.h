#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "binlog/events.h"
#include "recovery/reading/filter.h"
#include "recovery/reading/gtid_set.h"

namespace binrecover::recovery {

struct InputFile;

// The places a run must meet: --skip-event positions and GTIDs, --stop-position, --stop-gtid,
// --stop-datetime, --include/--exclude-gtids. Each is checked as soon as the reading could
// know it is wrong: a file never read or a position past a file's known end before anything
// is read; a position inside an event, or jumped over, when that event is read (before it is
// used); a GTID, or an --exclude-gtids interval the log reached from below, when a later one of
// its sequence is read; the rest at the end. Every failure is Error(kUsage) or Error(kNotFound):
// exit 2.
class RangeTargets {
 public:
  explicit RangeTargets(const FilterOptions& filter);

  // Before the first event: the files named are among `inputs` (unless `more_may_come`, a
  // followed server), positions are before the ends of the files whose size is known.
  void check_inputs(const std::deque<InputFile>& inputs, bool more_may_come);

  // An outer event of `file` about to be used (`last_file`: the stop position applies).
  void before_event(const binlog::Event& ev, const std::string& file, bool last_file) const;
  // An event of a unit (in `file`): true when a --skip-event position names it.
  bool skip_position_hit(const binlog::Event& ev, const std::string& file);
  // An outer event of `file` that was used: a --skip-event position still unmet there names an
  // event outside transactions.
  void after_event(const binlog::Event& ev, const std::string& file) const;
  // `file` was read to `end` (not stopped early).
  void at_file_end(const std::string& file, std::uint64_t end, bool last_file) const;

  // A unit's GTID, at its GTID event: throws when the log went past a GTID target unmet.
  void gtid_read(const std::string& gtid, const binlog::Event& ev, const std::string& file);
  // A complete unit with this GTID: whether --skip-event names it.
  bool skip_gtid_hit(const std::string& gtid);
  void stop_gtid_met() { stop_gtid_met_ = true; }

  // The end of the walk: `stopped` when a stop point ended it (then the targets after it had
  // nothing to act on, and are not checked).
  void at_end(bool stopped) const;

  bool any_positions_left() const { return !positions_left_.empty(); }
  // Whether before_event has anything to check (most runs: nothing, no call per event).
  bool watches_events() const { return !positions_left_.empty() || filter_.stop_position; }

 private:
  struct GtidPlace {
    std::string source;  // MariaDB: the domain; MySQL: the uuid (and tag)
    std::uint64_t number = 0;
  };
  struct GtidTarget {
    GtidPlace place;
    std::size_t skip_index;  // into skip_gtids; npos for the stop GTID
  };
  static std::optional<GtidPlace> parse_place(std::string_view gtid);
  std::string position_text(std::size_t k) const;

  const FilterOptions& filter_;
  std::vector<bool> position_met_;
  std::vector<std::size_t> positions_left_;  // --skip-event positions not met yet
  std::vector<bool> skip_gtid_met_;
  std::vector<GtidTarget> gtid_targets_;
  bool stop_gtid_met_ = false;
  // --exclude-gtids' intervals: met, and whether a GTID of their sequence before them was read
  // (the log then went through their place); the highest number read of each sequence.
  struct ExcludeInterval {
    AppliedGtids::Interval interval;
    bool met = false, below = false;
  };
  std::vector<ExcludeInterval> excluded_;
  std::vector<std::pair<std::string, std::uint64_t>> highest_;
};

}  // namespace binrecover::recovery
