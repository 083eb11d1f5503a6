#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "recovery/decisions/incident.h"
#include "recovery/reading/walker.h"
#include "recovery/sql/output.h"

namespace binrecover::recovery {

// What a range of binlogs did: rows per table and kind, events per type, the largest and
// longest transactions. Memory is bounded by the number of tables and the top-N lists.
// Rows inserted, updated, deleted and statement-format DML/DDL naming the table.
using TableStats = TableCounts;

struct TransactionStats {
  std::string file;
  std::uint64_t pos = 0;
  std::uint64_t bytes = 0;
  std::uint32_t start = 0;    // its first event's timestamp (its first statement's start)
  std::uint32_t end = 0;      // its last event's (the commit; MySQL 8: the commit timestamp)
  std::uint32_t seconds = 0;  // end - start
  std::uint64_t rows = 0;
  std::string gtid;
  std::vector<std::string> tables;  // "db.table" changed, sorted (the first kMaxTables)
  std::uint32_t more_tables = 0;    // and this many more
  static constexpr std::size_t kMaxTables = 8;
};

struct Stats {
  std::map<std::string, TableStats> tables;  // "db.table"
  std::map<std::string, std::uint64_t> event_types;
  std::uint64_t events = 0, transactions = 0, rows = 0, bytes = 0;
  std::vector<TransactionStats> largest;  // by bytes, top N
  std::vector<TransactionStats> longest;  // by duration, top N
};

// `also`: another consumer of the same walk (the timeline and its markers).
Stats collect_stats(const std::vector<InputFile>& inputs, const DecodeOptions& decode,
                    const FilterOptions& filter, const binlog::WarningSink& warn,
                    std::size_t top = 5, WalkConsumer* also = nullptr);
void write_stats_table(const Stats& s, Output& out);
void write_stats_json(const Stats& s, Output& out);

}  // namespace binrecover::recovery
