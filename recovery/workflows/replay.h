#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "recovery/reading/filter.h"
#include "recovery/server/apply.h"
#include "recovery/sql/schema.h"
#include "recovery/sql/sql_sink.h"
#include "recovery/workflows/pipeline.h"

namespace binrecover::recovery {

// --gtids: what replay does with the transactions' GTIDs.
enum class GtidMode : std::uint8_t {
  kKeep,         // as SQL output: the server records the original GTIDs
  kSkipApplied,  // keep, and leave out the transactions the server already has
  kStrip,        // as --skip-gtids: the server gives the transactions new GTIDs
};

struct ReplayOptions {
  std::string state_file = "binrecover-replay.state";  // --state-file (current folder)
  bool resume = false;                                 // --resume
  GtidMode gtids = GtidMode::kKeep;
};

// Where a replay got to: the end of the last transaction the server committed.
struct ReplayState {
  std::string file;            // the binlog's name (its display name)
  std::uint64_t position = 4;  // the next event to apply starts here
  std::string gtid;            // of that transaction, when it had one
  std::string server;          // where it was applied ("host:port"), for a warning on resume
};

// nullopt when there is no such file. Throws Error(kUsage) for a file that is not a state file.
std::optional<ReplayState> read_replay_state(const std::string& path);
// Replaces the file atomically: a temporary file beside it, fsync, rename, fsync of the folder.
// Throws Error(kIo).
void write_replay_state(const std::string& path, const ReplayState& state);

struct ReplayProgress {
  const std::string& file;
  std::uint64_t position;      // in `file`
  std::uint64_t events;        // events applied
  std::uint64_t transactions;  // transactions applied
  std::uint64_t bytes_done;    // binlog bytes behind us, over all inputs
  std::uint64_t bytes_total;   // 0 when unknown (standard input)
};
using ReplayProgressFn = std::function<void(const ReplayProgress&)>;

struct ReplayResult {
  RunStats stats;
  std::uint64_t transactions_applied = 0;
  std::uint64_t events_applied = 0;
  std::optional<ReplayState> last;  // nullopt: no transaction applied
};

// Applies the inputs to the server through `session`, as `binrecover ... | mysql` would, but
// one whole transaction at a time: the SQL text of each transaction is sent statement by
// statement and, once committed, its end position is written to the state file. With
// opts.resume the run continues right after the state file's position (files before its file
// are skipped, --start-position is replaced); without it an existing state file is refused so
// nothing is applied twice by accident. Throws Error: kServer (exit 6) at the first failing
// statement, after rolling its transaction back; the message ends with the coordinates to
// resume from.
// `schema` (may be null) names the columns for --rows-as-sql in logs without metadata.
ReplayResult run_replay(std::vector<InputFile> inputs, DecodeOptions decode, FilterOptions filter,
                        SqlOptions sql, const ReplayOptions& opts, Session& session,
                        const binlog::WarningSink& warn, const ReplayProgressFn& progress = {},
                        Schema* schema = nullptr);

}  // namespace binrecover::recovery
