#pragma once

// The options, in the groups --help and the manual show them; which groups each command takes.

#include <boost/program_options.hpp>
#include <string>
#include <vector>

#include "cli/options.h"

namespace binrecover::cli {

namespace po = boost::program_options;

// A group of options as --help and the manual show it.
struct Group {
  explicit Group(const std::string& c) : caption(c), d(c) {}
  std::string caption;
  po::options_description d;
};

// The option groups one command takes, in help order (`for_option_files`: those an option file
// may set for it).
std::vector<Group> command_groups(Command c, bool for_option_files = false);
// The options one command takes, in help order.
po::options_description command_options(Command c, bool for_option_files = false);

}  // namespace binrecover::cli
