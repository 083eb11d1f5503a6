// json_binary_check FILE...: prints the text of every JSON column value in the row events of
// the binlog files, one per line in log order (an update's before image, then its after image),
// as MySQL's SELECT prints it; partial-update diffs are left out. Used by
// tests/integration/json_binary.sh to compare binrecover's decoding with a real MySQL server.

#include <cstdio>
#include <iostream>
#include <string>

#include "binlog/error.h"
#include "binlog/json_binary.h"
#include "tests/binlog/json_columns.h"

int main(int argc, char** argv) {
  using namespace binrecover;
  if (argc < 2) {
    std::cerr << "usage: json_binary_check BINLOG...\n";
    return 2;
  }
  std::string out;
  try {
    for (int i = 1; i < argc; ++i) {
      for (const auto& cell : binlog::testutil::json_cells(argv[i])) {
        if (cell.diff) continue;
        binlog::append_json_text(out, cell.bytes, cell.offset);
        out += '\n';
      }
    }
  } catch (const Error& e) {
    std::cout << out;
    std::cerr << "json_binary_check: " << e.describe() << "\n";
    return 1;
  }
  std::cout << out;
  return 0;
}
