#pragma once

// Internal to recovery/storage/s3*.cc: text helpers the signer, the configuration and the
// client share, and the endpoint's parts.

#include <cctype>
#include <string>
#include <string_view>

#include "binlog/byte_cursor.h"

namespace binrecover::recovery::s3::detail {

inline binlog::Bytes bytes_of(std::string_view s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

inline std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

inline std::string trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  std::string out;
  bool space = false;  // inner runs of spaces signed as one
  for (std::size_t i = b; i < e; ++i) {
    if (s[i] == ' ') {
      if (!space) out += ' ';
      space = true;
    } else {
      out += s[i];
      space = false;
    }
  }
  return out;
}

struct Endpoint {
  std::string scheme, host;  // host with its port
};

// The scheme and host[:port] of an endpoint URL (http:// or https://, no path); throws
// Error(kUsage) for anything else.
Endpoint split_endpoint(const std::string& e);

}  // namespace binrecover::recovery::s3::detail
