#include "recovery/sql/schema.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <optional>

#include "binlog/error.h"
#include "recovery/reading/sql_lexer.h"
#include "recovery/reading/statement_dbs.h"
#include "recovery/sql/ddl_parser.h"

namespace binrecover::recovery {

using binrecover::Error;
using binrecover::ErrorCode;
using namespace ddl;  // NOLINT(google-build-using-namespace): ddl_parser.h, this file's parser

TableDef* Schema::lookup(std::string_view db, std::string_view table) {
  auto it = tables_.find(Key(std::string(db), std::string(table)));
  if (it == tables_.end()) it = tables_.find(Key("", std::string(table)));
  return it == tables_.end() ? nullptr : &it->second;
}

const TableDef* Schema::find(std::string_view db, std::string_view table) const {
  return const_cast<Schema*>(this)->lookup(db, table);
}

void Schema::apply(std::string_view db, std::string_view sql) {
  DdlParser p(tokenize(sql));
  auto changed = [&] { ++generation_; };
  if (p.accept("CREATE")) {
    p.accept("OR") && p.accept("REPLACE");
    if (p.accept("DEFINER")) {  // DEFINER = user[@host] | CURRENT_USER[()]
      p.accept('=');
      while (!p.at_end() && !p.word("TRIGGER") && !p.word("PROCEDURE") && !p.word("FUNCTION") &&
             !p.word("VIEW") && !p.word("EVENT") && !p.word("SQL"))
        p.next();
    }
    if (p.accept("TRIGGER")) {
      // TRIGGER [IF NOT EXISTS] [db.]name {BEFORE|AFTER} {INSERT|UPDATE|DELETE} ON table
      p.skip_if_not_exists();
      const auto trigger = p.table_name(db);
      if (!trigger || p.at_end()) return;
      p.next();
      p.next();
      if (!p.accept("ON")) return;
      const auto on = p.table_name(trigger->first);
      if (!on) return;
      triggers_[Key(on->first, on->second)].insert(lower(trigger->second));
      changed();
      return;
    }
    if (p.word("TEMPORARY")) return;  // a session's own table, not the base table's shape
    if (!p.accept("TABLE")) return;
    const bool if_not_exists = p.word("IF") && p.word("NOT", 1) && p.word("EXISTS", 2);
    p.skip_if_not_exists();
    const auto name = p.table_name(db);
    if (!name) return;
    // Logged even when the table exists, and then it changes nothing.
    if (if_not_exists && find(name->first, name->second) != nullptr) return;
    if (p.accept("LIKE") || (p.punct('(') && p.word("LIKE", 1) && (p.next(), p.next(), true))) {
      const auto from = p.table_name(db);
      if (!from) return;
      const TableDef* src = find(from->first, from->second);
      if (src != nullptr) {
        const TableDef copy = *src;
        tables_[Key(name->first, name->second)] = copy;
      } else {
        tables_.erase(Key(name->first, name->second));
      }
      changed();
      return;
    }
    if (!p.punct('(')) {  // CREATE TABLE ... SELECT: the columns are not written out
      tables_.erase(Key(name->first, name->second));
      changed();
      return;
    }
    tables_[Key(name->first, name->second)] = table_body(p);
    changed();
    return;
  }
  if (p.accept("DROP")) {
    if (p.word("TEMPORARY")) return;
    if (p.accept("TRIGGER")) {
      p.skip_if_exists();
      if (const auto trigger = p.table_name(db)) {
        for (auto& [key, names] : triggers_)
          if (key.first == trigger->first) names.erase(lower(trigger->second));
        std::erase_if(triggers_, [](const auto& e) { return e.second.empty(); });
        changed();
      }
      return;
    }
    if (p.accept("DATABASE") || p.accept("SCHEMA")) {
      p.skip_if_exists();
      if (const auto d = p.name()) {
        std::erase_if(tables_, [&](const auto& e) { return e.first.first == *d; });
        std::erase_if(triggers_, [&](const auto& e) { return e.first.first == *d; });
        changed();
      }
      return;
    }
    if (!p.accept("TABLE")) return;
    p.skip_if_exists();
    do {
      if (const auto name = p.table_name(db)) {
        if (tables_.erase(Key(name->first, name->second)) == 0)
          tables_.erase(Key("", name->second));
        triggers_.erase(Key(name->first, name->second));  // they go with their table
      }
    } while (p.accept(','));
    changed();
    return;
  }
  if (p.accept("RENAME")) {
    if (!p.accept("TABLE")) return;
    do {
      const auto from = p.table_name(db);
      if (!from || !p.accept("TO")) return;
      const auto to = p.table_name(db);
      if (!to) return;
      auto node = tables_.extract(Key(from->first, from->second));
      if (node.empty()) node = tables_.extract(Key("", from->second));
      tables_.erase(Key(to->first, to->second));
      if (!node.empty()) {
        node.key() = Key(to->first, to->second);
        tables_.insert(std::move(node));
      }
      auto trig = triggers_.extract(Key(from->first, from->second));
      if (!trig.empty()) {
        trig.key() = Key(to->first, to->second);
        triggers_.insert(std::move(trig));
      }
    } while (p.accept(','));
    changed();
    return;
  }
  if (!p.accept("ALTER")) return;
  p.accept("ONLINE");
  p.accept("IGNORE");
  if (!p.accept("TABLE")) return;
  p.skip_if_exists();
  const auto name = p.table_name(db);
  if (!name || lookup(name->first, name->second) == nullptr) return;
  alter(p, name->first, name->second);
  changed();
}

bool Schema::has_triggers(std::string_view db, std::string_view table) const {
  return triggers_.count(Key(std::string(db), std::string(table))) != 0;
}

void Schema::warn_trigger_rows(std::string_view db, std::string_view table, std::uint64_t pos) {
  if (!warn_ || !trigger_warned_.emplace(db, table).second) return;
  const auto& names = triggers_[Key(std::string(db), std::string(table))];
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  warn_("at " + std::to_string(pos) + ": " + std::string(db) + "." + std::string(table) +
        " has triggers (" + list +
        "): its rows written as plain SQL fire them again on the target, although the log "
        "already holds what they did (duplicate keys or extra rows); --trigger-tables=binlog "
        "writes that table's rows as BINLOG statements, which fire no trigger");
}

TableDef* Schema::lookup_to_change(std::string_view db, std::string_view table) {
  const Key exact{std::string(db), std::string(table)};
  auto it = tables_.find(exact);
  if (it != tables_.end()) return &it->second;
  it = tables_.find(Key("", std::string(table)));
  if (it == tables_.end()) return nullptr;
  const TableDef copy = it->second;
  return &(tables_[exact] = copy);
}

void Schema::alter(DdlParser& p, const std::string& db, const std::string& table) {
  AlterTable a(p, *lookup_to_change(db, table), db);
  a.clauses();
  if (a.lost) {
    tables_.erase(Key(db, table));
    return;
  }
  a.finish();
  if (a.rename_to) {
    auto node = tables_.extract(Key(db, table));
    tables_.erase(Key(a.rename_to->first, a.rename_to->second));
    node.key() = Key(a.rename_to->first, a.rename_to->second);
    tables_.insert(std::move(node));
  }
}

void Schema::observe(const binlog::Event& ev) {
  const auto* q = std::get_if<binlog::Query>(&ev.body);
  if (q == nullptr || q->compressed) return;
  const std::string_view w = first_word(q->query);
  if (ieq(w, "CREATE") || ieq(w, "ALTER") || ieq(w, "DROP") || ieq(w, "RENAME"))
    apply(q->db, q->query);
}

void Schema::load_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorCode::kIo, "cannot read the schema file " + path);
  // Statements end at the delimiter outside quotes and comments (DELIMITER lines change it, as
  // in the mysql client). Only statements whose first word is CREATE, ALTER, DROP, RENAME or
  // USE are kept; the others (INSERT, SET, LOCK ...) stream through without being stored, so a
  // dump with data costs one pass and little memory.
  std::string delimiter = ";";
  std::string db, stmt, word, recent;
  bool keep = true, decided = false;
  char quote = 0, prev = 0;
  bool line_comment = false, block_comment = false, versioned = false, escape = false;
  std::size_t block_len = 0;
  auto finish = [&] {
    if (keep && decided) {
      if (ieq(word, "USE")) {
        DdlParser p(tokenize(stmt));
        p.next();
        if (auto n = p.name()) db = *n;
      } else if (!ieq(word, "DELIMITER")) {
        apply(db, stmt);
      }
    }
    stmt.clear();
    word.clear();
    keep = true;
    decided = false;
  };
  std::vector<char> buf(1 << 20);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    const std::size_t got = static_cast<std::size_t>(in.gcount());
    for (std::size_t k = 0; k < got; ++k) {
      const char c = buf[k];
      if (keep) stmt.push_back(c);
      recent.push_back(c);
      if (recent.size() > 16) recent.erase(0, recent.size() - 16);
      bool code = false;
      if (line_comment) {
        if (c == '\n') line_comment = false;
      } else if (block_comment) {
        if (++block_len == 1 && c == '!') versioned = true;
        if (prev == '*' && c == '/' && block_len >= 2) block_comment = versioned = false;
      } else if (quote != 0) {
        if (escape) {
          escape = false;
        } else if (c == '\\' && quote != '`') {
          escape = true;
        } else if (c == quote) {
          quote = 0;
        }
      } else if (c == '\'' || c == '"' || c == '`') {
        quote = c;
      } else if (c == '#' || (prev == '-' && c == '-')) {
        line_comment = true;
      } else if (prev == '/' && c == '*') {
        block_comment = true;
        block_len = 0;
      } else {
        code = true;
      }
      // The first word decides whether the statement is kept.
      if (!decided && (code || versioned)) {
        if (std::isalpha(static_cast<unsigned char>(c))) {
          word.push_back(c);
        } else if (!word.empty()) {
          decided = true;
        }
        if (word.size() > 10) decided = true;
        if (decided) {
          keep = ieq(word, "CREATE") || ieq(word, "ALTER") || ieq(word, "DROP") ||
                 ieq(word, "RENAME") || ieq(word, "USE") || ieq(word, "DELIMITER");
          if (!keep) stmt.clear();
        }
      }
      if (decided && ieq(word, "DELIMITER")) {
        if (c == '\n') {
          // the keyword, past any comment before it
          std::size_t at = 0;
          for (std::size_t i = 0; i + 9 <= stmt.size(); ++i)
            if (ieq(std::string_view(stmt).substr(i, 9), "DELIMITER")) {
              at = i + 9;
              break;
            }
          std::string d = stmt.substr(at);
          const auto b = d.find_first_not_of(" \t");
          const auto e = d.find_last_not_of(" \t\r\n");
          if (b != std::string::npos && e != std::string::npos) delimiter = d.substr(b, e - b + 1);
          finish();
        }
      } else if (code && recent.size() >= delimiter.size() &&
                 std::string_view(recent).substr(recent.size() - delimiter.size()) == delimiter) {
        if (keep) stmt.resize(stmt.size() - delimiter.size());
        finish();
        recent.clear();
      }
      prev = c;
    }
  }
  if (in.bad()) throw Error(ErrorCode::kIo, "cannot read the schema file " + path);
  finish();
  if (tables_.empty())
    throw Error(ErrorCode::kUsage, "the schema file " + path + " defines no table (CREATE TABLE)");
}

bool Schema::complete(binlog::TableInfo& info, std::uint64_t pos, bool positional) {
  const TableDef* t = find(info.db, info.table);
  if (!info.names.empty()) {
    // Names from the log (FULL metadata): only which columns are generated comes from here,
    // column by column by name (a dump older than the range may lack later columns).
    if (t == nullptr) return true;
    info.generated.assign(info.names.size(), 0);
    for (std::size_t k = 0; k < info.names.size(); ++k)
      for (const ColumnDef& c : t->columns)
        if (c.generated && ieq(c.name, info.names[k])) info.generated[k] = 1;
    return true;
  }
  if (t == nullptr || t->columns.size() != info.layout.size()) {
    if (!positional) return false;
    info.names.resize(info.layout.size());
    for (std::size_t k = 0; k < info.names.size(); ++k) info.names[k] = fmt::format("@{}", k + 1);
    if (warn_ && warned_.emplace(info.db, info.table).second)
      warn_("at " + std::to_string(pos) + ": " + info.db + "." + info.table +
            (t == nullptr
                 ? " is not in the schema"
                 : " has " + std::to_string(t->columns.size()) + " columns in the schema but " +
                       std::to_string(info.layout.size()) + " in the binlog") +
            " and the binlog carries no column names: its columns are written by position "
            "(`@1`, `@2`, ...), which a server cannot run; give its CREATE TABLE with --schema "
            "(or log with binlog_row_metadata=FULL)");
    return false;
  }
  const std::size_t n = t->columns.size();
  info.names.resize(n);
  info.generated.assign(n, 0);
  for (std::size_t k = 0; k < n; ++k) {
    const ColumnDef& c = t->columns[k];
    info.names[k] = c.name;
    info.generated[k] = c.generated ? 1 : 0;
    if (!info.has_signedness) info.is_unsigned[k] = c.is_unsigned ? 1 : 0;
    if (info.enum_values[k].empty()) info.enum_values[k] = c.enum_values;
    if (info.set_values[k].empty()) info.set_values[k] = c.set_values;
  }
  info.has_signedness = true;
  if (info.primary_key.empty()) info.primary_key = t->primary_key;
  return true;
}

}  // namespace binrecover::recovery
