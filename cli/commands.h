#pragma once

#include <functional>
#include <string>

#include "cli/options.h"
#include "recovery/sql/output.h"

// One function per command (cli/cmd_*.cc); each returns the exit status and throws
// binrecover::Error for main() to report.
namespace binrecover::cli {

int sql_command(Options& o);      // binrecover [options] FILE...
int events_command(Options& o);   // binrecover events
int stats_command(Options& o);    // binrecover stats
int plan_command(Options& o);     // binrecover plan
int drill_command(Options& o);    // binrecover drill
int replay_command(Options& o);   // binrecover replay
int archive_command(Options& o);  // binrecover archive
int backup_command(Options& o);   // binrecover backup
int restore_command(Options& o);  // binrecover restore

// -R: fills o.inputs with the server's binlogs (all, the ones named, or from the first named
// to the last with --to-last-log), each read over the replication protocol when the command
// reads it. Asks for the password first when -p was given alone.
void resolve_remote_inputs(Options& o);
// "binrecover: warning: ..." on stderr.
void warn(const std::string& msg);
// What a run that kept no transaction says (a warning of SQL output, an error elsewhere).
std::string nothing_kept_text();
// -p without a value: the password from the terminal.
std::string read_password();
// Runs `body` with the command's output: standard output, or --result-file. A result file is
// written under a private temporary name beside it (mode 0600, created exclusively, no link
// followed) that takes the file's name only at the end; a file that is one of the inputs is
// refused (exit 2). When `body` fails (a full disk, a damaged event), the text is cut back to
// its last whole transaction, kept under the file's name, and the error goes on.
int with_output(const Options& o, const std::function<int(recovery::Output&)>& body);
// The same for another file the command writes (plan --html=F).
int with_file_output(const std::string& path, const Options& o,
                     const std::function<int(recovery::Output&)>& body);

}  // namespace binrecover::cli
