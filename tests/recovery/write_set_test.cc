#include "recovery/apply/write_set.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "recovery/apply/dependencies.h"
#include "recovery/apply/target_keys.h"
#include "recovery/reading/walker.h"

namespace binrecover::recovery {
namespace {

// Tables' keys as a test gives them.
class FixedKeys : public KeySource {
 public:
  std::map<std::string, TableKeys> tables;
  const TableKeys& keys(const std::string& db, const std::string& table) override {
    const auto it = tables.find(db + "." + table);
    return it != tables.end() ? it->second : missing_;
  }
  void invalidate() override {}
  // (tables named fresh: the first unit that meets one is a barrier, its keys never asked)
  std::set<std::string> fresh_tables;
  std::vector<std::string> asked;
  bool fresh(const std::string& db, const std::string& table) override {
    return fresh_tables.erase(db + "." + table) != 0;
  }

 private:
  TableKeys missing_;
};

TableKeys with_primary_key(std::uint64_t columns, std::uint32_t column) {
  TableKeys k;
  k.found = true;
  k.columns = columns;
  k.unique.push_back(UniqueKey{{KeyPart{column, 0, KeyNorm::kExact}}});
  return k;
}

// The write set of every transaction of the seed binlogs (testdata/row), in order.
std::vector<WriteSet> write_sets(KeySource& keys) {
  struct Collect : WalkConsumer {
    WriteSetBuilder builder;
    std::vector<WriteSet> sets;
    explicit Collect(KeySource& k) : builder(k, nullptr) {}
    void begin_unit(const UnitInfo&, const binlog::FormatContext&) override {
      builder.begin_unit();
    }
    void event(const binlog::Event& ev, std::uint8_t, const binlog::FormatContext& ctx) override {
      builder.add(ev, ctx);
    }
    void end_unit(const UnitInfo& u) override {
      const WriteSet& ws = builder.result();
      if (u.kind == UnitKind::kTransaction &&
          (!ws.rows.empty() || !ws.tables.empty() || ws.barrier))
        sets.push_back(ws);
    }
  } c(keys);
  const std::string dir = std::string(BINRECOVER_TESTDATA) + "/row/";
  std::vector<InputFile> in;
  for (const char* f : {"mysql-bin.000001", "mysql-bin.000002"})
    in.push_back(InputFile{dir + f, f, std::nullopt, {}, {}, std::nullopt});
  walk(in, WalkOptions{}, c, {});
  return c.sets;
}

// The seed log's row transactions: tt gets rows 1; 2, 3; 4; 5; then rows 4 and 2 are updated
// with crm.tags row 1 deleted; row 1 updated; tags row 3 inserted (tags 1 and 2 came between).
TEST(WriteSetTest, RowsOfTheSameKeyDependOnEachOtherOnly) {
  FixedKeys keys;
  keys.tables["zyyshop.tt"] = with_primary_key(5, 0);
  keys.tables["crm.tags"] = with_primary_key(2, 0);
  const std::vector<WriteSet> sets = write_sets(keys);
  ASSERT_EQ(sets.size(), 8u);
  DependencyTracker deps;
  std::vector<std::vector<std::uint64_t>> got;
  for (std::size_t i = 0; i < sets.size(); ++i) {
    EXPECT_FALSE(sets[i].barrier) << sets[i].why;
    EXPECT_TRUE(sets[i].tables.empty());
    got.push_back(deps.add(i + 1, sets[i], i));  // the source said nothing: floor = seq - 1
  }
  const std::vector<std::vector<std::uint64_t>> want = {{}, {}, {}, {}, {}, {2, 3, 4}, {1}, {}};
  EXPECT_EQ(got, want);
  EXPECT_EQ(sets[0].rows.size(), 1u);  // one insert: its key
  EXPECT_EQ(sets[5].rows.size(), 5u);  // two updates (before and after) and a delete
}

TEST(WriteSetTest, TablesWithoutKeysAreHeldWholeAndUnknownOnesAreBarriers) {
  FixedKeys keys;
  keys.tables["zyyshop.tt"] = with_primary_key(5, 0);
  TableKeys no_key;
  no_key.found = true;
  no_key.columns = 2;
  keys.tables["crm.tags"] = no_key;
  std::vector<WriteSet> sets = write_sets(keys);
  ASSERT_EQ(sets.size(), 8u);
  EXPECT_EQ(sets[2].tables.size(), 1u);  // tags rows 1, 2: the table whole
  DependencyTracker deps;
  std::vector<std::vector<std::uint64_t>> got;
  for (std::size_t i = 0; i < sets.size(); ++i) got.push_back(deps.add(i + 1, sets[i], i));
  // The tags transactions wait for each other; the tt ones as before.
  EXPECT_EQ(got[5], (std::vector<std::uint64_t>{2, 3, 4}));
  EXPECT_EQ(got[7], (std::vector<std::uint64_t>{6}));

  keys.tables.erase("crm.tags");  // not on the target
  sets = write_sets(keys);
  bool barrier = false;
  for (const WriteSet& ws : sets) barrier = barrier || ws.barrier;
  EXPECT_TRUE(barrier);

  keys.tables["crm.tags"] = with_primary_key(3, 0);  // another column count than the log's
  sets = write_sets(keys);
  barrier = false;
  for (const WriteSet& ws : sets) barrier = barrier || (ws.barrier && !ws.why.empty());
  EXPECT_TRUE(barrier);
}

// MariaDB's long unique keys: a hidden hash column each after the table's columns in a row
// image (here tt's last column taken for one): told by the keys, no barrier; one column more
// than the catalog's without such a key is a barrier.
TEST(WriteSetTest, HiddenHashColumnsOfLongUniqueKeysAreExpected) {
  FixedKeys keys;
  keys.tables["zyyshop.tt"] = with_primary_key(4, 0);
  keys.tables["zyyshop.tt"].hidden = 1;
  keys.tables["crm.tags"] = with_primary_key(2, 0);
  std::vector<WriteSet> sets = write_sets(keys);
  ASSERT_EQ(sets.size(), 8u);
  for (const WriteSet& ws : sets) EXPECT_FALSE(ws.barrier) << ws.why;
  EXPECT_EQ(sets[0].rows.size(), 1u);  // (tt row 1 by its key)

  keys.tables["zyyshop.tt"].hidden = 0;
  sets = write_sets(keys);
  EXPECT_TRUE(sets[0].barrier);
}

TEST(WriteSetTest, TheFirstUnitOnATableADdlNamedIsABarrierAndTheRestGoByKeys) {
  FixedKeys keys;
  keys.tables["zyyshop.tt"] = with_primary_key(5, 0);
  keys.tables["crm.tags"] = with_primary_key(2, 0);
  keys.fresh_tables.insert("crm.tags");
  const std::vector<WriteSet> sets = write_sets(keys);
  ASSERT_EQ(sets.size(), 8u);
  // (the seed's units: tt, tt, tags (rows 1, 2), tt, tt, tt and tags, tt, tags)
  std::vector<bool> barriers;
  for (const WriteSet& ws : sets) barriers.push_back(ws.barrier);
  EXPECT_EQ(barriers, (std::vector<bool>{false, false, true, false, false, false, false, false}));
  EXPECT_NE(sets[2].why.find("crm.tags"), std::string::npos) << sets[2].why;
  EXPECT_TRUE(keys.fresh_tables.empty());
  EXPECT_EQ(sets[7].rows.size(), 1u);  // the later tags unit by its key
}

TEST(WriteSetTest, TheSourceClockLetsUnitsOfOneGroupRunTogether) {
  FixedKeys keys;
  keys.tables["zyyshop.tt"] = with_primary_key(5, 0);
  keys.tables["crm.tags"] = with_primary_key(2, 0);
  const std::vector<WriteSet> sets = write_sets(keys);
  DependencyTracker deps;
  // Units 1..5 in one group of the source; 6 and 7 in the next: 6 (rows of 2, 3 and 4) may
  // not run beside 2..4, and 7 (row 1) waits for 1.
  std::vector<std::vector<std::uint64_t>> got;
  for (std::size_t i = 0; i < sets.size(); ++i) got.push_back(deps.add(i + 1, sets[i], 5));
  EXPECT_EQ(got[5], (std::vector<std::uint64_t>{2, 3, 4}));
  EXPECT_EQ(got[6], (std::vector<std::uint64_t>{1}));
  // Had the source committed 6 beside 2..5 (floor 1), it would wait for nothing of them.
  DependencyTracker beside;
  for (std::size_t i = 0; i < 5; ++i) beside.add(i + 1, sets[i], i);
  EXPECT_TRUE(beside.add(6, sets[5], 1).empty());
  // A barrier is waited for whatever the clock says.
  beside.barrier(7);
  EXPECT_EQ(beside.add(8, sets[6], 1), (std::vector<std::uint64_t>{7}));
}

// A DELETE or UPDATE on a table whose children cascade holds those children whole (their
// changes are not in the log); an INSERT does not.
TEST(WriteSetTest, ChangesOfAParentWithCascadingChildrenHoldTheChildren) {
  FixedKeys keys;
  keys.tables["zyyshop.tt"] = with_primary_key(5, 0);
  keys.tables["zyyshop.tt"].cascades = {{"crm", "child"}, {"crm", "grandchild"}};
  keys.tables["crm.tags"] = with_primary_key(2, 0);
  const std::vector<WriteSet> sets = write_sets(keys);
  ASSERT_EQ(sets.size(), 8u);
  const std::vector<std::uint64_t> held = {table_hash("crm", "child"),
                                           table_hash("crm", "grandchild")};
  EXPECT_TRUE(sets[0].tables.empty());  // inserts into tt
  EXPECT_EQ(sets[5].tables, held);      // updates of tt rows 4 and 2
  EXPECT_EQ(sets[6].tables, held);      // update of row 1
}

// A write set of one row key of `table`.
WriteSet rows(std::uint64_t table, std::uint64_t key) {
  WriteSet ws;
  ws.rows.push_back({table, key});
  return ws;
}

// A unit that holds a table whole waits for every earlier unit on it, not only the last one:
// without commit order the last may commit before an earlier one (issue 30: a bulk UPDATE ran
// before an earlier small transaction on one of its rows, whose after image then won).
TEST(DependencyTrackerTest, AWholeTableHoldWaitsForEveryEarlierUnitOnIt) {
  const std::uint64_t t = table_hash("d", "t"), u = table_hash("d", "u");
  DependencyTracker deps;
  WriteSet whole;
  whole.tables.push_back(t);
  EXPECT_TRUE(deps.add(1, rows(t, 11), 0).empty());
  EXPECT_TRUE(deps.add(2, rows(t, 12), 1).empty());
  EXPECT_TRUE(deps.add(3, rows(u, 13), 2).empty());
  EXPECT_EQ(deps.add(4, whole, 3), (std::vector<std::uint64_t>{1, 2}));
  EXPECT_EQ(deps.add(5, rows(t, 14), 4), (std::vector<std::uint64_t>{4}));
  EXPECT_EQ(deps.add(6, whole, 5), (std::vector<std::uint64_t>{4, 5}));
  deps.forget_below(5);  // (1..5 committed)
  EXPECT_EQ(deps.add(7, whole, 6), (std::vector<std::uint64_t>{6}));
}

// Units the source committed side by side (one commit group, one clock floor) do not wait for
// each other; a unit of the group still waits for what came before the group on its keys and
// tables, also where another unit of the group stands last on them (the keys are the target's:
// two units of one group may meet on a table held whole, as on a table without keys, or on a
// key the source did not have). Found by bench/workloads.sh keyless: 1032 without commit order.
TEST(DependencyTrackerTest, AUnitOfAGroupWaitsForWhatCameBeforeTheGroup) {
  const std::uint64_t t = table_hash("d", "k"), u = table_hash("d", "u");
  WriteSet whole;
  whole.tables.push_back(t);
  DependencyTracker keyless;
  EXPECT_TRUE(keyless.add(1, whole, 0).empty());
  EXPECT_EQ(keyless.add(2, whole, 1), (std::vector<std::uint64_t>{1}));
  EXPECT_EQ(keyless.add(3, whole, 2), (std::vector<std::uint64_t>{2}));  // 3 and 4: one group
  EXPECT_EQ(keyless.add(4, whole, 2), (std::vector<std::uint64_t>{2}));
  EXPECT_EQ(keyless.add(5, rows(t, 7), 4), (std::vector<std::uint64_t>{3, 4}));
  keyless.forget_below(2);
  EXPECT_EQ(keyless.add(6, whole, 4), (std::vector<std::uint64_t>{3, 4}));  // beside 5
  EXPECT_EQ(keyless.add(7, whole, 6), (std::vector<std::uint64_t>{5, 6}));

  DependencyTracker keys;  // one key met by 2 and 3 of one group: 3 waits for 1
  EXPECT_TRUE(keys.add(1, rows(u, 9), 0).empty());
  EXPECT_EQ(keys.add(2, rows(u, 9), 1), (std::vector<std::uint64_t>{1}));
  EXPECT_EQ(keys.add(3, rows(u, 9), 1), (std::vector<std::uint64_t>{1}));

  DependencyTracker beside;  // 1 and 2 of one group meet on a key; 3 comes after both
  EXPECT_TRUE(beside.add(1, rows(u, 9), 0).empty());
  EXPECT_TRUE(beside.add(2, rows(u, 9), 0).empty());
  EXPECT_EQ(beside.add(3, rows(u, 9), 2), (std::vector<std::uint64_t>{1, 2}));
}

// A chained table (ApplyEngine::contended: its units have had to run again for a lock): each
// unit on it waits for the one before it on it, whatever the keys and the source's clock say.
TEST(DependencyTrackerTest, AChainedTableOrdersItsUnitsWhateverTheClockSays) {
  const std::uint64_t t = table_hash("d", "t"), u = table_hash("d", "u");
  DependencyTracker deps;
  const std::vector<std::uint64_t> chain = {t};
  EXPECT_TRUE(deps.add(1, rows(t, 11), 0, chain).empty());
  // (one commit group on the source: floor 0, keys apart)
  EXPECT_EQ(deps.add(2, rows(t, 12), 0, chain), (std::vector<std::uint64_t>{1}));
  EXPECT_TRUE(deps.add(3, rows(u, 13), 0).empty());  // another table: beside them
  EXPECT_EQ(deps.add(4, rows(t, 14), 0, chain), (std::vector<std::uint64_t>{2}));
  EXPECT_TRUE(deps.add(5, rows(t, 15), 0).empty());  // not chained (yet): the clock's say
  deps.forget_below(4);
  EXPECT_TRUE(deps.add(6, rows(t, 16), 5, chain).empty());  // (4 committed)
  deps.barrier(7);
  EXPECT_EQ(deps.add(8, rows(t, 17), 7, chain), (std::vector<std::uint64_t>{7}));
}

// A unit that updates or deletes rows of a table without a key (the target reads the table for
// each row image, locking what it reads) is waited for by every later unit on that table,
// also one its source ran beside it (its rows would stop the reading: a retry each time).
TEST(DependencyTrackerTest, LaterUnitsWaitForOneThatReadsATableWithoutKey) {
  const std::uint64_t t = table_hash("d", "k");
  WriteSet insert, update;
  insert.tables.push_back(t);
  update.tables.push_back(t);
  update.scanned.push_back(t);
  DependencyTracker deps;
  EXPECT_TRUE(deps.add(1, insert, 0).empty());
  EXPECT_TRUE(deps.add(2, insert, 0).empty());  // inserts of one group: side by side
  EXPECT_EQ(deps.add(3, update, 0), (std::vector<std::uint64_t>{}));   // the same group
  EXPECT_EQ(deps.add(4, insert, 0), (std::vector<std::uint64_t>{3}));  // after the reader
  EXPECT_EQ(deps.add(5, insert, 0), (std::vector<std::uint64_t>{3}));
  deps.forget_below(3);
  EXPECT_TRUE(deps.add(6, insert, 0).empty());  // (3 committed)
  deps.barrier(7);
  EXPECT_EQ(deps.add(8, update, 7), (std::vector<std::uint64_t>{7}));
  EXPECT_EQ(deps.add(9, insert, 7), (std::vector<std::uint64_t>{7, 8}));
}

TEST(SourceClockTest, MySqlLastCommittedAndMariaDbCommitGroups) {
  SourceClock c;
  c.new_file(10);                     // units 1..10 came before this file
  EXPECT_EQ(c.mysql(11, 0, 1), 10u);  // waits for the earlier files only
  EXPECT_EQ(c.mysql(12, 0, 2), 10u);  // same group as 11
  EXPECT_EQ(c.mysql(13, 2, 3), 12u);  // after 11 and 12 committed
  EXPECT_EQ(c.mysql(14, 0, 0), 13u);  // no clock: after everything
  EXPECT_EQ(c.maria(15, 7), 14u);
  EXPECT_EQ(c.maria(16, 7), 14u);  // one commit group
  EXPECT_EQ(c.maria(17, 8), 16u);
  EXPECT_EQ(c.maria(18, std::nullopt), 17u);
}

TEST(KeyNormTest, CollationsAndTypes) {
  EXPECT_EQ(key_norm("int", "", ""), KeyNorm::kExact);
  EXPECT_EQ(key_norm("datetime", "", ""), KeyNorm::kExact);
  EXPECT_EQ(key_norm("varbinary", "", ""), KeyNorm::kPadded);
  EXPECT_EQ(key_norm("varchar", "utf8mb4", "utf8mb4_bin"), KeyNorm::kPadded);
  EXPECT_EQ(key_norm("varchar", "utf8mb4", "utf8mb4_general_ci"), KeyNorm::kWeighed);
  EXPECT_EQ(key_norm("char", "utf8mb4", "utf8mb4_0900_ai_ci"), KeyNorm::kWeighed);
  EXPECT_EQ(key_norm("varchar", "utf8mb3", "utf8mb3_uca1400_ai_ci"), KeyNorm::kWeighed);
  EXPECT_EQ(key_norm("varchar", "latin1", "latin1_swedish_ci"), KeyNorm::kWeighed);
  // (weights of more than one level do not add up character by character: ASCII only)
  EXPECT_EQ(key_norm("char", "utf8mb4", "utf8mb4_0900_as_cs"), KeyNorm::kAsciiFold);
  EXPECT_EQ(key_norm("char", "utf8mb4", "utf8mb4_uca1400_as_ci"), KeyNorm::kAsciiFold);
  // (any character set's own one-level collation: weighed by the target, which alone knows
  // that macce_general_ci takes 'M' for 'N' and koi8u_general_ci '`' for a space)
  EXPECT_EQ(key_norm("varchar", "gbk", "gbk_general_ci"), KeyNorm::kWeighed);
  EXPECT_EQ(key_norm("varchar", "macce", "macce_general_ci"), KeyNorm::kWeighed);
  EXPECT_EQ(key_norm("varchar", "koi8u", "koi8u_general_ci"), KeyNorm::kWeighed);
  EXPECT_TRUE(ascii_foldable("utf8mb4") && ascii_foldable("latin1"));
  EXPECT_FALSE(ascii_foldable("macce") || ascii_foldable("koi8u") || ascii_foldable("gbk"));
  // (a language's collation: its contractions may make two ASCII strings one, 'ccs' = 'cscs')
  EXPECT_EQ(key_norm("varchar", "utf8mb4", "utf8mb4_hu_0900_ai_ci"), KeyNorm::kCoarse);
  EXPECT_EQ(key_norm("varchar", "utf8mb4", "utf8mb4_cs_0900_as_cs"), KeyNorm::kCoarse);
  EXPECT_EQ(key_norm("varchar", "cp1250", "cp1250_czech_cs"), KeyNorm::kCoarse);
  EXPECT_EQ(key_norm("varchar", "utf8mb3", "utf8_general_ci"), KeyNorm::kWeighed);
  EXPECT_EQ(key_norm("varchar", "utf8mb4", "utf8mb4_german2_ci"), KeyNorm::kCoarse);
  EXPECT_EQ(key_norm("varchar", "utf8mb4", "utf8mb4_hungarian_ci"), KeyNorm::kCoarse);
  EXPECT_EQ(key_norm("varchar", "ucs2", "ucs2_bin"), KeyNorm::kCoarse);
  EXPECT_EQ(key_norm("json", "", ""), KeyNorm::kCoarse);
}

TEST(KeyNormTest, ValuesTheServerTakesForOneAreOne) {
  const KeyPart padded{0, 0, KeyNorm::kPadded}, fold{0, 0, KeyNorm::kAsciiFold};
  EXPECT_EQ(key_part_bytes("ab  ", padded), key_part_bytes("ab", padded));  // PAD SPACE
  EXPECT_NE(key_part_bytes("ab", padded), key_part_bytes("aB", padded));
  EXPECT_EQ(key_part_bytes("Mail@Example.COM", fold), key_part_bytes("mail@example.com ", fold));
  EXPECT_NE(key_part_bytes("mail1", fold), key_part_bytes("mail2", fold));
  // latin1_swedish_ci takes [ for { (a letter pair of old 7-bit Swedish)
  EXPECT_EQ(key_part_bytes("a{b", fold), key_part_bytes("A[B", fold));
  // Anything outside printable ASCII cannot be told: 'é' may be 'e'
  EXPECT_FALSE(key_part_bytes("caf\xc3\xa9", fold));
  EXPECT_FALSE(key_part_bytes("a\x01", fold));  // (ignorable in UCA collations)
  // A prefix key compares the first characters: cut before the padding goes
  const KeyPart prefix{0, 3, KeyNorm::kPadded};
  EXPECT_EQ(key_part_bytes("ab  x", prefix), key_part_bytes("ab  y", prefix));
  EXPECT_EQ(key_part_bytes("ab", prefix), key_part_bytes("ab z", prefix));
  EXPECT_FALSE(key_part_bytes("x", KeyPart{0, 0, KeyNorm::kCoarse}));
}

// Weights as a target gives them: a letter's weight is its upper-case ASCII letter, 'â' (C3 A2)
// weighs as 'A', '?' cannot be weighed, collation 1 is unknown to the target.
class Weights : public FixedKeys {
 public:
  Weighing weigh(std::uint32_t collation, std::string_view value, std::uint32_t prefix,
                 std::string& out) override {
    if (collation == 1) return Weighing::kFold;
    out.clear();
    for (std::size_t i = 0; i < value.size() && (prefix == 0 || out.size() < prefix); ++i) {
      if (value[i] == '?') return Weighing::kUnknown;
      if (value.substr(i, 2) == "\xc3\xa2") {
        out += 'A';
        ++i;
        continue;
      }
      out += static_cast<char>(value[i] >= 'a' && value[i] <= 'z' ? value[i] - 32 : value[i]);
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return Weighing::kWeights;
  }
};

TEST(KeyNormTest, WeighedValuesAreOneKeyWhereTheTargetSays) {
  Weights w;
  const KeyPart weighed{0, 0, KeyNorm::kWeighed, 0}, unknown{0, 0, KeyNorm::kWeighed, 1};
  // 'bâton' and 'BATON' are one key, not held whole any more
  ASSERT_TRUE(key_part_bytes("b\xc3\xa2ton", weighed, &w));
  EXPECT_EQ(key_part_bytes("b\xc3\xa2ton", weighed, &w), key_part_bytes("BATON ", weighed, &w));
  EXPECT_NE(key_part_bytes("b\xc3\xa2ton", weighed, &w), key_part_bytes("BATONS", weighed, &w));
  // a value the target cannot weigh holds the table
  EXPECT_FALSE(key_part_bytes("a?", weighed, &w));
  // a collation the target cannot weigh: as kAsciiFold, for every value of it
  EXPECT_EQ(key_part_bytes("Mail", unknown, &w),
            key_part_bytes("mail", KeyPart{0, 0, KeyNorm::kAsciiFold}));
  EXPECT_FALSE(key_part_bytes("b\xc3\xa2ton", unknown, &w));
  // without a source (tests, tools): as kAsciiFold
  EXPECT_FALSE(key_part_bytes("b\xc3\xa2ton", weighed));
  EXPECT_EQ(key_part_bytes("Mail", weighed), key_part_bytes("MAIL", weighed));
}

}  // namespace
}  // namespace binrecover::recovery
