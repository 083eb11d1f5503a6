#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "binlog/reader.h"
#include "recovery/reading/filter.h"
#include "recovery/reading/walker.h"
#include "recovery/sql/output.h"
#include "recovery/text/escape.h"

namespace binrecover::recovery {

enum class TableFormat : std::uint8_t { kTable, kTsv, kJson };

struct EventListOptions {
  TableFormat format = TableFormat::kTable;
  std::uint64_t limit_offset = 0;  // --limit OFFSET,COUNT
  std::optional<std::uint64_t> limit_count;
  bool flush_each = false;  // each row written out at once (-R --stop-never)
};

// The columns of SHOW BINLOG EVENTS (Log_name, Pos, Event_type, Server_id, End_log_pos, Info)
// for every event of the inputs the range and filters keep (the events SQL output would hold,
// and also those of transactions the input cuts or the stop point crosses), streamed: `table`
// pads to widths known before the first row (names, and digits of the file sizes), so nothing
// is held back. --start-position (--from) may be any event boundary.
std::uint64_t run_event_list(const std::vector<InputFile>& inputs, const DecodeOptions& decode,
                             const FilterOptions& filter, const EventListOptions& opts, Output& out,
                             const binlog::WarningSink& warn);

}  // namespace binrecover::recovery
