#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "binlog/reader.h"
#include "recovery/filter.h"
#include "recovery/sql_sink.h"

namespace binrecover::recovery {

// One input: the path to open ("-" = stdin) and the name shown in messages and listings.
struct InputFile {
  std::string path;
  std::string display_name;             // Log_name: the file's base name
  std::optional<binlog::Bytes> memory;  // read these bytes instead of `path` (fuzzing, tests)
};

// Opens the source an input names.
std::unique_ptr<binlog::Source> open_input(const InputFile& in);

struct DecodeOptions {
  binlog::ReaderOptions reader;
  std::uint64_t skip_events = 0;  // --offset: events skipped after the format description
};

struct RunStats {
  std::uint64_t events = 0;
  std::uint64_t transactions_written = 0;
  std::uint64_t transactions_dropped_incomplete = 0;
  std::uint64_t bytes_read = 0;
  std::uint64_t warnings = 0;
};

// Optional hook called after each file with bytes done, for progress reports.
using ProgressFn = std::function<void(const std::string& file, std::uint64_t pos,
                                      std::optional<std::uint64_t> size)>;

// Optional hook called right after the sink wrote a unit (an event outside transactions, or a
// whole transaction), with the input's display name: replay applies and records each there.
using UnitHook = std::function<void(const std::string& file, const Transaction& unit)>;

// Decodes the inputs in order, assembles transactions, applies the filters and writes SQL.
// Throws binrecover::Error; everything written before the error is whole transactions, and
// the sink's footer is written either way.
RunStats run_sql(const std::vector<InputFile>& inputs, const DecodeOptions& decode,
                 const FilterOptions& filter, SqlSink& sink, const binlog::WarningSink& warn,
                 const ProgressFn& progress = {}, const UnitHook& on_unit = {});

}  // namespace binrecover::recovery
