#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "recovery/apply/write_set.h"
#include "recovery/server/apply.h"

namespace binrecover::recovery {

// The keys of the target's tables, read from its information_schema (TABLES, COLUMNS,
// STATISTICS, KEY_COLUMN_USAGE, REFERENTIAL_CONSTRAINTS) when a table is first asked for, kept
// until invalidate().
class TargetKeys : public KeySource {
 public:
  explicit TargetKeys(Session& session) : session_(session) {}
  const TableKeys& keys(const std::string& db, const std::string& table) override;
  void invalidate() override { tables_.clear(); }
  // The target's WEIGHT_STRING of each value: a printable ASCII value from the weights of its
  // characters (learned once per collation, with a check that they add up), any other value
  // asked of the target once (and kept, up to a bound). With PAD SPACE, trailing spaces' weights
  // are left out. A collation whose weights cannot be learned is folded (kFold) for good.
  Weighing weigh(std::uint32_t collation, std::string_view value, std::uint32_t prefix,
                 std::string& out) override;
  // The number of `collation` of `charset` for KeyPart::collation (names of letters, digits and
  // '_' only; else nullopt).
  std::optional<std::uint32_t> collation_number(const std::string& charset,
                                                const std::string& collation);

 private:
  struct Collation {
    std::string charset, name;
    bool learned = false, usable = false, pad = false;
    std::string ascii[95];                               // the weights (hex) of 0x20..0x7e
    std::unordered_map<std::string, std::string> known;  // (prefix, value) -> weights
    std::size_t known_bytes = 0;
  };
  TableKeys load(const std::string& db, const std::string& table);
  void learn(Collation& c);
  Session& session_;
  std::unordered_map<std::string, TableKeys> tables_;  // by "db\0table"
  std::vector<Collation> collations_;                  // kept across invalidate()
  std::string lookup_;                                 // (weigh) a value's key in `known`
};

// The rule for a key column of the given information_schema DATA_TYPE, CHARACTER_SET_NAME and
// COLLATION_NAME (lower case, "" for NULL).
KeyNorm key_norm(std::string_view data_type, std::string_view charset, std::string_view collation);

}  // namespace binrecover::recovery
