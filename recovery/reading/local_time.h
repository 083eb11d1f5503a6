#pragma once

#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>

// Times as a DBA types and reads them. Binlog events carry whole seconds since the epoch; the
// text is local time in the process's zone (TZ, set by --timezone), as mysqlbinlog reads it,
// unless the text names its own zone.
namespace binrecover::recovery {

struct Datetime {
  std::time_t seconds = 0;   // the whole second
  std::uint32_t micros = 0;  // and the fraction of it given
  // The first whole second at or after the time: events carry whole seconds, so an event is at
  // or after 18:00:00.5 when its second is 18:00:01 or later.
  std::time_t first_whole_second() const { return micros > 0 ? seconds + 1 : seconds; }
};

// Reads the whole text, or throws Error(kUsage) naming `what` (e.g. "--stop-datetime") and the
// forms taken:
//   YYYY-MM-DD HH:MM:SS[.ffffff]           in the process's zone
//   YYYY-MM-DDTHH:MM:SS[.ffffff]           the same
//   ... followed by Z, UTC, GMT, +HH:MM, -HH:MM, +HHMM, +HH (with or without a space before)
//   ... followed by a space and a zone name of /usr/share/zoneinfo (CET, Europe/Berlin)
// A date alone, trailing text, a field out of range (2026-02-30, 24:00:00), a local time that
// does not exist or happens twice in its zone (a DST change: give the offset) are refused.
Datetime parse_datetime(std::string_view text, std::string_view what);

// The local time of the process's zone for these fields (tm_year.. tm_sec); nullopt when that
// local time does not exist or is ambiguous there (a DST change), with the reason in *why.
std::optional<std::time_t> local_fields_to_time(const std::tm& fields, std::string* why = nullptr);

// "2026-12-03 18:00:05" in the process's zone; with_zone adds its abbreviation and offset:
// "2026-12-03 18:00:05 CET (+01:00)".
std::string local_time_text(std::time_t t, bool with_zone = false);

}  // namespace binrecover::recovery
