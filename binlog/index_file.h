#pragma once

#include <string>
#include <vector>

namespace binrecover::binlog {

// Reads a server's .index file: one binlog name per line. Relative names are resolved against
// the index file's own folder (the server writes them relative to its data directory, which is
// where the index lives), so a copied binlog folder reads anywhere. An absolute name whose file
// is gone is read beside the index (an index copied with its logs); one whose file exists while
// a different file of the same name sits beside the index is refused (Error kUsage naming both:
// the live server's file or the DBA's secured copy?). With `binlog_dir`, every name's file name
// is read in that folder instead.
std::vector<std::string> read_index_file(const std::string& path,
                                         const std::string& binlog_dir = {});

// The one .index file of a folder (a copy or an archive of a server's binlogs): its path, ""
// when there is none; Error(kUsage) naming the folder when there are several.
std::string index_in_folder(const std::string& dir);

}  // namespace binrecover::binlog
