#pragma once

#include <cstddef>
#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include "binlog/reader.h"
#include "recovery/reading/gtid_set.h"
#include "recovery/reading/walker.h"

namespace binrecover::recovery {

// When a logical dump ran, from its own text and its file.
struct DumpTimes {
  std::optional<std::time_t> started;    // from its head ("Started dump at"), or the file's birth
  std::string started_from;              // where `started` comes from, in words
  std::optional<std::time_t> completed;  // "-- Dump completed on ..." (the client's local time)
  // The same to the nanosecond, from the file itself (its birth and its last write), when they
  // agree with the text: the dump file as `mysqldump > file` made it.
  std::optional<std::int64_t> started_ns, completed_ns;
};
// Reads the dump's head and tail (a 50 GB dump costs two small reads) and its file's birth time
// (statx; a copy made after the dump was born later and tells nothing). Local times are read in
// the process's zone (--timezone).
DumpTimes read_dump_times(const std::string& path);

// Where replay starts for a dump made with --flush-logs (-F) and no coordinates: the binlog
// that flush opened, found by the time each input was opened (its first event) against the
// dump's times: the one opened while the dump ran (with a known start), or the last one opened
// within the hour before it completed (without). Throws Error(kUsage) with the next step when
// no binlog was opened then (no flush), several were (one flush per database, or a rotation
// during the dump: the candidates listed), or the dump has no completion time.
struct StartChoice {
  std::size_t input = 0;  // index into the inputs: replay from its beginning
  std::time_t opened = 0;
  std::string why;  // in words, for the plan and the drill
};
StartChoice flush_start(const std::string& dump_path, const DumpTimes& times,
                        const std::vector<InputFile>& inputs, const binlog::ReaderOptions& reader);

// Where replay starts for a backup that names GTIDs but no binlog position (a mysqldump of a
// GTID server: SET @@GLOBAL.GTID_PURGED): as a server picks the binlog for a replica that
// connects by GTID, the newest input whose GTIDs before it (Previous_gtids, Gtid_list) are all
// the backup's; the backup's own transactions in it and after are then left out by GTID.
// `mysql_set` (MySQL GTID set) or `maria_pos` (MariaDB GTID position). Throws Error(kUsage) when
// even the first input begins after transactions the backup does not have (a binlog missing).
StartChoice gtid_start(const std::string& mysql_set, const std::string& maria_pos,
                       const std::vector<InputFile>& inputs, const binlog::ReaderOptions& reader);

}  // namespace binrecover::recovery
