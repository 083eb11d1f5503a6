#pragma once

#include "recovery/reading/filter.h"
#include "recovery/reading/walker.h"
#include "recovery/sql/output.h"
#include "recovery/sql/schema.h"

namespace binrecover::recovery {

// Undo SQL for the selected range (--flashback, MariaDB's -B): transactions newest first, rows
// in reverse order, INSERT <-> DELETE, UPDATE images swapped, as plain SQL with column names.
// Each undone transaction is written to a temporary file as it is read and the file is then
// read backwards, so memory stays that of one transaction whatever the log's size. DDL and
// statement-format changes cannot be undone: the run stops with an error naming them.
// `schema` (may be null) names the columns of logs without metadata; the binlog's DDL is
// applied to it as the walk goes.
RunStats run_flashback(const std::vector<InputFile>& inputs, const DecodeOptions& decode,
                       const FilterOptions& filter, Output& out, const binlog::WarningSink& warn,
                       Schema* schema = nullptr);

}  // namespace binrecover::recovery
