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

bool utf8mb3(std::string_view charset) { return charset == "utf8" || charset == "utf8mb3"; }

// Whether `collation` is the character set's own of that kind (utf8mb4 and "_0900_ai_ci"), not
// a language's (utf8mb4_hu_0900_ai_ci). (utf8 and utf8mb3 are one character set.)
bool own_collation(std::string_view collation, std::string_view charset, std::string_view kind) {
  if (!ends_with(collation, kind)) return false;
  const std::string_view head = collation.substr(0, collation.size() - kind.size());
  return head == charset || (utf8mb3(head) && utf8mb3(charset));
}

}  // namespace

bool utf8_family(std::string_view charset) { return charset == "utf8mb4" || utf8mb3(charset); }

bool single_byte(std::string_view charset) {
  static constexpr std::string_view kSets[] = {
      "armscii8", "cp1250",  "cp1251", "cp1256", "cp1257", "cp850",    "cp852", "cp866",
      "dec8",     "geostd8", "greek",  "hebrew", "hp8",    "keybcs2",  "koi8r", "koi8u",
      "latin1",   "latin2",  "latin5", "latin7", "macce",  "macroman", "swe7",  "tis620"};
  return std::find(std::begin(kSets), std::end(kSets), charset) != std::end(kSets);
}

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
  // A character set's own collations of one level of weights (not a language's: the
  // contractions of utf8mb4_hu_0900_ai_ci make 'ccs' and 'cscs' one): the target's weights
  // (WEIGHT_STRING) tell equal values, in any character set (macce_general_ci takes 'M' for
  // 'N', koi8u_general_ci '`' for a space).
  static constexpr std::string_view kOneLevel[] = {
      "_general_ci",       "_general_nopad_ci",   "_general_mysql500_ci",  "_unicode_ci",
      "_unicode_nopad_ci", "_unicode_520_ci",     "_unicode_520_nopad_ci", "_0900_ai_ci",
      "_uca1400_ai_ci",    "_uca1400_nopad_ai_ci"};
  for (const std::string_view f : kOneLevel)
    if (own_collation(collation, charset, f)) return KeyNorm::kWeighed;
  if (collation == "latin1_swedish_ci" || collation == "latin1_swedish_nopad_ci")
    return KeyNorm::kWeighed;
  // The Unicode character sets' and latin1's own collations without contractions or
  // expansions among printable ASCII characters: case (and accents, which ASCII has none of)
  // aside, two different ASCII strings differ.
  if (!ascii_foldable(charset)) return KeyNorm::kCoarse;
  static constexpr std::string_view kFoldable[] = {
      "_general_ci",           "_general_nopad_ci",    "_general_mysql500_ci",
      "_unicode_ci",           "_unicode_nopad_ci",    "_unicode_520_ci",
      "_unicode_520_nopad_ci", "_0900_ai_ci",          "_0900_as_ci",
      "_0900_as_cs",           "_uca1400_ai_ci",       "_uca1400_ai_cs",
      "_uca1400_as_ci",        "_uca1400_as_cs",       "_uca1400_nopad_ai_ci",
      "_uca1400_nopad_ai_cs",  "_uca1400_nopad_as_ci", "_uca1400_nopad_as_cs",
      "_general1400_as_ci"};
  for (const std::string_view f : kFoldable)
    if (own_collation(collation, charset, f)) return KeyNorm::kAsciiFold;
  return KeyNorm::kCoarse;
}

bool ascii_foldable(std::string_view charset) {
  return utf8_family(charset) || charset == "latin1" || charset == "ascii";
}

namespace {

bool plain_name(std::string_view s) {
  return !s.empty() && s.size() <= 64 && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

}  // namespace

std::optional<std::uint32_t> TargetKeys::collation_number(const std::string& charset,
                                                          const std::string& collation) {
  if (!plain_name(charset) || !plain_name(collation)) return std::nullopt;
  for (std::size_t i = 0; i < collations_.size(); ++i)
    if (collations_[i].name == collation && collations_[i].charset == charset)
      return static_cast<std::uint32_t>(i);
  collations_.emplace_back();
  collations_.back().charset = charset;
  collations_.back().name = collation;
  collations_.back().checks_left = checks_;
  // (a Unicode collation not of the general kind is taken as one of the UCA's, contractions)
  collations_.back().uca = !single_byte(charset) && !ends_with(collation, "_general_ci") &&
                           !ends_with(collation, "_general_nopad_ci") &&
                           !ends_with(collation, "_general_mysql500_ci");
  return static_cast<std::uint32_t>(collations_.size() - 1);
}

bool TargetKeys::fresh(const std::string& db, const std::string& table) {
  if (fresh_.empty()) return false;
  return fresh_.erase(lower(db) + '\0' + lower(table)) != 0;
}

void TargetKeys::forget(const TableNames& changed) {
  std::vector<std::string> gone;
  for (const auto& [db, table] : changed) gone.push_back(lower(db) + '\0' + lower(table));
  if (fresh_.size() > 4096) fresh_.clear();  // (tables dropped are never met again)
  fresh_.insert(gone.begin(), gone.end());
  const auto named = [&](std::string_view db, std::string_view table) {
    std::string id = lower(db);
    id.push_back('\0');
    id += lower(table);
    return std::find(gone.begin(), gone.end(), id) != gone.end();
  };
  for (auto it = tables_.begin(); it != tables_.end();) {
    const std::string_view id = it->first;
    const std::size_t nul = id.find('\0');
    bool stale = named(id.substr(0, nul), id.substr(nul + 1));
    for (const ForeignKey& f : it->second.foreign)
      stale = stale || named(f.parent_db, f.parent_table);
    for (const auto& [db, table] : it->second.cascades) stale = stale || named(db, table);
    it = stale ? tables_.erase(it) : std::next(it);
  }
  // (a dropped child would stay listed under its parents, held whole with them for nothing)
  if (children_)
    for (const auto& [parent, list] : *children_)
      if (std::any_of(list.begin(), list.end(),
                      [&](const auto& child) { return named(child.first, child.second); })) {
        children_.reset();
        break;
      }
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

// The catalog's questions of one table (`where` names it), sent together (load()).
std::string engine_query(const std::string& where) {
  return "SELECT ENGINE FROM information_schema.TABLES" + where;
}
std::string columns_query(const std::string& where) {
  return "SELECT COLUMN_NAME, LOWER(DATA_TYPE), LOWER(IFNULL(CHARACTER_SET_NAME, '')), "
         "LOWER(IFNULL(COLLATION_NAME, '')) FROM information_schema.COLUMNS" +
         where + " ORDER BY ORDINAL_POSITION";
}
std::string unique_keys_query(const std::string& where) {
  return "SELECT INDEX_NAME, IFNULL(COLUMN_NAME, ''), IFNULL(SUB_PART, 0), INDEX_TYPE = 'HASH' "
         "FROM information_schema.STATISTICS" +
         where + " AND NON_UNIQUE = 0 ORDER BY INDEX_NAME <> 'PRIMARY', INDEX_NAME, SEQ_IN_INDEX";
}
std::string references_query(const std::string& where) {
  return "SELECT CONSTRAINT_NAME, COLUMN_NAME, REFERENCED_TABLE_SCHEMA, REFERENCED_TABLE_NAME, "
         "REFERENCED_COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE" +
         where +
         " AND REFERENCED_TABLE_NAME IS NOT NULL ORDER BY CONSTRAINT_NAME, ORDINAL_POSITION";
}

using Rows = std::vector<std::vector<std::string>>;

// Columns, in order (the row images' order), and how each compares in a key (the part's
// norm and collation; column and prefix unset).
std::vector<KeyPart> read_columns(const Rows& rows, TableKeys& k, TargetKeys& keys) {
  std::vector<KeyPart> norms;
  for (const auto& r : rows) {
    if (r.size() < 4) continue;
    k.names.push_back(r[0]);
    KeyPart p;
    p.norm = key_norm(r[1], r[2], r[3]);
    if (p.norm == KeyNorm::kWeighed) {
      if (const auto n = keys.collation_number(r[2], r[3]))
        p.collation = *n;
      else
        p.norm = ascii_foldable(r[2]) ? KeyNorm::kAsciiFold : KeyNorm::kCoarse;
    }
    norms.push_back(p);
  }
  k.columns = k.names.size();
  return norms;
}

// Unique keys, the primary key first. A part that names no column (MySQL's functional index)
// cannot be told from the row: it makes its key coarse. (A unique key of type HASH in an InnoDB
// table is MariaDB's long unique key, kept in a hidden column.)
void read_unique_keys(const Rows& rows, const std::vector<KeyPart>& norms, TableKeys& k) {
  std::string current;
  for (const auto& r : rows) {
    if (r.size() < 4) continue;
    if (k.unique.empty() || r[0] != current) {
      k.unique.emplace_back();
      current = r[0];
      if (r[3] == "1") ++k.hidden;
    }
    KeyPart part;
    const int c = column_index(k, r[1]);
    if (c < 0) {
      part.norm = KeyNorm::kCoarse;
    } else {
      part = norms[static_cast<std::size_t>(c)];
      part.column = static_cast<std::uint32_t>(c);
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

std::vector<Reference> read_references(const Rows& rows) {
  std::vector<Reference> refs;
  for (const auto& r : rows) {
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

}  // namespace

const std::vector<std::pair<std::string, std::string>>& TargetKeys::children(
    const std::string& db, const std::string& table) {
  if (!children_) {
    children_.emplace();
    // (MariaDB reads REFERENTIAL_CONSTRAINTS from every table's definition unless asked for
    // one schema: asked only for the schemas InnoDB's own list of foreign keys names as having
    // such a child, where it can tell)
    std::vector<std::string> only;
    const std::optional<std::vector<std::string>> schemas =
        session_.mariadb() ? cascading_schemas() : std::nullopt;
    if (schemas)
      for (const std::string& schema : *schemas)
        only.push_back(" AND CONSTRAINT_SCHEMA = " + hex_literal(schema));
    else
      only.emplace_back();
    for (const std::string& where : only)
      for (const auto& r : session_.rows(
               "SELECT UNIQUE_CONSTRAINT_SCHEMA, REFERENCED_TABLE_NAME, CONSTRAINT_SCHEMA, "
               "TABLE_NAME FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE (DELETE_RULE IN "
               "('CASCADE', 'SET NULL', 'SET DEFAULT') OR UPDATE_RULE IN ('CASCADE', 'SET NULL', "
               "'SET DEFAULT'))" +
               where + " ORDER BY 3, 4")) {
        if (r.size() < 4) continue;
        auto& list = (*children_)[lower(r[0]) + '\0' + lower(r[1])];
        const std::pair<std::string, std::string> child(r[2], r[3]);
        if (std::find(list.begin(), list.end(), child) == list.end()) list.push_back(child);
      }
  }
  static const std::vector<std::pair<std::string, std::string>> kNone;
  const auto it = children_->find(lower(db) + '\0' + lower(table));
  return it == children_->end() ? kNone : it->second;
}

std::optional<std::vector<std::string>> TargetKeys::cascading_schemas() {
  std::vector<std::vector<std::string>> rows;
  try {
    // TYPE: 1 ON DELETE CASCADE, 2 ON DELETE SET NULL, 4 ON UPDATE CASCADE, 8 ON UPDATE SET
    // NULL; FOR_NAME: the child as "schema/table" in file name encoding
    rows = session_.rows(
        "SELECT DISTINCT SUBSTRING_INDEX(FOR_NAME, '/', 1) FROM "
        "information_schema.INNODB_SYS_FOREIGN WHERE TYPE & 15 <> 0");
  } catch (const Error&) {  // (no PROCESS privilege, no such table)
    return std::nullopt;
  }
  std::vector<std::string> schemas;
  for (const auto& r : rows) {
    // (a name with other characters than these is encoded there: not told apart here)
    const auto plain = [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    };
    if (r.empty() || r[0].empty() || !std::all_of(r[0].begin(), r[0].end(), plain))
      return std::nullopt;
    schemas.push_back(r[0]);
  }
  return schemas;
}

// The children a change here changes by itself, and theirs: by name, breadth first (not
// through keys(): a child's keys read while this table is still being read would see it without
// keys, and hold it whole for every row). A table met twice is listed once; this table met
// again (a cycle) is listed, its children are not read twice.
void TargetKeys::read_cascades(const std::string& db, const std::string& table, TableKeys& k) {
  auto add_children = [&](const std::string& pdb, const std::string& ptable) {
    for (const auto& child : children(pdb, ptable))
      if (std::find(k.cascades.begin(), k.cascades.end(), child) == k.cascades.end())
        k.cascades.push_back(child);
  };
  add_children(db, table);
  for (std::size_t i = 0; i < k.cascades.size(); ++i) {
    const auto [cdb, ctable] = k.cascades[i];  // (a copy: the list grows)
    if (cdb != db || ctable != table) add_children(cdb, ctable);
  }
}

bool transactional_engine(std::string_view e) {
  return e == "innodb" || e == "rocksdb" || e == "tokudb" || e == "ndbcluster" || e == "ndb" ||
         e == "xtradb";
}

TableKeys TargetKeys::load(const std::string& db, const std::string& table) {
  TableKeys k;
  const std::string where =
      " WHERE TABLE_SCHEMA = " + hex_literal(db) + " AND TABLE_NAME = " + hex_literal(table);
  // (one round trip: a log that creates a table every few transactions waited for four each)
  const auto sets =
      session_.result_sets(engine_query(where) + ";\n" + columns_query(where) + ";\n" +
                           unique_keys_query(where) + ";\n" + references_query(where));
  if (sets.size() != 4)
    throw Error(ErrorCode::kServer, "the target answered " + std::to_string(sets.size()) +
                                        " of the 4 questions about the keys of a table");
  const Rows& engine = sets[0];
  if (engine.empty() || engine[0].empty()) return k;
  k.found = true;
  const std::string e = lower(engine[0][0]);
  k.transactional = transactional_engine(e);
  const std::vector<KeyPart> norms = read_columns(sets[1], k, *this);
  read_unique_keys(sets[2], norms, k);
  for (const Reference& ref : read_references(sets[3])) {
    const bool self = ref.parent_db == db && ref.parent_table == table;
    k.foreign.push_back(match_reference(ref, k, self ? k : keys(ref.parent_db, ref.parent_table)));
  }
  read_cascades(db, table, k);
  return k;
}

}  // namespace binrecover::recovery
