#pragma once

// The small parsers and checks every option reader shares, and the parsed options as readers see
// them (cli/option_readers.h).

#include <boost/program_options.hpp>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace binrecover::cli {

namespace po = boost::program_options;

// What -p / --password alone and --password= become for the parser (see parse_options).
inline constexpr const char* kAskPassword = "\x01";
inline constexpr const char* kEmptyPassword = "\x02";

// Throws Error(kUsage): the command line is wrong (exit 2).
[[noreturn]] void usage_error(const std::string& msg);
std::string trim(std::string s);
// A decimal number for `option` (usage error otherwise).
std::uint64_t parse_u64(const std::string& text, const std::string& option);
// "16M", "512K", "1G", "4096" -> bytes.
std::size_t parse_size(std::string text, const std::string& option);
std::string base_name(const std::string& path);
// "db.table" -> (db, table).
std::pair<std::string, std::string> parse_table(const std::string& text);
// A MariaDB GTID position: domain-server-seq, comma-separated, each domain once.
bool maria_gtid_list(const std::string& v);
// A GTID as the servers write them: domain-server-seq (MariaDB) or uuid[:tag]:N (MySQL).
bool valid_gtid(const std::string& v);
// --rewrite-db 'FROM->TO'.
std::pair<std::string, std::string> parse_rewrite(const std::string& text);

// The options as parsed: whether one was given, its text, its number.
class Given {
 public:
  explicit Given(const po::variables_map& vm) : vm_(vm) {}
  bool has(const char* name) const { return vm_.count(name) > 0; }
  std::optional<std::string> text(const char* name) const {
    if (!vm_.count(name)) return std::nullopt;
    return vm_[name].as<std::string>();
  }
  std::optional<std::uint64_t> u64(const char* name) const {
    if (!vm_.count(name)) return std::nullopt;
    return parse_u64(vm_[name].as<std::string>(), name);
  }
  std::vector<std::string> list(const char* name) const {
    if (!vm_.count(name)) return {};
    return vm_[name].as<std::vector<std::string>>();
  }
  const po::variables_map& map() const { return vm_; }

 private:
  const po::variables_map& vm_;
};

}  // namespace binrecover::cli
