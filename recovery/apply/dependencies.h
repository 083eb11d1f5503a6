#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "recovery/apply/write_set.h"

namespace binrecover::recovery {

// Decides which units a unit must wait for: the units before it that may touch a row it
// touches (its write set), cut by what the source's own parallelism says (MySQL's logical
// clock, MariaDB's commit groups: units the source committed together do not conflict), and
// the last barrier. Memory stays bounded: keys of units long committed are forgotten.
class DependencyTracker {
 public:
  // A unit of sequence number `seq`; `clock_floor`: every unit after this one may run beside
  // it as far as the source says (seq - 1 when the source says nothing).
  // `chain`: tables whose units wait for the one before them on the table whatever the keys
  // and the clock say (ApplyEngine::contended).
  std::vector<std::uint64_t> add(std::uint64_t seq, const WriteSet& ws, std::uint64_t clock_floor,
                                 const std::vector<std::uint64_t>& chain = {});
  // A barrier: every later unit waits for it.
  void barrier(std::uint64_t seq);
  // Units up to `seq` have committed (their keys may be forgotten).
  void forget_below(std::uint64_t seq);
  std::size_t size() const { return rows_.size() + tables_any_.size(); }

 private:
  std::unordered_map<std::uint64_t, std::uint64_t> rows_;  // key hash -> last unit
  // table -> the units on it since the last that held it whole (that one first): a unit that
  // holds the table waits for every one of them, not only the last (which, without commit
  // order, may commit before an earlier one).
  std::unordered_map<std::uint64_t, std::vector<std::uint64_t>> tables_any_;
  std::unordered_map<std::uint64_t, std::uint64_t> tables_whole_;  // table -> last holding it
  std::unordered_map<std::uint64_t, std::uint64_t> chain_;  // chained table -> last unit on it
  // table without a key -> the last unit that read it for its rows (WriteSet::scanned): every
  // later unit on it waits for that one, whatever the clock says
  std::unordered_map<std::uint64_t, std::uint64_t> scanner_;
  // Units not yet committed -> their clock floor and the units they met (add()): a unit that
  // does not wait for one of them (the source ran them side by side) looks through it.
  struct Met {
    std::uint64_t floor = 0;
    std::vector<std::uint64_t> units;
  };
  std::map<std::uint64_t, Met> met_by_;
  std::vector<std::uint64_t> todo_, seen_;  // (add())
  std::uint64_t barrier_ = 0;
  std::uint64_t forgotten_ = 0;
};

// What the source said about parallelism, turned into clock floors: MySQL's last_committed
// and sequence_number per binlog file, MariaDB's commit ids.
class SourceClock {
 public:
  // A new binlog file (its sequence numbers start again): every earlier unit is below.
  void new_file(std::uint64_t last_seq);
  // The floor for the unit `seq` with what its GTID event says (nullopt: nothing).
  std::uint64_t mysql(std::uint64_t seq, std::int64_t last_committed, std::int64_t sequence_number);
  std::uint64_t maria(std::uint64_t seq, std::optional<std::uint64_t> commit_id);
  std::uint64_t none(std::uint64_t seq);

 private:
  std::uint64_t file_base_ = 0;
  std::deque<std::pair<std::int64_t, std::uint64_t>> mysql_;  // (sequence_number, seq)
  std::optional<std::uint64_t> group_id_;
  std::uint64_t group_floor_ = 0;
};

}  // namespace binrecover::recovery
