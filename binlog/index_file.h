#pragma once

#include <string>
#include <vector>

namespace binrecover::binlog {

// Reads a server's .index file: one binlog name per line. Relative names are resolved against
// the index file's own folder (the server writes them relative to its data directory, which is
// where the index lives), so a copied binlog folder reads anywhere.
std::vector<std::string> read_index_file(const std::string& path);

}  // namespace binrecover::binlog
