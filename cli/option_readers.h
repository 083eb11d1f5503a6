#pragma once

// The options as parsed, read into Options one concern at a time (parse_options calls them in
// this order). Each checks what belongs together and refuses what does not apply (exit 2). The
// readers of one command's own options live with the command (cli/cmd_*.cc); the shared ones in
// cli/read_inputs.cc and cli/read_servers.cc.

#include <optional>
#include <string>

#include "cli/option_values.h"
#include "cli/options.h"

namespace binrecover::cli {

// cli/read_inputs.cc: the reading path, SQL output, the listing commands, plan and drill.
// The range and filters (every command); returns a MariaDB GTID --start-position when given.
std::optional<std::string> read_range_and_filters(const Given& g, Options& o);
void read_sql_output(const Given& g, Command cmd, int verbose, Options& o);
void read_timeline_and_format(const Given& g, Command cmd, Options& o);
void read_plan_and_drill(const Given& g, Command cmd, Options& o);
// The binlogs to read: files, an index, stdin, s3://, or a server's (-R).
void read_inputs(const Given& g, bool stdin_is_tty, Options& o);
// Each path as an input: a file, or what an s3:// URL names (an object, an index object, an
// archive folder, a prefix above several servers' folders).
void add_input_paths(const std::vector<std::string>& paths, std::vector<recovery::InputFile>& out);

// cli/read_servers.cc: servers, the object store, the parallel options.
// -h, -P, -u, -p, -S and the rest of a connection: whether any was given.
bool connection_given(const Given& g);
void read_follow_and_raw(const Given& g, Command cmd, int verbose, Options& o);
void read_s3(const Given& g, Options& o);
// The options of the store's connection (refused where no bucket is reached).
inline constexpr const char* kS3Options[] = {"s3-endpoint", "s3-region", "s3-profile",
                                             "s3-addressing", "s3-streams"};
// cli/cmd_archive.cc: archive's own options.
void read_archive(const Given& g, Command cmd, Options& o);
void read_remote(const Given& g, Command cmd, const std::optional<std::string>& start_gtids,
                 Options& o);
void read_connection(const Given& g, Command cmd, Options& o);
void read_source(const Given& g, Command cmd, Options& o);
void read_parallel(const Given& g, Command cmd, Options& o);
// cli/cmd_replay.cc: replay's own options.
void read_replay(const Given& g, Command cmd, Options& o);

// cli/cmd_backups.cc: backup (where it goes, --list) and restore (the archive, the point).
void read_backup(const Given& g, Command cmd, Options& o);
void read_restore(const Given& g, Command cmd, Options& o);

}  // namespace binrecover::cli
