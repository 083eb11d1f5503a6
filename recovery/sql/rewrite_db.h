#pragma once

#include <string>
#include <string_view>

#include "recovery/reading/statement_dbs.h"

namespace binrecover::recovery {

// --rewrite-db in the text of a statement: the database names it spells out — `FROM`.table
// (and FROM.table.column) qualifiers, and the database of CREATE/ALTER/DROP DATABASE and USE —
// read with the lexer that finds what a statement changes (strings and comments are left alone;
// executable comments are read as SQL). Unqualified names and names inside routine bodies
// stored as text are not touched. Writes the new text to `out` and returns true when something
// changed.
bool rewrite_statement(std::string_view sql, const DatabaseRewrites& rewrites, std::string& out);

}  // namespace binrecover::recovery
