#include "cli/option_values.h"

#include <algorithm>
#include <filesystem>
#include <regex>

#include "binlog/error.h"

namespace binrecover::cli {

using binrecover::Error;
using binrecover::ErrorCode;

[[noreturn]] void usage_error(const std::string& msg) { throw Error(ErrorCode::kUsage, msg); }

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::uint64_t parse_u64(const std::string& text, const std::string& option) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    usage_error("--" + option + " needs a non-negative number, not '" + text + "'");
  try {
    return std::stoull(text);
  } catch (const std::exception&) {
    usage_error("--" + option + " value '" + text + "' is out of range");
  }
}

// "16M", "512K", "1G", "4096" -> bytes.
std::size_t parse_size(std::string text, const std::string& option) {
  std::uint64_t unit = 1;
  if (!text.empty()) {
    const char c = static_cast<char>(std::toupper(static_cast<unsigned char>(text.back())));
    if (c == 'K' || c == 'M' || c == 'G') {
      unit = c == 'K' ? 1ULL << 10 : c == 'M' ? 1ULL << 20 : 1ULL << 30;
      text.pop_back();
    }
  }
  const std::uint64_t n = parse_u64(text, option);
  if (n > (1ULL << 40) / unit) usage_error("--" + option + " is too large");
  return static_cast<std::size_t>(n * unit);
}

std::string base_name(const std::string& path) {
  if (path == "-") return "stdin";
  return std::filesystem::path(path).filename().string();
}

std::pair<std::string, std::string> parse_table(const std::string& text) {
  const auto dot = text.find('.');
  if (text.empty() || dot == 0 || (dot != std::string::npos && dot + 1 == text.size()))
    usage_error("--table needs TABLE or DATABASE.TABLE, not '" + text + "'");
  if (dot == std::string::npos) return {"", text};  // (the table in the --database ones)
  return {text.substr(0, dot), text.substr(dot + 1)};
}

// A MariaDB GTID position: domain-server-seq, comma-separated, each domain once.
bool maria_gtid_list(const std::string& v) {
  static const std::regex kList(
      "^[0-9]{1,10}-[0-9]{1,10}-[0-9]{1,20}(,[0-9]{1,10}-[0-9]{1,10}-[0-9]{1,20})*$");
  if (!std::regex_match(v, kList)) return false;
  std::vector<std::string> domains;
  for (std::size_t at = 0; at < v.size();) {
    std::size_t end = v.find(',', at);
    if (end == std::string::npos) end = v.size();
    const std::string domain = v.substr(at, v.find('-', at) - at);
    if (std::find(domains.begin(), domains.end(), domain) != domains.end())
      usage_error("--start-position names domain " + domain + " twice: one GTID per domain");
    domains.push_back(domain);
    at = end + 1;
  }
  return true;
}

// A GTID as the servers write them: domain-server-seq (MariaDB) or uuid[:tag]:N (MySQL).
bool valid_gtid(const std::string& v) {
  static const std::regex kUuidGtid(
      "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
      "(:[A-Za-z_][A-Za-z0-9_]{0,31})?:[1-9][0-9]{0,18}$");
  static const std::regex kMariaGtid("^[0-9]{1,10}-[0-9]{1,10}-[0-9]{1,20}$");
  return std::regex_match(v, kUuidGtid) || std::regex_match(v, kMariaGtid);
}

std::pair<std::string, std::string> parse_rewrite(const std::string& text) {
  const auto arrow = text.find("->");
  if (arrow == std::string::npos || arrow == 0 || arrow + 2 >= text.size() ||
      text.find("->", arrow + 2) != std::string::npos)
    usage_error("--rewrite-db needs 'FROM->TO', not '" + text + "'");
  return {trim(text.substr(0, arrow)), trim(text.substr(arrow + 2))};
}

}  // namespace binrecover::cli
