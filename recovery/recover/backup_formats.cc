#include <algorithm>
#include <charconv>
#include <cstddef>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "binlog/error.h"
#include "recovery/reading/sql_lexer.h"
#include "recovery/recover/backup_text.h"

namespace binrecover::recovery::coords {

using binrecover::Error;
using binrecover::ErrorCode;

namespace {

// ---------------------------------------------------------------------------------------------
// SQL statements of a dump header

struct Token {
  enum class Kind : std::uint8_t { kEnd, kWord, kString, kPunct };
  Kind kind = Kind::kEnd;
  std::string text;
};

// Words (`@@GLOBAL.GTID_PURGED` is one), quoted strings and punctuation of one statement, read
// by the one SQL lexer (recovery/sql_lexer.h). Comments are skipped, the executable kind too:
// the only one mysqldump puts in these statements is the /*!80000 '+'*/ of GTID_PURGED, which
// carries no coordinate.
class StatementLexer {
 public:
  explicit StatementLexer(std::string_view s) : lex_(s, SqlLexerOptions{false, "@."}) {}

  Token next() {
    const SqlToken t = lex_.next();
    switch (t.kind) {
      case SqlToken::Kind::kEnd:
        return {};
      case SqlToken::Kind::kWord:
      case SqlToken::Kind::kNumber:
        return {Token::Kind::kWord, std::string(t.text)};
      case SqlToken::Kind::kIdent:
      case SqlToken::Kind::kString:
        return {Token::Kind::kString, unquoted(t)};
      case SqlToken::Kind::kPunct:
        break;
    }
    return {Token::Kind::kPunct, std::string(t.text)};
  }

 private:
  SqlLexer lex_;
};

bool is_word(const Token& t, std::string_view w) {
  return t.kind == Token::Kind::kWord && iequals(t.text, w);
}

bool is_punct(const Token& t, char c) {
  return t.kind == Token::Kind::kPunct && t.text.size() == 1 && t.text[0] == c;
}

// Whether `stmt` holds a ';' outside strings and comments.
bool statement_ended(std::string_view stmt) {
  StatementLexer lex(stmt);
  for (Token t = lex.next(); t.kind != Token::Kind::kEnd; t = lex.next())
    if (is_punct(t, ';')) return true;
  return false;
}

// A line without the "-- " or "/* " that comments out a statement mysqldump only suggests
// (--master-data=2, --set-gtid-purged=COMMENTED). Executable comments (/*!40101, /*M!100100)
// are SQL and stay.
std::string_view uncomment(std::string_view line, bool& commented) {
  line = trim_left(line);
  if (line.substr(0, 2) == "--") {
    commented = true;
    return trim_left(line.substr(2));
  }
  if (line.substr(0, 2) == "/*" && line.substr(2, 1) != "!" && line.substr(2, 2) != "M!") {
    commented = true;
    return trim_left(line.substr(2));
  }
  return line;
}

// The first word of a line after an executable-comment prefix such as "/*!40000 ".
std::string_view first_word(std::string_view line) {
  line = trim_left(line);
  if (line.substr(0, 3) == "/*!" || line.substr(0, 4) == "/*M!") {
    line.remove_prefix(line[2] == '!' ? 3 : 4);
    while (!line.empty() && is_digit(line.front())) line.remove_prefix(1);
    line = trim_left(line);
  }
  std::size_t n = 0;
  while (n < line.size() &&
         ((line[n] >= 'a' && line[n] <= 'z') || (line[n] >= 'A' && line[n] <= 'Z')))
    ++n;
  return line.substr(0, n);
}

// A statement that starts the schema or the data: the coordinates are all above it.
bool starts_body(std::string_view line) {
  const std::string_view w = first_word(line);
  for (std::string_view kw :
       {"CREATE", "INSERT", "REPLACE", "DROP", "USE", "LOCK", "ALTER", "DELIMITER"})
    if (iequals(w, kw)) return true;
  return false;
}

// A line that begins a new statement, so it cannot continue the one being gathered.
bool starts_statement(std::string_view body) {
  if (starts_body(body)) return true;
  const std::string_view w = first_word(body);
  for (std::string_view kw : {"CHANGE", "SET", "STOP", "START"})
    if (iequals(w, kw)) return true;
  return false;
}

// Whether a line opens a statement that may carry coordinates; decided on its first words so
// that a comment such as "-- Set up ..." is not mistaken for one.
bool opens_coordinate_statement(std::string_view body) {
  StatementLexer lex(body);
  const Token first = lex.next();
  const Token second = lex.next();
  if (is_word(first, "CHANGE"))
    return second.kind == Token::Kind::kEnd || is_word(second, "MASTER") ||
           is_word(second, "REPLICATION");
  if (!is_word(first, "SET")) return false;
  if (second.kind == Token::Kind::kEnd || is_word(second, "GLOBAL")) return true;
  return second.kind == Token::Kind::kWord && istarts_with(second.text, "@@GLOBAL.");
}

// The statement starting on `first` joined with the lines that continue it, up to its ';'.
std::string gather(std::string_view first, Lines& lines) {
  std::string stmt(first);
  if (first.find(';') != std::string_view::npos && statement_ended(stmt)) return stmt;
  for (int n = 1; n < kMaxStatementLines; ++n) {
    const auto next = lines.peek();
    if (!next) break;
    bool commented = false;
    const std::string_view body = uncomment(*next, commented);
    if (starts_statement(body)) break;  // the statement was never closed
    lines.next();
    stmt += '\n';
    stmt += body;
    if (body.find(';') != std::string_view::npos && statement_ended(stmt)) break;
  }
  return stmt;
}

struct ChangeTarget {
  std::string file;
  std::optional<std::string> position;
};

// CHANGE MASTER ['connection'] TO key = value, ... [FOR CHANNEL 'name'];
// CHANGE REPLICATION SOURCE TO key = value, ... [FOR CHANNEL 'name'];
std::optional<ChangeTarget> parse_change(std::string_view stmt) {
  StatementLexer lex(stmt);
  if (!is_word(lex.next(), "CHANGE")) return std::nullopt;
  Token t = lex.next();
  if (is_word(t, "MASTER")) {
    t = lex.next();
    if (t.kind == Token::Kind::kString) t = lex.next();  // MariaDB connection name
  } else if (is_word(t, "REPLICATION")) {
    if (!is_word(lex.next(), "SOURCE")) return std::nullopt;
    t = lex.next();
  } else {
    return std::nullopt;
  }
  if (!is_word(t, "TO")) return std::nullopt;
  ChangeTarget out;
  while (true) {
    const Token key = lex.next();
    if (key.kind != Token::Kind::kWord || is_word(key, "FOR")) break;
    if (!is_punct(lex.next(), '=')) break;
    const Token value = lex.next();
    if (value.kind != Token::Kind::kWord && value.kind != Token::Kind::kString) break;
    if (is_word(key, "MASTER_LOG_FILE") || is_word(key, "SOURCE_LOG_FILE"))
      out.file = value.text;
    else if (is_word(key, "MASTER_LOG_POS") || is_word(key, "SOURCE_LOG_POS"))
      out.position = value.text;
    if (!is_punct(lex.next(), ',')) break;
  }
  return out;
}

enum class GtidVariable : std::uint8_t { kMysqlPurged, kMariadbSlavePos };

struct GtidAssignment {
  GtidVariable variable;
  std::string value;
};

// SET @@GLOBAL.GTID_PURGED = [/*!80000 '+'*/] 'set'      MySQL (COMMENTED mode: '+set')
// SET [GLOBAL | @@GLOBAL.]gtid_slave_pos = 'pos'          MariaDB
std::optional<GtidAssignment> parse_set_gtid(std::string_view stmt) {
  StatementLexer lex(stmt);
  if (!is_word(lex.next(), "SET")) return std::nullopt;
  Token name = lex.next();
  if (is_word(name, "GLOBAL")) name = lex.next();
  if (name.kind != Token::Kind::kWord) return std::nullopt;
  std::string_view var = name.text;
  if (istarts_with(var, "@@GLOBAL.")) var.remove_prefix(9);
  GtidVariable variable;
  if (iequals(var, "GTID_PURGED"))
    variable = GtidVariable::kMysqlPurged;
  else if (iequals(var, "gtid_slave_pos"))
    variable = GtidVariable::kMariadbSlavePos;
  else
    return std::nullopt;
  if (!is_punct(lex.next(), '=')) return std::nullopt;
  const Token value = lex.next();
  if (value.kind != Token::Kind::kString) return std::nullopt;
  std::string_view v = trim(value.text);
  if (!v.empty() && v.front() == '+') v.remove_prefix(1);
  return GtidAssignment{variable, without_spaces(v)};
}

// mariadb-dump 10.11+ prints the GTID position after the data ("The deferred gtid setting for
// slave corresponding to the master-data CHANGE-MASTER follows"); the last one wins.
std::string deferred_mariadb_gtid(std::string_view tail) {
  std::string found;
  Lines lines(tail);
  while (const auto line = lines.next()) {
    bool commented = false;
    const std::string_view body = uncomment(*line, commented);
    if (!istarts_with(body, "SET")) continue;
    if (const auto g = parse_set_gtid(body); g && g->variable == GtidVariable::kMariadbSlavePos)
      found = g->value;
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// mydumper `metadata`

// The first non-blank line, trimmed; with `skip_hash`, '#' comment lines are passed over too.
std::string_view first_meaningful_line(std::string_view text, bool skip_hash) {
  Lines lines(text);
  while (const auto line = lines.next()) {
    const std::string_view t = trim(*line);
    if (t.empty() || (skip_hash && t.front() == '#')) continue;
    return t;
  }
  return {};
}

bool is_mydumper_master_heading(std::string_view t) {
  return iequals(t, "SHOW MASTER STATUS:") || iequals(t, "SHOW BINARY LOG STATUS:");
}

// The value of a GTID field and the lines that continue it: older mydumper and xtrabackup
// copy the server's "uuid:1-5,\nuuid:1-3" as it is.
std::string gtid_with_continuations(std::string_view first, Lines& lines) {
  std::string gtids(trim(first));
  while (!gtids.empty() && gtids.back() == ',') {
    const auto next = lines.peek();
    if (!next || trim(*next).empty()) break;
    lines.next();
    gtids += trim(*next);
  }
  return gtids;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The formats: a mysqldump / mariadb-dump (its statements above), mydumper's `metadata` (old
// text and INI forms), xtrabackup_binlog_info / mariadb_backup_binlog_info (one line
// "file<TAB>position[<TAB>gtids]", the GTID set possibly continued on the following lines).

BackupCoordinates parse_dump(std::string_view head, std::string_view tail,
                             const std::string& path) {
  BackupCoordinates out;
  out.source = "mysqldump";
  std::vector<FoundPosition> found;
  bool saw_change = false;
  Lines lines(head);
  while (const auto line = lines.next()) {
    bool commented = false;
    const std::string_view body = uncomment(*line, commented);
    if (!commented && starts_body(body)) break;
    if (!opens_coordinate_statement(body)) continue;
    const std::size_t at = lines.number();
    const std::string stmt = gather(body, lines);
    if (const auto change = parse_change(stmt)) {
      saw_change = true;
      if (!change->file.empty()) add_position(found, change->file, change->position, at, path);
    } else if (const auto gtid = parse_set_gtid(stmt)) {
      std::string& slot =
          gtid->variable == GtidVariable::kMysqlPurged ? out.mysql_gtid_set : out.mariadb_gtid_pos;
      if (slot.empty()) slot = gtid->value;
    }
  }
  // Only a dump made with --master-data or --dump-slave has a GTID position after its data.
  if (saw_change && out.mariadb_gtid_pos.empty())
    out.mariadb_gtid_pos = deferred_mariadb_gtid(tail);
  take_position(out, found, path);
  return out;
}

// Old text form (mydumper before 0.12):
//   Started dump at: 2023-01-01 10:00:00
//   SHOW MASTER STATUS:
//   \tLog: mysql-bin.000003
//   \tPos: 154
//   \tGTID:3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5
//
//   SHOW SLAVE STATUS:          (the master of this replica: not ours, skipped)
//   ...
std::optional<BackupCoordinates> parse_mydumper_text(std::string_view head,
                                                     const std::string& path) {
  const std::string_view opening = first_meaningful_line(head, false);
  if (!istarts_with(opening, "Started dump at:") && !is_mydumper_master_heading(opening))
    return std::nullopt;

  BackupCoordinates out;
  out.source = "mydumper";
  std::vector<FoundPosition> found;
  bool in_master = false;
  std::string file;
  std::optional<std::string> position;
  std::size_t at = 0;
  Lines lines(head);
  while (const auto line = lines.next()) {
    if (line->empty()) continue;
    const std::string_view t = trim(*line);
    if (!is_space(line->front())) {  // a heading at the start of the line
      in_master = is_mydumper_master_heading(t) && file.empty();
      continue;
    }
    if (!in_master) continue;
    if (istarts_with(t, "Log:")) {
      file = trim(t.substr(4));
      at = lines.number();
    } else if (istarts_with(t, "Pos:")) {
      position = std::string(trim(t.substr(4)));
    } else if (istarts_with(t, "GTID:") && out.mysql_gtid_set.empty() &&
               out.mariadb_gtid_pos.empty()) {
      assign_gtids(out, gtid_with_continuations(t.substr(5), lines));
    }
  }
  if (!file.empty()) add_position(found, file, position, at, path);
  take_position(out, found, path);
  return out;
}

// INI form (mydumper 0.12+):
//   [config]
//   quote_character = BACKTICK
//
//   [source]                     ([master] before 0.14)
//   # Channel_Name = '' # It can be use to setup replication FOR CHANNEL
//   File = mysql-bin.000003
//   Position = 154
//   Executed_Gtid_Set = 3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5
// With --source-data the section holds SOURCE_LOG_FILE = "..." / SOURCE_LOG_POS = ... (commented
// out with '#' when SOURCE_AUTO_POSITION is chosen, but still the backup's position) and
// executed_gtid_set = "...".
std::optional<BackupCoordinates> parse_mydumper_ini(std::string_view head,
                                                    const std::string& path) {
  // mydumper 0.14+ opens the file with "# Started dump at: ..." and then a group.
  const std::string_view opening = first_meaningful_line(head, true);
  if (opening.size() < 2 || opening.front() != '[' || opening.back() != ']') return std::nullopt;

  BackupCoordinates out;
  out.source = "mydumper";
  std::vector<FoundPosition> found;
  bool in_source = false;
  std::string file;
  std::optional<std::string> position;
  std::size_t at = 0;
  bool have_gtid = false;
  Lines lines(head);
  while (const auto line = lines.next()) {
    std::string_view t = trim(*line);
    if (t.empty()) continue;
    if (t.front() == '[' && t.back() == ']') {
      in_source = (iequals(t, "[source]") || iequals(t, "[master]")) && file.empty();
      continue;
    }
    if (!in_source) continue;
    const bool hashed = t.front() == '#';
    if (hashed) t = trim_left(t.substr(1));
    const std::size_t eq = t.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view key = trim(t.substr(0, eq));
    std::string_view value = trim(t.substr(eq + 1));
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
        value.back() == value.front())
      value = value.substr(1, value.size() - 2);
    const bool log_key = istarts_with(key, "SOURCE_LOG_") || istarts_with(key, "MASTER_LOG_");
    if (hashed && !log_key) continue;
    if ((iequals(key, "File") || iequals(key, "SOURCE_LOG_FILE") ||
         iequals(key, "MASTER_LOG_FILE")) &&
        file.empty()) {
      file = value;
      at = lines.number();
    } else if ((iequals(key, "Position") || iequals(key, "SOURCE_LOG_POS") ||
                iequals(key, "MASTER_LOG_POS")) &&
               !position) {
      position = std::string(value);
    } else if (iequals(key, "Executed_Gtid_Set") && !have_gtid) {
      have_gtid = true;
      std::string gtids = gtid_with_continuations(value, lines);
      if (gtids.size() >= 2 && gtids.front() == '"' && gtids.back() == '"')
        gtids = gtids.substr(1, gtids.size() - 2);
      assign_gtids(out, gtids);
    }
  }
  if (!file.empty()) add_position(found, file, position, at, path);
  take_position(out, found, path);
  return out;
}

std::optional<BackupCoordinates> parse_xtrabackup(std::string_view head, const std::string& path) {
  Lines lines(head);
  std::optional<std::string_view> first;
  do {
    first = lines.next();
  } while (first && trim(*first).empty());
  if (!first) return std::nullopt;
  const std::size_t at = lines.number();

  std::string_view rest = trim(*first);
  std::vector<std::string_view> fields;
  while (fields.size() < 2 && !rest.empty()) {
    std::size_t n = 0;
    while (n < rest.size() && !is_space(rest[n])) ++n;
    fields.push_back(rest.substr(0, n));
    rest = trim_left(rest.substr(n));
  }
  if (fields.size() != 2 || !parse_u64(fields[1])) return std::nullopt;
  if (fields[0].find_first_of("'\"`;=") != std::string_view::npos) return std::nullopt;
  const std::string gtids = gtid_with_continuations(rest, lines);
  while (const auto line = lines.next())
    if (!trim(*line).empty()) return std::nullopt;  // more than one record: not this format

  BackupCoordinates out;
  out.source = "xtrabackup";
  std::vector<FoundPosition> found;
  add_position(found, fields[0], fields[1], at, path);
  take_position(out, found, path);
  assign_gtids(out, gtids);
  return out;
}

}  // namespace binrecover::recovery::coords
