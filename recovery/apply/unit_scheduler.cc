#include "recovery/apply/unit_scheduler.h"

#include <algorithm>
#include <variant>

namespace binrecover::recovery {

void UnitScheduler::begin_unit(const std::string& file) {
  builder_.begin_unit();
  mysql_clock_.reset();
  maria_commit_.reset();
  maria_gtid_ = false;
  if (file != clock_file_) {
    clock_file_ = file;
    clock_.new_file(engine_.next_seq() - 1);
  }
}

void UnitScheduler::add(const binlog::Event& ev, const binlog::FormatContext& ctx) {
  if (const auto* g = std::get_if<binlog::Gtid>(&ev.body)) {
    mysql_clock_ = std::make_pair(g->last_committed, g->sequence_number);
  } else if (const auto* mg = std::get_if<binlog::MariaGtid>(&ev.body)) {
    maria_commit_ = (mg->flags & binlog::MariaGtid::kGroupCommitId)
                        ? std::optional<std::uint64_t>(mg->commit_id)
                        : std::nullopt;
    maria_gtid_ = true;
  }
  builder_.add(ev, ctx);
}

void UnitScheduler::schedule(ApplyTask& task) {
  const std::uint64_t seq = engine_.next_seq();
  std::uint64_t floor = seq - 1;
  if (mysql_clock_)
    floor = clock_.mysql(seq, mysql_clock_->first, mysql_clock_->second);
  else if (maria_gtid_)
    floor = clock_.maria(seq, maria_commit_);
  schedule(task, builder_.result(), floor);
}

void UnitScheduler::schedule_unkeyed(ApplyTask& task) {
  const std::uint64_t seq = engine_.next_seq();
  task.keyed = false;
  task.tables.clear();
  task.deps.clear();
  // The first after units read with their keys waits for every one of them not yet committed
  // (the one before it may have gone beside earlier ones); each after it for the one before
  // it, which committed after every unit before it.
  if (after_keyed_)
    for (std::uint64_t d = engine_.low_water_seq() + 1; d < seq; ++d) task.deps.push_back(d);
  else if (seq > 1)
    task.deps.push_back(seq - 1);
  after_keyed_ = false;
  tracker_.barrier(seq);
  tracker_.forget_below(engine_.low_water_seq());
  ++units_;
}

void UnitScheduler::schedule_group(ApplyTask& task, const WriteSet& ws) {
  schedule(task, ws, engine_.next_seq() - 1);
}

// The tables the unit writes (into the task, for the engine to note when it meets a lock), and
// those of them where units have had to run again for a lock: there each unit waits for the
// one before it (a unique key's duplicate check locks the next record too, which no write set
// shows; reruns cost more than the order).
void UnitScheduler::schedule(ApplyTask& task, const WriteSet& ws, std::uint64_t floor) {
  task.tables.clear();
  for (const auto& [table, key] : ws.rows) task.tables.push_back(table);
  task.tables.insert(task.tables.end(), ws.tables.begin(), ws.tables.end());
  std::sort(task.tables.begin(), task.tables.end());
  task.tables.erase(std::unique(task.tables.begin(), task.tables.end()), task.tables.end());
  chain_.clear();
  for (const std::uint64_t t : task.tables)
    if (engine_.contended(t)) chain_.push_back(t);
  task.deps = tracker_.add(engine_.next_seq(), ws, floor, chain_);
  after_keyed_ = true;
  tracker_.forget_below(engine_.low_water_seq());
  ++units_;
  if (!ws.tables.empty()) ++held_whole_;
}

}  // namespace binrecover::recovery
