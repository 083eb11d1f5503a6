#pragma once

#include <cstdint>
#include <ctime>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "recovery/pipeline.h"
#include "recovery/transaction.h"

namespace binrecover::recovery {

// The range a walk covers: the start applies to the first file, the stop to the last (stop
// times to every file), as in SQL output.
struct WalkRange {
  std::optional<std::uint64_t> start_position;
  std::optional<std::uint64_t> stop_position;
  std::optional<std::time_t> stop_datetime;
};

// Called for every assembled unit (meta events, complete and incomplete transactions, with MySQL
// payloads unpacked into their transaction) with the file's display name. Return false to stop.
using UnitFn = std::function<bool(const std::string& file, const Transaction& unit)>;

// Reads the inputs in order and hands out their units: the one reading loop of `plan`, `stats`
// and `--flashback`. Throws binrecover::Error with the file's name.
void walk_units(const std::vector<InputFile>& inputs, const DecodeOptions& decode,
                const WalkRange& range, const binlog::WarningSink& warn, const UnitFn& fn);

}  // namespace binrecover::recovery
