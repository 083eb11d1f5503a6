// -R: the inputs are a server's binary logs, read over the replication protocol.
#include <unistd.h>

#include <algorithm>
#include <memory>

#include "binlog/error.h"
#include "cli/commands.h"
#include "recovery/server/remote_source.h"

namespace binrecover::cli {

namespace {

// One server binlog as an input; `follow`: when it ends, the next one the server names.
recovery::InputFile remote_input(const recovery::RemoteOptions& ro, const recovery::RemoteLog& log,
                                 bool follow) {
  recovery::InputFile in;
  in.path = log.name;  // (how messages and plan's commands name it)
  in.display_name = log.name;
  auto next = std::make_shared<std::string>();
  in.open = [ro, log, next, follow]() -> std::unique_ptr<binlog::Source> {
    auto src = std::make_unique<recovery::RemoteSource>(ro, log);
    if (follow) src->report_next_file_to(next);
    return src;
  };
  if (follow)
    in.next = [ro, next]() -> std::optional<recovery::InputFile> {
      if (next->empty()) return std::nullopt;
      return remote_input(ro, recovery::RemoteLog{*next, 0, true}, true);
    };
  return in;
}

// --start-position=GTID or --exclude-gtids on a server: as a server does for a replica that
// connects by GTID (MySQL's COM_BINLOG_DUMP_GTID, MariaDB's connect state), the newest binlog
// that begins before any GTID still wanted, i.e. whose Previous_gtids (MySQL) or Gtid_list
// (MariaDB) are all among the GTIDs to leave out (--exclude-gtids, or a GTID
// --start-position); from it to the last one, those left out by the filter as they are read.
// Returns its index in `logs`.
std::size_t first_log_by_gtids(const Options& o, recovery::Session& session,
                               const std::vector<recovery::RemoteLog>& logs) {
  recovery::RemoteOptions probe;
  probe.connection = o.source;
  probe.server_id = o.remote_server_id;
  std::size_t start = 0;
  for (std::size_t k = logs.size(); k-- > 0;) {
    const std::string text = recovery::remote_gtids_before(probe, logs[k].name);
    bool before_start = true;
    if (session.mariadb()) {
      for (std::size_t at = 0; at < text.size();) {
        std::size_t end = text.find(',', at);
        if (end == std::string::npos) end = text.size();
        before_start = before_start && o.filter.exclude_gtids.contains(text.substr(at, end - at));
        at = end + 1;
      }
    } else {
      recovery::AppliedGtids before;
      if (!text.empty()) before.add_mysql_set(text);
      before_start = before.subset_of(o.filter.exclude_gtids);
    }
    if (before_start) {
      start = k;
      break;
    }
  }
  return start;
}

}  // namespace

void resolve_remote_inputs(Options& o) {
  if (!o.remote || o.command == Command::kArchive) return;
  if (o.source_password_prompt && !o.source.password) {
    o.source.password = read_password();
    // (the same prompt answers for the target when they are one connection: SQL output, plan)
    if (o.password_prompt && !o.connection.password) o.connection.password = o.source.password;
  }
  recovery::Session session(o.source);
  const std::vector<recovery::RemoteLog> logs = recovery::remote_logs(session);
  std::vector<recovery::RemoteLog> chosen;
  auto find = [&](const std::string& name) {
    const auto it = std::find_if(logs.begin(), logs.end(),
                                 [&](const recovery::RemoteLog& l) { return l.name == name; });
    if (it == logs.end())
      throw Error(ErrorCode::kUsage, "the server at " + session.where() + " has no binlog " + name +
                                         " (it has " + logs.front().name + " to " +
                                         logs.back().name + ")");
    return it;
  };
  if (o.gtid_start) {
    const std::size_t start = first_log_by_gtids(o, session, logs);
    chosen.assign(logs.begin() + static_cast<std::ptrdiff_t>(start), logs.end());
  } else if (o.remote_files.empty()) {
    chosen = logs;
  } else if (o.to_last_log) {
    chosen.assign(find(o.remote_files.front()), logs.end());
    if (o.remote_files.size() > 1)
      throw Error(ErrorCode::kUsage, "--to-last-log takes one FILE, the first to read");
  } else {
    for (const auto& name : o.remote_files) chosen.push_back(*find(name));
  }
  recovery::RemoteOptions ro;
  ro.connection = o.source;
  ro.server_id = o.remote_server_id;
  if (o.follow) {
    // --stop-never: a blocking read that waits at the end of the logs (a server id of its own:
    // 0 makes MySQL end the stream), heartbeats so a quiet server is not a dead one, a lost
    // connection made again where it broke, and the last file followed by the next the server
    // goes on with, as long as it goes on.
    ro.blocking = true;
    ro.heartbeat_seconds = 30;
    ro.reconnect = true;
    ro.warn = warn;
    if (ro.server_id == 0) ro.server_id = 65535 - static_cast<std::uint32_t>(::getpid() % 1000);
    chosen.assign(
        std::find_if(logs.begin(), logs.end(),
                     [&](const recovery::RemoteLog& l) { return l.name == chosen.front().name; }),
        logs.end());
  }
  o.inputs.clear();
  for (const auto& log : chosen) o.inputs.push_back(remote_input(ro, log, false));
  if (o.follow && !o.inputs.empty()) o.inputs.back() = remote_input(ro, chosen.back(), true);
}

}  // namespace binrecover::cli
