#include "recovery/recover/backup_coords.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstddef>
#include <cstring>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "binlog/error.h"
#include "recovery/reading/sql_lexer.h"

namespace binrecover::recovery {
namespace {

// Coordinates sit in a dump's first few kilobytes; 1 MiB leaves room for a very long GTID set.
constexpr std::size_t kHeadLimit = std::size_t{1} << 20;
// mariadb-dump 10.11+ writes gtid_slave_pos after all the data, followed by ~1 KiB of SET lines.
constexpr std::size_t kTailLimit = std::size_t{64} << 10;
// A GTID set has one line per server UUID; nothing mysqldump writes before the data is longer.
constexpr int kMaxStatementLines = 4096;

// ---------------------------------------------------------------------------------------------
// Text helpers

char ascii_upper(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; }

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (ascii_upper(a[i]) != ascii_upper(b[i])) return false;
  return true;
}

bool istarts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string_view trim_left(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  return s;
}

std::string_view trim(std::string_view s) {
  s = trim_left(s);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// GTID sets are printed with ",\n" between servers; the set itself has no spaces.
std::string without_spaces(std::string_view s) {
  std::string out;
  for (char c : s)
    if (!is_space(c)) out += c;
  return out;
}

std::optional<std::uint64_t> parse_u64(std::string_view s) {
  std::uint64_t v = 0;
  if (s.empty() || !is_digit(s.front())) return std::nullopt;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// "0-1-5" or "0-1-5,1-2-9": MariaDB's domain-server-sequence triples.
bool is_mariadb_gtid_list(std::string_view s) {
  if (s.empty()) return false;
  while (true) {
    const std::size_t comma = s.find(',');
    const std::string_view item = s.substr(0, comma);
    int parts = 0;
    std::size_t start = 0;
    while (true) {
      const std::size_t dash = item.find('-', start);
      const std::string_view part = item.substr(
          start, dash == std::string_view::npos ? std::string_view::npos : dash - start);
      if (part.empty() || !std::all_of(part.begin(), part.end(), is_digit)) return false;
      ++parts;
      if (dash == std::string_view::npos) break;
      start = dash + 1;
    }
    if (parts != 3) return false;
    if (comma == std::string_view::npos) return true;
    s.remove_prefix(comma + 1);
  }
}

// mydumper and xtrabackup print whatever GTID state the server has, in one field.
void assign_gtids(BackupCoordinates& out, std::string_view raw) {
  std::string gtids = without_spaces(raw);
  if (gtids.empty()) return;
  if (is_mariadb_gtid_list(gtids))
    out.mariadb_gtid_pos = std::move(gtids);
  else
    out.mysql_gtid_set = std::move(gtids);
}

// The lines of a text without their "\n" or "\r\n", counted from 1.
class Lines {
 public:
  explicit Lines(std::string_view text) : text_(text) {}

  std::optional<std::string_view> next() {
    if (pos_ >= text_.size()) return std::nullopt;
    const std::size_t nl = text_.find('\n', pos_);
    const std::size_t end = nl == std::string_view::npos ? text_.size() : nl;
    std::string_view line = text_.substr(pos_, end - pos_);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos_ = nl == std::string_view::npos ? text_.size() : nl + 1;
    ++number_;
    return line;
  }

  std::optional<std::string_view> peek() const {
    Lines copy = *this;
    return copy.next();
  }

  std::size_t number() const { return number_; }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
  std::size_t number_ = 0;
};

[[noreturn]] void fail_at(const std::string& path, std::size_t line, const std::string& what) {
  throw Error(ErrorCode::kUsage, path + ":" + std::to_string(line) + ": " + what);
}

// The one binlog position a backup names; several different ones cannot be told apart.
struct FoundPosition {
  std::string file;
  std::optional<std::uint64_t> position;
  std::size_t line = 0;
};

void add_position(std::vector<FoundPosition>& found, std::string_view file,
                  std::optional<std::string_view> position_text, std::size_t line,
                  const std::string& path) {
  FoundPosition p{std::string(file), std::nullopt, line};
  if (position_text) {
    p.position = parse_u64(*position_text);
    if (!p.position)
      fail_at(path, line, "binlog position '" + std::string(*position_text) + "' is not a number");
  }
  for (const FoundPosition& q : found)
    if (q.file == p.file && q.position == p.position) return;
  found.push_back(std::move(p));
}

void take_position(BackupCoordinates& out, const std::vector<FoundPosition>& found,
                   const std::string& path) {
  if (found.empty()) return;
  if (found.size() > 1) {
    std::string list;
    for (const FoundPosition& p : found) {
      if (!list.empty()) list += ", ";
      list += p.file + ":" + (p.position ? std::to_string(*p.position) : "?") + " (line " +
              std::to_string(p.line) + ")";
    }
    throw Error(ErrorCode::kUsage, path + ": names " + std::to_string(found.size()) +
                                       " different binlog positions (" + list +
                                       "), e.g. a multi-source --dump-slave dump; cannot tell "
                                       "which one to start from");
  }
  out.file = found.front().file;
  out.position = found.front().position;
}

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

// ---------------------------------------------------------------------------------------------
// xtrabackup_binlog_info / mariadb_backup_binlog_info: one line "file<TAB>position[<TAB>gtids]",
// the GTID set possibly continued on the following lines ("uuid:1-5,\nuuid:1-3").

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

// ---------------------------------------------------------------------------------------------
// Reading

// Formats we can name but not read: a compressed dump, or a binlog given by mistake.
std::optional<std::string_view> binary_kind(std::string_view head) {
  const auto starts = [&](std::string_view magic) { return head.substr(0, magic.size()) == magic; };
  if (starts("\x1f\x8b")) return "gzip-compressed";
  if (starts("\x28\xb5\x2f\xfd")) return "zstd-compressed";
  if (starts("\xfd"
             "7zXZ"))
    return "xz-compressed";
  if (starts("\x04\x22\x4d\x18")) return "lz4-compressed";
  if (starts("BZh") && head.size() > 3 && is_digit(head[3])) return "bzip2-compressed";
  if (starts("XBSTCK01")) return "an xbstream archive";
  if (starts("\xfe"
             "bin"))
    return "a binary log, not a backup";
  return std::nullopt;
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { ::close(fd_); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

[[noreturn]] void fail_io(const std::string& what, const std::string& path) {
  const int err = errno;
  throw Error(ErrorCode::kIo, "cannot " + what + " " + path + ": " + std::strerror(err));
}

// Reads up to `n` bytes at `offset` (or from the current position when offset is negative).
std::string read_some(int fd, std::size_t n, off_t offset, const std::string& path) {
  std::string buf(n, '\0');
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r =
        offset < 0 ? ::read(fd, buf.data() + got, n - got)
                   : ::pread(fd, buf.data() + got, n - got, offset + static_cast<off_t>(got));
    if (r < 0) {
      if (errno == EINTR) continue;
      fail_io("read", path);
    }
    if (r == 0) break;
    got += static_cast<std::size_t>(r);
  }
  buf.resize(got);
  return buf;
}

// The text after the first line break: a tail read from the middle of a line starts at the next.
std::string_view from_next_line(std::string_view s) {
  const std::size_t nl = s.find('\n');
  return nl == std::string_view::npos ? std::string_view{} : s.substr(nl + 1);
}

BackupCoordinates read_file(const std::string& path) {
  const int raw_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (raw_fd < 0) fail_io("open", path);
  const Fd fd(raw_fd);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) fail_io("stat", path);
  const bool regular = S_ISREG(st.st_mode);

  std::string head = read_some(fd.get(), kHeadLimit, -1, path);
  const bool whole =
      regular ? static_cast<std::uint64_t>(st.st_size) <= head.size() : head.size() < kHeadLimit;
  if (const auto kind = binary_kind(head))
    throw Error(ErrorCode::kUsage, path + " is " + std::string(*kind) +
                                       "; binrecover reads backup coordinates from plain text "
                                       "(decompress the dump or metadata first)");

  std::string tail;
  if (whole) {
    tail = head.size() <= kTailLimit
               ? head
               : std::string(
                     from_next_line(std::string_view(head).substr(head.size() - kTailLimit - 1)));
  } else {
    // Only whole lines: a GTID set cut at the limit would be wrong, not just short.
    const std::size_t nl = head.rfind('\n');
    head.resize(nl == std::string::npos ? 0 : nl + 1);
    if (regular) {
      const std::uint64_t size = static_cast<std::uint64_t>(st.st_size);
      const std::uint64_t from =
          std::max<std::uint64_t>(head.size(), size > kTailLimit ? size - kTailLimit : 0) - 1;
      tail = std::string(
          from_next_line(read_some(fd.get(), size - from, static_cast<off_t>(from), path)));
    }
  }

  if (auto c = parse_xtrabackup(head, path)) return std::move(*c);
  if (auto c = parse_mydumper_ini(head, path)) return std::move(*c);
  if (auto c = parse_mydumper_text(head, path)) return std::move(*c);
  return parse_dump(head, tail, path);
}

bool has_coordinates(const BackupCoordinates& c) {
  return !c.file.empty() || !c.mysql_gtid_set.empty() || !c.mariadb_gtid_pos.empty();
}

}  // namespace

BackupCoordinates read_backup_coordinates(const std::string& path, bool allow_none) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) fail_io("open", path);
  std::string file = path;
  if (S_ISDIR(st.st_mode)) {
    // A mydumper or xtrabackup/mariabackup backup is a directory; its coordinates have a name.
    file.clear();
    for (const char* name : {"metadata", "mariadb_backup_binlog_info", "xtrabackup_binlog_info"}) {
      std::string candidate = path;
      if (candidate.back() != '/') candidate += '/';
      candidate += name;
      struct stat inner {};
      if (::stat(candidate.c_str(), &inner) == 0 && S_ISREG(inner.st_mode)) {
        file = std::move(candidate);
        break;
      }
    }
    if (file.empty())
      throw Error(ErrorCode::kUsage, path +
                                         " is a directory without a metadata, "
                                         "mariadb_backup_binlog_info or xtrabackup_binlog_info "
                                         "file; name the backup file itself");
  }

  BackupCoordinates c = read_file(file);
  if (has_coordinates(c)) return c;
  if (allow_none && c.source == "mysqldump") return c;
  if (c.source == "mydumper")
    throw Error(ErrorCode::kUsage, file +
                                       ": mydumper metadata without binlog coordinates (no "
                                       "[source] or SHOW MASTER STATUS section: was the binary "
                                       "log enabled on the dumped server?)");
  throw Error(ErrorCode::kUsage,
              file +
                  ": no binlog coordinates found: expected a mysqldump/mariadb-dump made with "
                  "--master-data, --source-data or --dump-slave (coordinates before the first "
                  "CREATE/INSERT), a mydumper metadata file, or an xtrabackup_binlog_info / "
                  "mariadb_backup_binlog_info file");
}

}  // namespace binrecover::recovery
