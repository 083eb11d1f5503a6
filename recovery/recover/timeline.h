#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "recovery/reading/walker.h"
#include "recovery/recover/plan.h"
#include "recovery/sql/output.h"

namespace binrecover::recovery {

// What changed when: per minute of the events' own timestamps, per database (or table), the
// rows inserted, updated and deleted, the DDL statements and the statement-format DML. Memory
// grows with minutes x databases (or tables) that saw a change, not with the log.
struct TimelineCounts {
  std::uint64_t inserted = 0, updated = 0, deleted = 0;
  std::uint64_t ddl = 0;         // CREATE, ALTER, DROP, RENAME, TRUNCATE
  std::uint64_t statements = 0;  // DML in statement format (rows unknown)
  std::uint64_t rows() const { return inserted + updated + deleted; }
  bool empty() const { return rows() == 0 && ddl == 0 && statements == 0; }
  void add(const TimelineCounts& o);
};

struct Timeline {
  bool by_table = false;
  // minute (seconds since the epoch / 60) -> key ("db" or "db.table") -> counts
  std::map<std::uint32_t, std::map<std::string, TimelineCounts>> minutes;
  std::vector<Damage> damage;  // the destructive transactions plan finds, marked
};

// A walk consumer that fills a Timeline (its `damage` is filled by the damage finder).
class TimelineCollector;
std::unique_ptr<WalkConsumer> timeline_collector(Timeline& t);

// Buckets of `seconds` (0: chosen by the range: a minute up to 3 hours, 10 minutes up to a
// day, an hour up to 10 days, else a day).
struct TimelineBucket {
  std::uint32_t start = 0;  // seconds since the epoch
  std::map<std::string, TimelineCounts> keys;
  TimelineCounts total;
};
std::uint32_t timeline_bucket_seconds(const Timeline& t, std::uint32_t seconds);
// Every bucket from the first change to the last (empty ones too).
std::vector<TimelineBucket> timeline_buckets(const Timeline& t, std::uint32_t seconds);

// The terminal picture: a bar per bucket and key, the destructive events marked in place.
void write_timeline_text(const Timeline& t, std::uint32_t seconds, Output& out);

// One self-contained HTML page (inline SVG and CSS, no script, nothing fetched): the timeline
// as stacked bars with the destructive events marked, their table, and the recovery commands.
struct HtmlPage {
  std::string title;
  std::vector<std::pair<std::string, std::string>> facts;     // label, value
  std::vector<std::pair<std::string, std::string>> commands;  // what, command line
};
void write_timeline_html(const Timeline& t, std::uint32_t seconds, const HtmlPage& page,
                         Output& out);

}  // namespace binrecover::recovery
