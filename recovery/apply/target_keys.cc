#include "recovery/apply/target_keys.h"

#include <algorithm>
#include <cstdlib>

#include "recovery/sql/sql_quote.h"

namespace binrecover::recovery {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  return out;
}

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

std::uint32_t number(const std::string& s) {
  return static_cast<std::uint32_t>(std::strtoul(s.c_str(), nullptr, 10));
}

}  // namespace

KeyNorm key_norm(std::string_view type, std::string_view charset, std::string_view collation) {
  static constexpr std::string_view kText[] = {"char", "varchar",    "tinytext",
                                               "text", "mediumtext", "longtext"};
  static constexpr std::string_view kBinary[] = {"binary", "varbinary",  "tinyblob",
                                                 "blob",   "mediumblob", "longblob"};
  static constexpr std::string_view kCoarseTypes[] = {
      "json",           "geometry",           "point",           "linestring",
      "polygon",        "multipoint",         "multilinestring", "multipolygon",
      "geomcollection", "geometrycollection", "vector"};
  for (const std::string_view t : kCoarseTypes)
    if (type == t) return KeyNorm::kCoarse;
  for (const std::string_view t : kBinary)
    if (type == t) return KeyNorm::kPadded;
  bool text = false;
  for (const std::string_view t : kText) text = text || type == t;
  if (!text) return KeyNorm::kExact;  // numbers, temporal values, ENUM, SET, BIT
  if (collation.empty() || collation == "binary") return KeyNorm::kPadded;
  // Character sets whose space and ASCII letters are single bytes of their own.
  if (charset == "ucs2" || charset == "utf16" || charset == "utf16le" || charset == "utf32")
    return KeyNorm::kCoarse;
  if (ends_with(collation, "_bin") || ends_with(collation, "_nopad_bin")) return KeyNorm::kPadded;
  // Collations without contractions or expansions among printable ASCII characters: case
  // (and accents, which ASCII has none of) aside, two different ASCII strings differ.
  static constexpr std::string_view kFoldable[] = {
      "_general_ci",           "_general_nopad_ci",    "_general_mysql500_ci",
      "_unicode_ci",           "_unicode_nopad_ci",    "_unicode_520_ci",
      "_unicode_520_nopad_ci", "_0900_ai_ci",          "_0900_as_ci",
      "_0900_as_cs",           "_uca1400_ai_ci",       "_uca1400_ai_cs",
      "_uca1400_as_ci",        "_uca1400_as_cs",       "_uca1400_nopad_ai_ci",
      "_uca1400_nopad_ai_cs",  "_uca1400_nopad_as_ci", "_uca1400_nopad_as_cs",
      "_general1400_as_ci"};
  for (const std::string_view f : kFoldable)
    if (ends_with(collation, f)) return KeyNorm::kAsciiFold;
  if (collation == "latin1_swedish_ci" || collation == "latin1_swedish_nopad_ci" ||
      collation == "latin1_general_ci" || collation == "ascii_general_ci")
    return KeyNorm::kAsciiFold;
  return KeyNorm::kCoarse;
}

const TableKeys& TargetKeys::keys(const std::string& db, const std::string& table) {
  std::string id = db;
  id.push_back('\0');
  id += table;
  const auto it = tables_.find(id);
  if (it != tables_.end()) return it->second;
  // Inserted before it is loaded: a table whose foreign key references itself finds itself.
  TableKeys& slot = tables_[id];
  slot = load(db, table);
  return slot;
}

namespace {

int column_index(const TableKeys& k, const std::string& name) {
  for (std::size_t i = 0; i < k.names.size(); ++i)
    if (lower(k.names[i]) == lower(name)) return static_cast<int>(i);
  return -1;
}

// Columns, in order (the row images' order), and how each compares in a key.
std::vector<KeyNorm> read_columns(Session& session, const std::string& where, TableKeys& k) {
  std::vector<KeyNorm> norms;
  for (const auto& r :
       session.rows("SELECT COLUMN_NAME, LOWER(DATA_TYPE), LOWER(IFNULL(CHARACTER_SET_NAME, '')), "
                    "LOWER(IFNULL(COLLATION_NAME, '')) FROM information_schema.COLUMNS" +
                    where + " ORDER BY ORDINAL_POSITION")) {
    if (r.size() < 4) continue;
    k.names.push_back(r[0]);
    norms.push_back(key_norm(r[1], r[2], r[3]));
  }
  k.columns = k.names.size();
  return norms;
}

// Unique keys, the primary key first. A part that names no column (MySQL's functional index)
// cannot be told from the row: it makes its key coarse.
void read_unique_keys(Session& session, const std::string& where, const std::vector<KeyNorm>& norms,
                      TableKeys& k) {
  std::string current;
  for (const auto& r :
       session.rows("SELECT INDEX_NAME, IFNULL(COLUMN_NAME, ''), IFNULL(SUB_PART, 0) FROM "
                    "information_schema.STATISTICS" +
                    where +
                    " AND NON_UNIQUE = 0 ORDER BY INDEX_NAME <> 'PRIMARY', INDEX_NAME, "
                    "SEQ_IN_INDEX")) {
    if (r.size() < 3) continue;
    if (k.unique.empty() || r[0] != current) {
      k.unique.emplace_back();
      current = r[0];
    }
    KeyPart part;
    const int c = column_index(k, r[1]);
    if (c < 0) {
      part.norm = KeyNorm::kCoarse;
    } else {
      part.column = static_cast<std::uint32_t>(c);
      part.norm = norms[static_cast<std::size_t>(c)];
    }
    part.prefix = number(r[2]);
    k.unique.back().parts.push_back(part);
  }
}

// A foreign key as the catalog lists it.
struct Reference {
  std::string name, parent_db, parent_table;
  std::vector<std::string> columns, referenced;
};

std::vector<Reference> read_references(Session& session, const std::string& where) {
  std::vector<Reference> refs;
  for (const auto& r : session.rows(
           "SELECT CONSTRAINT_NAME, COLUMN_NAME, REFERENCED_TABLE_SCHEMA, REFERENCED_TABLE_NAME, "
           "REFERENCED_COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE" +
           where +
           " AND REFERENCED_TABLE_NAME IS NOT NULL ORDER BY CONSTRAINT_NAME, "
           "ORDINAL_POSITION")) {
    if (r.size() < 5) continue;
    if (refs.empty() || refs.back().name != r[0]) refs.push_back({r[0], r[2], r[3], {}, {}});
    refs.back().columns.push_back(r[1]);
    refs.back().referenced.push_back(r[4]);
  }
  return refs;
}

// A foreign key of `k` matched with the parent's unique key of exactly its referenced columns,
// whole (no prefix); without one, its columns alone.
ForeignKey match_reference(const Reference& ref, const TableKeys& k, const TableKeys& parent) {
  ForeignKey fk;
  fk.parent_db = ref.parent_db;
  fk.parent_table = ref.parent_table;
  bool columns_known = true;
  for (const std::string& c : ref.columns) columns_known = columns_known && column_index(k, c) >= 0;
  for (std::size_t u = 0; columns_known && u < parent.unique.size(); ++u) {
    const UniqueKey& uk = parent.unique[u];
    if (uk.parts.size() != ref.referenced.size()) continue;
    std::vector<std::uint32_t> mine;
    for (const KeyPart& p : uk.parts) {
      if (p.prefix != 0 || p.norm == KeyNorm::kCoarse || p.column >= parent.names.size()) break;
      const auto at = std::find_if(
          ref.referenced.begin(), ref.referenced.end(),
          [&](const std::string& n) { return lower(n) == lower(parent.names[p.column]); });
      if (at == ref.referenced.end()) break;
      mine.push_back(static_cast<std::uint32_t>(
          column_index(k, ref.columns[static_cast<std::size_t>(at - ref.referenced.begin())])));
    }
    if (mine.size() != uk.parts.size()) continue;
    fk.columns = std::move(mine);
    fk.parent_key = static_cast<int>(u);
    break;
  }
  if (fk.parent_key < 0)
    for (const std::string& c : ref.columns)
      if (const int i = column_index(k, c); i >= 0)
        fk.columns.push_back(static_cast<std::uint32_t>(i));
  return fk;
}

// The children a change here changes by itself, and theirs: by name, breadth first (not
// through keys(): a child's keys read while this table is still being read would see it without
// keys, and hold it whole for every row). A table met twice is listed once; this table met
// again (a cycle) is listed, its children are not read twice.
void read_cascades(Session& session, const std::string& db, const std::string& table,
                   TableKeys& k) {
  auto add_children = [&](const std::string& pdb, const std::string& ptable) {
    for (const auto& r : session.rows(
             "SELECT CONSTRAINT_SCHEMA, TABLE_NAME FROM information_schema.REFERENTIAL_CONSTRAINTS "
             "WHERE UNIQUE_CONSTRAINT_SCHEMA = " +
             hex_literal(pdb) + " AND REFERENCED_TABLE_NAME = " + hex_literal(ptable) +
             " AND (DELETE_RULE IN ('CASCADE', 'SET NULL', 'SET DEFAULT') OR "
             "UPDATE_RULE IN ('CASCADE', 'SET NULL', 'SET DEFAULT')) ORDER BY 1, 2")) {
      if (r.size() < 2) continue;
      const std::pair<std::string, std::string> child(r[0], r[1]);
      if (std::find(k.cascades.begin(), k.cascades.end(), child) == k.cascades.end())
        k.cascades.push_back(child);
    }
  };
  add_children(db, table);
  for (std::size_t i = 0; i < k.cascades.size(); ++i) {
    const auto [cdb, ctable] = k.cascades[i];  // (a copy: the list grows)
    if (cdb != db || ctable != table) add_children(cdb, ctable);
  }
}

}  // namespace

TableKeys TargetKeys::load(const std::string& db, const std::string& table) {
  TableKeys k;
  const std::string where =
      " WHERE TABLE_SCHEMA = " + hex_literal(db) + " AND TABLE_NAME = " + hex_literal(table);
  const auto engine = session_.rows("SELECT ENGINE FROM information_schema.TABLES" + where);
  if (engine.empty() || engine[0].empty()) return k;
  k.found = true;
  const std::string e = lower(engine[0][0]);
  k.transactional = e == "innodb" || e == "rocksdb" || e == "tokudb" || e == "ndbcluster" ||
                    e == "ndb" || e == "xtradb";
  const std::vector<KeyNorm> norms = read_columns(session_, where, k);
  read_unique_keys(session_, where, norms, k);
  for (const Reference& ref : read_references(session_, where)) {
    const bool self = ref.parent_db == db && ref.parent_table == table;
    k.foreign.push_back(match_reference(ref, k, self ? k : keys(ref.parent_db, ref.parent_table)));
  }
  read_cascades(session_, db, table, k);
  return k;
}

}  // namespace binrecover::recovery
