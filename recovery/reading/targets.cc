#include "recovery/reading/targets.h"

#include <sys/stat.h>

#include <algorithm>

#include "binlog/error.h"
#include "binlog/event_type.h"
#include "recovery/reading/local_time.h"
#include "recovery/reading/walker.h"

namespace binrecover::recovery {

using binlog::Event;

namespace {

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

std::string type_name(const Event& ev) {
  return std::string(binlog::event_type_name(ev.header.type));
}

// The size of an input known without reading it: a regular file's, a stored object's.
std::optional<std::uint64_t> known_size(const InputFile& in) {
  if (in.memory) return in.memory->size();
  if (in.size) return in.size;
  if (in.open || in.path.empty() || in.path == "-") return std::nullopt;
  struct stat st {};
  if (::stat(in.path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  return static_cast<std::uint64_t>(st.st_size);
}

}  // namespace

RangeTargets::RangeTargets(const FilterOptions& filter) : filter_(filter) {
  position_met_.assign(filter.skip_positions.size(), false);
  for (std::size_t k = 0; k < filter.skip_positions.size(); ++k) positions_left_.push_back(k);
  skip_gtid_met_.assign(filter.skip_gtids.size(), false);
  for (std::size_t k = 0; k < filter.skip_gtids.size(); ++k)
    if (auto p = parse_place(filter.skip_gtids[k])) gtid_targets_.push_back({*p, k});
  if (filter.stop_gtid)
    if (auto p = parse_place(*filter.stop_gtid)) gtid_targets_.push_back({*p, kNone});
  if (filter.exclude_gtids_given) {
    for (auto& i : filter.exclude_gtids.mysql_intervals()) excluded_.push_back({std::move(i)});
    for (auto& i : filter.exclude_gtids.maria_gtid_intervals()) excluded_.push_back({std::move(i)});
  }
}

namespace {

// "uuid:5-7", or a MariaDB GTID's "domain 0 seq_no 42" (its intervals are one number).
std::string interval_text(const AppliedGtids::Interval& i) {
  if (i.source.find_first_not_of("0123456789") == std::string::npos)
    return "the GTID of domain " + i.source + " with seq_no " + std::to_string(i.first);
  return i.source + ":" + std::to_string(i.first) +
         (i.last != i.first ? "-" + std::to_string(i.last) : std::string());
}

}  // namespace

std::string RangeTargets::position_text(std::size_t k) const {
  const auto& [f, p] = filter_.skip_positions[k];
  return "--skip-event=" + (f.empty() ? "" : f + ":") + std::to_string(p);
}

void RangeTargets::check_inputs(const std::deque<InputFile>& inputs, bool more_may_come) {
  if (inputs.empty()) return;
  for (std::size_t k = 0; k < filter_.skip_positions.size(); ++k) {
    const std::string& f = filter_.skip_positions[k].first;
    if (f.empty()) {
      // Positions repeat from file to file: one without a file names one only in one file.
      if (inputs.size() > 1 || more_may_come)
        throw Error(ErrorCode::kUsage,
                    position_text(k) + " names no file, and " +
                        (more_may_come ? std::string("more than one binlog")
                                       : std::to_string(inputs.size()) + " binlogs") +
                        " are read, where positions repeat: give FILE:POS (binrecover plan "
                        "prints it)");
      continue;
    }
    const bool listed = std::any_of(inputs.begin(), inputs.end(),
                                    [&](const InputFile& in) { return in.display_name == f; });
    if (!listed && !more_may_come)
      throw Error(ErrorCode::kUsage,
                  position_text(k) + ": " + f + " is not among the binlogs read (" +
                      inputs.front().display_name + " to " + inputs.back().display_name +
                      "): nothing would be left out for it");
  }
  // A position past the end of a file whose size is known: refused before anything is read.
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const InputFile& in = inputs[i];
    const std::optional<std::uint64_t> size = known_size(in);
    if (!size) continue;
    for (std::size_t k = 0; k < filter_.skip_positions.size(); ++k) {
      const auto& [f, p] = filter_.skip_positions[k];
      if ((f.empty() || f == in.display_name) && p >= *size)
        throw Error(ErrorCode::kUsage, position_text(k) + " is past the end of " + in.display_name +
                                           " (" + std::to_string(*size) +
                                           " bytes): nothing would be left out for it");
    }
    if (i + 1 == inputs.size() && !more_may_come && filter_.stop_position &&
        *filter_.stop_position > *size)
      throw Error(ErrorCode::kUsage, "--stop-position=" + std::to_string(*filter_.stop_position) +
                                         " is past the end of " + in.display_name + " (" +
                                         std::to_string(*size) +
                                         " bytes): the stop point would never be met");
  }
}

void RangeTargets::before_event(const Event& ev, const std::string& file, bool last_file) const {
  for (const std::size_t k : positions_left_) {
    const auto& [f, p] = filter_.skip_positions[k];
    if ((!f.empty() && f != file) || p == ev.pos || p >= ev.end_pos()) continue;
    if (p > ev.pos)
      throw Error(ErrorCode::kUsage,
                  position_text(k) + " is inside the " + type_name(ev) + " event at " +
                      std::to_string(ev.pos) + " (it ends at " + std::to_string(ev.end_pos()) +
                      "), not at an event's start: stopped there, nothing from that event on "
                      "was written (positions are those of SHOW BINLOG EVENTS / binrecover "
                      "events / binrecover plan)",
                  ev.pos)
          .with_event(type_name(ev));
    throw Error(ErrorCode::kUsage, position_text(k) + " is before the start of the range read in " +
                                       file + " (it starts at " + std::to_string(ev.pos) +
                                       "): nothing would be left out for it");
  }
  if (last_file && filter_.stop_position && ev.pos < *filter_.stop_position &&
      *filter_.stop_position < ev.end_pos())
    throw Error(ErrorCode::kUsage,
                "--stop-position=" + std::to_string(*filter_.stop_position) + " is inside the " +
                    type_name(ev) + " event at " + std::to_string(ev.pos) + " of " + file +
                    " (it ends at " + std::to_string(ev.end_pos()) +
                    "), not at an event's start: stopped there, nothing from that event on was "
                    "written (stop at a transaction's first event: binrecover events / plan "
                    "list them)",
                ev.pos)
        .with_event(type_name(ev));
}

bool RangeTargets::skip_position_hit(const Event& ev, const std::string& file) {
  bool hit = false;
  for (std::size_t k = 0; k < filter_.skip_positions.size(); ++k) {
    const auto& [f, p] = filter_.skip_positions[k];
    if (p != ev.pos || ev.in_payload || (!f.empty() && f != file)) continue;
    hit = true;
    if (!position_met_[k]) std::erase(positions_left_, k);
    position_met_[k] = true;
  }
  return hit;
}

void RangeTargets::after_event(const Event& ev, const std::string& file) const {
  for (const std::size_t k : positions_left_) {
    const auto& [f, p] = filter_.skip_positions[k];
    if (p != ev.pos || (!f.empty() && f != file)) continue;
    throw Error(ErrorCode::kUsage,
                position_text(k) + " is the " + type_name(ev) +
                    " event, which is in no transaction: nothing to leave out (name an event "
                    "of the transaction: its GTID, BEGIN or statement)",
                ev.pos)
        .with_event(type_name(ev));
  }
}

void RangeTargets::at_file_end(const std::string& file, std::uint64_t end, bool last_file) const {
  for (const std::size_t k : positions_left_) {
    const auto& [f, p] = filter_.skip_positions[k];
    if ((!f.empty() && f != file) || p < end) continue;
    throw Error(ErrorCode::kUsage, position_text(k) + " is past the end of " + file + " (" +
                                       std::to_string(end) +
                                       " bytes read): nothing would be left out for it");
  }
  if (last_file && filter_.stop_position && *filter_.stop_position > end)
    throw Error(ErrorCode::kUsage, "--stop-position=" + std::to_string(*filter_.stop_position) +
                                       " is past the end of " + file + " (" + std::to_string(end) +
                                       " bytes read): the whole file was read, the stop point "
                                       "never met");
}

std::optional<RangeTargets::GtidPlace> RangeTargets::parse_place(std::string_view g) {
  const auto colon = g.rfind(':');
  std::string_view source, number;
  if (colon != std::string_view::npos) {
    source = g.substr(0, colon);
    number = g.substr(colon + 1);
  } else {
    const auto first = g.find('-');
    const auto last = g.rfind('-');
    if (first == std::string_view::npos || first == last) return std::nullopt;
    source = g.substr(0, first);
    number = g.substr(last + 1);
  }
  if (number.empty() || number.size() > 19) return std::nullopt;
  std::uint64_t n = 0;
  for (char c : number) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return GtidPlace{std::string(source), n};
}

// A server writes a domain's (MariaDB) or a uuid's (MySQL) numbers in increasing order: a later
// number of the sequence means the log went past a target it did not meet.
void RangeTargets::gtid_read(const std::string& gtid, const Event& ev, const std::string& file) {
  if (gtid_targets_.empty() && excluded_.empty()) return;
  auto here = parse_place(gtid);
  if (!here) return;
  if (!excluded_.empty()) {
    for (char& c : here->source) c = c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
    bool known = false;
    for (auto& [source, n] : highest_)
      if (source == here->source) {
        n = std::max(n, here->number);
        known = true;
      }
    if (!known) highest_.emplace_back(here->source, here->number);
    for (ExcludeInterval& x : excluded_) {
      if (x.interval.source != here->source) continue;
      if (here->number < x.interval.first) {
        x.below = true;
      } else if (here->number <= x.interval.last) {
        x.met = true;
      } else if (x.below && !x.met) {
        throw Error(ErrorCode::kNotFound,
                    "--exclude-gtids: the binlogs went through " + interval_text(x.interval) +
                        " without any of it (" + gtid + " at " + file + ":" +
                        std::to_string(ev.pos) +
                        " comes after it): stopped there, nothing from that transaction on "
                        "was written",
                    ev.pos)
            .with_event(type_name(ev));
      }
    }
  }
  for (const GtidTarget& t : gtid_targets_) {
    if (t.place.source != here->source || here->number <= t.place.number) continue;
    const bool stop = t.skip_index == kNone;
    if (stop ? stop_gtid_met_ : skip_gtid_met_[t.skip_index]) continue;
    const std::string target = stop ? "--stop-gtid=" + *filter_.stop_gtid
                                    : "--skip-event=" + filter_.skip_gtids[t.skip_index];
    throw Error(ErrorCode::kNotFound,
                target + ": the binlogs went past it without it (" + gtid + " at " + file + ":" +
                    std::to_string(ev.pos) +
                    " comes later in its sequence): stopped there, nothing from that "
                    "transaction on was written",
                ev.pos)
        .with_event(type_name(ev));
  }
}

bool RangeTargets::skip_gtid_hit(const std::string& gtid) {
  bool hit = false;
  for (std::size_t k = 0; k < filter_.skip_gtids.size(); ++k)
    if (filter_.skip_gtids[k] == gtid) {
      hit = true;
      skip_gtid_met_[k] = true;
    }
  return hit;
}

void RangeTargets::at_end(bool stopped) const {
  // A stop point ended the run: targets after it had nothing to act on.
  if (stopped) return;
  // An --exclude-gtids interval after the last GTID read of its sequence: never met.
  for (const ExcludeInterval& x : excluded_) {
    if (x.met) continue;
    for (const auto& [source, n] : highest_)
      if (source == x.interval.source && n < x.interval.first)
        throw Error(ErrorCode::kNotFound,
                    "--exclude-gtids: " + interval_text(x.interval) +
                        " and after are past the last GTID of that sequence read (" +
                        interval_text({source, n, n}) + "): nothing was left out for them");
  }
  if (filter_.stop_datetime)
    throw Error(ErrorCode::kNotFound,
                "--stop-datetime: no event of the binlogs read is at or after " +
                    local_time_text(static_cast<std::time_t>(*filter_.stop_datetime), true) +
                    ": the stop point was never met and everything read was used (were later "
                    "binlogs meant, or another date?)");
  std::vector<std::string> missing;
  for (std::size_t k = 0; k < filter_.skip_positions.size(); ++k)
    if (!position_met_[k]) missing.push_back(position_text(k));
  for (std::size_t k = 0; k < filter_.skip_gtids.size(); ++k)
    if (!skip_gtid_met_[k]) missing.push_back("--skip-event=" + filter_.skip_gtids[k]);
  if (!missing.empty()) {
    std::string list;
    for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
    throw Error(ErrorCode::kNotFound,
                list +
                    ": no transaction of the binlogs read has an event at that position or "
                    "that GTID, so nothing was left out for it (positions are those of "
                    "SHOW BINLOG EVENTS / binrecover events / binrecover plan)");
  }
  if (filter_.stop_gtid && !stop_gtid_met_)
    throw Error(ErrorCode::kNotFound,
                "--stop-gtid=" + *filter_.stop_gtid +
                    ": no transaction of the binlogs read has that GTID, so the output runs to "
                    "the end of the last binlog");
}

}  // namespace binrecover::recovery
