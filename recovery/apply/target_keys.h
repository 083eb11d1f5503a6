#pragma once

#include <string>
#include <unordered_map>

#include "recovery/apply/write_set.h"
#include "recovery/server/apply.h"

namespace binrecover::recovery {

// The keys of the target's tables, read from its information_schema (TABLES, COLUMNS,
// STATISTICS, KEY_COLUMN_USAGE, REFERENTIAL_CONSTRAINTS) when a table is first asked for, kept
// until invalidate().
class TargetKeys : public KeySource {
 public:
  explicit TargetKeys(Session& session) : session_(session) {}
  const TableKeys& keys(const std::string& db, const std::string& table) override;
  void invalidate() override { tables_.clear(); }

 private:
  TableKeys load(const std::string& db, const std::string& table);
  Session& session_;
  std::unordered_map<std::string, TableKeys> tables_;  // by "db\0table"
};

// The rule for a key column of the given information_schema DATA_TYPE, CHARACTER_SET_NAME and
// COLLATION_NAME (lower case, "" for NULL).
KeyNorm key_norm(std::string_view data_type, std::string_view charset, std::string_view collation);

}  // namespace binrecover::recovery
