#pragma once

#include <string>
#include <string_view>

namespace binrecover::binlog {

// The binlog file names that come from outside: a server's SHOW BINARY LOGS and Rotate events,
// an archive's manifest. Such a name becomes a file in our folders and a key in our buckets, so
// it must be what a server names its binlogs: BASENAME.NNNNNN (an extension of three or more
// digits: six since MySQL 5.0), printable ASCII, no '/' or '\', not beginning with '.', at most 200
// bytes. No such name can be one of our own files or objects (the .index, the manifest, .active/
// pieces, a .tmp file, a diverged-* folder), nor reach outside the folder.

// Why `name` is not such a name ("" when it is).
std::string bad_log_name(std::string_view name);

// Throws Error(kServer) (exit 6) naming the name (escaped) and `from` (where it came from: "the
// server at HOST:PORT", "the manifest s3://...") when it is not such a name.
void check_log_name(std::string_view name, std::string_view from);

}  // namespace binrecover::binlog
