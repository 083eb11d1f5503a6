#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "recovery/reading/filter.h"
#include "recovery/reading/walker.h"
#include "recovery/sql/sql_sink.h"

namespace binrecover::recovery {

// Decodes the inputs in order (the reading path of recovery/walker.h), applies the filters and
// writes SQL. Throws binrecover::Error; everything written before the error is whole
// transactions, and the sink's footer is written either way.
RunStats run_sql(const std::vector<InputFile>& inputs, const DecodeOptions& decode,
                 const FilterOptions& filter, SqlSink& sink, const binlog::WarningSink& warn,
                 const ProgressFn& progress = {});

}  // namespace binrecover::recovery
