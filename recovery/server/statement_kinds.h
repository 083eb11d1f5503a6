#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// What a statement binrecover sends is: the classifiers the Applier (recovery/server/apply.h)
// decides by (which statements share a packet, which leave the session's settings as they are,
// which is a COMMIT), and the BINLOG statement's forms.

namespace binrecover::recovery {

// The base64 text of a `BINLOG '<base64>'` statement, or nullopt for any other statement.
std::optional<std::string_view> binlog_base64(std::string_view statement);

// A BINLOG statement in MariaDB's fragment form (10.2+), for a statement larger than the
// server's max_allowed_packet: SET @binlog_fragment_0='<first half>', SET
// @binlog_fragment_1='<second half>', BINLOG @binlog_fragment_0, @binlog_fragment_1 (each a
// statement of at most `max_statement` bytes). MariaDB caps every string a statement builds at
// max_allowed_packet (CONCAT, GROUP_CONCAT, long data), so two halves are as far as it goes:
// nullopt when a half would still not fit.
std::optional<std::vector<std::string>> binlog_fragments(std::string_view base64,
                                                         std::size_t max_statement);

// Whether a statement is a plain COMMIT (as the SQL writer ends a transaction), or a plain
// BEGIN / START TRANSACTION (as it starts one).
bool is_commit(std::string_view statement);
// A statement of the log's own text that changes tables only, never a session variable nor the
// default database: a DDL of tables and indexes, one statement, that runs nothing (no SELECT:
// one could call a function that sets a variable, or read rows under locks). It waits for
// metadata locks alone, never for a row lock.
bool is_table_ddl(std::string_view statement);
// Whether `word` (ASCII) is anywhere in `s`, letter case aside.
bool contains_ci(std::string_view s, std::string_view word);
bool is_plain_begin(std::string_view statement);

namespace statement_kinds {

// The statement's first line, shortened, for messages.
std::string snippet(std::string_view stmt);
// `s` without the spaces, tabs and line ends around it.
std::string_view trim(std::string_view s);
// Whether `s` starts with `prefix` (ASCII), letter case aside.
bool starts_with_ci(std::string_view s, std::string_view prefix);
// "/*!\C utf8mb4 */" (the client's charset command) -> "utf8mb4".
std::optional<std::string_view> charset_command(std::string_view stmt);
// "/*!80011" of a statement that is nothing but a versioned comment; nullopt for any other.
std::optional<std::string_view> comment_only_prefix(std::string_view stmt);
// The body of a statement of the writer's own inside a versioned comment, or the statement.
std::optional<std::string_view> setting_body(std::string_view stmt);
// The session variable a statement of the writer's own sets from a constant (its text up to
// the '='; the whole `use`), when that is all it does.
std::optional<std::string_view> session_setting(std::string_view stmt);
// A statement of the writer's own that sets the next transaction's GTID from a constant
// (MariaDB's gtid_seq_no, MySQL's GTID_NEXT); MariaDB's gtid_seq_no alone.
bool sets_next_gtid(std::string_view stmt);
bool sets_maria_seq_no(std::string_view stmt);
// One statement of the log's own text that controls the transaction only (SAVEPOINT, ROLLBACK
// [TO], RELEASE SAVEPOINT, XA, BEGIN, COMMIT).
bool controls_transaction(std::string_view stmt);
// Statements of the writer's (and replay's) own that leave the session's variables as they are.
bool keeps_session(std::string_view stmt);

}  // namespace statement_kinds

}  // namespace binrecover::recovery
