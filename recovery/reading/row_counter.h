#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "binlog/arena.h"
#include "binlog/events.h"
#include "binlog/row_layout.h"

namespace binrecover::recovery {

// Counts the rows of rows events without decoding their values: the table maps' column
// layouts by table id, as `stats` and `plan` need them (the SQL writers decode whole tables in
// TableCache instead).
class RowCounter {
 public:
  struct Table {
    std::string db, table;
    std::string name;  // "db.table"
    std::vector<binlog::ColumnLayout> layout;
    bool no_metadata = false;  // a map of MySQL 5.1.15-5.1.17: no column metadata, no layout
  };

  void note(const binlog::TableMap& tm);
  // The table of `rows` (its map read before) and how many rows the event holds. Throws
  // kMissingTableMap without a map, and what uncompressing or counting throws.
  struct Count {
    const Table* table;
    std::uint64_t rows;
  };
  Count count(const binlog::Event& ev, const binlog::Rows& rows);

 private:
  std::unordered_map<std::uint64_t, Table> tables_;
  binlog::EventArena scratch_;
};

}  // namespace binrecover::recovery
