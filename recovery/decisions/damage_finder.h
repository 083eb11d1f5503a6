#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "recovery/decisions/incident.h"
#include "recovery/reading/row_counter.h"
#include "recovery/reading/walker.h"

namespace binrecover::recovery {

struct DamageFinderOptions {
  std::uint64_t rows_threshold = 1000;  // row format: many rows of a table in one transaction
  // A dump whose rows are the range's starting point: a row-format statement without text that
  // deletes or rewrites every row a table then held is a certain loss (counted only when such
  // a statement comes).
  std::optional<std::string> dump_rows;
  // --incident=GTID or FILE:POS: the transaction to list whatever it does.
  std::optional<std::string> named_gtid;
  std::optional<std::pair<std::string, std::uint64_t>> named_pos;
  // Listed suspects at most (certain losses are always listed; the others are counted).
  std::size_t max_suspects = 1000;
};

// Finds the transactions that lost data for certain or look like it, among the units the
// reading path hands over (the filters have left out what is not asked for), with the range's
// counts before each: statements by what they do and how their WHERE picks rows; row events by
// their annotation's statement or, without one, by how many rows of the table they change.
class DamageFinder : public WalkConsumer {
 public:
  DamageFinder(DamageFinderOptions opts, std::vector<Damage>& out);

  bool wants_gtid() const override { return true; }
  void begin_unit(const UnitInfo& u, const binlog::FormatContext& ctx) override;
  void event(const binlog::Event& ev, std::uint8_t marks,
             const binlog::FormatContext& ctx) override;
  void end_unit(const UnitInfo& u) override;
  void left_out(const UnitInfo& u, LeftOut why) override;

  const RangeCounts& total() const { return total_; }
  const std::vector<std::pair<std::string, std::uint64_t>>& skipped() const { return skipped_; }
  std::uint64_t suspects_not_listed() const { return suspects_not_listed_; }

 private:
  // Rows a table holds, followed from the dump (or from its CREATE / TRUNCATE in the range).
  struct TableRows {
    bool from_dump = true;  // the base is the dump's count (looked up when needed)
    std::int64_t base = 0;  // otherwise: rows at its CREATE or TRUNCATE
    std::int64_t net = 0;   // inserted - deleted since
    bool unknown = false;   // a statement-format change, a RENAME: no longer known
  };
  struct StatementRows {
    std::uint64_t inserted = 0, updated = 0, deleted = 0;
  };

  void statement(const binlog::Query& q, const binlog::Event& ev);
  void rows(const binlog::Event& ev, const binlog::Rows& r, bool statement_end);
  void end_row_statement();
  std::optional<std::int64_t> table_rows(const std::string& name);
  void consider(Damage d);
  Damage base(std::uint64_t event_pos, std::uint32_t timestamp) const;

  DamageFinderOptions opts_;
  std::vector<Damage>& out_;
  bool active_ = false;
  bool named_ = false;
  std::optional<Damage> found_;
  RowCounter counter_;
  std::string annotation_;
  std::uint32_t thread_id_ = 0;
  const std::string* file_ = nullptr;
  std::map<std::string, StatementRows> statement_rows_;  // of the current row statement
  std::uint64_t statement_pos_ = 0;
  std::uint32_t statement_time_ = 0;
  RangeCounts unit_;   // this transaction's counts
  RangeCounts total_;  // the range's before it
  std::unordered_map<std::string, TableRows> tables_;
  std::set<std::string> dropped_dbs_;
  std::optional<std::map<std::string, std::uint64_t>> dump_counts_;
  bool dump_counted_ = false;
  std::size_t suspects_ = 0;
  std::uint64_t suspects_not_listed_ = 0;
  std::vector<std::pair<std::string, std::uint64_t>> skipped_;
};

}  // namespace binrecover::recovery
