#include "recovery/apply/replay_target.h"

#include <cstdlib>

#include "recovery/apply/target_keys.h"
#include "recovery/sql/sql_quote.h"

namespace binrecover::recovery {

// The binary log the target writes now ("" when it writes none, or the replay's user may not
// ask: BINLOG MONITOR).
std::string current_binlog(Session& session) {
  try {
    std::string name = session.value("SHOW MASTER STATUS").value_or("");
    // (the server's text goes into the state file, a line each: a name that could break one
    // is not known)
    for (const char c : name)
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return {};
    return name;
  } catch (const Error&) {
    return {};
  }
}

// Whether the target has logged `gtid` (MySQL's gtid_executed; MariaDB's binlog position, which
// it keeps when it binlogs), or nullopt when it cannot tell (GTIDs stripped, no GTID, a MariaDB
// target that does not binlog this session).
// `no_log_bin`: the replay's sessions do not binlog (-D).
std::optional<bool> target_has_gtid(Session& session, const std::string& gtid, GtidMode mode,
                                    bool no_log_bin) {
  if (mode == GtidMode::kStrip || gtid.empty()) return std::nullopt;
  AppliedGtids on;
  if (session.mariadb()) {
    if (no_log_bin || gtid.find(':') != std::string::npos) return std::nullopt;
    // D-S-N: the binlog state's entry of domain D and server S (the position of a domain
    // counts the target's own transactions in it too). A target with the source's server id
    // logs its own transactions under it: it cannot tell then. (One round trip: this is asked
    // before every DDL of a replay.)
    const auto d1 = gtid.find('-'), d2 = gtid.find('-', d1 + 1);
    if (d1 == std::string::npos || d2 == std::string::npos) return std::nullopt;
    const std::string domain = gtid.substr(0, d1), server = gtid.substr(d1 + 1, d2 - d1 - 1);
    const auto rows =
        session.rows("SELECT @@GLOBAL.log_bin, @@GLOBAL.server_id, @@GLOBAL.gtid_binlog_state");
    if (rows.empty() || rows[0].size() < 3 || rows[0][0] != "1" || rows[0][1] == server)
      return std::nullopt;
    const std::uint64_t seq = std::strtoull(gtid.c_str() + d2 + 1, nullptr, 10);
    const std::string& state = rows[0][2];
    std::size_t from = 0;
    while (from < state.size()) {
      std::size_t comma = state.find(',', from);
      if (comma == std::string::npos) comma = state.size();
      const std::string e = state.substr(from, comma - from);
      from = comma + 1;
      const auto e1 = e.find('-'), e2 = e.find('-', e1 + 1);
      if (e1 == std::string::npos || e2 == std::string::npos) continue;
      if (e.substr(0, e1) == domain && e.substr(e1 + 1, e2 - e1 - 1) == server)
        return std::strtoull(e.c_str() + e2 + 1, nullptr, 10) >= seq;
    }
    return false;
  } else {
    if (session.value("SELECT @@GLOBAL.gtid_mode").value_or("") != "ON" ||
        gtid.find(':') == std::string::npos)
      return std::nullopt;
    if (auto v = session.value("SELECT @@GLOBAL.gtid_executed")) on.add_mysql_set(*v);
  }
  return on.contains(gtid);
}

// The GTIDs the target has applied (MariaDB: binlogged or replicated; MySQL: executed).
void add_target_gtids(Session& session, AppliedGtids& out) {
  if (session.mariadb()) {
    for (const char* var : {"@@GLOBAL.gtid_binlog_pos", "@@GLOBAL.gtid_slave_pos"})
      if (auto v = session.value(std::string("SELECT ") + var)) out.add_maria_position(*v);
  } else if (auto v = session.value("SELECT @@GLOBAL.gtid_executed")) {
    out.add_mysql_set(*v);
  }
}

// When the target started (seconds; 0: unknown): a unit in doubt across a restart of the target
// is not settled by MariaDB's GTIDs (its DDL recovery may complete a DDL without logging its
// GTID).
std::uint64_t target_started_at(Session& session) {
  // (Uptime is the statement's start less the server's start, in whole seconds: in the same
  // statement as UNIX_TIMESTAMP() the difference is the server's start exactly.)
  std::uint64_t started_at = 0;
  if (const auto v = session.value(
          std::string("SELECT UNIX_TIMESTAMP() - CAST(VARIABLE_VALUE AS SIGNED) FROM ") +
          (session.mariadb() ? "information_schema.GLOBAL_STATUS"
                             : "performance_schema.global_status") +
          " WHERE VARIABLE_NAME = 'Uptime'"))
    started_at = std::strtoull(v->c_str(), nullptr, 10);
  return started_at;
}

bool GtidWitness::target_logs(const std::string& gtid) {
  if (!usable_ || gtid.empty() || !session_.mariadb() || gtid.find(':') != std::string::npos)
    return false;
  if (!log_bin_) {
    log_bin_ = session_.value("SELECT @@GLOBAL.log_bin").value_or("0") == "1";
    server_id_ = session_.value("SELECT @@GLOBAL.server_id").value_or("");
  }
  const auto d1 = gtid.find('-'), d2 = gtid.find('-', d1 + 1);
  if (d1 == std::string::npos || d2 == std::string::npos) return false;
  return *log_bin_ && gtid.substr(d1 + 1, d2 - d1 - 1) != server_id_;
}

bool GtidWitness::new_since_start(const std::string& gtid) const {
  if (!at_start_ || gtid.find(':') != std::string::npos) return false;
  const auto d1 = gtid.find('-'), d2 = gtid.find('-', d1 + 1);
  if (d1 == std::string::npos || d2 == std::string::npos) return false;
  const std::string prefix = gtid.substr(0, d2 + 1);
  const std::uint64_t seq = std::strtoull(gtid.c_str() + d2 + 1, nullptr, 10);
  const std::string& state = *at_start_;
  for (std::size_t from = 0; from < state.size();) {
    std::size_t comma = state.find(',', from);
    if (comma == std::string::npos) comma = state.size();
    const std::string_view e = std::string_view(state).substr(from, comma - from);
    from = comma + 1;
    if (e.size() > prefix.size() && e.substr(0, prefix.size()) == prefix)
      return seq > std::strtoull(std::string(e.substr(prefix.size())).c_str(), nullptr, 10);
  }
  return true;
}

bool TargetEngines::transactional(std::string_view db, std::string_view table) {
  key_.assign(db);
  key_.push_back('\0');
  key_.append(table);
  if (const auto it = known_.find(key_); it != known_.end()) return it->second;
  const std::optional<std::string> engine =
      session_.value("SELECT LOWER(ENGINE) FROM information_schema.TABLES WHERE TABLE_SCHEMA = " +
                     hex_literal(db) + " AND TABLE_NAME = " + hex_literal(table));
  const bool t = !engine || engine->empty() || transactional_engine(*engine);
  known_.emplace(key_, t);
  return t;
}

void TargetEngines::forget(const TableNames& tables) {
  for (const auto& [db, table] : tables) {
    key_.assign(db);
    key_.push_back('\0');
    key_.append(table);
    known_.erase(key_);
  }
}

}  // namespace binrecover::recovery
