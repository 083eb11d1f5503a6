#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "recovery/apply/apply_engine.h"
#include "recovery/apply/dependencies.h"
#include "recovery/apply/target_keys.h"
#include "recovery/apply/write_set.h"

namespace binrecover::recovery {

// Decides what each unit handed to the apply engine waits for (replay --parallel; with
// --merge-transactions, which units are transactional on the target): its write set, built
// from its events against the target's keys; the source's own parallelism (MySQL's logical
// clock, MariaDB's commit groups, per binlog file); the tables where units have had to run again
// for a lock (ApplyEngine::contended: there each unit waits for the one before it); and the last
// barrier. Counts the units it scheduled and those that held a table whole.
class UnitScheduler {
 public:
  // `rewrites` (--rewrite-db, may be null): the tables are looked up on the target by the
  // names the replay writes.
  UnitScheduler(Session& session, const ApplyEngine& engine,
                const std::vector<std::pair<std::string, std::string>>* rewrites)
      : engine_(engine), keys_(session), builder_(keys_, rewrites) {}

  // A unit starts in binlog `file` (a new file starts the source's clock again).
  void begin_unit(const std::string& file);
  // Each kept event of the unit: its GTID event's clock, table maps and rows.
  void add(const binlog::Event& ev, const binlog::FormatContext& ctx);
  // The unit's write set (so far).
  const WriteSet& write_set() const { return builder_.result(); }
  // The unit about to be the engine's next: its tables and the units it waits for into `task`.
  void schedule(ApplyTask& task);
  // A unit read without its keys (ApplyEngine::wants_keys()) about to be the engine's next: it
  // waits for every unit before it (the first after units read with keys, for each of them not
  // yet committed; else for the unit before it), and every later unit for it (as a barrier).
  void schedule_unkeyed(ApplyTask& task);
  // A merged group about to be the engine's next, with the write set of its units (no clock:
  // its units had several of its ticks).
  void schedule_group(ApplyTask& task, const WriteSet& ws);
  // The engine's unit `seq` was applied alone: every later unit comes after it.
  void barrier(std::uint64_t seq) {
    tracker_.barrier(seq);
    after_keyed_ = false;
  }
  // A DDL may have changed any table's keys: read them again when next met.
  void tables_changed() { keys_.invalidate(); }
  // Only these tables changed (TargetKeys::forget).
  void tables_changed(const TableNames& tables) { keys_.forget(tables); }

  std::uint64_t units() const { return units_; }
  std::uint64_t held_whole() const { return held_whole_; }

 private:
  void schedule(ApplyTask& task, const WriteSet& ws, std::uint64_t floor);

  const ApplyEngine& engine_;
  TargetKeys keys_;
  WriteSetBuilder builder_;
  DependencyTracker tracker_;
  SourceClock clock_;
  std::string clock_file_;
  std::optional<std::pair<std::int64_t, std::int64_t>> mysql_clock_;
  std::optional<std::uint64_t> maria_commit_;
  bool maria_gtid_ = false;
  std::vector<std::uint64_t> chain_;
  bool after_keyed_ = false;  // the last unit scheduled was read with its keys
  std::uint64_t units_ = 0, held_whole_ = 0;
};

}  // namespace binrecover::recovery
