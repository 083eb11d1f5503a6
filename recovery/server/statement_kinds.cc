#include "recovery/server/statement_kinds.h"

#include <algorithm>
#include <cctype>

namespace binrecover::recovery {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

}  // namespace

namespace statement_kinds {

std::string snippet(std::string_view stmt) {
  std::string_view s = stmt.substr(0, stmt.find('\n'));
  std::string out(s.substr(0, 60));
  if (s.size() > 60 || s.size() < stmt.size()) out += "...";
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

bool starts_with_ci(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[i])) !=
        std::tolower(static_cast<unsigned char>(prefix[i])))
      return false;
  return true;
}

// "/*!\C utf8mb4 */" -> "utf8mb4"
std::optional<std::string_view> charset_command(std::string_view stmt) {
  if (!stmt.starts_with("/*!\\C") || !stmt.ends_with("*/")) return std::nullopt;
  std::string_view name = trim(stmt.substr(5, stmt.size() - 7));
  if (name.empty() || name.find_first_of(" \t\n'\"`") != std::string_view::npos)
    return std::nullopt;
  return name;
}

// "/*!80011" of a statement that is nothing but a comment "/*!80011 ... */" (or "/*M!...");
// nullopt for any other statement.
std::optional<std::string_view> comment_only_prefix(std::string_view stmt) {
  std::size_t at;
  if (stmt.starts_with("/*!"))
    at = 3;
  else if (stmt.starts_with("/*M!"))
    at = 4;
  else
    return std::nullopt;
  if (stmt.find("*/") != stmt.size() - 2) return std::nullopt;
  std::size_t end = at;
  while (end < stmt.size() && end - at < 6 && stmt[end] >= '0' && stmt[end] <= '9') ++end;
  if (end - at != 5 && end - at != 6) return std::nullopt;  // no version: always run
  return stmt.substr(0, end);
}

// The body of a statement of the writer's own inside a versioned comment ("/*!50700 SET ...*/",
// "/*M!100001 SET ...*/"), or the statement itself; nullopt for a comment that is not one.
std::optional<std::string_view> setting_body(std::string_view stmt) {
  if (!stmt.starts_with("/*")) return stmt;
  const std::size_t space = stmt.find(' ');
  if (space == std::string_view::npos || !stmt.ends_with("*/")) return std::nullopt;
  return stmt.substr(space + 1, stmt.size() - space - 3);
}

// The session variable that a statement of the writer's own sets, when setting it from a
// constant is all the statement does ("SET @@session.x=1", also in a versioned comment, with
// more assignments after it; "use `db`"): the text up to its first '=' (the whole `use`).
// Not a GTID that changes with every transaction (gtid_seq_no, GTID_NEXT: the server resets
// them at each commit), nor one that reads a variable. (gtid_domain_id stays as set.)
std::optional<std::string_view> session_setting(std::string_view stmt) {
  const auto body = setting_body(stmt);
  if (!body) return std::nullopt;
  if (body->starts_with("use ")) return stmt;
  if (!body->starts_with("SET @@session.") || body->find("=@") != std::string_view::npos)
    return std::nullopt;
  if ((body->find("gtid") != std::string_view::npos ||
       body->find("GTID") != std::string_view::npos) &&
      (!body->starts_with("SET @@session.gtid_domain_id=") ||
       body->find(',') != std::string_view::npos))
    return std::nullopt;
  const std::size_t eq = stmt.find('=');
  if (eq == std::string_view::npos) return std::nullopt;
  return stmt.substr(0, eq);
}

// A statement of the writer's own that sets the next transaction's GTID from a constant
// (MariaDB's gtid_seq_no, MySQL's GTID_NEXT) and nothing else.
bool sets_next_gtid(std::string_view stmt) {
  const auto body = setting_body(stmt);
  if (!body) return false;
  const std::size_t eq = body->find('=');
  if (eq == std::string_view::npos) return false;
  const std::string_view name = body->substr(0, eq), value = body->substr(eq + 1);
  return (name == "SET @@session.gtid_seq_no" || name == "SET @@SESSION.GTID_NEXT") &&
         value.find_first_of(",@;") == std::string_view::npos;
}

// MariaDB's gtid_seq_no of a unit, set by a statement of the writer's own.
bool sets_maria_seq_no(std::string_view stmt) {
  if (!sets_next_gtid(stmt)) return false;
  const auto body = setting_body(stmt);
  return body && body->starts_with("SET @@session.gtid_seq_no=");
}

// A statement of the log's own text that controls the transaction only (SAVEPOINT, ROLLBACK
// [TO], RELEASE SAVEPOINT, XA, BEGIN, COMMIT), one statement: it leaves the session's variables
// as they are. (Taken for one that may change them, each made a parallel replay send every
// setting again: a SAVEPOINT-heavy log cost the target 4.4 SETs more per transaction, its CPU
// nearly twice serial replay's.)
bool controls_transaction(std::string_view stmt) {
  if (stmt.find(';') != std::string_view::npos) return false;
  return starts_with_ci(stmt, "SAVEPOINT ") || starts_with_ci(stmt, "ROLLBACK") ||
         starts_with_ci(stmt, "RELEASE SAVEPOINT ") || starts_with_ci(stmt, "XA ") ||
         is_plain_begin(stmt) || is_commit(stmt);
}

// Statements of the writer's (and replay's) own that leave the session's variables as they
// are (but for the GTID of the next transaction, and the workers' lock wait).
bool keeps_session(std::string_view stmt) {
  return starts_with_ci(stmt, "BINLOG") || controls_transaction(stmt) ||
         starts_with_ci(stmt, "REPLACE INTO ") || starts_with_ci(stmt, "SET TIMESTAMP=") ||
         sets_next_gtid(stmt) || starts_with_ci(stmt, "SET SESSION innodb_lock_wait_timeout = ");
}

}  // namespace statement_kinds

using namespace statement_kinds;  // NOLINT(google-build-using-namespace)

std::optional<std::string_view> binlog_base64(std::string_view statement) {
  if (!starts_with_ci(statement, "BINLOG")) return std::nullopt;
  std::string_view rest = trim(statement.substr(6));
  if (rest.size() < 2 || rest.front() != '\'' || rest.back() != '\'') return std::nullopt;
  rest = rest.substr(1, rest.size() - 2);
  if (rest.find('\'') != std::string_view::npos) return std::nullopt;
  return rest;
}

std::optional<std::vector<std::string>> binlog_fragments(std::string_view base64,
                                                         std::size_t max_statement) {
  static constexpr std::string_view kSet[2] = {"SET @binlog_fragment_0='",
                                               "SET @binlog_fragment_1='"};
  const std::size_t half = (base64.size() + 1) / 2;
  if (kSet[0].size() + half + 1 > max_statement) return std::nullopt;
  std::vector<std::string> out;
  for (int k = 0; k < 2; ++k) {
    const std::string_view part = k == 0 ? base64.substr(0, half) : base64.substr(half);
    std::string s;
    s.reserve(kSet[k].size() + part.size() + 1);
    s.append(kSet[k]).append(part).push_back('\'');
    out.push_back(std::move(s));
  }
  out.emplace_back("BINLOG @binlog_fragment_0, @binlog_fragment_1");
  out.emplace_back("SET @binlog_fragment_0=NULL, @binlog_fragment_1=NULL");
  return out;
}

bool is_plain_begin(std::string_view statement) {
  statement = trim(statement);
  auto word = [&](std::string_view w) {
    return statement.size() == w.size() && starts_with_ci(statement, w);
  };
  return word("BEGIN") || word("START TRANSACTION");
}

bool is_commit(std::string_view statement) {
  statement = trim(statement);
  constexpr std::string_view kCommit = "COMMIT";
  if (statement.size() < kCommit.size()) return false;
  for (std::size_t i = 0; i < kCommit.size(); ++i)
    if (std::toupper(static_cast<unsigned char>(statement[i])) != kCommit[i]) return false;
  // COMMIT, COMMIT /* xid=.. */, COMMIT WORK; not COMMITTED or a name that starts so
  const std::string_view rest = trim(statement.substr(kCommit.size()));
  return rest.empty() || rest.substr(0, 2) == "/*" || rest == "WORK" || rest == "work";
}

// (The session settings a parallel replay's unit sends are not sent again after one: a log with
// a DDL every few transactions sent nine more SETs with each.)
bool is_table_ddl(std::string_view stmt) {
  static constexpr std::string_view kTableDdl[] = {"CREATE TABLE ",
                                                   "CREATE TEMPORARY TABLE ",
                                                   "CREATE OR REPLACE TABLE ",
                                                   "DROP TABLE ",
                                                   "DROP TEMPORARY TABLE ",
                                                   "ALTER TABLE ",
                                                   "CREATE INDEX ",
                                                   "CREATE UNIQUE INDEX ",
                                                   "DROP INDEX ",
                                                   "TRUNCATE TABLE ",
                                                   "RENAME TABLE "};
  if (stmt.find(';') != std::string_view::npos) return false;
  if (std::none_of(std::begin(kTableDdl), std::end(kTableDdl),
                   [&](std::string_view p) { return starts_with_ci(stmt, p); }))
    return false;
  return !contains_ci(stmt, "SELECT");
}

bool contains_ci(std::string_view s, std::string_view word) {
  for (std::size_t i = 0; i + word.size() <= s.size(); ++i)
    if (starts_with_ci(s.substr(i), word)) return true;
  return false;
}

}  // namespace binrecover::recovery
