#include "recovery/reading/row_counter.h"

#include "binlog/error.h"
#include "binlog/maria_compression.h"

namespace binrecover::recovery {

void RowCounter::note(const binlog::TableMap& tm) {
  Table& t = tables_[tm.table_id];
  t.db.assign(tm.db);
  t.table.assign(tm.table);
  t.name.assign(tm.db).append(".").append(tm.table);
  t.no_metadata = tm.column_count > 0 && tm.null_bits.empty();
  if (t.no_metadata)
    t.layout.clear();
  else
    t.layout = binlog::column_layout(tm);
}

RowCounter::Count RowCounter::count(const binlog::Event& ev, const binlog::Rows& rows) {
  const auto it = tables_.find(rows.table_id);
  if (it == tables_.end())
    throw Error(ErrorCode::kMissingTableMap,
                "rows event for table id " + std::to_string(rows.table_id) + " has no table map",
                ev.pos);
  if (it->second.no_metadata)
    throw Error(ErrorCode::kUnsupportedFormat,
                "the rows of " + it->second.name +
                    " cannot be counted: a table map of MySQL 5.1 before 5.1.18 carries no "
                    "column metadata",
                ev.pos);
  binlog::Bytes data = rows.rows;
  if (rows.compressed) {
    scratch_.reset();
    data = binlog::maria_uncompress(rows.rows, scratch_, ev.pos);
  }
  return {&it->second, binlog::count_rows(rows, data, it->second.layout, ev.pos)};
}

}  // namespace binrecover::recovery
