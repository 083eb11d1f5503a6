#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "recovery/decisions/incident.h"
#include "recovery/reading/filter.h"
#include "recovery/reading/walker.h"
#include "recovery/recover/backup_coords.h"
#include "recovery/sql/output.h"

namespace binrecover::recovery {

struct PlanOptions {
  std::optional<std::string> dump;  // the backup: its coordinates (or its flush) are the start
  std::optional<BackupCoordinates> backup;  // its coordinates when already read (once: a pipe)
  // The start, given (overrides the dump's): a file of the inputs (from its beginning, or at
  // start_position), a position (in the file the plan starts from), a time (filter's
  // start_datetime: the first transaction at or after it).
  std::optional<std::string> start_file;
  std::optional<std::uint64_t> start_position;
  bool start_datetime = false;
  std::vector<std::string> databases;  // the databases asked for (all when empty)
  // The filter options given (--database=shop, --table=..., --server-id=...), as they are
  // repeated in the recovery commands printed.
  std::vector<std::string> filter_args;
  std::vector<std::string> command_prefix;     // options that must come first (--no-defaults)
  std::optional<std::uint64_t> stop_position;  // --stop-position given (of the last file)
  std::uint64_t rows_threshold = 1000;  // row format: this many rows of a table in a transaction
  std::optional<std::string> incident;  // --incident=N|GTID|FILE:POS
  std::vector<std::string> allow;       // --allow: known jobs
  // A range that keeps no transaction is a plan of nothing (restore: nothing happened after the
  // backup up to the point), not an error.
  bool allow_empty = false;
};

// Where a plan starts.
struct PlanStart {
  std::size_t input = 0;                  // the first input read
  std::optional<std::uint64_t> position;  // in it; none: from its beginning
  std::string why;  // in words: the backup's coordinates, its flush, an option
  // A backup that names GTIDs but no position: its transactions are left out by GTID (the
  // commands printed say --exclude-gtids=SET, or --start-position=GTIDS for MariaDB).
  std::string mysql_gtids, maria_gtids;
};

struct Plan {
  BackupCoordinates backup;
  PlanStart start;
  std::vector<InputFile> files;  // from the start's file on
  std::vector<Damage> damage;
  std::optional<std::size_t> incident;  // into damage: the headline stops just before it
  std::string incident_why;
  RangeCounts total;  // the whole range read
  // Transactions --skip-event left out (file, first position), for the commands printed.
  std::vector<std::pair<std::string, std::uint64_t>> skipped;
  // What the range holds after the incident (its own transaction not counted).
  RangeCounts after_incident() const;
  // What stopping just before damage[i] leaves out up to the incident (or up to the end of the
  // range without one); for an event after the incident, what it replays past it.
  RangeCounts left_out(std::size_t i) const;
};

// Decides where the range starts (PlanOptions, the backup), scans it and lists the transactions
// that lost data for certain or look like it, numbered, each with what stopping before it leaves
// out; chooses the incident. Throws binrecover::Error: the backup's file is not among the
// inputs, the chain has a gap, a dump without coordinates whose flush cannot be told, an
// --incident that names nothing (all exit 2), the range keeps no transaction (exit 2), ...
// `filter` is the reading path's range and filters (its start is replaced by the plan's).
// `also`: another consumer of the same walk (the timeline of plan --html).
Plan make_plan(const std::vector<InputFile>& inputs, const PlanOptions& opts,
               const DecodeOptions& decode, const FilterOptions& filter,
               const binlog::WarningSink& warn, WalkConsumer* also = nullptr);

// The consumer that finds the destructive transactions (appended to `out`), for a walk of
// another command (stats --timeline marks them).
std::unique_ptr<WalkConsumer> damage_finder(const PlanOptions& opts, std::vector<Damage>& out);

// The headline: replay everything up to just before the incident (to the end without one).
std::string recovery_command(const Plan& plan, const PlanOptions& opts);
// Replay up to just before damage[i].
std::string stop_before_command(const Plan& plan, const PlanOptions& opts, std::size_t i);
// Replay everything but the incident ("" without one).
std::string skip_command(const Plan& plan, const PlanOptions& opts);

// "stop just before it: leaves out N transaction(s) up to the incident: db.t 5 inserted"
// ("" for the incident itself).
std::string left_out_text(const Plan& plan, std::size_t i);

// [{"table":"db.t","inserted":..,"updated":..,"deleted":..,"statements":..}, ...]
void append_tables_json(fmt::memory_buffer& b, const std::map<std::string, TableCounts>& tables);
// {"transactions":N,"tables":[...]}
void append_counts_json(fmt::memory_buffer& b, const RangeCounts& c);

void write_plan_text(const Plan& plan, const PlanOptions& opts, Output& out);
void write_plan_json(const Plan& plan, const PlanOptions& opts, Output& out);

}  // namespace binrecover::recovery
