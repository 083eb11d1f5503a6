#include "recovery/emit/row_changes.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <ctime>

#include "binlog/charsets.h"
#include "binlog/error.h"
#include "binlog/json_binary.h"
#include "binlog/maria_compression.h"
#include "binlog/row_values.h"
#include "recovery/reading/filter.h"
#include "recovery/reading/local_time.h"
#include "recovery/reading/statement_dbs.h"
#include "recovery/sql/row_sql.h"
#include "recovery/sql/table_cache.h"
#include "recovery/text/base64.h"
#include "recovery/text/escape.h"

namespace binrecover::recovery {

using binlog::ByteCursor;
using binlog::Bytes;
using binlog::Event;

namespace {

void put(fmt::memory_buffer& b, std::string_view s) { b.append(s.data(), s.data() + s.size()); }

// cp1252 (MySQL's latin1) bytes 0x80-0x9F as Unicode code points (0: undefined, kept as is).
constexpr std::uint16_t kCp1252High[32] = {
    0x20AC, 0,      0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
    0x2039, 0x0152, 0,      0x017D, 0,      0,      0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
    0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0,      0x017E, 0x0178};

void put_utf8(std::string& s, std::uint32_t cp) {
  if (cp < 0x80) {
    s += static_cast<char>(cp);
  } else if (cp < 0x800) {
    s += static_cast<char>(0xC0 | (cp >> 6));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    s += static_cast<char>(0xE0 | (cp >> 12));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    const std::size_t n = utf8_length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

void put_base64_object(fmt::memory_buffer& b, Bytes bytes) {
  put(b, "{\"base64\":\"");
  fmt::memory_buffer text;
  append_base64(text, bytes);
  for (char c : std::string_view(text.data(), text.size()))
    if (c != '\n') b.push_back(c);
  put(b, "\"}");
}

// One column's value as JSON (binlog::visit_value's visitor).
struct JsonValue {
  fmt::memory_buffer& b;
  const binlog::TableInfo& info;
  std::size_t col;
  std::string& scratch;

  void integer(std::int64_t x) { fmt::format_to(std::back_inserter(b), "{}", x); }
  void uinteger(std::uint64_t x) { fmt::format_to(std::back_inserter(b), "{}", x); }
  void real(double d, bool is_float) {
    char tmp[64];
    const auto r = is_float ? std::to_chars(tmp, tmp + sizeof tmp, static_cast<float>(d))
                            : std::to_chars(tmp, tmp + sizeof tmp, d);
    put(b, std::string_view(tmp, static_cast<std::size_t>(r.ptr - tmp)));
  }
  template <class Write>
  void text(binlog::Value::Kind kind, Write&& write) {
    char tmp[binlog::ValueText::kCapacity];
    std::string_view t(tmp, static_cast<std::size_t>(write(tmp) - tmp));
    if (t.size() >= 2 && t.front() == '\'' && t.back() == '\'') t = t.substr(1, t.size() - 2);
    if (kind == binlog::Value::Kind::kDecimal) {
      put(b, t);
    } else {
      append_json_string(b, t);
    }
  }
  void string(Bytes bytes, std::uint16_t collation) {
    const std::string_view s(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    const binlog::Collation* c = collation != 0 ? binlog::find_collation(collation) : nullptr;
    if (c != nullptr && c->charset == "latin1") {
      scratch.clear();
      for (unsigned char ch : s) {
        const std::uint32_t cp =
            ch >= 0x80 && ch < 0xA0 && kCp1252High[ch - 0x80] != 0 ? kCp1252High[ch - 0x80] : ch;
        put_utf8(scratch, cp);
      }
      append_json_string(b, scratch);
      return;
    }
    // Text: UTF-8 and ASCII character sets, or a column whose character set the log does not
    // name, when the bytes are UTF-8.
    const bool text = c == nullptr ? true : (c->utf8 || c->charset == "ascii");
    if (text && (c == nullptr || !c->binary) && valid_utf8(s)) {
      append_json_string(b, s);
      return;
    }
    put_base64_object(b, bytes);
  }
  void bits(std::uint64_t x, std::uint16_t /*width*/) { uinteger(x); }
  // (the names by pointer: a copy of the list per value would allocate on every row)
  const std::vector<std::string>* names_of(const std::vector<std::vector<std::string>>& all) const {
    return col < all.size() && !all[col].empty() ? &all[col] : nullptr;
  }
  void enumeration(std::uint64_t x) {
    const auto* names = names_of(info.enum_values);
    if (names != nullptr && x >= 1 && x <= names->size())
      append_json_string(b, (*names)[x - 1]);
    else if (names != nullptr && x == 0)
      append_json_string(b, "");
    else
      uinteger(x);
  }
  void set(std::uint64_t x) {
    const auto* names = names_of(info.set_values);
    if (names == nullptr) {
      uinteger(x);
      return;
    }
    b.push_back('[');
    bool first = true;
    for (std::size_t k = 0; k < names->size() && k < 64; ++k) {
      if (!(x & (std::uint64_t{1} << k))) continue;
      if (!first) b.push_back(',');
      first = false;
      append_json_string(b, (*names)[k]);
    }
    b.push_back(']');
  }
  void json(Bytes bytes) {
    scratch.clear();
    binlog::append_json_text(scratch, bytes, 0);
    put(b, scratch);
  }
  void geometry(Bytes bytes) { put_base64_object(b, bytes); }
};

// One row image as a JSON object.
struct ObjectSink {
  fmt::memory_buffer& b;
  const SqlTable& t;
  std::string& scratch;
  bool first = true;
  void key(std::size_t col) {
    b.push_back(first ? '{' : ',');
    first = false;
    if (col < t.info.names.size() && !t.info.names[col].empty())
      append_json_string(b, t.info.names[col]);
    else
      fmt::format_to(std::back_inserter(b), "\"@{}\"", col + 1);
    b.push_back(':');
  }
  void null(std::size_t col) {
    key(col);
    put(b, "null");
  }
  void json_diff(std::size_t col, Bytes /*diffs*/) {
    key(col);
    put(b, "{\"partial_json_update\":true}");
  }
  void value(std::size_t col, ByteCursor& cur) {
    key(col);
    binlog::visit_value(t.info, col, cur, JsonValue{b, t.info, col, scratch});
  }
  void finish() { put(b, first ? "{}" : "}"); }
};

class RowChanges : public WalkConsumer {
 public:
  RowChanges(Schema* schema, RowChangeFormat format, Output& out)
      : schema_(schema),
        format_(format),
        out_(out),
        tables_(TableCache::Options{schema, true, nullptr, false}) {
    if (format_ == RowChangeFormat::kCsv)
      put(out_.buf(), "time,gtid,file,pos,database,table,type,before,after\r\n");
  }

  std::uint64_t statements() const { return statements_; }

  bool wants_gtid() const override { return true; }
  void observe(const Event& ev) override {
    if (schema_ != nullptr) schema_->observe(ev);
  }
  bool learns_before_start() const override { return schema_ != nullptr; }
  void learn(const Event& ev) override { schema_->observe(ev); }

  void begin_unit(const UnitInfo& u, const binlog::FormatContext& /*ctx*/) override {
    gtid_ = u.gtid;
    file_ = *u.file;
  }

  void event(const Event& ev, std::uint8_t marks, const binlog::FormatContext& ctx) override {
    if (!(marks & kMarkKeep)) return;
    if (const auto* tm = std::get_if<binlog::TableMap>(&ev.body)) {
      tables_.update(ev, *tm, ctx);
      return;
    }
    if (const auto* q = std::get_if<binlog::Query>(&ev.body)) {
      if (!is_transaction_control(q->query) && starts_with_dml(q->query)) ++statements_;
      return;
    }
    const auto* rows = std::get_if<binlog::Rows>(&ev.body);
    if (rows == nullptr) return;
    const SqlTable* t = tables_.find(rows->table_id);
    if (t == nullptr)
      throw Error(ErrorCode::kMissingTableMap,
                  "rows event for table id " + std::to_string(rows->table_id) + " has no table map",
                  ev.pos);
    Bytes images = rows->rows;
    if (rows->compressed) {
      uncompressed_.clear();
      binlog::maria_uncompress_append(rows->rows, uncompressed_, ev.pos);
      images = Bytes(uncompressed_.data(), uncompressed_.size());
    }
    write_rows(ev, *rows, images, *t);
    out_.flush_if_large();
  }

 private:
  static bool starts_with_dml(std::string_view q) {
    for (const char* k : {"INSERT", "UPDATE", "DELETE", "REPLACE", "LOAD"})
      if (starts_with_keyword(q, k)) return true;
    return false;
  }

  void write_rows(const Event& ev, const binlog::Rows& rows, Bytes images, const SqlTable& t) {
    ByteCursor cur(images, ev.pos);
    const char* kind = rows.kind == binlog::RowsKind::kWrite    ? "insert"
                       : rows.kind == binlog::RowsKind::kDelete ? "delete"
                                                                : "update";
    const std::string time = local_time_text(ev.header.timestamp);
    while (!cur.empty()) {
      before_.clear();
      after_.clear();
      if (rows.kind != binlog::RowsKind::kWrite)
        image(before_, t, rows, rows.columns_before, cur, false);
      if (rows.kind != binlog::RowsKind::kDelete)
        image(after_, t, rows,
              rows.kind == binlog::RowsKind::kWrite ? rows.columns_before : rows.columns_after, cur,
              rows.kind == binlog::RowsKind::kPartialUpdate);
      record(ev, t, kind, time);
    }
  }

  void image(fmt::memory_buffer& b, const SqlTable& t, const binlog::Rows& rows, Bytes present,
             ByteCursor& cur, bool partial) {
    const Bytes partial_json = partial ? partial_json_bitmap(t.info, rows, cur) : Bytes{};
    ObjectSink sink{b, t, scratch_};
    binlog::walk_row_image(
        t.info, rows.column_count, present, cur, [](std::size_t) { return true; }, sink,
        partial_json);
    sink.finish();
  }

  void record(const Event& ev, const SqlTable& t, const char* kind, const std::string& time) {
    fmt::memory_buffer& b = out_.buf();
    auto it = std::back_inserter(b);
    const std::string_view before = before_.size()
                                        ? std::string_view(before_.data(), before_.size())
                                        : std::string_view("null");
    const std::string_view after =
        after_.size() ? std::string_view(after_.data(), after_.size()) : std::string_view("null");
    if (format_ == RowChangeFormat::kJsonl) {
      put(b, "{\"time\":");
      append_json_string(b, time);
      fmt::format_to(it, ",\"timestamp\":{},\"gtid\":", ev.header.timestamp);
      if (gtid_.empty())
        put(b, "null");
      else
        append_json_string(b, gtid_);
      put(b, ",\"file\":");
      append_json_string(b, file_);
      fmt::format_to(it, ",\"pos\":{},\"database\":", ev.pos);
      append_json_string(b, t.info.db);
      put(b, ",\"table\":");
      append_json_string(b, t.info.table);
      fmt::format_to(it, ",\"type\":\"{}\",\"before\":{},\"after\":{}}}\n", kind, before, after);
      return;
    }
    csv(b, time);
    b.push_back(',');
    csv(b, gtid_);
    b.push_back(',');
    csv(b, file_);
    fmt::format_to(it, ",{},", ev.pos);
    csv(b, t.info.db);
    b.push_back(',');
    csv(b, t.info.table);
    fmt::format_to(it, ",{},", kind);
    csv(b, before_.size() ? before : std::string_view());
    b.push_back(',');
    csv(b, after_.size() ? after : std::string_view());
    put(b, "\r\n");
  }

  // A CSV field, quoted (RFC 4180): quotes doubled; bytes that are not UTF-8 as U+FFFD; a
  // field a spreadsheet would run as a formula (= + - @ first) gets a ' before it.
  static void csv(fmt::memory_buffer& b, std::string_view s) {
    b.push_back('"');
    if (!s.empty() && (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@')) b.push_back('\'');
    for (std::size_t i = 0; i < s.size();) {
      const auto c = static_cast<unsigned char>(s[i]);
      if (c < 0x80) {
        if (c == '"') b.push_back('"');
        b.push_back(static_cast<char>(c));
        ++i;
        continue;
      }
      const std::size_t n = utf8_length(s, i);
      if (n == 0) {
        put(b, "\xEF\xBF\xBD");  // U+FFFD
        ++i;
      } else {
        put(b, s.substr(i, n));
        i += n;
      }
    }
    b.push_back('"');
  }

  Schema* schema_;
  RowChangeFormat format_;
  Output& out_;
  TableCache tables_;
  std::string gtid_, file_;
  fmt::memory_buffer before_, after_;
  std::string scratch_;
  std::vector<std::byte> uncompressed_;
  std::uint64_t statements_ = 0;
};

// The (database, table) pairs of the kept table maps and statements.
class TableLister : public WalkConsumer {
 public:
  std::vector<std::pair<std::string, std::string>> tables;
  void event(const Event& ev, std::uint8_t marks, const binlog::FormatContext& /*ctx*/) override {
    if (!(marks & kMarkKeep)) return;
    if (const auto* tm = std::get_if<binlog::TableMap>(&ev.body)) {
      add(std::string(tm->db), std::string(tm->table));
    } else if (const auto* q = std::get_if<binlog::Query>(&ev.body)) {
      const StatementTargets targets = statement_targets(q->query);
      if (targets.kind != StatementTargets::Kind::kTables) return;
      std::string db_buf, table_buf;
      for (std::uint8_t k = 0; k < targets.count; ++k) {
        const TableRef& r = targets.refs[k];
        add(std::string(r.db.empty() ? q->db : ident_name(r.db, db_buf)),
            std::string(ident_name(r.table, table_buf)));
      }
    }
  }

 private:
  void add(std::string db, std::string table) {
    if (db.empty() || table.empty()) return;
    std::pair<std::string, std::string> t{std::move(db), std::move(table)};
    const auto it = std::lower_bound(tables.begin(), tables.end(), t);
    if (it == tables.end() || *it != t) tables.insert(it, std::move(t));
  }
};

}  // namespace

std::vector<std::pair<std::string, std::string>> tables_changed(
    const std::vector<InputFile>& inputs, const DecodeOptions& decode, const FilterOptions& filter,
    const binlog::WarningSink& warn) {
  TableLister lister;
  WalkOptions wo;
  wo.decode = decode;
  wo.filter = filter;
  walk(inputs, wo, lister, warn);
  return std::move(lister.tables);
}

RunStats write_row_changes(const std::vector<InputFile>& inputs, const DecodeOptions& decode,
                           const FilterOptions& filter, Schema* schema, RowChangeFormat format,
                           Output& out, const binlog::WarningSink& warn,
                           const ProgressFn& progress) {
  RowChanges sink(schema, format, out);
  WalkOptions wo;
  wo.decode = decode;
  wo.filter = filter;
  const RunStats stats = walk(inputs, wo, sink, warn, progress);
  out.flush();
  if (sink.statements() > 0)
    warn(std::to_string(sink.statements()) +
         " statement-format changes (INSERT/UPDATE/DELETE as SQL text) are not row changes and "
         "are not in this output (SQL output without --format has them)");
  return stats;
}

}  // namespace binrecover::recovery
