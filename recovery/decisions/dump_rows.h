#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace binrecover::recovery {

// The rows each table of a mysqldump / mariadb-dump file holds ("db.table" -> rows): its
// CREATE TABLE statements (0 rows) and the rows of its INSERT / REPLACE statements (extended
// inserts counted tuple by tuple; strings with backslash escapes or doubled quotes). The
// database is the one of the last USE (or the header's "Database:" for a dump of one database
// without -B). Read in one streaming pass, memory flat in the dump's size. nullopt when the file
// does not read as a dump (no CREATE TABLE at all). Throws Error(kIo) when it cannot be read.
std::optional<std::map<std::string, std::uint64_t>> count_dump_rows(const std::string& path);

}  // namespace binrecover::recovery
