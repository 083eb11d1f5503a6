// -R: the inputs are a server's binary logs, read over the replication protocol.
#include <algorithm>

#include "binlog/error.h"
#include "cli/commands.h"
#include "recovery/server/remote_source.h"

namespace binrecover::cli {

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
  if (o.remote_files.empty()) {
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
  o.inputs.clear();
  for (const auto& log : chosen) {
    recovery::InputFile in;
    in.path = log.name;  // (how messages and plan's commands name it)
    in.display_name = log.name;
    in.open = [ro, log]() -> std::unique_ptr<binlog::Source> {
      return std::make_unique<recovery::RemoteSource>(ro, log);
    };
    o.inputs.push_back(std::move(in));
  }
}

}  // namespace binrecover::cli
