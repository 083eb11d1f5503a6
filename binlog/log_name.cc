#include "binlog/log_name.h"

#include <string>

#include "binlog/error.h"

namespace binrecover::binlog {

namespace {

std::string shown(std::string_view name) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (const char c : name.substr(0, 240)) {
    const auto b = static_cast<unsigned char>(c);
    if (b < 0x20 || b >= 0x7f || c == '\\' || c == '\'') {
      out += "\\x";
      out += kHex[b >> 4];
      out += kHex[b & 15];
    } else {
      out += c;
    }
  }
  if (name.size() > 240) out += "...";
  return out;
}

}  // namespace

std::string bad_log_name(std::string_view name) {
  if (name.empty()) return "it is empty";
  if (name.size() > 200) return "it is longer than 200 bytes";
  for (const char c : name) {
    const auto b = static_cast<unsigned char>(c);
    if (b < 0x20 || b >= 0x7f) return "it holds a control or non-ASCII byte";
    if (c == '/' || c == '\\') return "it holds a path separator";
  }
  if (name.front() == '.') return "it begins with '.'";
  const std::size_t dot = name.rfind('.');
  const std::string_view ext = dot == std::string_view::npos ? "" : name.substr(dot + 1);
  if (dot == std::string_view::npos || dot == 0 || ext.size() < 3 ||
      ext.find_first_not_of("0123456789") != std::string_view::npos)
    return "it is not BASENAME.NNNNNN, as a server names its binlogs";
  return {};
}

void check_log_name(std::string_view name, std::string_view from) {
  const std::string why = bad_log_name(name);
  if (why.empty()) return;
  throw Error(ErrorCode::kServer, std::string(from) + " names a binlog '" + shown(name) +
                                      "', which binrecover refuses: " + why);
}

}  // namespace binrecover::binlog
