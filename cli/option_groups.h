#pragma once

// The options, in the groups --help and the manual show them; which groups each command takes
// (each command's own list, in its cli/cmd_*.cc).

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
// may set for it): the command's own list, from its cli/cmd_*.cc below.
std::vector<Group> command_groups(Command c, bool for_option_files = false);

// Each command's option groups, in help order, declared with the command (`for_option_files`:
// without the connection, which an option file's [client] gives every command).
std::vector<Group> sql_option_groups(bool for_option_files);      // cli/cmd_sql.cc
std::vector<Group> events_option_groups(bool for_option_files);   // cli/cmd_events.cc
std::vector<Group> stats_option_groups(bool for_option_files);    // cli/cmd_stats.cc
std::vector<Group> plan_option_groups(bool for_option_files);     // cli/cmd_plan.cc
std::vector<Group> drill_option_groups(bool for_option_files);    // cli/cmd_drill.cc
std::vector<Group> replay_option_groups(bool for_option_files);   // cli/cmd_replay.cc
std::vector<Group> archive_option_groups(bool for_option_files);  // cli/cmd_archive.cc
std::vector<Group> backup_option_groups(bool for_option_files);   // cli/cmd_backups.cc
std::vector<Group> restore_option_groups(bool for_option_files);  // cli/cmd_backups.cc

// The groups several commands share (cli/option_groups.cc; those reaching a server or a store:
// cli/option_groups_servers.h).
// The groups every command that reads binlogs starts with: input and range, object storage,
// filters.
std::vector<Group> reading_groups();
Group input_group();
Group filter_group();
// Finding the damage (plan), or the drill's (drill).
Group plan_group(bool drill);
// The timeline of stats and plan: the terminal picture and the HTML page.
void add_timeline_options(po::options_description& g, bool stats);
// --help, --version, option files and the accepted no-ops: every command's last group.
Group misc_group();
// The options one command takes, in help order.
po::options_description command_options(Command c, bool for_option_files = false);

}  // namespace binrecover::cli
