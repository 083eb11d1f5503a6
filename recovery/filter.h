#pragma once

#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "binlog/events.h"
#include "recovery/gtid_set.h"
#include "recovery/transaction.h"

namespace binrecover::recovery {

// Which events a run keeps. Plain values, built by cli/ from options.
struct FilterOptions {
  std::optional<std::uint64_t> start_position;  // first file only
  std::optional<std::uint64_t> stop_position;   // last file only
  std::optional<std::time_t> start_datetime;    // seconds since the epoch
  std::optional<std::time_t> stop_datetime;
  std::optional<std::uint32_t> server_id;
  std::vector<std::string> databases;                       // --database, repeatable
  std::vector<std::pair<std::string, std::string>> tables;  // --table db.t, repeatable
  // --skip-event: transactions to leave out, by the position of any of their events (in the
  // named file, or in any file when the name is empty) or by GTID.
  std::vector<std::pair<std::string, std::uint64_t>> skip_positions;
  std::vector<std::string> skip_gtids;
  // --stop-gtid: stop before the transaction with this GTID (any file).
  std::optional<std::string> stop_gtid;
  // replay --gtids=skip-applied: transactions whose GTID the target server already has.
  AppliedGtids applied_gtids;
};

// Whether --skip-event names this transaction of `file`.
bool skip_requested(const FilterOptions& opts, const Transaction& txn, const std::string& file);

// Database and table rules: which statements and row events inside a transaction survive.
class ContentFilter {
 public:
  explicit ContentFilter(const FilterOptions& opts);

  bool active() const { return active_; }
  bool keep_database(std::string_view db) const;
  bool keep_table(std::string_view db, std::string_view table) const;
  // A query event: by the databases it changes (MySQL's updated-db names when present, else
  // the qualified names in the statement, else its default database).
  bool keep_query(const binlog::Query& q) const;

  // Marks each event of `txn` kept or not (keep.size() == events.size()); returns whether
  // anything that changes data survived. Context events (GTID, BEGIN, XID, INTVAR, table maps,
  // annotations) follow the statements they belong to.
  bool select(const Transaction& txn, std::vector<char>& keep);

 private:
  struct TableMapEntry {
    std::uint64_t id;
    bool keep;
  };
  bool table_id_kept(std::uint64_t id) const;

  bool active_ = false;
  std::vector<std::string> dbs_;
  std::vector<std::pair<std::string, std::string>> tables_;
  std::vector<TableMapEntry> maps_;  // table maps of the statement being filtered
  // 4.x LOAD DATA: whether each file's CREATE_FILE was kept, for its APPEND_BLOCKs and its
  // EXEC_LOAD, which may come in later units (bounded: the newest 64).
  std::vector<std::pair<std::uint32_t, bool>> load_files_;
  std::optional<bool> load_file_kept(std::uint32_t file_id) const;
};

}  // namespace binrecover::recovery
