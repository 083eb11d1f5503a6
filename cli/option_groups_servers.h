#pragma once

// The option groups of commands that reach a server or a store (backup, restore, the
// connections, reading a server, replay, archive, S3) and the parallel options replay, drill
// and restore share: cli/option_groups.cc puts them in each command's help order.

#include "cli/option_groups.h"

namespace binrecover::cli {

// Which server a connection group is for (its caption and the defaults it names).
enum class ConnectionFor { kSource, kReplay, kDrill, kBackup, kRestore };

// --parallel, --no-preserve-commit-order, --merge-transactions (`dflt`: --parallel's default).
void add_parallel_options(po::options_description& g, const char* dflt);
Group backup_group();
Group restore_group();
Group connection_group(ConnectionFor what);
Group remote_group(bool source_options = false);
Group replay_group();
Group archive_group();
Group s3_group();

}  // namespace binrecover::cli
