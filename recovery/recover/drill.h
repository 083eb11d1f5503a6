#pragma once

#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include "recovery/emit/run_sql.h"
#include "recovery/recover/plan.h"
#include "recovery/server/apply.h"
#include "recovery/sql/output.h"

namespace binrecover::recovery {

// A disaster-recovery drill: restore a backup on a throwaway server, replay the binlogs to a
// target point, and verify the result.
struct DrillOptions {
  PlanOptions plan;  // dump, rows threshold
  // The range and filters, as for every command; a stop position, time or GTID there is the
  // target, else the first destructive transaction of the range.
  FilterOptions filter;
  bool to_end = false;                           // target: everything (no damage search)
  std::optional<std::string> expect_file;        // "db.table<TAB>rows<TAB>checksum" lines
  std::optional<std::string> write_expect_file;  // write the verified values there
  std::optional<std::string> report_file;        // JSON report
  std::string server_binary;                     // mariadbd/mysqld; empty = search PATH
  // A given server instead of a throwaway one (-h/-P/-u/-p/-S): the backup is restored into it.
  std::optional<ConnectionOptions> server;
  bool keep = false;         // keep the server's data folder
  std::size_t parallel = 4;  // --parallel: the replay's workers
  // --server-applier: the drill server (MariaDB) applies the binlogs with its own replication
  // applier, binrecover its source (recovery/apply/server_applier.h).
  bool server_applier = false;
  // --merge-transactions: up to N small transactions applied as one (ReplayOptions)
  std::size_t merge_transactions = 1;
  bool preserve_commit_order = true;  // false: --no-preserve-commit-order
};

struct TableResult {
  std::string table;  // db.table
  std::uint64_t rows = 0;
  std::string checksum;
  std::optional<std::uint64_t> expected_rows;
  std::string expected_checksum;
  bool ok = true;
};

struct DrillStep {
  std::string name;
  double seconds = 0;
  bool ok = true;
  std::string detail;
};

struct DrillResult {
  bool passed = false;
  std::vector<DrillStep> steps;
  std::vector<TableResult> tables;
  RunStats replay;
  std::size_t workers = 0;  // the replay's, and what it did
  bool server_applier = false;
  double replay_seconds = 0;
  std::uint64_t replay_transactions = 0;
  std::uint64_t replay_barriers = 0;
  std::uint64_t replay_merged = 0, replay_merged_into = 0;  // --merge-transactions
  std::string target;  // what the replay stopped before, in words
  std::string start;   // where the replay started, and why
  // The stop point (what is known of it): file and position, GTID, time.
  std::string stop_file;
  std::uint64_t stop_pos = 0;
  std::string stop_gtid;
  std::time_t stop_time = 0;
  std::string incident;  // the incident the drill recovered around, in words
  RangeCounts left_out;  // what the binlogs hold after the incident, not replayed
  std::string error;     // the failure, when a step failed
};

// Runs the drill; never throws for a failed step (the result says which failed), only for bad
// options.
DrillResult run_drill(const std::vector<InputFile>& inputs, const DrillOptions& opts,
                      const DecodeOptions& decode, const binlog::WarningSink& warn);

void write_drill_report(const DrillResult& r, const DrillOptions& opts, Output& out);
std::string drill_summary(const DrillResult& r);

}  // namespace binrecover::recovery
