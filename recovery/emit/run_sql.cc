#include "recovery/emit/run_sql.h"

namespace binrecover::recovery {

RunStats run_sql(const std::vector<InputFile>& inputs, const DecodeOptions& decode,
                 const FilterOptions& filter, SqlSink& sink, const binlog::WarningSink& warn,
                 const ProgressFn& progress) {
  WalkOptions opts;
  opts.decode = decode;
  opts.filter = filter;
  sink.begin();
  RunStats stats;
  try {
    stats = walk(inputs, opts, sink, warn, progress);
  } catch (...) {
    sink.finish();
    throw;
  }
  sink.finish();
  return stats;
}

}  // namespace binrecover::recovery
