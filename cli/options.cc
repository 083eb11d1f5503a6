#include "cli/options.h"

#include <boost/program_options.hpp>
#include <cctype>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "binlog/error.h"
#include "binlog/index_file.h"

namespace binrecover::cli {

namespace po = boost::program_options;

namespace {

[[noreturn]] void usage_error(const std::string& msg) { throw Error(ErrorCode::kUsage, msg); }

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

void read_option_file(const std::filesystem::path& file, std::vector<std::string>& out, int depth) {
  std::ifstream in(file);
  if (!in || depth > 8) return;
  std::string line;
  bool in_group = false;
  while (std::getline(in, line)) {
    line = trim(line);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line.rfind("!includedir", 0) == 0) {
      const std::filesystem::path dir = trim(line.substr(11));
      std::error_code ec;
      std::vector<std::filesystem::path> files;
      for (const auto& e : std::filesystem::directory_iterator(dir, ec))
        if (e.path().extension() == ".cnf") files.push_back(e.path());
      std::sort(files.begin(), files.end());
      for (const auto& f : files) read_option_file(f, out, depth + 1);
      continue;
    }
    if (line.rfind("!include", 0) == 0) {
      read_option_file(trim(line.substr(8)), out, depth + 1);
      continue;
    }
    if (line[0] == '[') {
      const auto end = line.find(']');
      in_group = end != std::string::npos && trim(line.substr(1, end - 1)) == "binrecover";
      continue;
    }
    if (!in_group) continue;
    const auto eq = line.find('=');
    std::string key = trim(line.substr(0, eq));
    std::replace(key.begin(), key.end(), '_', '-');
    if (eq == std::string::npos) {
      out.push_back("--" + key);
      continue;
    }
    std::string value = trim(line.substr(eq + 1));
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
        value.back() == value.front())
      value = value.substr(1, value.size() - 2);
    out.push_back("--" + key + "=" + value);
  }
}

std::uint64_t parse_u64(const std::string& text, const std::string& option) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    usage_error("--" + option + " needs a non-negative number, not '" + text + "'");
  try {
    return std::stoull(text);
  } catch (const std::exception&) {
    usage_error("--" + option + " value '" + text + "' is out of range");
  }
}

std::string base_name(const std::string& path) {
  if (path == "-") return "stdin";
  return std::filesystem::path(path).filename().string();
}

std::pair<std::string, std::string> parse_table(const std::string& text) {
  const auto dot = text.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == text.size())
    usage_error("--table needs DATABASE.TABLE, not '" + text + "'");
  return {text.substr(0, dot), text.substr(dot + 1)};
}

}  // namespace

std::vector<std::string> default_option_files() {
  std::vector<std::string> files = {"/etc/my.cnf", "/etc/mysql/my.cnf"};
  if (const char* home = std::getenv("HOME")) files.push_back(std::string(home) + "/.my.cnf");
  return files;
}

std::vector<std::string> option_file_args(const std::vector<std::string>& files) {
  std::vector<std::string> out;
  for (const auto& f : files) read_option_file(f, out, 0);
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

std::time_t parse_datetime(const std::string& text, const std::string& option) {
  std::tm tm{};
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  char sep = ' ';
  const int n = std::sscanf(text.c_str(), "%d-%d-%d%c%d:%d:%d", &y, &mo, &d, &sep, &h, &mi, &s);
  if (!(n == 3 || n >= 6) || (n >= 4 && sep != ' ' && sep != 'T') || mo < 1 || mo > 12 || d < 1 ||
      d > 31 || h > 23 || mi > 59 || s > 60)
    usage_error("--" + option + " needs 'YYYY-MM-DD HH:MM:SS', not '" + text + "'");
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  tm.tm_isdst = -1;
  const std::time_t t = std::mktime(&tm);
  if (t == static_cast<std::time_t>(-1)) usage_error("--" + option + " '" + text + "' is invalid");
  return t;
}

Options parse_options(const std::vector<std::string>& args_in, bool stdin_is_tty) {
  std::vector<std::string> args = args_in;
  Options o;

  // `binrecover replay --defaults-file=F ...` reads as `binrecover --defaults-file=F replay ...`.
  auto is_defaults_option = [](const std::string& a) {
    return a == "--no-defaults" || a.rfind("--defaults-file=", 0) == 0 ||
           a.rfind("--defaults-extra-file=", 0) == 0;
  };
  if (!args.empty() && args[0] == "replay") {
    std::size_t k = 1;
    while (k < args.size() && is_defaults_option(args[k])) ++k;
    std::rotate(args.begin(), args.begin() + 1, args.begin() + static_cast<std::ptrdiff_t>(k));
  }

  // Option files first, unless --no-defaults / --defaults-file (which must come first, as in
  // every MySQL program).
  std::vector<std::string> files = default_option_files();
  bool read_defaults = true;
  o.connection.default_files = files;
  while (!args.empty()) {
    const std::string& a = args.front();
    if (a == "--no-defaults") {
      read_defaults = false;
      o.connection.read_defaults = false;
    } else if (a.rfind("--defaults-file=", 0) == 0) {
      const std::string f = a.substr(16);
      if (!std::filesystem::exists(f)) usage_error("--defaults-file '" + f + "' does not exist");
      files = {f};
      o.connection.defaults_file = f;
    } else if (a.rfind("--defaults-extra-file=", 0) == 0) {
      files.push_back(a.substr(22));
      o.connection.extra_files.push_back(a.substr(22));
    } else {
      break;
    }
    args.erase(args.begin());
  }

  if (!args.empty() && args.front() == "replay") {
    o.command = Command::kReplay;
    args.erase(args.begin());
  } else if (!args.empty() && args.front() == "events") {
    o.command = Command::kEvents;
    args.erase(args.begin());
  } else if (!args.empty() && args.front() == "plan") {
    o.command = Command::kPlan;
    args.erase(args.begin());
  } else if (!args.empty() && args.front() == "stats") {
    o.command = Command::kStats;
    args.erase(args.begin());
  } else if (!args.empty() && args.front() == "drill") {
    o.command = Command::kDrill;
    args.erase(args.begin());
  }

  // -v / -vv / --verbose count, as in mysqlbinlog; taken out before the parser sees them.
  int verbose = 0;
  for (auto it = args.begin(); it != args.end();) {
    if (*it == "-v" || *it == "--verbose") {
      ++verbose;
    } else if (*it == "-vv") {
      verbose += 2;
    } else {
      ++it;
      continue;
    }
    it = args.erase(it);
  }

  po::options_description general("Input");
  general.add_options()("index-file", po::value<std::string>(),
                        "read the binlog files listed in this .index file")(
      "start-position,j", po::value<std::string>(),
      "start at this position of the first file (an event boundary)")(
      "stop-position", po::value<std::string>(),
      "stop before the first event at or past this position of the last file")(
      "start-datetime", po::value<std::string>(),
      "first transaction at or after 'YYYY-MM-DD HH:MM:SS' (local time, see --timezone)")(
      "stop-datetime", po::value<std::string>(), "stop at the first event at or after this time")(
      "stop-gtid", po::value<std::string>(),
      "stop before the transaction with this GTID (0-1-42 or uuid:42)")(
      "timezone", po::value<std::string>(),
      "time zone of the datetimes and of printed times: UTC, +HH:MM, Europe/Berlin, SYSTEM")(
      "verify-binlog-checksum,c", po::value<std::string>()->implicit_value("1"),
      "verify CRC32 checksums (default on)")("skip-verify-binlog-checksum",
                                             "do not verify checksums")(
      "force-read,f", "turn unknown events and checksum mismatches into warnings")(
      "offset,o", po::value<std::string>(), "skip the first N events");
  po::options_description filter("Filters");
  filter.add_options()(
      "database,d", po::value<std::vector<std::string>>(),
      "keep only changes to this database (repeatable); statements count by the databases "
      "they change, not their default database")(
      "table", po::value<std::vector<std::string>>(),
      "keep only this DATABASE.TABLE within its database (repeatable)")(
      "server-id", po::value<std::string>(), "keep only events written by this server id")(
      "skip-event", po::value<std::vector<std::string>>(),
      "leave out the transaction containing the event at [FILE:]POS, or with this GTID "
      "(repeatable; binrecover plan prints it)");
  po::options_description output("SQL output");
  output.add_options()("result-file,r", po::value<std::string>(),
                       "write to this file instead of stdout")(
      "disable-log-bin,D", "add SET sql_log_bin=0 so the replay is not binlogged again")(
      "skip-gtids", "leave out GTID statements (replay gets new GTIDs)")(
      "short-form,s", "statements only: no comments, no row events")(
      "hexdump,H", "hex dump of each event as comments")(
      "base64-output", po::value<std::string>(),
      "AUTO (default): row events as BINLOG statements; DECODE-ROWS: only the -v comments")(
      "flashback,B",
      "undo SQL: the reverse of the selected range, newest transaction first (row format with "
      "binlog_row_image=FULL and binlog_row_metadata=FULL)")(
      "rows-as-sql",
      "row events as executable INSERT/UPDATE/DELETE with real column names (from the log's "
      "binlog_row_metadata=FULL, else from --schema)")(
      "schema", po::value<std::string>(),
      "a dump's CREATE TABLE statements (mysqldump/mariadb-dump, with or without data) naming "
      "the columns of logs without metadata, for --rows-as-sql and --flashback; the binlog's "
      "own DDL keeps it current")(
      "local-load,l", po::value<std::string>(),
      "write the data of LOAD DATA statements here, replayed as LOAD DATA LOCAL INFILE "
      "(default: a new folder under $TMPDIR; replay with mysql --local-infile=1)");
  po::options_description list("Event listing (binrecover events ...)");
  list.add_options()("format", po::value<std::string>(), "table (default), tsv or json")(
      "from", po::value<std::string>(), "start at this position of the first file")(
      "limit", po::value<std::string>(), "[OFFSET,]COUNT events");
  po::options_description plan("Finding the damage (binrecover plan ...)");
  plan.add_options()(
      "dump", po::value<std::string>(),
      "the backup to recover from: a mysqldump/mariadb-dump file, mydumper metadata or "
      "xtrabackup_binlog_info (its binlog coordinates are read from its head)")(
      "rows-threshold", po::value<std::string>(),
      "row format: a transaction deleting or updating this many rows of a table is "
      "destructive (default 1000)");
  po::options_description drill("Drills (binrecover drill ...)");
  drill.add_options()("expect", po::value<std::string>(),
                      "compare the restored tables with this file of 'db.table<TAB>rows<TAB>"
                      "checksum' lines")("write-expect", po::value<std::string>(),
                                         "write the verified tables in that form")(
      "report", po::value<std::string>(), "write a JSON report here")(
      "server-binary", po::value<std::string>(),
      "the mariadbd/mysqld to start (default: found on PATH)")(
      "to-end", "replay everything, not just up to the first destructive event")(
      "keep", "keep the drill server's data folder");
  po::options_description replay("Replay to a server (binrecover replay ...)");
  replay.add_options()("host,h", po::value<std::string>(), "server host (default: localhost)")(
      "port,P", po::value<std::string>(), "server TCP port")(
      "user,u", po::value<std::string>(), "user name (default: your login name)")(
      "password,p", po::value<std::string>()->implicit_value(""),
      "password; -p alone asks for it on the terminal (also: MYSQL_PWD, password= in "
      "[client] or [binrecover] of the option files)")("socket,S", po::value<std::string>(),
                                                       "Unix socket for localhost")(
      "state-file", po::value<std::string>(),
      "where the end of the last applied transaction is kept (default "
      "./binrecover-replay.state)")(
      "resume", "continue after the state file's position; nothing is applied twice")(
      "gtids", po::value<std::string>(),
      "keep (default): apply with the original GTIDs; skip-applied: also leave out the "
      "transactions the server already has; strip: new GTIDs, as --skip-gtids");
  po::options_description misc("Other");
  misc.add_options()("help,?", "this help")("version,V", "print the version")(
      "no-progress", "no progress line on stderr");
  po::options_description hidden;
  hidden.add_options()("files", po::value<std::vector<std::string>>(), "binlog files");
  po::options_description all;
  all.add(general).add(filter).add(output).add(list).add(plan).add(drill).add(replay).add(misc).add(
      hidden);
  po::options_description visible;
  visible.add(general).add(filter).add(output).add(list).add(plan).add(drill).add(replay).add(misc);
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
    if (read_defaults) {
      // Values from option files only fill what the command line left unset.
      po::options_description file_opts;
      file_opts.add(general).add(filter).add(output).add(list).add(plan).add(drill).add(misc);
      std::vector<std::string> fargs = option_file_args(files);
      if (!fargs.empty())
        po::store(po::command_line_parser(fargs).options(file_opts).allow_unregistered().run(), vm);
    }
    po::notify(vm);
  } catch (const po::error& e) {
    usage_error(std::string(e.what()) + " (see binrecover --help)");
  }

  std::ostringstream help;
  help
      << "binrecover "
      << "- read MySQL/MariaDB binary logs and turn them into SQL that replays\n"
      << "\nUsage:\n"
      << "  binrecover [options] FILE...          SQL for `| mysql` (mysqlbinlog compatible)\n"
      << "  binrecover [options] --index-file=F   every file listed in a .index file\n"
      << "  binrecover events [options] FILE...   the SHOW BINLOG EVENTS table, offline\n"
      << "  binrecover plan --dump=BACKUP FILE... the destructive events since the backup,\n"
      << "                                        and the command that recovers around them\n"
      << "  binrecover drill --dump=BACKUP FILE... restore + replay on a throwaway server, verify\n"
      << "  binrecover replay [options] [-h HOST -P PORT -u USER -p] FILE...\n"
      << "                                        apply to a server, resumable (--resume)\n"
      << "  binrecover stats [options] FILE...    rows changed per table, events per type,\n"
      << "                                        the largest and longest transactions\n"
      << "  FILE '-' reads standard input. With no FILE, [binrecover] in the option files\n"
      << "  (/etc/my.cnf, /etc/mysql/my.cnf, ~/.my.cnf) may name index-file=...; else stdin.\n"
      << "\nExample: replay everything between two positions, without re-logging it:\n"
      << "  binrecover -D --start-position=953 --stop-position=1437 mysql-bin.000023 | mysql\n\n"
      << visible
      << "\nExit status: 0 ok, 2 bad option, 3 file or output error, 4 damaged or unreadable\n"
      << "binlog, 5 a format binrecover cannot read (e.g. encrypted), 6 server error,\n"
      << "7 drill failed (a step or the verification), 1 internal error.\n"
      << "See docs/errors.md.\n";
  o.help_text = help.str();
  if (vm.count("help")) {
    o.command = Command::kHelp;
    return o;
  }
  if (vm.count("version")) {
    o.command = Command::kVersion;
    return o;
  }

  if (vm.count("timezone")) apply_timezone(vm["timezone"].as<std::string>());
  auto u64 = [&](const char* name) -> std::optional<std::uint64_t> {
    if (!vm.count(name)) return std::nullopt;
    return parse_u64(vm[name].as<std::string>(), name);
  };
  o.filter.start_position = u64("start-position");
  o.filter.stop_position = u64("stop-position");
  if (o.filter.start_position && *o.filter.start_position < 4)
    usage_error("--start-position must be at least 4 (the first event follows the magic)");
  if (o.filter.start_position && o.filter.stop_position &&
      *o.filter.stop_position <= *o.filter.start_position && args.size() > 0 &&
      !vm.count("index-file") && vm.count("files") &&
      vm["files"].as<std::vector<std::string>>().size() == 1)
    usage_error("--stop-position must be past --start-position for a single file");
  if (vm.count("start-datetime"))
    o.filter.start_datetime =
        parse_datetime(vm["start-datetime"].as<std::string>(), "start-datetime");
  if (vm.count("stop-gtid")) o.filter.stop_gtid = vm["stop-gtid"].as<std::string>();
  if (vm.count("stop-datetime"))
    o.filter.stop_datetime = parse_datetime(vm["stop-datetime"].as<std::string>(), "stop-datetime");
  if (auto id = u64("server-id")) {
    if (*id > 0xffffffffULL) usage_error("--server-id is at most 4294967295");
    o.filter.server_id = static_cast<std::uint32_t>(*id);
  }
  if (vm.count("database")) o.filter.databases = vm["database"].as<std::vector<std::string>>();
  if (vm.count("table"))
    for (const auto& t : vm["table"].as<std::vector<std::string>>())
      o.filter.tables.push_back(parse_table(t));

  o.decode.reader.force_read = vm.count("force-read") > 0;
  if (vm.count("verify-binlog-checksum")) {
    const std::string v = vm["verify-binlog-checksum"].as<std::string>();
    o.decode.reader.verify_checksum =
        !(v == "0" || v == "OFF" || v == "off" || v == "FALSE" || v == "false");
  }
  if (vm.count("skip-verify-binlog-checksum")) o.decode.reader.verify_checksum = false;
  if (auto n = u64("offset")) o.decode.skip_events = *n;

  o.sql.short_form = vm.count("short-form") > 0;
  o.sql.hexdump = vm.count("hexdump") > 0;
  o.sql.skip_gtids = vm.count("skip-gtids") > 0;
  o.sql.disable_log_bin = vm.count("disable-log-bin") > 0;
  if (vm.count("result-file")) o.result_file = vm["result-file"].as<std::string>();
  if (vm.count("local-load")) o.sql.local_load_dir = vm["local-load"].as<std::string>();
  o.sql.verbose = verbose;
  o.sql.rows_as_sql = vm.count("rows-as-sql") > 0;
  if (vm.count("schema")) o.schema_file = vm["schema"].as<std::string>();
  o.flashback = vm.count("flashback") > 0;
  if (o.flashback && o.command != Command::kSql)
    usage_error("--flashback belongs to SQL output (binrecover [options] FILE...)");
  if (vm.count("base64-output")) {
    std::string b = vm["base64-output"].as<std::string>();
    for (char& c : b) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (b == "AUTO" || b == "ALWAYS")
      o.sql.base64_output = recovery::Base64Output::kAuto;
    else if (b == "DECODE-ROWS" || b == "NEVER")
      o.sql.base64_output = recovery::Base64Output::kDecodeRows;
    else
      usage_error("--base64-output must be AUTO or DECODE-ROWS, not '" + b + "'");
  }
  o.progress = vm.count("no-progress") == 0;

  if (vm.count("format") && o.command == Command::kStats) {
    const std::string f = vm["format"].as<std::string>();
    if (f != "table" && f != "json")
      usage_error("stats --format must be table or json, not '" + f + "'");
    o.stats_json = f == "json";
  } else if (vm.count("format") && o.command == Command::kPlan) {
    const std::string f = vm["format"].as<std::string>();
    if (f != "text" && f != "json")
      usage_error("plan --format must be text or json, not '" + f + "'");
    o.plan_json = f == "json";
  } else if (vm.count("format")) {
    const std::string f = vm["format"].as<std::string>();
    if (f == "table")
      o.events.format = recovery::TableFormat::kTable;
    else if (f == "tsv")
      o.events.format = recovery::TableFormat::kTsv;
    else if (f == "json")
      o.events.format = recovery::TableFormat::kJson;
    else
      usage_error("--format must be table, tsv or json, not '" + f + "'");
  }
  o.events.from = u64("from");
  if (o.events.from && *o.events.from < 4) usage_error("--from must be at least 4");
  if (vm.count("limit")) {
    const std::string l = vm["limit"].as<std::string>();
    const auto comma = l.find(',');
    if (comma == std::string::npos) {
      o.events.limit_count = parse_u64(l, "limit");
    } else {
      o.events.limit_offset = parse_u64(trim(l.substr(0, comma)), "limit");
      o.events.limit_count = parse_u64(trim(l.substr(comma + 1)), "limit");
    }
  }
  if (o.command != Command::kEvents &&
      ((vm.count("format") && o.command != Command::kPlan && o.command != Command::kStats) ||
       vm.count("from") || vm.count("limit")))
    usage_error("--format, --from and --limit belong to `binrecover events`");
  if (vm.count("dump")) o.plan.dump = vm["dump"].as<std::string>();
  if (auto n = u64("rows-threshold")) o.plan.rows_threshold = std::max<std::uint64_t>(*n, 1);
  const bool planning = o.command == Command::kPlan || o.command == Command::kDrill;
  if (!planning && (vm.count("dump") || vm.count("rows-threshold")))
    usage_error("--dump and --rows-threshold belong to `binrecover plan` and `binrecover drill`");
  if (o.command != Command::kDrill &&
      (vm.count("expect") || vm.count("write-expect") || vm.count("report") ||
       vm.count("server-binary") || vm.count("to-end") || vm.count("keep")))
    usage_error(
        "--expect, --write-expect, --report, --server-binary, --to-end and --keep "
        "belong to `binrecover drill`");
  if (o.command == Command::kDrill) {
    if (!o.plan.dump) usage_error("drill needs --dump=BACKUP (a mysqldump/mariadb-dump file)");
    o.plan.databases = o.filter.databases;
    o.drill.plan = o.plan;
    o.drill.stop_position = o.filter.stop_position;
    o.drill.stop_datetime = o.filter.stop_datetime;
    o.drill.stop_gtid = o.filter.stop_gtid;
    o.drill.to_end = vm.count("to-end") > 0;
    o.drill.keep = vm.count("keep") > 0;
    if (vm.count("expect")) o.drill.expect_file = vm["expect"].as<std::string>();
    if (vm.count("write-expect")) o.drill.write_expect_file = vm["write-expect"].as<std::string>();
    if (vm.count("report")) o.drill.report_file = vm["report"].as<std::string>();
    if (vm.count("server-binary")) o.drill.server_binary = vm["server-binary"].as<std::string>();
  }
  const bool connection_given = vm.count("host") || vm.count("port") || vm.count("user") ||
                                vm.count("password") || vm.count("socket");
  if (o.command != Command::kReplay && o.command != Command::kDrill && connection_given)
    usage_error(
        "-h/--host, -P/--port, -u/--user, -p/--password and -S/--socket belong to `binrecover "
        "replay` and `binrecover drill`");
  if (o.command != Command::kReplay &&
      (vm.count("state-file") || vm.count("resume") || vm.count("gtids")))
    usage_error("--state-file, --resume and --gtids belong to `binrecover replay`");
  if (o.command == Command::kReplay || (o.command == Command::kDrill && connection_given)) {
    if (o.result_file) usage_error("replay applies to a server: --result-file does not apply");
    auto text = [&](const char* name) -> std::optional<std::string> {
      if (!vm.count(name)) return std::nullopt;
      return vm[name].as<std::string>();
    };
    o.connection.host = text("host");
    o.connection.user = text("user");
    o.connection.socket = text("socket");
    if (auto p = u64("port")) {
      if (*p == 0 || *p > 65535) usage_error("--port must be 1..65535");
      o.connection.port = static_cast<unsigned>(*p);
    }
    if (vm.count("password")) {
      // -p alone asks; -pSECRET / --password=SECRET is taken (never required).
      const std::string pw = vm["password"].as<std::string>();
      const bool empty_given = std::find(args.begin(), args.end(), "--password=") != args.end();
      if (!pw.empty() || empty_given)
        o.connection.password = pw;
      else
        o.password_prompt = true;
    }
    if (o.command == Command::kDrill) o.drill.server = o.connection;
    if (auto f = text("state-file")) o.replay.state_file = *f;
    o.replay.resume = vm.count("resume") > 0;
    if (auto g = text("gtids")) {
      if (*g == "keep")
        o.replay.gtids = recovery::GtidMode::kKeep;
      else if (*g == "skip-applied")
        o.replay.gtids = recovery::GtidMode::kSkipApplied;
      else if (*g == "strip")
        o.replay.gtids = recovery::GtidMode::kStrip;
      else
        usage_error("--gtids must be keep, skip-applied or strip, not '" + *g + "'");
      if (o.sql.skip_gtids && o.replay.gtids != recovery::GtidMode::kStrip)
        usage_error("--skip-gtids contradicts --gtids=" + *g);
    } else if (o.sql.skip_gtids) {
      o.replay.gtids = recovery::GtidMode::kStrip;
    }
  }
  if (o.command == Command::kPlan) {
    o.plan.databases = o.filter.databases;
    o.plan.start_position = o.filter.start_position;
    if (!o.plan.dump && !o.plan.start_position)
      usage_error("plan needs --dump=BACKUP (or --start-position) to know where to start");
  }
  if (vm.count("skip-event"))
    for (const auto& v : vm["skip-event"].as<std::vector<std::string>>()) {
      static const std::regex kUuidGtid(
          "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
          "(:[A-Za-z_][A-Za-z0-9_]*)?:[0-9]+$");
      static const std::regex kMariaGtid("^[0-9]+-[0-9]+-[0-9]+$");
      if (std::regex_match(v, kUuidGtid) || std::regex_match(v, kMariaGtid)) {
        o.filter.skip_gtids.push_back(v);
        continue;
      }
      const auto colon = v.rfind(':');
      if (colon == std::string::npos)
        o.filter.skip_positions.emplace_back("", parse_u64(v, "skip-event"));
      else
        o.filter.skip_positions.emplace_back(
            std::filesystem::path(v.substr(0, colon)).filename().string(),
            parse_u64(v.substr(colon + 1), "skip-event"));
    }

  std::vector<std::string> paths;
  if (vm.count("files")) paths = vm["files"].as<std::vector<std::string>>();
  if (vm.count("index-file")) {
    if (!paths.empty()) usage_error("give either binlog files or --index-file, not both");
    paths = binlog::read_index_file(vm["index-file"].as<std::string>());
  }
  if (paths.empty()) {
    if (stdin_is_tty)
      usage_error(
          "no binlog given: name files, --index-file, or pipe one into standard input "
          "(see binrecover --help)");
    paths.push_back("-");
  }
  for (const auto& p : paths) o.inputs.push_back({p, base_name(p), std::nullopt});
  return o;
}

}  // namespace binrecover::cli
