#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace binrecover::recovery {

// A table (or, for database-level statements, a database) that a statement changes. An empty
// `db` means the statement's default database.
struct TableRef {
  std::string_view db;
  std::string_view table;
};

// What a statement changes, found by reading its text. MariaDB does not log the updated-db
// names that MySQL puts in the query event, and the default database alone is wrong for
// `USE shop; CREATE TABLE crm.tags ...`; so the qualified names in the statement decide.
struct StatementTargets {
  enum class Kind : std::uint8_t {
    kUnknown,   // not a statement we parse (SET, GRANT, CALL, ...): use the default database
    kTables,    // the statement changes the tables listed
    kDatabase,  // CREATE/ALTER/DROP DATABASE: `refs[0].db` names it (empty = default)
    kAccount,   // users, roles, privileges: in no database; filters follow the default one
                // (as mysqlbinlog --database), so CREATE USER and its GRANTs stay together
  };
  // What the statement does, for finding destructive events.
  enum class Action : std::uint8_t {
    kOther,
    kInsert,
    kUpdate,
    kDelete,
    kTruncate,
    kDropTable,
    kDropDatabase,
    kCreate,
    kAlter,
    kRename,
    kLoad,
  };
  Kind kind = Kind::kUnknown;
  Action action = Action::kOther;
  bool has_where = false;  // UPDATE/DELETE: a WHERE clause at the top level
  std::array<TableRef, 16> refs{};
  std::uint8_t count = 0;
  bool overflow = false;  // more targets than fit: treat as touching every database

  void add(TableRef r) {
    if (count < refs.size())
      refs[count++] = r;
    else
      overflow = true;
  }
};

StatementTargets statement_targets(std::string_view sql);

// --rewrite-db: database names and what they become.
using DatabaseRewrites = std::vector<std::pair<std::string, std::string>>;
// The new name of `db`, or `db` itself.
std::string_view rewritten_database(std::string_view db, const DatabaseRewrites& rewrites);

// The name a part of a TableRef stands for: the text between backticks with each doubled
// backtick made single (`x``y` names x`y). Returns `raw` itself unless it had to change, then
// the name made in `buf`.
std::string_view ident_name(std::string_view raw, std::string& buf);

}  // namespace binrecover::recovery
