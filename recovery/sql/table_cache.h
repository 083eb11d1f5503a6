#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "binlog/events.h"
#include "recovery/sql/row_sql.h"
#include "recovery/sql/schema.h"

namespace binrecover::recovery {

// The decoded tables of the table maps read, by table id: the one cache of the SQL writers
// (SQL output, -v, --rows-as-sql, --flashback). Table maps repeat before every statement, so a
// table is decoded again only when its map's bytes change (an ALTER, another table under the
// same id) or the schema does. Entries stay where they are (rows events keep pointers to them).
class TableCache {
 public:
  struct Options {
    Schema* schema = nullptr;  // names for logs without them (--schema), may be null
    bool positional = false;   // Schema::complete: positional names when the schema has none
    const std::vector<std::pair<std::string, std::string>>* rewrites = nullptr;  // --rewrite-db
    bool json_as_text = false;  // SqlTable::json_as_text
  };
  explicit TableCache(Options opts) : opts_(opts) {}
  void set_schema(Schema* schema) { opts_.schema = schema; }

  // The table of the map `ev` carries (its body `tm`), decoded if needed. Throws what decoding
  // the map throws; the entry is then dropped.
  const SqlTable& update(const binlog::Event& ev, const binlog::TableMap& tm,
                         const binlog::FormatContext& ctx);
  // nullptr when no map of that id was read (or it did not decode).
  const SqlTable* find(std::uint64_t table_id) const {
    const auto it = tables_.find(table_id);
    return it == tables_.end() ? nullptr : &it->second.table;
  }

 private:
  struct Entry {
    SqlTable table;
    std::string sig;  // the map's bytes after the header (its checksum left out)
    std::uint64_t generation = 0;
    bool valid = false;
  };
  Options opts_;
  std::unordered_map<std::uint64_t, Entry> tables_;
};

}  // namespace binrecover::recovery
