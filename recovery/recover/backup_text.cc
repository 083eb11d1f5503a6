#include "recovery/recover/backup_text.h"

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "binlog/error.h"
#include "recovery/reading/sql_lexer.h"

namespace binrecover::recovery::coords {

using binrecover::Error;
using binrecover::ErrorCode;

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

[[noreturn]] void fail_at(const std::string& path, std::size_t line, const std::string& what) {
  throw Error(ErrorCode::kUsage, path + ":" + std::to_string(line) + ": " + what);
}

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

}  // namespace binrecover::recovery::coords
