#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "binlog/reader.h"
#include "binlog/row_values.h"
#include "recovery/reading/transaction.h"

namespace binrecover::recovery {

namespace ddl {
class DdlParser;
}  // namespace ddl

// What a CREATE TABLE says about one column, as far as decoding rows needs it.
struct ColumnDef {
  std::string name;
  bool is_unsigned = false;
  std::vector<std::string> enum_values;  // ENUM('a','b')
  std::vector<std::string> set_values;   // SET('a','b')
  std::string before_alter;              // during an ALTER: its name before the statement
  int key_part = -1;                     // during an ALTER: its place in the primary key
  bool generated = false;                // AS (expr) [VIRTUAL | STORED]
};

struct TableDef {
  std::vector<ColumnDef> columns;
  std::vector<std::uint32_t> primary_key;  // column indexes
};

// Table definitions for row events whose table maps carry no column names (MariaDB and MySQL
// with binlog_row_metadata=MINIMAL): read from the CREATE TABLE statements of a dump
// (`--schema FILE`: mysqldump / mariadb-dump output, schema-only or with data, streamed) and
// kept current by the DDL of the binlog itself (CREATE / ALTER / DROP / RENAME TABLE, DROP
// DATABASE), so each row event is decoded with the columns of its time.
class Schema {
 public:
  explicit Schema(binlog::WarningSink warn = {}) : warn_(std::move(warn)) {}

  // Reads the CREATE TABLE (and USE, ALTER, DROP, RENAME) statements of a dump. Throws
  // Error(kIo) when the file cannot be read, Error(kUsage) when it defines no table.
  void load_file(const std::string& path);
  // Applies one statement run in database `db` (the session's current database).
  void apply(std::string_view db, std::string_view sql);
  // Applies the DDL statements of a unit read from the binlog.
  void observe(const binlog::Event& ev);

  const TableDef* find(std::string_view db, std::string_view table) const;
  // Whether db.table has triggers (CREATE / DROP TRIGGER of the dump and the binlog).
  bool has_triggers(std::string_view db, std::string_view table) const;
  // Warns, once per table, that db.table's rows written as plain SQL fire its triggers again.
  void warn_trigger_rows(std::string_view db, std::string_view table, std::uint64_t pos);
  std::size_t tables() const { return tables_.size(); }
  // Bumped by every change, so decoded table layouts know when to refresh.
  std::uint64_t generation() const { return generation_; }

  // Fills in what the table map left out (names, signedness, ENUM/SET values, primary key,
  // which columns are generated) from the definition of info's table, when it has as many
  // columns as the map (and, when the map names them, the same names), and returns true; true
  // also when the map carries names itself. Otherwise returns false and, with `positional`,
  // names the columns @1, @2, ... and warns once per table.
  bool complete(binlog::TableInfo& info, std::uint64_t pos, bool positional);

 private:
  using Key = std::pair<std::string, std::string>;  // db, table (db "" = any database)
  TableDef* lookup(std::string_view db, std::string_view table);
  // The entry of db.table to change: a definition found under the any-database key is
  // copied to db.table first, so the change does not reach other databases' tables.
  TableDef* lookup_to_change(std::string_view db, std::string_view table);
  void alter(ddl::DdlParser& p, const std::string& db, const std::string& table);

  std::map<Key, TableDef> tables_;
  std::set<Key> warned_;                           // tables already warned about (once per run)
  std::map<Key, std::set<std::string>> triggers_;  // trigger names (lower case) by table
  std::set<Key> trigger_warned_;
  std::uint64_t generation_ = 0;
  binlog::WarningSink warn_;
};

}  // namespace binrecover::recovery
