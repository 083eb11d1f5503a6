#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "recovery/apply/replay_common.h"

namespace binrecover::recovery {

// Where a replay resumes: its progress rows on the target (the progress table, made here), the
// state file's point and the unit it left in doubt, settled by the target's GTIDs or
// --in-doubt.

// The progress rows of a replay: the latest end of a committed prefix among them, and the
// units committed beyond some worker's mark (each "file\tposition\n": where a unit starts).
struct ProgressRows {
  std::optional<ReplayState> mark;
  std::set<std::pair<std::string, std::uint64_t>> applied;
};

// The position of (file, pos) in the inputs' order, for telling which of two resume points is
// later; nullopt when `file` is not among them.
std::optional<std::pair<std::size_t, std::uint64_t>> order_of(const std::vector<InputFile>& inputs,
                                                              const std::string& file,
                                                              std::uint64_t pos);

// A log of a server that was itself a replay's target holds that replay's progress rows (and
// the statements that made its table): never this run's (the filter leaves them out).
void leave_out_progress(const std::string& progress_table, FilterOptions& filter);

// The `db`.`table` of --progress-table=DB.TABLE, created when the target lacks it.
std::string progress_table(Session& session, const std::string& spec);

// The progress rows of the replay `key` (a hex literal) in `table`.
ProgressRows read_progress(Session& session, const std::string& table, const std::string& key,
                           const std::vector<InputFile>& inputs, const std::string& identity);

// --resume of a unit that was not a transaction and was being applied when the replay
// stopped: where to go on (after it, or at it), from the target's GTIDs or --in-doubt.
std::uint64_t settle_in_doubt(Session& session, const ReplayState& prior, std::uint64_t started_at,
                              const ReplayOptions& opts, const SqlOptions& sql,
                              const binlog::WarningSink& warn);

// What a --resume continues from, and what it reads then.
struct Resume {
  const ReplayOptions& opts;
  const SqlOptions& sql;
  const std::string& identity;
  std::uint64_t started_at = 0;
  bool by_gtids = false;
};

// --resume: the later of the state file and the progress rows (the rows are exact for
// transactions, the state file for units that are not), a unit in doubt settled; the inputs,
// start position and `last` cut to there. Returns the units committed after it (by workers that
// did not keep the commit order), to leave out.
std::set<std::pair<std::string, std::uint64_t>> resume(
    const Resume& r, Session& session, std::optional<ReplayState>& prior, const ProgressRows& rows,
    std::vector<InputFile>& inputs, FilterOptions& filter, DecodeOptions& decode,
    std::optional<ReplayState>& last, const binlog::WarningSink& warn);

}  // namespace binrecover::recovery
