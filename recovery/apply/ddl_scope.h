#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace binrecover::recovery {

using TableNames = std::vector<std::pair<std::string, std::string>>;  // (schema, table)

// The tables whose keys a statement may change, when its text tells: CREATE TABLE (not
// TEMPORARY), DROP TABLE, ALTER TABLE (not renaming, not exchanging a partition), TRUNCATE,
// CREATE INDEX and DROP INDEX, naming no foreign key (FOREIGN, REFERENCES) anywhere; none for
// INSERT, UPDATE, DELETE and REPLACE (statement-based rows); an
// unqualified name is in `db` (the statement's default database). nullopt for any other
// statement, one that names a foreign key, several statements, a temporary table or an
// unqualified name without a default database: then any table's keys may have changed.
// (A new foreign key is the only way a table's change reaches other tables' keys, through
// their cascades and parent keys, which TargetKeys::forget follows by name.)
std::optional<TableNames> tables_changed_by(std::string_view statement, std::string_view db);

}  // namespace binrecover::recovery
