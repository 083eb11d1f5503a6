#pragma once

// A whole number read from a JSON manifest within T's range (nlohmann/json): a float, a string
// or a number out of range is not a manifest (nlohmann's own conversion of those is undefined
// behaviour). `what` names the kind of manifest in the error: "binrecover manifest".

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "binlog/error.h"

namespace binrecover::recovery {

template <typename T>
T json_whole(const nlohmann::json& j, const char* key, const std::string& where,
             std::optional<T> missing, const char* what = "binrecover manifest") {
  const auto it = j.find(key);
  if (it == j.end()) {
    if (missing) return *missing;
    throw Error(ErrorCode::kIo, where + ": not a " + what + " (no " + key + ")");
  }
  const bool fits = it->is_number_unsigned()
                        ? it->template get<std::uint64_t>() <=
                              static_cast<std::uint64_t>(std::numeric_limits<T>::max())
                        : it->is_number_integer() && std::numeric_limits<T>::is_signed &&
                              it->template get<std::int64_t>() >=
                                  static_cast<std::int64_t>(std::numeric_limits<T>::min());
  if (!fits)
    throw Error(ErrorCode::kIo,
                where + ": not a " + what + " (" + key + " is not a whole number in range)");
  return it->is_number_unsigned() ? static_cast<T>(it->template get<std::uint64_t>())
                                  : static_cast<T>(it->template get<std::int64_t>());
}

}  // namespace binrecover::recovery
