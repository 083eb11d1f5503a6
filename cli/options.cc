#include "cli/options.h"

#include <algorithm>
#include <boost/program_options.hpp>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "binlog/error.h"
#include "binlog/index_file.h"
#include "cli/command_table.h"
#include "cli/option_groups.h"
#include "cli/option_readers.h"
#include "cli/option_rules.h"
#include "cli/option_values.h"
#include "recovery/reading/local_time.h"
#include "recovery/server/option_files.h"
#include "recovery/storage/s3_archive.h"
#include "recovery/text/escape.h"

namespace binrecover::cli {

// Our own options come from the groups mysqlbinlog and mariadb-binlog read theirs from, then
// [binrecover]; the connection's from the client groups (recovery/server/option_files.h), read
// by the client library. --print-defaults shows both, as mariadb-binlog does.
const std::vector<std::string> kOwnGroups = {"mysqlbinlog", "mariadb-binlog", "binrecover"};
const std::vector<std::string> kPrintedGroups = {
    "client",      "client-server",  "client-mariadb", "mariadb-client",
    "mysqlbinlog", "mariadb-binlog", "binrecover"};

std::vector<std::string> default_option_files() {
  std::vector<std::string> files = {"/etc/my.cnf", "/etc/mysql/my.cnf"};
  if (const char* home = std::getenv("HOME")) files.push_back(std::string(home) + "/.my.cnf");
  return files;
}

std::vector<std::string> option_file_args(const std::vector<std::string>& files,
                                          const std::vector<std::string>& groups) {
  std::vector<std::string> out;
  const auto warn = [](const std::string& m) {
    std::fprintf(stderr, "binrecover: warning: %s\n", recovery::terminal_text(m).c_str());
  };
  for (const recovery::OptionLine& l : recovery::read_option_files(files, warn))
    if (std::find(groups.begin(), groups.end(), l.group) != groups.end())
      out.push_back("--" + l.key + (l.has_value ? "=" + l.value : std::string()));
  return out;
}

void apply_timezone(const std::string& tz) {
  std::string value = tz;
  if (tz == "SYSTEM" || tz == "system") {
    ::unsetenv("TZ");
    ::tzset();
    return;
  }
  if (!tz.empty() && (tz[0] == '+' || tz[0] == '-')) {
    // "+02:00" means two hours east of UTC; POSIX TZ counts the other way.
    int h = 0, m = 0;
    char colon = ':';
    std::istringstream in(tz.substr(1));
    in >> h >> colon >> m;
    if (!in || colon != ':' || h > 14 || m > 59)
      usage_error("--timezone offset must look like +02:00 or -05:30, not '" + tz + "'");
    value = "UTC" + std::string(tz[0] == '+' ? "-" : "+") + std::to_string(h) + ":" +
            (m < 10 ? "0" : "") + std::to_string(m);
  } else if (tz != "UTC" && tz != "GMT" && !std::filesystem::exists("/usr/share/zoneinfo/" + tz)) {
    usage_error("--timezone '" + tz +
                "' is not a known time zone (use UTC, +HH:MM or a name "
                "from /usr/share/zoneinfo)");
  }
  ::setenv("TZ", value.c_str(), 1);
  ::tzset();
}

namespace {

// Where options come from besides the command line: the option files (unless --no-defaults),
// and whether --print-defaults asked for them.
struct OptionFiles {
  std::vector<std::string> files;
  bool read = true;
  bool print = false;
};

// The leading --no-defaults, --defaults-file, --defaults-extra-file and --print-defaults
// (which must come first, as in every MySQL program; `binrecover replay --defaults-file=F`
// reads as `binrecover --defaults-file=F replay`), taken out of `args`.
OptionFiles take_option_files(std::vector<std::string>& args, Options& o) {
  const auto is_defaults_option = [](const std::string& a) {
    return a == "--no-defaults" || a == "--print-defaults" || a.rfind("--defaults-file=", 0) == 0 ||
           a.rfind("--defaults-extra-file=", 0) == 0;
  };
  // `binrecover replay --defaults-file=F ...` reads as `binrecover --defaults-file=F replay ...`.
  if (!args.empty() && command_named(args[0])) {
    std::size_t k = 1;
    while (k < args.size() && is_defaults_option(args[k])) ++k;
    std::rotate(args.begin(), args.begin() + 1, args.begin() + static_cast<std::ptrdiff_t>(k));
  }

  OptionFiles of;
  of.files = default_option_files();
  o.connection.default_files = of.files;
  while (!args.empty()) {
    const std::string& a = args.front();
    if (a == "--print-defaults") {
      of.print = true;
    } else if (a == "--no-defaults") {
      of.read = false;
      o.connection.read_defaults = false;
    } else if (a.rfind("--defaults-file=", 0) == 0) {
      const std::string f = a.substr(16);
      if (!std::filesystem::exists(f)) usage_error("--defaults-file '" + f + "' does not exist");
      of.files = {f};
      o.connection.defaults_file = f;
    } else if (a.rfind("--defaults-extra-file=", 0) == 0) {
      of.files.push_back(a.substr(22));
      o.connection.extra_files.push_back(a.substr(22));
    } else {
      break;
    }
    args.erase(args.begin());
  }
  return of;
}

// mysqlbinlog's --print-defaults: what the option files add (passwords hidden), then exit.
Options print_defaults(const OptionFiles& of) {
  Options o;
  o.command = Command::kHelp;
  o.help_text = "binrecover would have been started with the following arguments:\n";
  if (of.read)
    for (std::string a : option_file_args(of.files, kPrintedGroups)) {
      for (const char* key : {"--password=", "--source-password="})
        if (a.rfind(key, 0) == 0) a = std::string(key) + "*****";
      o.help_text += a + " ";
    }
  o.help_text += "\n";
  return o;
}

// -v / -vv / --verbose count, as in mysqlbinlog; taken out before the parser sees them.
int take_verbosity(std::vector<std::string>& args, Command cmd) {
  int verbose = 0;
  for (auto it = args.begin(); it != args.end();) {
    if (*it == "-v" || *it == "--verbose") {
      ++verbose;
    } else if (*it == "-vv") {
      verbose += 2;
    } else if (*it == "-vvv") {
      verbose += 3;
    } else {
      ++it;
      continue;
    }
    it = args.erase(it);
  }
  if (verbose > 0 && cmd != Command::kSql)
    usage_error("-v does not apply to " + command_label(cmd) + "; it belongs to SQL output");
  return verbose;
}

// An option's optional value is only ever the text attached to it: the parser would take the
// next argument, a binlog file, for it. A password option's value, as for mysqlbinlog and
// mysql: -p / --password alone ask for it (the parser would take the next argument, a binlog
// file, for the password), --password= is an empty one (the parser refuses an empty value
// after '='). Both are given to the parser as a value no password can be (a control byte).
// Only for a command that takes the option: another one refuses it as it was written.
void mark_optional_values(std::vector<std::string>& args, const po::options_description& opts) {
  const auto takes = [&](const char* option) {
    return opts.find_nothrow(option, false) != nullptr;
  };
  for (std::string& a : args) {
    if (a == "--") break;
    if (a == "-p" && takes("password")) {
      a = std::string("-p") + kAskPassword;
      continue;
    }
    // (the same for the other option whose value may be left out)
    if ((a == "-c" || a == "--verify-binlog-checksum") && takes("verify-binlog-checksum")) {
      a += a[1] == 'c' ? "1" : "=1";
      continue;
    }
    if (a == "--transactions" && takes("transactions")) {
      a += "=10";
      continue;
    }
    if (a.size() < 4 || a.compare(0, 2, "--") != 0) continue;
    const std::size_t eq = a.find('=');
    const std::string_view name =
        std::string_view(a).substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    const auto prefix_of = [&](std::string_view full, std::size_t min) {
      return name.size() >= min && full.substr(0, name.size()) == name;
    };
    if (!(prefix_of("password", 4) && takes("password")) &&
        !(prefix_of("source-password", 9) && takes("source-password")))
      continue;
    if (eq == std::string::npos)
      a += std::string("=") + kAskPassword;
    else if (eq + 1 == a.size())
      a += kEmptyPassword;
  }
}

// The command line (and the option files' lines for this command) parsed: mysqlbinlog's older
// names and -C given their current meaning.
po::variables_map parse_args(const std::vector<std::string>& args, Command cmd,
                             const po::options_description& opts, const OptionFiles& of) {
  po::options_description hidden;
  hidden.add_options()("files", po::value<std::vector<std::string>>(), "binlog files");
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("files", -1);

  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args)
                  .options(all)
                  .positional(pos)
                  .style(po::command_line_style::unix_style)
                  .run(),
              vm);
    if (of.read) {
      // Values from option files only fill what the command line left unset, and only for
      // options this command takes (the connection comes from [client] through the library).
      // As in every MySQL program, a later line (a later file) wins: each line is stored on
      // its own, the last first (what is stored first stays).
      const std::vector<std::string> fargs = option_file_args(of.files, kOwnGroups);
      const po::options_description takes = command_options(cmd, true);
      for (auto a = fargs.rbegin(); a != fargs.rend(); ++a)
        po::store(po::command_line_parser(std::vector<std::string>{*a})
                      .options(takes)
                      .allow_unregistered()
                      .run(),
                  vm);
    }
    po::notify(vm);
    // mysqlbinlog's older names: the value goes to the current one.
    const std::pair<const char*, const char*> kAliases[] = {
        {"read-from-remote-master", "read-from-remote-source"},
        {"stop-never-slave-server-id", "connection-server-id"},
        {"to-time", "stop-datetime"}};
    for (const auto& [alias, name] : kAliases) {
      if (!vm.count(alias)) continue;
      if (vm.count(name))
        usage_error(std::string("--") + alias + " is --" + name + ": give one of them");
      vm.insert({name, vm[alias]});
    }
    if (vm.count("compress")) {
      if (vm.count("compression-algorithms"))
        usage_error("-C (--compress) is --compression-algorithms=zlib: give one of them");
      vm.insert({"compression-algorithms", po::variable_value(std::string("zlib"), false)});
    }
  } catch (const po::unknown_option& e) {
    unknown_option(cmd, e.get_option_name());
  } catch (const po::error& e) {
    usage_error(std::string(e.what()) + " (see binrecover " +
                (*command_word(cmd) ? std::string(command_word(cmd)) + " " : "") + "--help)");
  }
  for (const char* first :
       {"no-defaults", "defaults-file", "defaults-extra-file", "print-defaults"})
    if (vm.count(first))
      usage_error(std::string("--") + first +
                  " must come first on the command line (before any other option)");
  return vm;
}

}  // namespace

Options parse_options(const std::vector<std::string>& args_in, bool stdin_is_tty) {
  std::vector<std::string> args = args_in;
  Options o;
  // `binrecover help COMMAND` is `binrecover COMMAND --help`.
  if (args.size() >= 1 && args[0] == "help") {
    o.command = Command::kHelp;
    o.help_text = help_text(args.size() >= 2 ? command_named(args[1]).value_or(Command::kSql)
                                             : Command::kSql);
    if (args.size() >= 2 && !command_named(args[1])) {
      const auto near = command_near(args[1]);
      usage_error("no command '" + args[1] + "'" + (near ? "; did you mean " + *near + "?" : "") +
                  " (events, stats, plan, drill, replay, archive, backup, restore)");
    }
    return o;
  }
  const OptionFiles of = take_option_files(args, o);
  if (of.print) return print_defaults(of);
  if (!args.empty()) {
    if (const auto c = command_named(args.front())) {
      o.command = *c;
      args.erase(args.begin());
    } else if (const auto near = command_near(args.front())) {
      usage_error("no command or file '" + args.front() + "'; did you mean binrecover " + *near +
                  "?");
    }
  }
  const Command cmd = o.command;
  o.help_text = help_text(cmd);
  const int verbose = take_verbosity(args, cmd);
  const po::options_description opts = command_options(cmd);
  mark_optional_values(args, opts);
  const po::variables_map vm = parse_args(args, cmd, opts, of);
  if (vm.count("help")) {
    o.command = Command::kHelp;
    return o;
  }
  if (vm.count("version")) {
    o.command = Command::kVersion;
    return o;
  }
  const Given given(vm);
  check_option_rules(given, cmd);
  const std::optional<std::string> start_gtids = read_range_and_filters(given, o);
  // What each command adds.
  read_sql_output(given, cmd, verbose, o);
  read_timeline_and_format(given, cmd, o);
  read_plan_and_drill(given, cmd, o);
  read_follow_and_raw(given, cmd, verbose, o);
  read_s3(given, o);
  read_archive(given, cmd, o);
  read_remote(given, cmd, start_gtids, o);
  read_connection(given, cmd, o);
  read_source(given, cmd, o);
  read_parallel(given, cmd, o);
  read_replay(given, cmd, o);
  read_backup(given, cmd, o);
  read_restore(given, cmd, o);
  read_inputs(given, stdin_is_tty, o);
  return o;
}

}  // namespace binrecover::cli
