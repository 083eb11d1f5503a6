#include "recovery/decisions/dump_rows.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>
#include <vector>

#include "binlog/error.h"
#include "recovery/reading/sql_lexer.h"

namespace binrecover::recovery {
namespace {

constexpr std::size_t kLineLimit = std::size_t{64} << 10;  // a line's head kept to read it

bool starts_with_ci(std::string_view s, std::string_view p) {
  if (s.size() < p.size()) return false;
  for (std::size_t i = 0; i < p.size(); ++i) {
    char c = s[i];
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    if (c != p[i]) return false;
  }
  return true;
}

// The name after the first words of `line` ("INSERT INTO `t`", "USE `db`"): `db`.`t` or t.
struct Name {
  std::string db, table;
};
std::optional<Name> name_after(std::string_view line, std::size_t words) {
  SqlLexer lex(line);
  for (std::size_t i = 0; i < words; ++i)
    if (lex.next().kind != SqlToken::Kind::kWord) return std::nullopt;
  const auto part = [](const SqlToken& t) -> std::optional<std::string> {
    if (t.kind == SqlToken::Kind::kIdent) return unquoted(t);
    if (t.kind == SqlToken::Kind::kWord) return std::string(t.text);
    return std::nullopt;
  };
  const SqlToken a = lex.next();
  auto first = part(a);
  if (!first) return std::nullopt;
  const SqlToken dot = lex.next();
  if (dot.kind == SqlToken::Kind::kPunct && dot.text == ".") {
    auto second = part(lex.next());
    if (!second) return std::nullopt;
    return Name{*first, *second};
  }
  return Name{"", *first};
}

class Counter {
 public:
  void line(std::string_view l) {
    if (starts_with_ci(l, "USE ")) {
      if (auto n = name_after(l, 1)) db_ = n->table;
    } else if (starts_with_ci(l, "CREATE TABLE ")) {
      const bool if_not = starts_with_ci(l, "CREATE TABLE IF NOT EXISTS ");
      if (auto n = name_after(l, if_not ? 5 : 2)) {
        rows_[key(*n)] = 0;
        any_table_ = true;
      }
    } else if (db_.empty() && starts_with_ci(l, "-- HOST:")) {
      const auto at = l.find("Database: ");
      if (at != std::string_view::npos) {
        std::string_view d = l.substr(at + 10);
        while (!d.empty() && (d.back() == ' ' || d.back() == '\r')) d.remove_suffix(1);
        db_ = std::string(d);
      }
    }
  }

  // A line that opens an INSERT's values: the table it fills, or nullopt.
  std::optional<std::string> insert_table(std::string_view l) const {
    std::size_t words = 0;
    if (starts_with_ci(l, "INSERT INTO "))
      words = 2;
    else if (starts_with_ci(l, "INSERT IGNORE INTO "))
      words = 3;
    else if (starts_with_ci(l, "REPLACE INTO "))
      words = 2;
    else
      return std::nullopt;
    auto n = name_after(l, words);
    if (!n) return std::nullopt;
    return key(*n);
  }

  std::string key(const Name& n) const { return (n.db.empty() ? db_ : n.db) + "." + n.table; }

  std::map<std::string, std::uint64_t> rows_;
  std::string db_;
  bool any_table_ = false;
};

}  // namespace

std::optional<std::map<std::string, std::uint64_t>> count_dump_rows(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(ErrorCode::kIo, "cannot open " + path + ": " + std::strerror(errno));
  Counter c;
  std::vector<char> buf(std::size_t{1} << 20);
  std::string head;       // the current line's head (outside the values)
  bool skipping = false;  // the rest of a line too long to matter
  // Inside an INSERT's values: parentheses depth, strings.
  bool values = false, in_string = false, escape = false;
  char quote = 0;
  int depth = 0;
  std::uint64_t* target = nullptr;
  for (;;) {
    const ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      throw Error(ErrorCode::kIo, "cannot read " + path + ": " + std::strerror(err));
    }
    if (n == 0) break;
    for (ssize_t i = 0; i < n; ++i) {
      const char ch = buf[static_cast<std::size_t>(i)];
      if (values) {
        if (in_string) {
          if (escape)
            escape = false;
          else if (ch == '\\')
            escape = true;
          else if (ch == quote)
            in_string = false;  // ('' reopens it at once: a doubled quote)
          continue;
        }
        if (ch == '\'' || ch == '"') {
          in_string = true;
          quote = ch;
        } else if (ch == '(') {
          if (depth++ == 0 && target != nullptr) ++*target;
        } else if (ch == ')') {
          --depth;
        } else if (ch == ';' && depth <= 0) {
          values = false;
          depth = 0;
        }
        continue;
      }
      if (ch == '\n') {
        if (!skipping) c.line(head);
        head.clear();
        skipping = false;
        continue;
      }
      if (skipping) continue;
      head += ch;
      if (head.size() > kLineLimit) {
        skipping = true;
        continue;
      }
      // "INSERT INTO `t` VALUES (" or with a column list: the values start after VALUES.
      if (ch == ' ' && head.size() >= 8 &&
          starts_with_ci(head.substr(head.size() - 8), " VALUES ")) {
        if (auto t = c.insert_table(head)) {
          target = &c.rows_[*t];
          values = true;
          depth = 0;
          in_string = false;
          head.clear();
        }
      }
    }
  }
  ::close(fd);
  if (!c.any_table_) return std::nullopt;
  return std::move(c.rows_);
}

}  // namespace binrecover::recovery
