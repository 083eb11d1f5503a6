#pragma once

// The text steps every reader of backup coordinates shares (recovery/recover/backup_coords.cc):
// case-blind words, trimming, numbers, GTID lists, lines, the one position a backup names.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "recovery/recover/backup_coords.h"

namespace binrecover::recovery::coords {

// A GTID set has one line per server UUID; nothing mysqldump writes before the data is longer.
inline constexpr int kMaxStatementLines = 4096;

char ascii_upper(char c);
bool iequals(std::string_view a, std::string_view b);
bool istarts_with(std::string_view s, std::string_view prefix);
bool is_space(char c);
bool is_digit(char c);
std::string_view trim_left(std::string_view s);
std::string_view trim(std::string_view s);
// GTID sets are printed with ",\n" between servers; the set itself has no spaces.
std::string without_spaces(std::string_view s);
std::optional<std::uint64_t> parse_u64(std::string_view s);
// "0-1-5" or "0-1-5,1-2-9": MariaDB's domain-server-sequence triples.
bool is_mariadb_gtid_list(std::string_view s);
// mydumper and xtrabackup print whatever GTID state the server has, in one field.
void assign_gtids(BackupCoordinates& out, std::string_view raw);

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

// Throws Error(kUsage) naming the file and line.
[[noreturn]] void fail_at(const std::string& path, std::size_t line, const std::string& what);

// The one binlog position a backup names; several different ones cannot be told apart.
struct FoundPosition {
  std::string file;
  std::optional<std::uint64_t> position;
  std::size_t line = 0;
};

void add_position(std::vector<FoundPosition>& found, std::string_view file,
                  std::optional<std::string_view> position_text, std::size_t line,
                  const std::string& path);
// The position found into `out`; several different ones are an error (a multi-source dump).
void take_position(BackupCoordinates& out, const std::vector<FoundPosition>& found,
                   const std::string& path);

// The formats (recovery/recover/backup_formats.cc): each returns nullopt when the text is not
// of its kind.
// A mysqldump / mariadb-dump: its head (and tail, where mariadb-dump 10.11+ defers
// gtid_slave_pos).
BackupCoordinates parse_dump(std::string_view head, std::string_view tail, const std::string& path);
std::optional<BackupCoordinates> parse_mydumper_text(std::string_view head,
                                                     const std::string& path);
std::optional<BackupCoordinates> parse_mydumper_ini(std::string_view head, const std::string& path);
std::optional<BackupCoordinates> parse_xtrabackup(std::string_view head, const std::string& path);

}  // namespace binrecover::recovery::coords
