#pragma once

#include <string>
#include <vector>

#include "cli/options.h"

namespace binrecover::cli {

// One example of the manual page: what it does, and the command line (as in docs/runbook.md).
struct ManExample {
  const char* what;
  const char* command;
};
const std::vector<ManExample>& man_examples();

// binrecover(1) in troff (man macros), made from the option table the parser uses: every
// command, every option, the exit statuses and the runbook's examples.
std::string man_page(const std::vector<CommandInfo>& table, const std::string& version,
                     const std::string& date);

// A bash completion script for binrecover: the commands, each command's options, file names
// for arguments and for options that take a value.
std::string bash_completion(const std::vector<CommandInfo>& table);

}  // namespace binrecover::cli
