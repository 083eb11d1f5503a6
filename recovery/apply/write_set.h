#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "binlog/events.h"
#include "recovery/sql/table_cache.h"

namespace binrecover::recovery {

// How the server compares the values of a key column, so that two rows the server would take
// for the same key always get the same key bytes here (the other way round may fail: two keys
// that only look alike make a conflict that is not there, which costs parallelism, never
// correctness).
enum class KeyNorm : std::uint8_t {
  kExact,      // numbers, temporal values, ENUM/SET/BIT: the value itself
  kPadded,     // a binary string or a _bin collation of an ASCII-compatible character set:
               // trailing spaces and NUL bytes left out
  kAsciiFold,  // a case- and accent-insensitive collation without contractions among ASCII
               // (unicode_ci, 0900_as_ci, ...): printable ASCII folded to upper case; any other
               // byte makes the row hold its whole table
  kWeighed,    // a collation of one level of weights (general_ci, unicode_ci, 0900_ai_ci,
               // uca1400_ai_ci, latin1_swedish_ci, ...): values compared by the target's weights
               // (KeySource::weigh), so that 'bâton' and 'BATON' are one key exactly where the
               // target says so; where the target cannot tell, as kAsciiFold in the Unicode
               // character sets and latin1 (ascii_foldable), else the row holds its table
  kCoarse,     // any other collation, JSON, geometry: the row holds its whole table
};

struct KeyPart {
  std::uint32_t column = 0;  // index in the row image (the table's ordinal position - 1)
  std::uint32_t prefix = 0;  // a prefix index's length in characters (0: the whole value)
  KeyNorm norm = KeyNorm::kExact;
  std::uint32_t collation = 0;  // (kWeighed) the KeySource's number for the column's collation
};

// What KeySource::weigh made of a value.
enum class Weighing : std::uint8_t {
  kWeights,  // its weights
  kFold,     // the collation's weights are not known: as kAsciiFold (for every value of it)
  kUnknown,  // this value's weights are not known: the row holds its table whole
};

// A primary or unique key of a table.
struct UniqueKey {
  std::vector<KeyPart> parts;
};

// A foreign key of a table: its columns, in the order of the parent's key they reference.
struct ForeignKey {
  std::vector<std::uint32_t> columns;
  std::string parent_db, parent_table;
  // The parent's unique key with exactly the referenced columns (its index in the parent's
  // TableKeys::unique), or -1: then a row that references the parent holds the parent whole.
  int parent_key = -1;
};

// What the target says about a table. A table that is not found, or whose column count is not
// the row images', makes its transactions barriers.
struct TableKeys {
  bool found = false;
  std::uint64_t columns = 0;
  // MariaDB's long unique keys (on TEXT, BLOB, long VARCHAR): a hidden hash column each, which
  // its row images have after the table's columns.
  std::uint64_t hidden = 0;
  bool transactional = true;        // InnoDB (or another engine with transactions)
  std::vector<std::string> names;   // the columns' names
  std::vector<UniqueKey> unique;    // the primary key first, when there is one
  std::vector<ForeignKey> foreign;  // this table's references to parents
  // The tables a DELETE or UPDATE here may change by itself: children whose foreign key does
  // something ON DELETE/UPDATE (CASCADE, SET NULL, SET DEFAULT), theirs in turn. Those changes
  // are not in the log: such a row change holds them whole.
  std::vector<std::pair<std::string, std::string>> cascades;
};

// Where the keys of tables come from: the target server in replay (information_schema, read
// when a table is first met and again after every DDL), a fixed map in tests.
class KeySource {
 public:
  virtual ~KeySource() = default;
  virtual const TableKeys& keys(const std::string& db, const std::string& table) = 0;
  // The tables may have changed (a DDL was applied): read them again when next asked.
  virtual void invalidate() = 0;
  // Whether the table was named by a DDL this replay applied and has not been met since (once:
  // the next call says no). Its first unit then goes alone instead of its keys being read.
  virtual bool fresh(const std::string& /*db*/, const std::string& /*table*/) { return false; }
  // (kWeighed) The weights of `value` (its first `prefix` characters; 0: all) in the collation
  // KeyPart::collation names, into `out`: two values the target takes for one key get the same
  // weights, two it takes for two keys different ones. A collation answers kFold for every
  // value or for none (and only one whose character set is ascii_foldable).
  virtual Weighing weigh(std::uint32_t /*collation*/, std::string_view /*value*/,
                         std::uint32_t /*prefix*/, std::string& /*out*/) {
    return Weighing::kFold;
  }
};

// What a unit writes, for telling whether two units may be applied at the same time: row keys
// (a table and the hash of one of its unique key values, or a parent key its row references)
// and whole tables (a row whose key could not be told exactly). A barrier may run beside
// nothing at all.
struct WriteSet {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> rows;  // (table hash, key hash)
  std::vector<std::uint64_t> tables;                          // held whole
  // Tables without a unique key on the target that the unit updates or deletes rows of (of
  // `tables`): the server finds each row image by reading the table, locking what it reads,
  // so it waits there for any later unit's rows too, even where the source ran them side by
  // side (DependencyTracker: the later units wait for it).
  std::vector<std::uint64_t> scanned;
  bool barrier = false;
  std::string why;  // why it is a barrier (for messages)
  void clear() {
    rows.clear();
    tables.clear();
    scanned.clear();
    barrier = false;
    why.clear();
  }
  void make_barrier(std::string reason) {
    if (!barrier) why = std::move(reason);
    barrier = true;
  }
};

// The key bytes of one value of a key part under its rule (prefix, padding, folding), or nullopt
// when the value cannot be told exactly (the row then holds its table whole).
// (kWeighed parts are weighed by `source`; without one, as kAsciiFold.)
std::optional<std::string> key_part_bytes(std::string_view value, const KeyPart& part,
                                          KeySource* source = nullptr);

// The hash of a table's name as write sets use it (case-insensitive: a table written two ways
// is taken for one).
std::uint64_t table_hash(std::string_view db, std::string_view table);

// Builds the write set of one unit from its table maps and rows events (every kept event of
// the unit goes to add()). Rows of a transaction with more than kMaxRowKeys keys hold their
// tables whole instead, so that memory stays small whatever the transaction's size.
class WriteSetBuilder {
 public:
  static constexpr std::size_t kMaxRowKeys = 4096;
  // `rewrites` (--rewrite-db, may be null): the tables are looked up on the target by the
  // names the replay writes.
  WriteSetBuilder(KeySource& source,
                  const std::vector<std::pair<std::string, std::string>>* rewrites);
  void begin_unit();
  void add(const binlog::Event& ev, const binlog::FormatContext& ctx);
  WriteSet& result() { return ws_; }
  const WriteSet& result() const { return ws_; }

 private:
  struct Table {
    const SqlTable* map = nullptr;
    const TableKeys* keys = nullptr;
    std::uint64_t hash = 0;
    std::vector<std::uint64_t> cascade_hash;    // TableKeys::cascades
    std::vector<std::uint64_t> parent_hash;     // per foreign key
    std::vector<const TableKeys*> parent_keys;  // per foreign key (null: no parent key)
    std::vector<char> wanted;                   // per column: part of a key
  };
  void rows(const binlog::Event& ev, const binlog::Rows& r);
  void image(const Table& t, const binlog::Rows& r, binlog::Bytes present, binlog::ByteCursor& cur,
             bool partial_after);
  void hold(std::uint64_t table);

  KeySource& source_;
  TableCache maps_;
  std::unordered_map<std::uint64_t, Table> tables_;  // by table id, for the unit
  WriteSet ws_;
  std::vector<std::byte> scratch_;   // uncompressed rows
  std::vector<std::string> values_;  // per column of the image being read: its key bytes
  std::vector<char> state_;          // per column: 0 absent, 1 NULL, 2 value, 3 coarse
  std::string key_;
  std::string weights_;  // (kWeighed) a value's weights
  bool capped_ = false;  // the unit has more than kMaxRowKeys keys
};

}  // namespace binrecover::recovery
