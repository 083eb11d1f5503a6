#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "recovery/apply/ddl_scope.h"
#include "recovery/apply/replay.h"
#include "recovery/reading/gtid_set.h"
#include "recovery/server/apply.h"

namespace binrecover::recovery {

// What the target tells a replay about itself: the binary log it writes, the GTIDs it has
// applied, when it started.

// The binary log the target writes now ("" when it writes none, or the replay's user may not
// ask: BINLOG MONITOR).
std::string current_binlog(Session& session);

// Whether the target has logged `gtid` (MySQL's gtid_executed; MariaDB's binlog position, which
// it keeps when it binlogs), or nullopt when it cannot tell (GTIDs stripped, no GTID, a MariaDB
// target that does not binlog this session). `no_log_bin`: the replay's sessions do not binlog
// (-D).
std::optional<bool> target_has_gtid(Session& session, const std::string& gtid, GtidMode mode,
                                    bool no_log_bin);

// The GTIDs the target has applied (MariaDB: binlogged or replicated; MySQL: executed).
void add_target_gtids(Session& session, AppliedGtids& out);

// When the target started (seconds; 0: unknown): a unit in doubt across a restart of the target
// is not settled by MariaDB's GTIDs (its DDL recovery may complete a DDL without logging its
// GTID).
std::uint64_t target_started_at(Session& session);

// Whether the target's GTIDs tell if a MariaDB unit (an XA unit) of this replay ran: its GTID
// is later than the target had when the replay started, and the target's binary log keeps it.
class GtidWitness {
 public:
  // `usable`: GTIDs kept and the replay's sessions binlog (not --gtids=strip, not -D).
  GtidWitness(Session& session, bool usable) : session_(session), usable_(usable) {}
  // The target's gtid_binlog_state when the replay (the first of a resumed one) started.
  void set_start(std::optional<std::string> gtids) { at_start_ = std::move(gtids); }
  // Whether a MariaDB GTID (D-S-N) is later than the target's entry for D-S when the replay
  // started (false when that is not known).
  bool new_since_start(const std::string& gtid) const;
  // Whether the target's binary log keeps a MariaDB GTID (D-S-N) that this replay applies:
  // target_has_gtid can tell then. (The target's log_bin and server_id, asked once.)
  bool target_logs(const std::string& gtid);

 private:
  Session& session_;
  bool usable_ = false;
  std::optional<std::string> at_start_;
  std::optional<bool> log_bin_;
  std::string server_id_;
};

// Whether the tables a replay writes are transactional on the target (its engine there, which
// may differ from the source's: a table InnoDB in the log and MyISAM on the target keeps its
// rows when the transaction's COMMIT does not come). Each table's engine is asked once, and
// again after a DDL that may have changed it.
class TargetEngines {
 public:
  explicit TargetEngines(Session& session) : session_(session) {}
  // (a table the target does not have, or a view: true, its write fails there)
  bool transactional(std::string_view db, std::string_view table);
  void forget(const TableNames& tables);
  void forget_all() { known_.clear(); }

 private:
  Session& session_;
  std::unordered_map<std::string, bool> known_;  // "db\0table"
  std::string key_;  // (asked for each table map: its buffer kept, no allocation per event)
};

}  // namespace binrecover::recovery
