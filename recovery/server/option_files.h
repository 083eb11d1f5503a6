#pragma once

#include <functional>
#include <string>
#include <vector>

namespace binrecover::recovery {

// MySQL option files (my.cnf) read the one way every part of binrecover uses: our own options
// (cli/), where a connection goes (messages), and what the client library is given.
//
// As the mysql client reads them: in order, `!include FILE` and `!includedir DIR` (its *.cnf
// files, sorted) followed up to 8 deep, `#`/`;` comments, `[group]` headers, `key = value`
// with `_` in keys read as `-` and one pair of quotes around a value taken off. A file that
// anyone may write (world-writable: whoever can write it would change a recovery) is ignored
// with the mysql client's warning: "World-writable config file 'F' is ignored.".
struct OptionLine {
  std::string group;  // as written in its header, e.g. "client", "binrecover"
  std::string key;    // "stop-position"
  std::string value;  // quotes taken off; empty for a key without '='
  bool has_value = false;
  std::string text;  // the line as written (trimmed), for the client library
};

using OptionFileWarning = std::function<void(const std::string&)>;

std::vector<OptionLine> read_option_files(const std::vector<std::string>& files,
                                          const OptionFileWarning& warn);

// The groups whose settings reach a server connection, as MariaDB's and MySQL's clients read
// them: [client], [client-server], [client-mariadb], [mariadb-client], then [binrecover].
bool is_connection_group(const std::string& group);

}  // namespace binrecover::recovery
