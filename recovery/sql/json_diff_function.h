#pragma once

// The name of the SQL function a MySQL partial JSON update's diff is (shared by the SQL
// form, --rows-as-sql, and the -v form as mysqlbinlog prints it).

#include <string_view>

#include "binlog/row_values.h"

namespace binrecover::recovery {

// The SQL function that applies diff `d` (as MySQL's json_diff_operation_name names it): an
// INSERT at an array cell ("...]") is JSON_ARRAY_INSERT.
inline std::string_view json_diff_function(const binlog::JsonDiff& d) {
  switch (d.op) {
    case binlog::JsonDiff::Op::kReplace:
      return "JSON_REPLACE";
    case binlog::JsonDiff::Op::kInsert:
      return d.path.back() == ']' ? "JSON_ARRAY_INSERT" : "JSON_INSERT";
    case binlog::JsonDiff::Op::kRemove:
      break;
  }
  return "JSON_REMOVE";
}

}  // namespace binrecover::recovery
