#include "recovery/apply/write_set.h"

#include <algorithm>
#include <cstring>
#include <functional>

#include "binlog/error.h"
#include "binlog/maria_compression.h"
#include "binlog/row_values.h"
#include "recovery/sql/row_sql.h"

namespace binrecover::recovery {

namespace {

using binlog::ByteCursor;
using binlog::Bytes;

constexpr char kAbsent = 0, kNull = 1, kValue = 2, kCoarse = 3;

std::uint64_t hash_bytes(std::string_view s) { return std::hash<std::string_view>{}(s); }

void put_u64(std::string& out, std::uint64_t v) {
  char b[8];
  std::memcpy(b, &v, 8);
  out.append(b, 8);
}

// The key bytes of one value, before the key part's own rule (prefix, padding, folding).
// False for a value that no key bytes stand for (JSON, geometry).
bool value_bytes(const binlog::Value& v, std::string& out) {
  out.clear();
  switch (v.kind) {
    case binlog::Value::Kind::kNull:
      return true;
    case binlog::Value::Kind::kInt:
      put_u64(out, static_cast<std::uint64_t>(v.i));
      return true;
    case binlog::Value::Kind::kUInt:
    case binlog::Value::Kind::kBit:
    case binlog::Value::Kind::kEnum:
    case binlog::Value::Kind::kSet: {
      put_u64(out, v.u);
      return true;
    }
    case binlog::Value::Kind::kDouble: {
      const double d = v.d == 0 ? 0.0 : v.d;  // -0 is 0 to the server
      std::uint64_t bits = 0;
      std::memcpy(&bits, &d, 8);
      put_u64(out, bits);
      return true;
    }
    case binlog::Value::Kind::kDecimal: {
      std::string_view t = v.text.view();
      // -0.00 is 0.00
      if (!t.empty() && t[0] == '-' && t.find_first_not_of("-0.") == std::string_view::npos)
        t.remove_prefix(1);
      out.assign(t);
      return true;
    }
    case binlog::Value::Kind::kTemporal:
      out.assign(v.text.view());
      return true;
    case binlog::Value::Kind::kString:
      out.assign(reinterpret_cast<const char*>(v.bytes.data()), v.bytes.size());
      return true;
    case binlog::Value::Kind::kJson:
    case binlog::Value::Kind::kGeometry:
      return false;
  }
  return false;
}

// Appends the key bytes of `value` under `part`'s rule; false when the value cannot be told
// exactly (then the row holds its table whole).
bool append_part(std::string& key, std::string_view value, const KeyPart& part, KeySource* source,
                 std::string& weights) {
  if (part.norm == KeyNorm::kCoarse) return false;
  if (part.norm == KeyNorm::kWeighed && source != nullptr) {
    switch (source->weigh(part.collation, value, part.prefix, weights)) {
      case Weighing::kWeights:
        put_u64(key, weights.size());
        key.append(weights);
        return true;
      case Weighing::kUnknown:
        return false;
      case Weighing::kFold:
        break;
    }
  }
  if (part.prefix > 0 && value.size() > part.prefix) value = value.substr(0, part.prefix);
  std::size_t n = value.size();
  if (part.norm != KeyNorm::kExact)  // (PAD SPACE; kCoarse went above)
    while (n > 0 && (value[n - 1] == ' ' || value[n - 1] == '\0')) --n;
  value = value.substr(0, n);
  put_u64(key, n);
  if (part.norm != KeyNorm::kAsciiFold && part.norm != KeyNorm::kWeighed) {
    key.append(value);
    return true;
  }
  // Each of 0x60..0x7e taken for its neighbour 0x20 below: the letters' case, and the pairs
  // `@ {[ |\ }] ~^ that old 7-bit national sets (and latin1_swedish_ci) treat as one letter.
  for (const char c : value) {
    if (c < 0x20 || c > 0x7e) return false;
    key.push_back(c >= 0x60 ? static_cast<char>(c - 0x20) : c);
  }
  return true;
}

}  // namespace

std::optional<std::string> key_part_bytes(std::string_view value, const KeyPart& part,
                                          KeySource* source) {
  std::string out, weights;
  if (!append_part(out, value, part, source, weights)) return std::nullopt;
  return out;
}

std::uint64_t table_hash(std::string_view db, std::string_view table) {
  std::string s;
  s.reserve(db.size() + table.size() + 1);
  for (const char c : db) s.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c);
  s.push_back('\0');
  for (const char c : table) s.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c);
  return hash_bytes(s);
}

WriteSetBuilder::WriteSetBuilder(KeySource& source,
                                 const std::vector<std::pair<std::string, std::string>>* rewrites)
    : source_(source), maps_(TableCache::Options{nullptr, false, rewrites}) {}

void WriteSetBuilder::begin_unit() {
  ws_.clear();
  tables_.clear();
  capped_ = false;
}

void WriteSetBuilder::hold(std::uint64_t table) {
  for (const std::uint64_t t : ws_.tables)
    if (t == table) return;
  ws_.tables.push_back(table);
}

void WriteSetBuilder::add(const binlog::Event& ev, const binlog::FormatContext& ctx) {
  if (ws_.barrier) return;
  if (const auto* tm = std::get_if<binlog::TableMap>(&ev.body)) {
    const SqlTable* map = nullptr;
    try {
      map = &maps_.update(ev, *tm, ctx);
    } catch (const Error&) {  // the SQL writer reports it
      ws_.make_barrier("a table map that does not decode");
      return;
    }
    Table& t = tables_[tm->table_id];
    t.map = map;
    const binlog::TableInfo& info = map->info;
    const std::string name = info.db + "." + info.table;
    if (source_.fresh(info.db, info.table))
      return ws_.make_barrier(name + " is first written since a DDL named it");
    t.keys = &source_.keys(info.db, info.table);
    t.hash = table_hash(info.db, info.table);
    if (!t.keys->found) return ws_.make_barrier(name + " is not on the target");
    if (t.keys->columns != info.layout.size() &&
        t.keys->columns + t.keys->hidden != info.layout.size())
      return ws_.make_barrier(name + " has " + std::to_string(t.keys->columns) +
                              " columns on the target, " + std::to_string(info.layout.size()) +
                              " in the log");
    if (!t.keys->transactional) return ws_.make_barrier(name + " is not transactional");
    t.wanted.assign(info.layout.size(), 0);
    for (const UniqueKey& k : t.keys->unique)
      for (const KeyPart& p : k.parts)
        if (p.column < t.wanted.size()) t.wanted[p.column] = 1;
    t.cascade_hash.clear();
    for (const auto& [db, table] : t.keys->cascades)
      t.cascade_hash.push_back(table_hash(db, table));
    t.parent_hash.clear();
    t.parent_keys.clear();
    for (const ForeignKey& f : t.keys->foreign) {
      t.parent_hash.push_back(table_hash(f.parent_db, f.parent_table));
      t.parent_keys.push_back(f.parent_key >= 0 ? &source_.keys(f.parent_db, f.parent_table)
                                                : nullptr);
      for (const std::uint32_t c : f.columns)
        if (c < t.wanted.size()) t.wanted[c] = 1;
    }
    if (t.keys->unique.empty()) hold(t.hash);  // no key: every row may be any row
    return;
  }
  if (const auto* r = std::get_if<binlog::Rows>(&ev.body)) rows(ev, *r);
}

void WriteSetBuilder::rows(const binlog::Event& ev, const binlog::Rows& r) {
  const auto it = tables_.find(r.table_id);
  if (it == tables_.end()) return ws_.make_barrier("a rows event without its table map");
  const Table& t = it->second;
  if (r.kind != binlog::RowsKind::kWrite)  // (what the target's foreign keys change by themselves)
    for (const std::uint64_t c : t.cascade_hash) hold(c);
  if (r.kind != binlog::RowsKind::kWrite && t.keys->unique.empty() &&
      std::find(ws_.scanned.begin(), ws_.scanned.end(), t.hash) == ws_.scanned.end())
    ws_.scanned.push_back(t.hash);
  if (capped_) {  // a large transaction: its tables whole
    hold(t.hash);
    for (const std::uint64_t p : t.parent_hash) hold(p);
    return;
  }
  Bytes images = r.rows;
  if (r.compressed) {
    scratch_.clear();
    binlog::maria_uncompress_append(r.rows, scratch_, ev.pos);
    images = Bytes(scratch_.data(), scratch_.size());
  }
  ByteCursor cur(images, ev.pos);
  const bool update =
      r.kind == binlog::RowsKind::kUpdate || r.kind == binlog::RowsKind::kPartialUpdate;
  while (!cur.empty() && !ws_.barrier) {
    image(t, r, r.columns_before, cur, false);
    if (update) image(t, r, r.columns_after, cur, r.kind == binlog::RowsKind::kPartialUpdate);
    if (ws_.rows.size() >= kMaxRowKeys) {
      for (const auto& [table, key] : ws_.rows) hold(table);
      ws_.rows.clear();
      ws_.rows.shrink_to_fit();
      capped_ = true;
      hold(t.hash);
      for (const std::uint64_t p : t.parent_hash) hold(p);
      return;
    }
  }
}

void WriteSetBuilder::image(const Table& t, const binlog::Rows& r, Bytes present, ByteCursor& cur,
                            bool partial_after) {
  const binlog::TableInfo& info = t.map->info;
  const std::size_t n = info.layout.size();
  if (values_.size() < n) values_.resize(n);
  state_.assign(n, kAbsent);
  const Bytes partial_json = partial_after ? partial_json_bitmap(info, r, cur) : Bytes{};
  struct Sink {
    WriteSetBuilder& b;
    const binlog::TableInfo& info;
    void null(std::size_t col) { b.state_[col] = kNull; }
    void json_diff(std::size_t col, Bytes) { b.state_[col] = kCoarse; }
    void value(std::size_t col, ByteCursor& c) {
      const binlog::Value v = binlog::decode_value(info, col, c);
      b.state_[col] = value_bytes(v, b.values_[col]) ? kValue : kCoarse;
    }
  };
  const std::vector<char>& wanted = t.wanted;
  binlog::walk_row_image(
      info, r.column_count, present, cur,
      [&wanted](std::size_t col) { return col < wanted.size() && wanted[col] != 0; },
      Sink{*this, info}, partial_json);

  // key_ = table hash, key number, then each part's bytes.
  auto key_of = [&](std::uint64_t table, std::uint64_t number, const std::vector<KeyPart>& parts,
                    const std::vector<std::uint32_t>* columns) -> int {  // 1 key, 0 NULL, -1 whole
    key_.clear();
    put_u64(key_, table);
    put_u64(key_, number);
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const std::uint32_t col = columns != nullptr ? (*columns)[i] : parts[i].column;
      const char s = col < state_.size() ? state_[col] : kAbsent;
      if (s == kNull) return 0;  // a NULL in a unique key clashes with nothing
      if (s != kValue || !append_part(key_, values_[col], parts[i], &source_, weights_)) return -1;
    }
    return 1;
  };
  bool named = false;  // a key without NULL names the row
  for (std::size_t k = 0; k < t.keys->unique.size(); ++k) {
    const int got = key_of(t.hash, k, t.keys->unique[k].parts, nullptr);
    if (got < 0) {  // (its foreign keys still count)
      hold(t.hash);
      named = true;
      break;
    }
    if (got > 0) {
      ws_.rows.push_back({t.hash, hash_bytes(key_)});
      named = true;
    }
  }
  // Every unique key NULL somewhere (nullable unique keys, no primary key): the row has no
  // name another change of it would share, so it holds the table.
  if (!named && !t.keys->unique.empty()) hold(t.hash);
  for (std::size_t f = 0; f < t.keys->foreign.size(); ++f) {
    const ForeignKey& fk = t.keys->foreign[f];
    const std::uint64_t parent = t.parent_hash[f];
    const TableKeys* pk = t.parent_keys[f];
    const auto number = static_cast<std::size_t>(fk.parent_key);
    if (pk == nullptr || !pk->found || number >= pk->unique.size() ||
        pk->unique[number].parts.size() != fk.columns.size()) {
      hold(parent);
      continue;
    }
    const int got = key_of(parent, number, pk->unique[number].parts, &fk.columns);
    if (got < 0) hold(parent);
    if (got > 0) ws_.rows.push_back({parent, hash_bytes(key_)});
  }
}

}  // namespace binrecover::recovery
