#pragma once

#include <string>

#include "cli/options.h"

// One function per command (cli/cmd_*.cc); each returns the exit status and throws
// binrecover::Error for main() to report.
namespace binrecover::cli {

int sql_command(Options& o);     // binrecover [options] FILE...
int events_command(Options& o);  // binrecover events
int stats_command(Options& o);   // binrecover stats
int plan_command(Options& o);    // binrecover plan
int drill_command(Options& o);   // binrecover drill
int replay_command(Options& o);  // binrecover replay

// "binrecover: warning: ..." on stderr.
void warn(const std::string& msg);
// -p without a value: the password from the terminal.
std::string read_password();
// The output the command writes to: --result-file or standard output.
int open_output(const Options& o);

}  // namespace binrecover::cli
