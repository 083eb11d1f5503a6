#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "recovery/apply/ddl_scope.h"
#include "recovery/apply/write_set.h"
#include "recovery/server/apply.h"

namespace binrecover::recovery {

// Whether a storage engine (its name in lower case) commits: its rows go with the COMMIT
// (InnoDB and its like), not as each statement ends (MyISAM, Aria, MEMORY).
bool transactional_engine(std::string_view engine);

// The keys of the target's tables, read from its information_schema (TABLES, COLUMNS,
// STATISTICS, KEY_COLUMN_USAGE) when a table is first asked for, kept until invalidate(). The
// foreign keys that change rows by themselves (REFERENTIAL_CONSTRAINTS) are read all at once
// when the first table is: asked by the referenced table, MariaDB opens every table of the
// server for it (13 ms a table with 300 tables on the server, 0.3 s with 3,300); on MariaDB only
// the schemas InnoDB lists as holding such foreign keys are read.
class TargetKeys : public KeySource {
 public:
  // (BINRECOVER_TEST_WEIGHT_CHECKS, a test's: that many values added up a collation are asked
  // of the target too, and any that differs is named on stderr)
  explicit TargetKeys(Session& session);
  const TableKeys& keys(const std::string& db, const std::string& table) override;
  void invalidate() override {
    tables_.clear();
    children_.reset();
    fresh_.clear();
  }
  // (the tables forget() was given: a table created, written once and dropped between the
  // log's other writes cost four catalog questions, on the target's CPU, for one unit)
  bool fresh(const std::string& db, const std::string& table) override;
  // Only these tables changed (a DDL that adds no foreign key: tables_changed_by): their keys
  // are read again, and those of the tables whose foreign keys reference them or whose cascades
  // reach them (names compared without letter case: the server may).
  void forget(const TableNames& changed);
  // The target's WEIGHT_STRING of each value, from the weights of its characters one after
  // another: those of printable ASCII learned once per collation (with a check that they add
  // up), any other character's with the 127 around it (one question a block of 128 code points;
  // a UTF-8 or 8-bit character set). A UCA collation's contractions ('L' and U+00B7, a letter
  // and a combining mark) do not add up: there only characters of blocks that hold none are
  // added up (Latin, Greek, Cyrillic letters, kana, CJK ideographs, Hangul syllables, emoji).
  // Any other value is asked of the target once (and kept, up to a bound), and the first 8
  // values a collation adds up are asked too: one that differs, and that collation's values
  // are asked from then on. With PAD SPACE, trailing spaces' weights are left out. A collation
  // whose weights cannot be learned is folded (kFold) for good. (Asked value by value, a log of
  // new names in a unique key cost a round trip a transaction: --parallel 8 10% slower than
  // serial replay, its reader's CPU 1.7 times.)
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
    bool uca = false;       // (by name) contractions: only the blocks without any added up
    bool by_char = true;    // weights added up (until a value asked of the target differs)
    int checks_left = 8;    // values added up that are asked of the target too
    std::string ascii[95];  // the weights (hex) of 0x20..0x7e
    std::unordered_map<std::string, std::string> known;  // (prefix, value) -> weights
    std::size_t known_bytes = 0;
    // The weights (hex) of the code points (8-bit sets: the bytes) by block of 128 ("-": none;
    // an empty block: the target could not tell).
    std::unordered_map<std::uint32_t, std::vector<std::string>> blocks;
  };
  TableKeys load(const std::string& db, const std::string& table);
  // The tables whose foreign keys reference `db`.`table` and do something ON DELETE or ON
  // UPDATE (CASCADE, SET NULL, SET DEFAULT), as (schema, table), by schema and name.
  const std::vector<std::pair<std::string, std::string>>& children(const std::string& db,
                                                                   const std::string& table);
  void read_cascades(const std::string& db, const std::string& table, TableKeys& k);
  // (MariaDB) The schemas of the tables whose foreign keys cascade or set null, from InnoDB's
  // own list (INNODB_SYS_FOREIGN, the PROCESS privilege), or nullopt where it cannot tell.
  std::optional<std::vector<std::string>> cascading_schemas();
  void learn(Collation& c);
  // (weigh) The value's weights added up character by character into `out`; false where a
  // character's cannot be (a UCA contraction's block, a control character, none learned).
  bool by_characters(Collation& c, std::string_view value, std::uint32_t prefix, std::string& out);
  const std::string* char_weight(Collation& c, std::uint32_t code);
  // (weigh) The target's weights of the value; false where it cannot tell.
  bool ask(Collation& c, std::string_view value, std::uint32_t prefix, std::string& out);
  Session& session_;
  std::unordered_map<std::string, TableKeys> tables_;  // by "db\0table"
  // (children()) by the referenced "db\0table", ASCII letters in lower case: the server
  // compares these names without case
  std::optional<std::unordered_map<std::string, std::vector<std::pair<std::string, std::string>>>>
      children_;
  std::vector<Collation> collations_;      // kept across invalidate()
  std::unordered_set<std::string> fresh_;  // "db\0table", ASCII letters in lower case
  std::string lookup_;                     // (weigh) a value's key in `known`
  int checks_ = 8;                         // Collation::checks_left at first
  bool name_differences_ = false;          // (a test's) values added up wrong, on stderr
};

// The rule for a key column of the given information_schema DATA_TYPE, CHARACTER_SET_NAME and
// COLLATION_NAME (lower case, "" for NULL).
KeyNorm key_norm(std::string_view data_type, std::string_view charset, std::string_view collation);
// Whether the character set's own collations may be taken as kAsciiFold where the target cannot
// weigh: the Unicode ones and latin1 (an 8-bit one may weigh ASCII letters as one: macce).
bool ascii_foldable(std::string_view charset);
// utf8mb4, utf8mb3 (utf8).
bool utf8_family(std::string_view charset);
// Character sets of one byte a character: every byte string is text of theirs.
bool single_byte(std::string_view charset);

}  // namespace binrecover::recovery
