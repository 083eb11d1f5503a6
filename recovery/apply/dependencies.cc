#include "recovery/apply/dependencies.h"

#include <algorithm>

namespace binrecover::recovery {

std::vector<std::uint64_t> DependencyTracker::add(std::uint64_t seq, const WriteSet& ws,
                                                  std::uint64_t clock_floor,
                                                  const std::vector<std::uint64_t>& chain) {
  // The earlier units it meets on a row key or a table, not yet committed.
  std::vector<std::uint64_t> met;
  auto meet = [&](std::uint64_t d) {
    if (d != 0 && d > forgotten_) met.push_back(d);
  };
  auto find = [](const auto& map, std::uint64_t key) -> std::uint64_t {
    const auto it = map.find(key);
    return it == map.end() ? 0 : it->second;
  };
  for (const auto& [table, key] : ws.rows) {
    meet(find(rows_, key));
    meet(find(tables_whole_, table));
  }
  for (const std::uint64_t table : ws.tables)
    if (const auto it = tables_any_.find(table); it != tables_any_.end())
      for (const std::uint64_t d : it->second) meet(d);
  std::sort(met.begin(), met.end());
  met.erase(std::unique(met.begin(), met.end()), met.end());
  // Each one met is waited for when the source's clock says it ran before this unit (at or
  // below the floor); one the source ran beside it is not, but what that one met is, the same
  // way, in its turn: the maps keep only the last unit of a key or a table, and the units
  // before it are behind it only for a unit that waits for it. (Of a unit waited for, what it
  // met but did not wait for itself, its own source's neighbours, likewise.) The keys' model is
  // the target's, not the source's: two units of one commit group may meet on a key or a table
  // held whole, and a third unit of the group then still waits for what came before both.
  std::vector<std::uint64_t> deps;
  todo_.assign(met.begin(), met.end());
  seen_.clear();
  while (!todo_.empty()) {
    const std::uint64_t d = todo_.back();
    todo_.pop_back();
    if (d <= forgotten_ || std::find(seen_.begin(), seen_.end(), d) != seen_.end()) continue;
    seen_.push_back(d);
    const auto it = met_by_.find(d);
    if (d <= clock_floor) deps.push_back(d);
    if (it == met_by_.end()) continue;
    for (const std::uint64_t c : it->second.units)
      if (d > clock_floor || c > it->second.floor) todo_.push_back(c);
  }
  if (!met.empty()) met_by_[seq] = Met{clock_floor, std::move(met)};
  if (barrier_ > forgotten_) deps.push_back(barrier_);
  for (const std::uint64_t table : ws.tables)  // (whatever the clock says)
    if (const auto it = scanner_.find(table); it != scanner_.end() && it->second > forgotten_)
      deps.push_back(it->second);
  for (const std::uint64_t table : ws.scanned) scanner_[table] = seq;
  for (const std::uint64_t table : chain) {  // (whatever the clock says)
    std::uint64_t& last = chain_[table];
    if (last > forgotten_) deps.push_back(last);
    last = seq;
  }
  for (const auto& [table, key] : ws.rows) {
    rows_[key] = seq;
    std::vector<std::uint64_t>& on = tables_any_[table];
    if (!on.empty() && on.back() == seq) continue;
    if (on.size() >= 64 && on.size() % 64 == 0)  // (what has committed needs no waiting for)
      std::erase_if(on, [&](std::uint64_t u) { return u <= forgotten_; });
    on.push_back(seq);
  }
  for (const std::uint64_t table : ws.tables) {
    tables_whole_[table] = seq;
    // Those it did not wait for (the source ran them beside it) stay for later units to wait
    // for: a later unit waiting for this one alone would not wait for them.
    std::vector<std::uint64_t>& on = tables_any_[table];
    std::erase_if(on, [&](std::uint64_t u) { return u <= clock_floor || u == seq; });
    on.push_back(seq);
  }
  std::sort(deps.begin(), deps.end());
  deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
  return deps;
}

void DependencyTracker::barrier(std::uint64_t seq) {
  barrier_ = seq;
  met_by_.clear();
  // Everything before a barrier is committed before anything after it starts.
  rows_.clear();
  tables_any_.clear();
  tables_whole_.clear();
  chain_.clear();
  scanner_.clear();
}

void DependencyTracker::forget_below(std::uint64_t seq) {
  forgotten_ = std::max(forgotten_, seq);
  met_by_.erase(met_by_.begin(), met_by_.upper_bound(forgotten_));
  if (size() < (std::size_t{1} << 18)) return;
  std::erase_if(rows_, [&](const auto& e) { return e.second <= seq; });
  for (auto it = tables_any_.begin(); it != tables_any_.end();) {
    std::erase_if(it->second, [&](std::uint64_t u) { return u <= seq; });
    it = it->second.empty() ? tables_any_.erase(it) : std::next(it);
  }
  std::erase_if(tables_whole_, [&](const auto& e) { return e.second <= seq; });
  std::erase_if(scanner_, [&](const auto& e) { return e.second <= seq; });
}

void SourceClock::new_file(std::uint64_t last_seq) {
  file_base_ = last_seq;
  mysql_.clear();
  group_id_.reset();
}

std::uint64_t SourceClock::mysql(std::uint64_t seq, std::int64_t last_committed,
                                 std::int64_t sequence_number) {
  if (sequence_number <= 0 || last_committed < 0 || last_committed >= sequence_number)
    return seq - 1;
  // The newest unit of this file the source committed at or before last_committed.
  std::uint64_t floor = file_base_;
  for (auto it = mysql_.rbegin(); it != mysql_.rend(); ++it)
    if (it->first <= last_committed) {
      floor = it->second;
      break;
    }
  mysql_.emplace_back(sequence_number, seq);
  if (mysql_.size() > 4096) {
    // (a unit whose last_committed is older than what is kept gets the oldest kept as its
    // floor: later than the true one, so it waits for more, never for less)
    file_base_ = std::max(file_base_, mysql_.front().second);
    mysql_.pop_front();
  }
  return floor;
}

std::uint64_t SourceClock::maria(std::uint64_t seq, std::optional<std::uint64_t> commit_id) {
  if (!commit_id) {
    group_id_.reset();
    return seq - 1;
  }
  if (group_id_ != commit_id) {
    group_id_ = commit_id;
    group_floor_ = seq - 1;
  }
  return group_floor_;
}

std::uint64_t SourceClock::none(std::uint64_t seq) {
  group_id_.reset();
  return seq - 1;
}

}  // namespace binrecover::recovery
