#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "recovery/reading/filter.h"
#include "recovery/reading/walker.h"
#include "recovery/sql/output.h"
#include "recovery/workflows/backup_coords.h"

namespace binrecover::recovery {

struct PlanOptions {
  std::optional<std::string> dump;              // read the start coordinates from this backup
  std::optional<std::uint64_t> start_position;  // or: start here in the first input
  std::vector<std::string> databases;           // the databases asked for (all when empty)
  // The filter options given (--database=shop, --table=..., --server-id=...), as they are
  // repeated in the recovery commands printed.
  std::vector<std::string> filter_args;
  std::vector<std::string> command_prefix;     // options that must come first (--no-defaults)
  std::optional<std::uint64_t> stop_position;  // --stop-position given (of the last file)
  std::uint64_t rows_threshold = 1000;         // row-format: this many rows deleted/updated
};

// One destructive transaction.
struct Damage {
  std::string file;
  std::uint64_t pos = 0;        // first event of the transaction (its GTID or BEGIN)
  std::uint64_t event_pos = 0;  // the damaging event itself
  std::uint64_t end_pos = 0;    // end of the transaction
  std::uint32_t timestamp = 0;
  std::string gtid;
  std::uint32_t thread_id = 0;
  std::string what;       // "DROP DATABASE", "DELETE without WHERE", "DELETE of 5000 rows", ...
  std::string target;     // db or db.table
  std::string statement;  // the statement (or the annotation of row events)
};

struct Plan {
  BackupCoordinates backup;
  std::vector<InputFile> files;  // from the backup's file on
  std::uint64_t start_position = 4;
  std::vector<Damage> damage;
};

// Scans the inputs from the backup's coordinates and lists the destructive transactions.
// Throws binrecover::Error: the backup's file is not among the inputs, the chain has a gap,
// the coordinates are past the end of their file, ...
// `filter` is the reading path's range and filters (its start position is replaced by the
// backup's coordinates when there is a dump).
// `also`: another consumer of the same walk (the timeline of plan --html).
Plan make_plan(const std::vector<InputFile>& inputs, const PlanOptions& opts,
               const DecodeOptions& decode, const FilterOptions& filter,
               const binlog::WarningSink& warn, WalkConsumer* also = nullptr);

// The consumer that finds the destructive transactions (appended to `out`), for a walk of
// another command (stats --timeline marks them).
std::unique_ptr<WalkConsumer> damage_finder(const PlanOptions& opts, std::vector<Damage>& out);

// "2026-12-01 18:00:12" in the process's time zone.
std::string local_time_text(std::uint32_t ts);

// The command that replays everything up to just before the first damage, and the one that
// replays everything except it.
std::string recovery_command(const Plan& plan, const PlanOptions& opts);
std::string skip_command(const Plan& plan, const PlanOptions& opts);

void write_plan_text(const Plan& plan, const PlanOptions& opts, Output& out);
void write_plan_json(const Plan& plan, const PlanOptions& opts, Output& out);

}  // namespace binrecover::recovery
