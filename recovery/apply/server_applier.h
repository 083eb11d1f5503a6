#pragma once

#include <vector>

#include "recovery/apply/replay.h"
#include "recovery/reading/walker.h"
#include "recovery/server/apply.h"

namespace binrecover::recovery {

// replay --server-applier: the target applies the log with its own replication applier
// (MariaDB's parallel applier with --parallel N: slave_parallel_threads = N), binrecover serving
// the kept transactions as its replication source (recovery/server/replication_source.h):
//  - the target is told, on a replication connection of its own named 'binrecover' (CHANGE
//    MASTER 'binrecover' TO ..., MASTER_USE_GTID=slave_pos, no replication filters), to
//    replicate from binrecover, which listens on opts.listen_host:opts.listen_port with a
//    password made for the run; at the end (or any stop) the connection is removed (RESET SLAVE
//    'binrecover' ALL) and slave_parallel_threads given back its value;
//  - the transactions the range and filters keep are sent as a binlog of their own (their
//    events as the log has them, checksummed, log positions of that stream), never more than
//    opts.window_bytes ahead of what the target has applied;
//  - exactly once: the target records every transaction's GTID in mysql.gtid_slave_pos inside
//    the transaction (crash-safe replication), and tells binrecover on connecting which GTIDs
//    it has: those are not sent again (after a reconnect, a kill, --resume). On a new replay,
//    a transaction the target already has is an error unless --gtids=skip-applied (a stale
//    gtid_slave_pos would otherwise silently leave transactions out);
//  - a transaction the target fails to apply ends the replay with the target's error and the
//    transaction's coordinates (Error kServer); SIGINT and SIGTERM stop it after what the target
//    is applying (kInterrupted); the state file names where to --resume.
// Needs a MariaDB target (10.0 or later) and a log whose transactions have GTIDs (MariaDB 10.0
// or later); refuses (Error kUsage) a target that would skip or ignore what it is sent
// (slave_skip_errors, slave_exec_mode=IDEMPOTENT, events of its own server id) or binlog it
// otherwise than asked (log_slave_updates against -D).
ReplayResult run_server_applier(std::vector<InputFile> inputs, DecodeOptions decode,
                                FilterOptions filter, bool disable_log_bin,
                                const ReplayOptions& opts, const ConnectionOptions& conn,
                                Session& session, const binlog::WarningSink& warn,
                                const ReplayProgressFn& progress = {});

}  // namespace binrecover::recovery
