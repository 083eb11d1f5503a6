#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "binlog/reader.h"
#include "recovery/archive/archive.h"
#include "recovery/archive/archive_sink.h"
#include "recovery/reading/gtid_history.h"
#include "recovery/server/remote_source.h"

namespace binrecover::recovery {

// An archive folder that goes on with another server after a failover (docs/usage.md, "After a
// failover"): what is set aside is decided by GTID sets, never by file numbers.

// The server id in the header of a binlog file's format description (the server that wrote
// the file); 0 when it has none.
std::uint32_t writer_id(const std::string& path);

// Where an archive goes on after a failover: the new server's `next_file`, copied whole; the
// archive's transactions the new server does not have at its end (lost with the old primary)
// are set aside: its file `file_index` is cut at `cut` (0: not cut), later files moved.
// Everything the new server has stays where it is (a dump's coordinates on the old primary
// stay valid): where the two servers' files overlap, readers take each transaction once
// (recovery/reading/one_history.h).
struct FailoverPlan {
  std::size_t file_index = 0;
  std::uint64_t cut = 0;
  std::vector<std::string> tail_gtids;  // the transactions set aside
  std::vector<std::string> lost;        // archived transactions the new server lacks
  bool shared = false;                  // the new server has some of the archive's history
  std::string next_file;
};

// The new server's newest binlog that begins after nothing the archive lacks (its
// Previous_gtids / Gtid_list within the archive's GTIDs), and the archive's tail of
// transactions the server does not have (`has`: its gtid_executed / gtid_binlog_state).
// Throws when no binlog qualifies: the server does not have the archive's history.
FailoverPlan plan_failover(const ArchiveOptions& o, const std::vector<std::string>& files,
                           const std::vector<RemoteLog>& logs, bool mariadb, const History& has);

// Carries a failover plan out: the cut file's tail and the later files go into a folder
// DIR/PREFIXdiverged-TIME (nothing is thrown away), the index keeps the rest. Returns that
// folder ("" when nothing went aside).
std::string apply_failover(const ArchiveOptions& o, const std::string& index_path,
                           const std::vector<std::string>& files, const FailoverPlan& plan);

// The archive's index rewritten to list files[0, count): written beside it, then renamed over it.
void write_index(const ArchiveOptions& o, const std::string& index_path,
                 const std::vector<std::string>& files, std::size_t count);

// The failover step of `archive --dir`: when the archive's last file (with an event) was written
// by another server than `server`, plans and carries out where the archive goes on, says so
// through `warn`, and returns the server's binlog to copy next (nullopt: no failover). Throws
// Error(kServer) for a server without the archive's history, or a name that clashes.
// `executed`: the server's gtid_executed (MySQL) or gtid_binlog_state (MariaDB).
std::optional<std::string> follow_failover(const ArchiveOptions& opts, const std::string& index,
                                           const std::vector<RemoteLog>& logs,
                                           const ArchivedServer& server,
                                           const std::string& executed,
                                           const binlog::WarningSink& warn);

}  // namespace binrecover::recovery
