#pragma once

// The option groups that reach a server or a store, shared by several commands (the
// connections, reading a server, S3) and the parallel options replay, drill and restore share.
// A group one command alone takes is declared in its cli/cmd_*.cc.

#include "cli/option_groups.h"

namespace binrecover::cli {

// Which server a connection group is for (its caption and the defaults it names).
enum class ConnectionFor { kSource, kReplay, kDrill, kBackup, kRestore };

// --parallel, --no-preserve-commit-order, --merge-transactions (`dflt`: --parallel's default).
void add_parallel_options(po::options_description& g, const char* dflt);
Group connection_group(ConnectionFor what);
Group remote_group(bool source_options = false);
Group s3_group();

}  // namespace binrecover::cli
