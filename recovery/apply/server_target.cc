#include "recovery/apply/server_target.h"

#include <sys/random.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <thread>

#include "recovery/server/remote_source.h"

namespace binrecover::recovery::replica {

ReplicaStatus read_status(Session& s) {
  ReplicaStatus st;
  for (const auto& [k, v] : s.named_row(std::string("SHOW SLAVE '") + kConnection + "' STATUS")) {
    st.valid = true;
    if (k == "Slave_IO_Running")
      st.io_state = v, st.io_running = v == "Yes";
    else if (k == "Slave_SQL_Running")
      st.sql_running = v == "Yes";
    else if (k == "Last_SQL_Errno")
      st.sql_errno = static_cast<unsigned>(std::stoul("0" + v));
    else if (k == "Last_SQL_Error")
      st.sql_error = v;
    else if (k == "Last_IO_Errno")
      st.io_errno = static_cast<unsigned>(std::stoul("0" + v));
    else if (k == "Last_IO_Error")
      st.io_error = v;
  }
  // (SHOW ALL SLAVES STATUS has it as a column; SHOW SLAVE 'name' STATUS does not)
  if (st.valid) st.gtid_slave_pos = s.value("SELECT @@GLOBAL.gtid_slave_pos").value_or("");
  return st;
}

// A setting's value as SQL: a number as it is, a word quoted (only letters, digits and _ are
// taken: values come from the target and the state file).
std::string setting_literal(const std::string& v) {
  if (v.empty() || v.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                       "0123456789_") != std::string::npos)
    throw Error(ErrorCode::kUsage, "not a setting's value: '" + v + "'");
  return v.find_first_not_of("0123456789") == std::string::npos ? v : "'" + v + "'";
}

// "a=1,b=X" as pairs, and back.
std::vector<std::pair<std::string, std::string>> parse_settings(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  std::size_t from = 0;
  while (from < text.size()) {
    std::size_t comma = text.find(',', from);
    if (comma == std::string::npos) comma = text.size();
    const std::string item = text.substr(from, comma - from);
    const auto eq = item.find('=');
    if (eq != std::string::npos) out.emplace_back(item.substr(0, eq), item.substr(eq + 1));
    from = comma + 1;
  }
  return out;
}
std::string settings_text(const std::vector<std::pair<std::string, std::string>>& s) {
  std::string out;
  for (const auto& [k, v] : s) out += (out.empty() ? "" : ",") + k + "=" + v;
  return out;
}

std::string random_password() {
  unsigned char bytes[16];
  if (::getrandom(bytes, sizeof bytes, 0) != static_cast<ssize_t>(sizeof bytes))
    throw Error(ErrorCode::kIo, std::string("getrandom: ") + std::strerror(errno));
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  }
  return out;
}

// The target must be a MariaDB with GTID replication.
void check_flavour(Session& session) {
  if (!session.mariadb())
    throw Error(ErrorCode::kUsage, "--server-applier: " + session.where() + " is MySQL " +
                                       session.server_version() +
                                       "; binrecover serves MariaDB replicas only (10.0 or later)");
  if (session.server_version().rfind("5.", 0) == 0)
    throw Error(ErrorCode::kUsage, "--server-applier: " + session.where() + " is MariaDB " +
                                       session.server_version() +
                                       ", without GTID replication (10.0 or later needed)");
}

// What the target would do with what it is sent: refuses a target that skips errors, applies
// rows over what differs, or binlogs otherwise than -D asks. Returns its server id.
std::uint32_t check_target(Session& session, bool disable_log_bin) {
  std::map<std::string, std::string> var;
  for (auto& [k, v] : session.named_row(
           "SELECT @@GLOBAL.server_id AS server_id, @@GLOBAL.log_bin AS log_bin, "
           "@@GLOBAL.log_slave_updates AS log_slave_updates, @@GLOBAL.slave_skip_errors AS "
           "slave_skip_errors, @@GLOBAL.slave_exec_mode AS slave_exec_mode, "
           "@@GLOBAL.slave_parallel_threads AS slave_parallel_threads"))
    var[k] = v;
  if (!var["slave_skip_errors"].empty() && var["slave_skip_errors"] != "OFF")
    throw Error(ErrorCode::kUsage,
                "--server-applier: the target skips replication errors (slave_skip_errors=" +
                    var["slave_skip_errors"] +
                    "): a transaction that fails would be left out without a word");
  if (var["slave_exec_mode"] != "STRICT")
    throw Error(ErrorCode::kUsage, "--server-applier: the target's slave_exec_mode is " +
                                       var["slave_exec_mode"] +
                                       ": its replication would apply rows over what differs");
  const bool logs = var["log_bin"] == "1";
  const bool logs_replicated = var["log_slave_updates"] == "1";
  if (logs && !logs_replicated && !disable_log_bin)
    throw Error(ErrorCode::kUsage,
                "--server-applier: the target binlogs (log_bin) but not what its replication "
                "applies (log_slave_updates=OFF, set at its start): give -D to replay without "
                "binlogging, or replay without --server-applier");
  if (logs && logs_replicated && disable_log_bin)
    throw Error(ErrorCode::kUsage,
                "-D: the target binlogs what its replication applies (log_slave_updates=ON, set "
                "at its start): replay without --server-applier to leave the replay out of its "
                "binlog");
  return static_cast<std::uint32_t>(std::strtoul(var["server_id"].c_str(), nullptr, 10));
}

// A connection of an earlier run: still fed by a live replay after 10 s (an error), or left by a
// killed one (which a restarted target starts again by itself): removed. Returns whether there was
// one. (A target killed while it wrote master-binrecover.info can come back with the connection's
// host empty: SHOW SLAVE 'binrecover' STATUS then shows no row, though the connection exists and
// its SQL thread runs; it is removed too.)
bool remove_earlier(Session& session, const binlog::WarningSink& warn) {
  ReplicaStatus earlier;
  try {
    earlier = read_status(session);
  } catch (const Error& e) {
    if (!is_server_error(e, 1617)) throw;  // WARN_NO_MASTER_INFO (no such connection)
    return false;
  }
  // A killed replay's connection shows "Yes" until the target's I/O thread reads the closed
  // socket, which on a loaded machine takes a moment: a live replay's stays "Yes".
  for (int waited_ms = 0; earlier.io_running && waited_ms < 10000; waited_ms += 100) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    earlier = read_status(session);
  }
  if (earlier.io_running)
    throw Error(ErrorCode::kUsage,
                std::string("--server-applier: the target's replication connection '") +
                    kConnection + "' is connected to a running binrecover replay: one at a time");
  if (warn)
    warn(std::string("removing the target's replication connection '") + kConnection +
         "' of an earlier replay that did not end" +
         (earlier.valid ? "" : " (its master host is empty: a torn CHANGE MASTER)") +
         " (its GTIDs stay in gtid_slave_pos)");
  session.execute(std::string("STOP SLAVE '") + kConnection + "'");
  session.execute(std::string("RESET SLAVE '") + kConnection + "' ALL");
  return true;
}

// The target's global settings this replay needs otherwise: its parallel applier's threads
// (--parallel), and DDL as in a pipe into mysql (MariaDB's replication runs CREATE TABLE as
// CREATE OR REPLACE, DROP as DROP IF EXISTS by default: slave_ddl_exec_mode=IDEMPOTENT).
Settings wanted_settings(const ReplayOptions& opts) {
  const std::size_t threads = opts.parallel > 1 ? opts.parallel : 0;
  return {{"slave_parallel_threads", std::to_string(threads)}, {"slave_ddl_exec_mode", "STRICT"}};
}

// The values of `wanted` to give back at the end: those an earlier (killed) run of this replay
// found (`prior`), else those the target has now where they differ.
Settings settings_before(Session& session, const Settings& wanted,
                         const std::optional<ReplayState>& prior) {
  Settings before;
  for (const auto& [name, value] : parse_settings(prior ? prior->settings_before : ""))
    for (const auto& w : wanted)
      if (w.first == name) before.emplace_back(name, value);
  for (const auto& w : wanted) {
    const std::string now = session.value("SELECT @@GLOBAL." + w.first).value_or("");
    const bool known = std::any_of(before.begin(), before.end(),
                                   [&](const auto& b) { return b.first == w.first; });
    if (!known && now != w.second) before.emplace_back(w.first, now);
  }
  return before;
}

// The settings changed through the guard (which gives them back).
void change_settings(Connection& guard, Session& session, const Settings& before,
                     const Settings& wanted, const ReplayOptions& opts,
                     const binlog::WarningSink& warn) {
  for (const auto& b : before) {
    const std::string& name = b.first;
    const std::string& old = b.second;
    const std::string value = std::find_if(wanted.begin(), wanted.end(), [&](const auto& w) {
                                return w.first == name;
                              })->second;
    try {
      try {
        guard.set(name, old, value);
      } catch (const Error& e) {
        // (1198: a replication runs; ours, started again by a restarted target, goes)
        if (!is_server_error(e, 1198) || !remove_earlier(session, warn)) throw;
        guard.set(name, old, value);
      }
    } catch (const Error& e) {
      throw Error(ErrorCode::kServer,
                  std::string(e.what()) + ": cannot set the target's " + name + " to " + value +
                      (name == "slave_parallel_threads"
                           ? " for --parallel " + std::to_string(opts.parallel) +
                                 " (another replication runs there?)"
                           : std::string()));
    }
  }
}

// The target's replication connection to the listener, without any filter of its
// configuration, started.
void start_replication(Session& session, const ListenerOptions& lo, unsigned port,
                       const ReplayOptions& opts) {
  const std::string c = std::string("'") + kConnection + "'";
  session.execute("CHANGE MASTER " + c + " TO MASTER_HOST = '" + opts.listen_host +
                  "', MASTER_PORT = " + std::to_string(port) + ", MASTER_USER = '" + kUser +
                  "', MASTER_PASSWORD = '" + lo.password +
                  "', MASTER_USE_GTID = slave_pos, MASTER_CONNECT_RETRY = 1, "
                  "MASTER_HEARTBEAT_PERIOD = 1, MASTER_SSL = 0, IGNORE_SERVER_IDS = (), "
                  "DO_DOMAIN_IDS = (), IGNORE_DOMAIN_IDS = ()");
  for (const char* f :
       {"replicate_do_db", "replicate_ignore_db", "replicate_do_table", "replicate_ignore_table",
        "replicate_wild_do_table", "replicate_wild_ignore_table"}) {
    const std::string name = std::string(kConnection) + "." + f;
    try {
      session.execute("SET GLOBAL " + name + " = ''");
    } catch (const Error&) {
    }
    if (!session.value("SELECT @@GLOBAL." + name).value_or("").empty())
      throw Error(ErrorCode::kUsage, std::string("--server-applier: the target filters what it "
                                                 "replicates (") +
                                         f + "), and it cannot be cleared for this replay");
  }
  if (const auto rw = session.value("SELECT @@GLOBAL.replicate_rewrite_db"); rw && !rw->empty())
    throw Error(ErrorCode::kUsage,
                "--server-applier: the target renames databases it replicates "
                "(replicate_rewrite_db=" +
                    *rw + ")");
  if (opts.parallel > 1)
    session.execute("SET GLOBAL " + std::string(kConnection) +
                    ".slave_parallel_mode = 'optimistic'");
  session.execute("START SLAVE " + c);
}

}  // namespace binrecover::recovery::replica
