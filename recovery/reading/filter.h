#pragma once

#include <algorithm>
#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "binlog/events.h"
#include "recovery/reading/gtid_set.h"
#include "recovery/reading/transaction.h"

namespace binrecover::recovery {

// Which events a run keeps. Plain values, built by cli/ from options.
struct FilterOptions {
  std::optional<std::uint64_t> start_position;  // first file only
  std::optional<std::uint64_t> stop_position;   // last file only
  std::optional<std::time_t> start_datetime;    // seconds since the epoch
  std::optional<std::time_t> stop_datetime;
  // --server-id / --do-server-ids (only these), --ignore-server-ids: by each event's server
  // id (a format description and a Rotate always pass, as in mariadb-binlog).
  std::vector<std::uint32_t> server_ids;
  std::vector<std::uint32_t> ignore_server_ids;
  // --do-domain-ids / --ignore-domain-ids: transactions by their MariaDB GTID's domain (those
  // without one, and events outside transactions, pass).
  std::vector<std::uint32_t> domain_ids;
  std::vector<std::uint32_t> ignore_domain_ids;
  // --gtid-strict-mode: a MariaDB GTID at or below the last one of its domain is an error.
  bool gtid_strict = false;
  // --sql-type: the kinds of change kept (kSqlInsert | kSqlUpdate | kSqlDelete; 0: all): row
  // events and statement-format DML of other kinds are left out, DDL and the rest stay.
  std::uint8_t sql_types = 0;
  static constexpr std::uint8_t kSqlInsert = 1, kSqlUpdate = 2, kSqlDelete = 4;
  bool keep_server(std::uint32_t id) const { return passes(server_ids, ignore_server_ids, id); }
  bool server_rules() const { return !server_ids.empty() || !ignore_server_ids.empty(); }
  bool keep_domain(std::uint32_t id) const { return passes(domain_ids, ignore_domain_ids, id); }
  bool domain_rules() const { return !domain_ids.empty() || !ignore_domain_ids.empty(); }
  // In `only` (when it names any) and not in `ignore`.
  static bool passes(const std::vector<std::uint32_t>& only,
                     const std::vector<std::uint32_t>& ignore, std::uint32_t id) {
    const auto in = [id](const std::vector<std::uint32_t>& v) {
      return std::find(v.begin(), v.end(), id) != v.end();
    };
    return (only.empty() || in(only)) && !in(ignore);
  }
  std::vector<std::string> databases;                       // --database, repeatable
  std::vector<std::pair<std::string, std::string>> tables;  // --table db.t (db "": any), repeatable
  // Left out whatever the rules above keep (replay: its own progress table, or the whole
  // `binrecover` database, in a log of a server that was itself a replay's target).
  std::vector<std::string> exclude_databases;
  std::vector<std::pair<std::string, std::string>> exclude_tables;
  // --rewrite-db FROM->TO, repeatable: applied before the database and table rules, which name
  // the new database.
  std::vector<std::pair<std::string, std::string>> rewrite_db;
  // --skip-event: transactions to leave out, by the position of any of their events (in the
  // named file, or in any file when the name is empty) or by GTID.
  std::vector<std::pair<std::string, std::uint64_t>> skip_positions;
  std::vector<std::string> skip_gtids;
  // --stop-gtid: stop before the transaction with this GTID (any file).
  std::optional<std::string> stop_gtid;
  // replay --gtids=skip-applied: transactions whose GTID the target server already has.
  AppliedGtids applied_gtids;
  // --include-gtids / --exclude-gtids: MySQL GTID sets (a transaction without a GTID is not in
  // any set).
  std::optional<AppliedGtids> include_gtids;
  AppliedGtids exclude_gtids;
  // --exclude-gtids was given (not only a MariaDB GTID --start-position): a set that leaves
  // nothing out is an error.
  bool exclude_gtids_given = false;
};

// Database and table rules, for one statement, table map or table.
class ContentFilter {
 public:
  explicit ContentFilter(const FilterOptions& opts);

  bool active() const { return active_; }
  bool keep_database(std::string_view db) const;
  bool keep_table(std::string_view db, std::string_view table) const;
  // A query event: by the databases it changes (MySQL's updated-db names when present, else
  // the qualified names in the statement, else its default database).
  bool keep_query(const binlog::Query& q) const;
  // --sql-type: a rows event of this kind.
  bool keep_kind(binlog::RowsKind kind) const;

 private:
  bool active_ = false;    // any rule
  bool narrowed_ = false;  // --database/--table: only the databases named
  std::vector<std::string> dbs_;
  std::vector<std::string> exclude_dbs_;
  std::vector<std::pair<std::string, std::string>> exclude_tables_;
  std::vector<std::pair<std::string, std::string>> tables_;
  std::vector<std::pair<std::string, std::string>> rewrites_;
  std::uint8_t sql_types_ = 0;
};

// What the filters decided for one event of a unit (bits of its mark).
inline constexpr std::uint8_t kMarkKeep = 1;  // the event is kept
// A kept rows event that must carry STMT_END_F: the statement's last kept rows event, when a
// filter dropped the one that had the flag.
inline constexpr std::uint8_t kMarkStmtEnd = 2;

// The content filter of a unit, decided event by event as the unit is read (held in memory or
// streamed), so that no decision needs the whole unit in memory: each event gets its marks,
// those that depend on later events (the session values before a statement, an annotation
// before its rows, STMT_END_F) are filled in when those events arrive. The marks are one byte
// per event of the unit.
class UnitSelector {
 public:
  explicit UnitSelector(const FilterOptions& opts) : rules_(opts) {}
  const ContentFilter& rules() const { return rules_; }
  bool active() const { return rules_.active(); }

  void begin_unit();
  void push(const binlog::Event& ev);
  // After the unit's last event: whether anything that changes data survived (always true
  // without database or table rules).
  bool finish_unit();
  const std::vector<std::uint8_t>& marks() const { return marks_; }

 private:
  struct TableMapEntry {
    std::uint64_t id;
    bool keep;
  };
  bool table_id_kept(std::uint64_t id) const;
  std::optional<bool> load_file_kept(std::uint32_t file_id) const;
  void resolve_context(bool keep);
  void resolve_annotation();

  ContentFilter rules_;
  std::vector<std::uint8_t> marks_;
  std::vector<TableMapEntry> maps_;           // table maps of the unit
  std::vector<std::size_t> pending_context_;  // session values waiting for their statement
  std::optional<std::size_t> annotation_;     // annotation waiting for its rows
  bool annotation_used_ = false;
  std::optional<std::size_t> stmt_end_candidate_;  // last kept rows event without STMT_END_F
  bool any_ = false;
  // 4.x LOAD DATA: whether each file's CREATE_FILE was kept, for its APPEND_BLOCKs and its
  // EXEC_LOAD, which may come in later units (bounded: the newest 64).
  std::vector<std::pair<std::uint32_t, bool>> load_files_;
  // XA transactions prepared, and whether their unit was kept, for the XA COMMIT / XA ROLLBACK
  // in a later unit (bounded: the newest 1024).
  std::vector<std::pair<std::string, bool>> xids_;
  std::string unit_xid_;
};

// The XID of an XA statement ("XA COMMIT X'31',X'',1" -> "X'31',X'',1"), or "".
std::string_view xa_statement_xid(std::string_view q);

}  // namespace binrecover::recovery
