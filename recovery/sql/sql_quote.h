#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>

namespace binrecover::recovery {

// Names and strings in the SQL binrecover writes: the one place that quotes them.

// `name`, a backtick doubled: any byte of a name stays inside the quotes.
void append_quoted_ident(fmt::memory_buffer& out, std::string_view name);
std::string quoted_ident(std::string_view name);

// Text that goes into a `#` comment line of the SQL output (a name, a file name, a statement
// shown for reading): every byte below 0x20 but TAB, and DEL, is written \xNN, so that nothing
// in it can end the comment line, whatever the bytes (other bytes as they are, as
// mariadb-binlog shows them).
void append_comment_text(fmt::memory_buffer& out, std::string_view text);
// `name` in a comment: quoted as an identifier, then made safe as append_comment_text.
void append_comment_ident(fmt::memory_buffer& out, std::string_view name);

// Whether the mysql client reads `name`, quoted by append_quoted_ident, as the server does:
// outside NO_BACKSLASH_ESCAPES the client takes a backslash inside backticks for an escape
// (it skips the byte after it) while the server does not, so a backslash before a backtick
// moves where the client thinks the name ends.
bool client_reads_ident_alike(std::string_view name);

// Whether the mysql client passes `text` on altered whatever the quotes around it: it drops a
// CR before a line break and cannot read a NUL byte.
bool client_alters(std::string_view text);

// `sql` run so that no client parses it: "SET @binrecover_stmt=_charset X'...'", PREPARE,
// EXECUTE and DEALLOCATE PREPARE, each ended by `delimiter` but the last (the caller ends it).
void append_prepared(fmt::memory_buffer& out, std::string_view sql, std::string_view charset,
                     std::string_view delimiter);

// 'text' with the quote and the backslash escaped (the server's default sql_mode), for the
// statements binrecover sends of its own (a drill's checks, session settings).
void append_quoted_string(fmt::memory_buffer& out, std::string_view text);
std::string quoted_string(std::string_view text);

// X'..': bytes the server reads the same under every sql_mode and character set (a binary
// string; compared with a text column it compares its bytes).
std::string hex_literal(std::string_view bytes);

}  // namespace binrecover::recovery
