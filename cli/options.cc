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
#include "recovery/reading/local_time.h"
#include "recovery/server/option_files.h"
#include "recovery/storage/s3_archive.h"
#include "recovery/text/escape.h"

namespace binrecover::cli {

namespace po = boost::program_options;

namespace {

// What -p / --password alone and --password= become for the parser (see parse_options).
constexpr const char* kAskPassword = "\x01";
constexpr const char* kEmptyPassword = "\x02";

[[noreturn]] void usage_error(const std::string& msg) { throw Error(ErrorCode::kUsage, msg); }

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
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

// "16M", "512K", "1G", "4096" -> bytes.
std::size_t parse_size(std::string text, const std::string& option) {
  std::uint64_t unit = 1;
  if (!text.empty()) {
    const char c = static_cast<char>(std::toupper(static_cast<unsigned char>(text.back())));
    if (c == 'K' || c == 'M' || c == 'G') {
      unit = c == 'K' ? 1ULL << 10 : c == 'M' ? 1ULL << 20 : 1ULL << 30;
      text.pop_back();
    }
  }
  const std::uint64_t n = parse_u64(text, option);
  if (n > (1ULL << 40) / unit) usage_error("--" + option + " is too large");
  return static_cast<std::size_t>(n * unit);
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

// The option groups; each command takes some of them (kCommands).
// A group of options as --help and the manual show it.
struct Group {
  explicit Group(const std::string& c) : caption(c), d(c) {}
  std::string caption;
  po::options_description d;
};

Group input_group() {
  Group grp("Input and range");
  po::options_description& g = grp.d;
  g.add_options()("index-file", po::value<std::string>(),
                  "read the binlog files listed in this .index file")(
      "binlog-dir", po::value<std::string>(),
      "with --index-file: read each listed binlog under its file name in this folder (e.g. "
      "secured copies, when the index names the live server's paths)")(
      "start-position,j", po::value<std::string>(),
      "start at this position of the first file: the start of a transaction (its GTID or "
      "BEGIN) or an event outside one; or after a MariaDB GTID position (0-1-42,1-2-7: per "
      "domain, what follows; with -R, from the binlog where it is)")(
      "stop-position", po::value<std::string>(),
      "stop before the event at this position of the last file (an event's start, or the "
      "file's end: inside an event the run stops there, exit 2)")(
      "start-datetime", po::value<std::string>(),
      "first transaction at or after 'YYYY-MM-DD HH:MM:SS[.ffffff]' (local time, see "
      "--timezone; or with a zone: Z, +05:00, CET)")(
      "stop-datetime", po::value<std::string>(),
      "stop at the first event at or after this time (exit 2 when no event is)")(
      "stop-gtid", po::value<std::string>(),
      "stop before the transaction with this GTID (0-1-42, uuid:42 or uuid:tag:42); exit 2 "
      "when the log goes past it without it")(
      "timezone", po::value<std::string>(),
      "time zone of the datetimes and of printed times: UTC, +HH:MM, Europe/Berlin, SYSTEM")(
      "verify-binlog-checksum,c", po::value<std::string>()->implicit_value("1"),
      "verify CRC32 checksums (default on)")("skip-verify-binlog-checksum",
                                             "do not verify checksums")(
      "force-read,f",
      "turn unknown events and checksum mismatches into warnings; a transaction holding an "
      "event that does not decode is left out with a warning")("offset,o", po::value<std::string>(),
                                                               "skip the first N events")(
      "transaction-memory", po::value<std::string>(),
      "a transaction whose events take more than this (bytes, or with K, M, G; default 8M) is "
      "not held in memory: it is read a second time from the file (from a temporary file when "
      "the input is a pipe), so memory stays flat whatever its size");
  return grp;
}

Group filter_group() {
  Group grp("Filters (the same in every command)");
  po::options_description& g = grp.d;
  g.add_options()(
      "database,d", po::value<std::vector<std::string>>(),
      "keep only changes to this database (repeatable); statements count by the databases "
      "they change, not their default database; transaction control (SAVEPOINT, XA ...) stays "
      "with its transaction")("table", po::value<std::vector<std::string>>(),
                              "keep only this DATABASE.TABLE within its database (repeatable)")(
      "server-id", po::value<std::string>(), "keep only events written by this server id")(
      "include-gtids", po::value<std::string>(),
      "keep only the transactions whose GTID is in this MySQL GTID set "
      "(uuid:1-5:7,uuid2:tag:1-3; as mysqlbinlog)")(
      "exclude-gtids", po::value<std::string>(),
      "leave out the transactions whose GTID is in this MySQL GTID set")(
      "skip-event", po::value<std::vector<std::string>>(),
      "leave out the transaction containing the event at [FILE:]POS, or with this GTID "
      "(repeatable; binrecover plan prints it); exit 2, before anything past it is written, "
      "when the position is not an event's start or the log goes past the GTID")(
      "rewrite-db", po::value<std::vector<std::string>>(),
      "'FROM->TO': write database FROM as TO (repeatable; applied before --database, which "
      "then names TO): the default database, row events' tables and database-qualified names "
      "in statements; names inside stored routines, views and triggers, and unqualified names "
      "that are not the default database, are not rewritten");
  return grp;
}

Group sql_group() {
  Group grp("SQL output");
  po::options_description& g = grp.d;
  g.add_options()("result-file,r", po::value<std::string>(),
                  "write to this file instead of stdout (with --raw: the prefix of the copies)")(
      "raw",
      "with -R: copy the server's binlogs byte for byte to files named --result-file=PREFIX "
      "plus their names, as mysqlbinlog --raw does (binrecover archive, with resume)")(
      "stop-never",
      "with -R: follow the server: wait at the end of its logs for more, go on with each new "
      "file (with --raw: binrecover archive --stop-never)")(
      "disable-log-bin,D", "add SET sql_log_bin=0 so the replay is not binlogged again")(
      "skip-gtids", "leave out GTID statements (replay gets new GTIDs)")(
      "short-form,s", "statements only: no comments, no row events")(
      "hexdump,H", "hex dump of each event as comments")(
      "verbose,v", "row events as ### comments too (-vv: with column types)")(
      "base64-output", po::value<std::string>(),
      "AUTO (default): row events as BINLOG statements; DECODE-ROWS: only the -v comments "
      "(not replayable); NEVER: no BINLOG statement at all (an error at the first row event)")(
      "flashback,B",
      "undo SQL: the reverse of the selected range, newest transaction first (row format "
      "with binlog_row_image=FULL); plain SQL where the column names are known "
      "(binlog_row_metadata=FULL or --schema), reversed row events as BINLOG elsewhere")(
      "rows-as-sql",
      "row events as executable INSERT/UPDATE/DELETE with real column names (from the log's "
      "binlog_row_metadata=FULL, else from --schema); generated columns (known from --schema "
      "and the log's CREATE/ALTER TABLE) are left out, the server computes them")(
      "target-flavor", po::value<std::string>(),
      "the server the SQL is for: mysql or mariadb (default: the one that wrote the log). "
      "mariadb, for a MySQL log: no GTID_NEXT statements, sql_mode mapped as a MariaDB "
      "replica maps it (fractional seconds rounded, as MySQL did), MySQL 8's utf8mb4 "
      "collations as utf8mb4_unicode_520_ci (replay finds this out from its server)")(
      "trigger-tables", po::value<std::string>(),
      "with --rows-as-sql, the rows of tables with triggers (known from --schema and the log's "
      "CREATE TRIGGER): sql (default; plain statements fire the target's triggers again, "
      "warned) or binlog (BINLOG statements, which fire none: the log already holds what the "
      "triggers did)")(
      "schema", po::value<std::string>(),
      "a dump's CREATE TABLE statements (mysqldump/mariadb-dump, with or without data) naming "
      "the columns of logs without metadata, for --rows-as-sql and --flashback; the binlog's "
      "own DDL keeps it current")(
      "set-charset", po::value<std::string>(),
      "SET NAMES this character set at the start, the client's restored at the end (as "
      "mysqlbinlog; each statement still sets the character set it was logged with)")(
      "idempotent",
      "MySQL targets: row events apply over what is there (an insert of a key that exists "
      "overwrites the row, an update or delete of a missing row is skipped): "
      "SET @@SESSION.RBR_EXEC_MODE=IDEMPOTENT at the start; refused for MariaDB, which "
      "ignores it, and with --rows-as-sql")(
      "require-row-format",
      "SET @@SESSION.REQUIRE_ROW_FORMAT=1 at the start (MySQL 8.0.19+), and an error (exit 5) "
      "at the first event a row-format-only session refuses: DML in statement format, a "
      "temporary table, LOAD DATA, INSERT_ID, RAND seeds, user variables")(
      "print-table-metadata",
      "each table map's comment goes on with '# Columns(...)' (names, types, NOT NULL, "
      "character sets) and '# Primary Key(...)' from the log's binlog_row_metadata, as "
      "mysqlbinlog (MySQL logs) or mariadb-binlog (MariaDB logs) prints them")(
      "local-load,l", po::value<std::string>(),
      "write the data of LOAD DATA statements here, replayed as LOAD DATA LOCAL INFILE "
      "(default: a new folder under $TMPDIR; replay with mysql --local-infile=1)");
  return grp;
}

Group events_group() {
  Group grp("Event listing");
  po::options_description& g = grp.d;
  g.add_options()("format", po::value<std::string>(), "table (default), tsv or json")(
      "from", po::value<std::string>(),
      "start at this position of the first file (any event boundary; as --start-position)")(
      "limit", po::value<std::string>(), "[OFFSET,]COUNT events")(
      "result-file,r", po::value<std::string>(), "write to this file instead of stdout")(
      "stop-never",
      "with -R: follow the server: wait at the end of its logs for more, go on with each new "
      "file, each event listed as it comes");
  return grp;
}

// The timeline of stats and plan: the terminal picture and the HTML page.
void add_timeline_options(po::options_description& g, bool stats) {
  g.add_options()(
      "timeline",
      stats ? "the picture of the range instead of the tables: per bucket (--bucket) rows "
              "inserted, updated, deleted and DDL per database (or --by=table) as bars, the "
              "destructive events marked with file, position and GTID"
            : "after the plan, the picture of the range (as stats --timeline): per bucket rows "
              "changed and DDL per database as bars, the destructive events marked")(
      "bucket", po::value<std::string>(),
      "the timeline's bucket: auto (default: by the range), minute, hour, day, or N seconds, "
      "Nm, Nh")("by", po::value<std::string>(),
                "the timeline's rows per database (default) or table")(
      "html", po::value<std::string>(),
      "also write FILE: one self-contained HTML page (inline SVG, nothing fetched) with the "
      "timeline, the destructive events and the recovery commands; private (0600)");
}

Group stats_group() {
  Group grp("Statistics");
  po::options_description& g = grp.d;
  g.add_options()("format", po::value<std::string>(), "table (default) or json")(
      "result-file,r", po::value<std::string>(), "write to this file instead of stdout");
  add_timeline_options(g, true);
  return grp;
}

// --parallel and --no-preserve-commit-order, of replay and drill (`dflt`: the default).
void add_parallel_options(po::options_description& g, const char* dflt) {
  g.add_options()("parallel", po::value<std::string>(),
                  (std::string("N sessions applying transactions that cannot conflict at the same "
                               "time (default ") +
                   dflt +
                   "; DDL, statement-format changes and tables the target has no keys for are "
                   "applied alone)")
                      .c_str())(
      "no-preserve-commit-order",
      "with --parallel: let transactions commit as they finish, not in the log's order (a reader "
      "of the target may then see a state the source never had)")(
      "merge-transactions", po::value<std::string>(),
      "up to N consecutive small transactions of row changes (InnoDB DML; of one GTID domain) "
      "applied as one transaction on the target, which then commits N times less often "
      "(default 1: each as it is). The target's own binlog then has the merged transactions, "
      "under the last one's GTID; not with a MySQL target that keeps the log's GTIDs (give "
      "--gtids=strip there), nor --no-preserve-commit-order");
}

Group plan_group(bool drill) {
  Group grp(drill ? "Drill" : "Finding the damage");
  po::options_description& g = grp.d;
  g.add_options()(
      "dump", po::value<std::string>(),
      drill ? "the backup to restore and recover from: a mysqldump/mariadb-dump file (with "
              "--master-data/--source-data coordinates, or made with --flush-logs: the binlog "
              "that flush opened is found by the dump's time)"
            : "the backup to recover from: a mysqldump/mariadb-dump file (its coordinates, or "
              "the binlog its --flush-logs opened), mydumper metadata or xtrabackup_binlog_info")(
      "start-file", po::value<std::string>(),
      "start with this binlog (from its beginning, or at --start-position): overrides the "
      "backup's start")(
      "incident", po::value<std::string>(),
      "the event to recover to just before: N (its number in plan's list), a GTID, or FILE:POS "
      "of one of its events (default: the latest certain loss)")(
      "allow", po::value<std::vector<std::string>>(),
      "a known job, never taken for the incident: db.table, db.* or db (its events), or a "
      "statement's beginning with a space in it ('UPDATE customers SET balance'; * and ? "
      "wildcards) (repeatable)")(
      "rows-threshold", po::value<std::string>(),
      "row format: a transaction deleting or updating this many rows of a table is listed as "
      "suspect (default 1000)");
  if (!drill) {
    g.add_options()("format", po::value<std::string>(), "text (default) or json")(
        "result-file,r", po::value<std::string>(), "write to this file instead of stdout");
    add_timeline_options(g, false);
    return grp;
  }
  g.add_options()("expect", po::value<std::string>(),
                  "compare the restored tables with this file of 'db.table<TAB>rows<TAB>"
                  "checksum' lines")("write-expect", po::value<std::string>(),
                                     "write the verified tables in that form")(
      "report", po::value<std::string>(), "write a JSON report here")(
      "server-binary", po::value<std::string>(),
      "the mariadbd/mysqld to start (default: found on PATH)")(
      "to-end", "replay everything, not just up to the incident")(
      "keep", "keep the drill server's data folder")("result-file,r", po::value<std::string>(),
                                                     "write the summary to this file");
  add_parallel_options(g, "4");
  g.add_options()("server-applier",
                  "MariaDB: the drill server applies the binlogs with its own (parallel) "
                  "replication applier, binrecover serving them as its replication source (as "
                  "replay --server-applier)");
  return grp;
}

enum class ConnectionFor { kSource, kReplay, kDrill };

Group connection_group(ConnectionFor what) {
  Group grp(what == ConnectionFor::kDrill    ? "A server of your own instead of a throwaway one"
            : what == ConnectionFor::kReplay ? "The server to apply to"
                                             : "The server to read from (-R)");
  po::options_description& g = grp.d;
  g.add_options()("host,h", po::value<std::string>(), "server host (default: localhost)")(
      "port,P", po::value<std::string>(), "server TCP port")(
      "user,u", po::value<std::string>(), "user name (default: your login name)")(
      "password,p", po::value<std::string>()->implicit_value(""),
      "password; -p alone asks for it on the terminal. -pSECRET is wiped from the process's "
      "arguments once read, but stays in your shell history: safer are the prompt, or "
      "password= in [client] or [binrecover] of an option file (0600)")(
      "socket,S", po::value<std::string>(), "Unix socket for localhost")(
      "ssl-mode", po::value<std::string>(),
      "TLS: DISABLED, PREFERRED (the default), REQUIRED (encrypted, the certificate not "
      "checked), VERIFY_CA or VERIFY_IDENTITY (the certificate checked against --ssl-ca, and "
      "the host name)")("ssl", "the same as --ssl-mode=REQUIRED (the mariadb client's name)")(
      "ssl-ca", po::value<std::string>(), "TLS: the CA certificate file")(
      "ssl-capath", po::value<std::string>(), "TLS: a folder of CA certificates")(
      "ssl-cert", po::value<std::string>(), "TLS: the client certificate")(
      "ssl-key", po::value<std::string>(), "TLS: the client key")(
      "ssl-cipher", po::value<std::string>(), "TLS: the ciphers allowed")(
      "ssl-verify-server-cert", "the same as --ssl-mode=VERIFY_IDENTITY")(
      "ssl-crl", po::value<std::string>(), "TLS: a certificate revocation list file")(
      "ssl-crlpath", po::value<std::string>(), "TLS: a folder of certificate revocation lists")(
      "tls-version", po::value<std::string>(),
      "TLS: the protocol versions allowed, e.g. TLSv1.2,TLSv1.3")(
      "compress,C", "the same as --compression-algorithms=zlib (mysqlbinlog's older name)")(
      "protocol", po::value<std::string>(),
      "TCP or SOCKET (PIPE and MEMORY are Windows-only: refused); default: a socket for "
      "localhost, else TCP")("bind-address", po::value<std::string>(),
                             "the local address (of this machine) to connect from")(
      "compression-algorithms", po::value<std::string>(),
      "compress the client/server protocol: zlib, or uncompressed (the default); zstd is "
      "refused (the client library has zlib only)")(
      "zstd-compression-level", po::value<std::string>(),
      "1..22, for --compression-algorithms=zstd: refused, as zstd is");
  return grp;
}

// Reading a server's binary logs over the replication protocol (mysqlbinlog's names).
Group remote_group(bool source_options = false) {
  Group grp("Reading from a server (-R)");
  po::options_description& g = grp.d;
  if (source_options)  // -h -P -u -p -S name the target here: the source has options of its own
    g.add_options()("source-host", po::value<std::string>(),
                    "with -R: the host whose binlogs are read")(
        "source-port", po::value<std::string>(), "with -R: its TCP port")(
        "source-user", po::value<std::string>(), "with -R: the user to read as")(
        "source-password", po::value<std::string>()->implicit_value(""),
        "with -R: its password (alone: asked on the terminal; or from the option files)")(
        "source-socket", po::value<std::string>(), "with -R: its Unix socket");
  g.add_options()(
      "read-from-remote-server,R",
      "read the binlogs from the server (-h -P -u -p -S, option files) over the replication "
      "protocol, as a replica does (needs REPLICATION SLAVE); FILE arguments name the server's "
      "binlogs (default: all of them)")(
      "read-from-remote-source", po::value<std::string>(),
      "BINLOG-DUMP-NON-GTID (the same as -R), or BINLOG-DUMP-GTID: from the first binlog that "
      "holds a transaction --exclude-gtids (MySQL) or a GTID --start-position (MariaDB) does "
      "not name, those named left out")(
      "to-last-log", "with -R: from the first FILE named on to the server's last binlog")(
      "read-from-remote-master", po::value<std::string>(),
      "the older name of --read-from-remote-source")("stop-never-slave-server-id",
                                                     po::value<std::string>(),
                                                     "the older name of --connection-server-id")(
      "connection-server-id", po::value<std::string>(),
      "with -R: the server id binrecover reads as (default 0: no replica of that id is "
      "displaced)")(
      "net-read-timeout", po::value<std::string>(),
      "with -R and archive: seconds to wait for the server's next bytes (default 60, a "
      "replica's slave_net_timeout): then exit 6; with --stop-never, a heartbeat missed twice "
      "(2 x --heartbeat-period) makes it connect again instead");
  return grp;
}

Group replay_group() {
  Group grp("Replay");
  po::options_description& g = grp.d;
  add_parallel_options(g, "1");
  g.add_options()("report", po::value<std::string>(),
                  "write a JSON summary here: transactions, workers, units applied alone, "
                  "retries, transactions merged, seconds")(
      "server-applier",
      "MariaDB targets: apply with the target's own replication applier (with --parallel N "
      "its parallel applier, slave_parallel_threads=N), binrecover serving the kept "
      "transactions as its replication source; exactly once by the target's gtid_slave_pos")(
      "listen", po::value<std::string>(),
      "with --server-applier: HOST[:PORT] of this machine that the target connects to "
      "(default 127.0.0.1 and a free port, for a target on this machine)")(
      "window", po::value<std::string>(),
      "with --server-applier: MiB sent ahead of what the target has applied (default 64; "
      "its relay log holds about this much)");
  g.add_options()("state-file", po::value<std::string>(),
                  "where the end of the last applied transaction is kept (default "
                  "./binrecover-replay.state; beside it F.journal, its durable copy, and "
                  "F.lock)")("resume",
                             "continue after the state file's position; nothing is applied twice")(
      "progress-table", po::value<std::string>(),
      "what records on the target, atomically with each transaction, how far the replay got: "
      "auto (default): the target's own GTIDs when it records those of the replay (GTIDs kept, "
      "binary log on for MariaDB, gtid_mode=ON for MySQL), else the table "
      "binrecover.replay_progress; DB.TABLE: that table; none: only the state file, synced "
      "after every transaction")(
      "in-doubt", po::value<std::string>(),
      "with --resume, for a DDL or other non-transactional statement that was running when the "
      "replay stopped and that the target's GTIDs cannot settle: applied (go on after it) or "
      "not-applied (apply it)")(

      "gtids", po::value<std::string>(),
      "keep (default): apply with the original GTIDs; skip-applied: also leave out the "
      "transactions the server already has; strip: new GTIDs, as --skip-gtids")(
      "disable-log-bin,D", "SET sql_log_bin=0 in the session: the replay is not binlogged")(
      "skip-gtids", "apply without the GTIDs (as --gtids=strip)")(
      "rows-as-sql", "apply row events as INSERT/UPDATE/DELETE instead of BINLOG statements")(
      "idempotent",
      "MySQL targets: row events apply over what is there (an insert of a key that exists "
      "overwrites the row, an update or delete of a missing row is skipped; each session's "
      "rbr_exec_mode=IDEMPOTENT); refused for a MariaDB target (it has no such session "
      "setting) and with --rows-as-sql")(
      "trigger-tables", po::value<std::string>(),
      "with --rows-as-sql: sql (default, warned) or binlog: the rows of tables with triggers "
      "as BINLOG statements, which fire no trigger again")(
      "schema", po::value<std::string>(),
      "a dump's CREATE TABLE statements naming the columns for --rows-as-sql")(
      "local-load,l", po::value<std::string>(),
      "where the data of LOAD DATA statements waits while it is applied");
  return grp;
}

Group archive_group() {
  Group grp("Archive");
  po::options_description& g = grp.d;
  g.add_options()("dir", po::value<std::string>(),
                  "the folder the binlogs are copied to (continued where it ends when it holds "
                  "an archive already)")(
      "stop-never", "follow the server: wait for new events, reconnect after any loss")(
      "fsync-interval", po::value<std::string>(),
      "fsync the file being written at most every N seconds (default 1; each file is fsynced "
      "when the server rotates)")(
      "heartbeat-period", po::value<std::string>(),
      "with --stop-never: the server sends a heartbeat after N quiet seconds (default 30); "
      "two missed (no byte for 2 x N seconds) and binrecover connects again")(
      "status-file", po::value<std::string>(),
      "rewrite this one-line JSON status (file, position, events, time) as the archive grows")(
      "verify",
      "check an archive instead: FILE is its folder or .index (or s3://... of either); every "
      "file there, every event's checksum, the chain of Rotate events, in a bucket each "
      "object against the manifest (exit 4 naming file and offset)")(
      "to", po::value<std::string>(),
      "into object storage instead of --dir: s3://BUCKET/PREFIX/ (each server in its own "
      "folder PREFIX/SERVER/, by its server_uuid or server-ID)")(
      "s3-folder", po::value<std::string>(),
      "with --to: the server's folder under PREFIX (default: its server_uuid, or server-ID)")(
      "upload-interval", po::value<std::string>(),
      "with --to: the file being written is stored at least every N seconds (default 5): "
      "at most that much is at risk")(
      "part-size", po::value<std::string>(),
      "with --to: MiB per sealed piece and multipart part, 5 to 1024 (default 16; memory "
      "holds up to this much)")(
      "status",
      "list the servers archived under s3://BUCKET/[PREFIX/]: last file and position, last "
      "event time, lag, gaps, size")("format", po::value<std::string>(),
                                     "with --status: table (default) or json");
  return grp;
}

Group s3_group() {
  Group grp("Object storage (s3:// files, archive --to)");
  po::options_description& g = grp.d;
  g.add_options()("s3-endpoint", po::value<std::string>(),
                  "the S3 store, http(s)://HOST[:PORT] (default: AWS_ENDPOINT_URL_S3, "
                  "AWS_ENDPOINT_URL, the profile's endpoint_url, else AWS in the region)")(
      "s3-region", po::value<std::string>(),
      "the region requests are signed for (default: AWS_REGION, the profile's, us-east-1)")(
      "s3-profile", po::value<std::string>(),
      "the profile of ~/.aws/credentials and ~/.aws/config (default: AWS_PROFILE, default); "
      "keys come from AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY first")(
      "s3-addressing", po::value<std::string>(),
      "path (https://HOST/BUCKET/KEY), virtual (https://BUCKET.HOST/KEY) or auto (default: "
      "virtual for AWS, path for other stores)");
  return grp;
}

Group misc_group() {
  Group grp("Other");
  po::options_description& g = grp.d;
  g.add_options()("help,?", "this help")("version,V", "print the version and git revision")(
      "no-progress", "no progress line on stderr")(
      "no-defaults", "read no option file (first on the command line, as in every MySQL program)")(
      "defaults-file", po::value<std::string>(),
      "read only this option file (first on the command line)")(
      "defaults-extra-file", po::value<std::string>(),
      "read this option file after the usual ones (first on the command line)")(
      "binlog-row-event-max-size", po::value<std::string>(),
      "accepted for mysqlbinlog's scripts, no effect: binrecover reads events of any size up to "
      "1 GiB")("open-files-limit", po::value<std::string>(),
               "accepted for mysqlbinlog's scripts, no effect: binrecover keeps one binlog open "
               "at a time")(
      "print-defaults",
      "print the options the option files give binrecover ([client] and [binrecover]; "
      "passwords as *****) and exit (first, or after --defaults-file)");
  return grp;
}

// A command's ways of being called, each with what it does.
struct Form {
  const char* form;  // nullptr: none
  const char* what;
};
struct CommandSpec {
  Command command;
  const char* name;     // "" for SQL output
  Form forms[4];        // (the unused ones nullptr)
  const char* example;  // one example
};

constexpr CommandSpec kCommands[] = {
    {Command::kSql,
     "",
     {{"binrecover [options] FILE...", "SQL for `| mysql` (mysqlbinlog compatible)"},
      {"binrecover [options] --index-file=F", "every file listed in a .index file"}},
     "binrecover -D --start-position=953 --stop-position=1437 mysql-bin.000023 | mysql"},
    {Command::kEvents,
     "events",
     {{"binrecover events [options] FILE...", "the SHOW BINLOG EVENTS table, offline"}, {}},
     "binrecover events --format=json --from=953 --limit=10 mysql-bin.000023"},
    {Command::kStats,
     "stats",
     {{"binrecover stats [options] FILE...",
       "rows changed per table, events per type, the largest and longest transactions"},
      {}},
     "binrecover stats --database=shop --index-file=/var/lib/mysql/mysql-bin.index"},
    {Command::kPlan,
     "plan",
     {{"binrecover plan --dump=BACKUP FILE...",
       "what lost data since the backup, the incident, and the command that recovers to "
       "just before it"},
      {}},
     "binrecover plan --dump=shop.sql --index-file=/var/lib/mysql/mysql-bin.index "
     "--database=shop"},
    {Command::kDrill,
     "drill",
     {{"binrecover drill --dump=BACKUP FILE...", "restore + replay on a throwaway server, verify"},
      {}},
     "binrecover drill --dump=shop.sql --database=shop --index-file=mysql-bin.index"},
    {Command::kReplay,
     "replay",
     {{"binrecover replay [options] [-h HOST -P PORT -u USER -p] FILE...",
       "apply to a server, exactly once, resumable (--resume), in parallel (--parallel N)"},
      {}},
     "binrecover replay -D --database=shop --start-position=385 -h db2 -u admin -p "
     "mysql-bin.000002"},
    {Command::kArchive,
     "archive",
     {{"binrecover archive -h HOST -u USER -p --dir=DIR [FIRST-FILE]",
       "copy a server's binlogs byte for byte (resumable)"},
      {"binrecover archive -h HOST -u USER -p --to=s3://BUCKET/PREFIX/",
       "the same into object storage (S3, Ceph RGW, MinIO)"},
      {"binrecover archive --verify DIR|s3://BUCKET/PREFIX/SERVER/", "check an archive"},
      {"binrecover archive --status s3://BUCKET/[PREFIX/]", "the servers archived in a bucket"}},
     "binrecover archive -h db1 -u backup -p --dir=/backup/db1 --stop-never"},
};

// "  FORM      what it does", the text from column 40, wrapped at 80 columns.
std::string usage_lines(const CommandSpec& s) {
  std::string out;
  for (const Form& f : s.forms) {
    if (f.form == nullptr) continue;
    std::string line = std::string("  ") + f.form;
    if (line.size() > 39) {
      out += line + "\n";
      line.clear();
    }
    line.resize(40, ' ');
    std::istringstream words(f.what);
    std::string word;
    while (words >> word) {
      if (line.size() > 40 && line.size() + 1 + word.size() > 80) {
        out += line + "\n";
        line.assign(40, ' ');
      } else if (line.size() > 40) {
        line += ' ';
      }
      line += word;
    }
    out += line + "\n";
  }
  return out;
}

const CommandSpec& spec_of(Command c) {
  for (const CommandSpec& s : kCommands)
    if (s.command == c) return s;
  return kCommands[0];
}

// The option groups one command takes, in help order.
std::vector<Group> command_groups(Command c, bool for_option_files = false) {
  std::vector<Group> d;
  if (c == Command::kArchive) {  // bytes, not events: no range or filter
    d.push_back(archive_group());
    d.push_back(s3_group());
    d.push_back(remote_group());
    if (!for_option_files) d.push_back(connection_group(ConnectionFor::kSource));
    d.push_back(misc_group());
    return d;
  }
  d.push_back(input_group());
  d.push_back(s3_group());
  d.push_back(filter_group());
  switch (c) {
    case Command::kArchive:  // (above)
    case Command::kSql:
    case Command::kHelp:
    case Command::kVersion:
      d.push_back(sql_group());
      d.push_back(remote_group());
      if (!for_option_files) d.push_back(connection_group(ConnectionFor::kSource));
      break;
    case Command::kEvents:
      d.push_back(events_group());
      d.push_back(remote_group());
      if (!for_option_files) d.push_back(connection_group(ConnectionFor::kSource));
      break;
    case Command::kStats:
      d.push_back(stats_group());
      d.push_back(remote_group());
      if (!for_option_files) d.push_back(connection_group(ConnectionFor::kSource));
      break;
    case Command::kPlan:
      d.push_back(plan_group(false));
      d.push_back(remote_group());
      if (!for_option_files) d.push_back(connection_group(ConnectionFor::kSource));
      break;
    case Command::kDrill:
      d.push_back(plan_group(true));
      d.push_back(remote_group(true));
      if (!for_option_files) d.push_back(connection_group(ConnectionFor::kDrill));
      break;
    case Command::kReplay:
      d.push_back(replay_group());
      d.push_back(remote_group(true));
      if (!for_option_files) d.push_back(connection_group(ConnectionFor::kReplay));
      break;
  }
  d.push_back(misc_group());
  return d;
}

// The options one command takes, in help order.
po::options_description command_options(Command c, bool for_option_files = false) {
  po::options_description d;
  for (const Group& g : command_groups(c, for_option_files)) d.add(g.d);
  return d;
}

std::string command_label(Command c) {
  const CommandSpec& s = spec_of(c);
  return *s.name ? std::string("`binrecover ") + s.name + "`" : std::string("SQL output");
}

// Which commands know an option (by its long name), for the message when one does not.
std::string commands_with(const std::string& name) {
  std::string out;
  for (const CommandSpec& s : kCommands) {
    if (command_options(s.command).find_nothrow(name, false) == nullptr) continue;
    out += (out.empty() ? "" : ", ") + command_label(s.command);
  }
  return out;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t prev = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cur = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] == b[j - 1] ? 0 : 1)});
      prev = cur;
    }
  }
  return row[b.size()];
}

// The usage error for an option the command does not take: where it belongs, or the nearest
// option the command has.
[[noreturn]] void unknown_option(Command c, std::string opt) {
  std::string name = opt;
  while (!name.empty() && name.front() == '-') name.erase(name.begin());
  if (const auto eq = name.find('='); eq != std::string::npos) name.resize(eq);
  const std::string where = commands_with(name);
  const std::string help = std::string(" (see binrecover ") +
                           (*spec_of(c).name ? spec_of(c).name : "") +
                           (*spec_of(c).name ? " " : "") + "--help)";
  if (!where.empty())
    usage_error("--" + name + " does not apply to " + command_label(c) + "; it belongs to " +
                where + help);
  std::string best;
  std::size_t best_d = 3;
  const po::options_description known = command_options(c);
  for (const auto& o : known.options()) {
    const std::string& n = o->long_name();
    if (n.empty()) continue;
    const std::size_t d = edit_distance(name, n);
    if (d < best_d) {
      best_d = d;
      best = n;
    }
  }
  usage_error("unknown option " + opt + (best.empty() ? "" : "; did you mean --" + best + "?") +
              help);
}

std::string help_text(Command c) {
  std::ostringstream help;
  const CommandSpec& s = spec_of(c);
  if (c == Command::kSql) {
    help << "binrecover - read MySQL/MariaDB binary logs and turn them into SQL that replays\n"
         << "\nUsage:\n";
    for (const CommandSpec& k : kCommands) help << usage_lines(k);
    help << "  FILE '-' reads standard input. With no FILE, [binrecover] in the option files\n"
         << "  (/etc/my.cnf, /etc/mysql/my.cnf, ~/.my.cnf) may name index-file=...; else stdin.\n"
         << "  binrecover COMMAND --help (or binrecover help COMMAND) shows that command's "
            "options.\n"
         << "\nSQL output options follow.\n";
  } else {
    help << "Usage:\n" << usage_lines(s);
  }
  help << "\nExample:\n  " << s.example << "\n\n" << command_options(c);
  help << "\nExit status: 0 ok, 2 bad option or a target (position, GTID, time) not met, 3\n"
       << "file or output error, 4 damaged or unreadable binlog, 5 a format binrecover cannot\n"
       << "read (e.g. encrypted), 6 server error, 7 drill failed, 1 internal error. See\n"
       << "docs/errors.md.\n";
  return help.str();
}

// A MariaDB GTID position: domain-server-seq, comma-separated, each domain once.
bool maria_gtid_list(const std::string& v) {
  static const std::regex kList(
      "^[0-9]{1,10}-[0-9]{1,10}-[0-9]{1,20}(,[0-9]{1,10}-[0-9]{1,10}-[0-9]{1,20})*$");
  if (!std::regex_match(v, kList)) return false;
  std::vector<std::string> domains;
  for (std::size_t at = 0; at < v.size();) {
    std::size_t end = v.find(',', at);
    if (end == std::string::npos) end = v.size();
    const std::string domain = v.substr(at, v.find('-', at) - at);
    if (std::find(domains.begin(), domains.end(), domain) != domains.end())
      usage_error("--start-position names domain " + domain + " twice: one GTID per domain");
    domains.push_back(domain);
    at = end + 1;
  }
  return true;
}

// A GTID as the servers write them: domain-server-seq (MariaDB) or uuid[:tag]:N (MySQL).
bool valid_gtid(const std::string& v) {
  static const std::regex kUuidGtid(
      "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
      "(:[A-Za-z_][A-Za-z0-9_]{0,31})?:[1-9][0-9]{0,18}$");
  static const std::regex kMariaGtid("^[0-9]{1,10}-[0-9]{1,10}-[0-9]{1,20}$");
  return std::regex_match(v, kUuidGtid) || std::regex_match(v, kMariaGtid);
}

std::pair<std::string, std::string> parse_rewrite(const std::string& text) {
  const auto arrow = text.find("->");
  if (arrow == std::string::npos || arrow == 0 || arrow + 2 >= text.size() ||
      text.find("->", arrow + 2) != std::string::npos)
    usage_error("--rewrite-db needs 'FROM->TO', not '" + text + "'");
  return {trim(text.substr(0, arrow)), trim(text.substr(arrow + 2))};
}

}  // namespace

std::vector<CommandInfo> command_table() {
  std::vector<CommandInfo> out;
  for (const CommandSpec& s : kCommands) {
    CommandInfo c;
    c.command = s.command;
    c.name = s.name;
    for (const Form& f : s.forms)
      if (f.form != nullptr) c.forms.push_back({f.form, f.what});
    c.example = s.example;
    for (const Group& g : command_groups(s.command)) {
      OptionGroup og;
      og.caption = g.caption;
      for (const auto& o : g.d.options()) {
        OptionInfo oi;
        oi.long_name = o->long_name();
        const std::string shown = o->format_name();  // "-r [ --result-file ]" or "--dir"
        if (shown.size() >= 2 && shown[0] == '-' && shown[1] != '-') oi.short_name = shown[1];
        const auto& sem = o->semantic();
        oi.takes_value = sem->max_tokens() > 0;
        oi.value_optional = oi.takes_value && sem->min_tokens() == 0;
        oi.description = o->description();
        og.options.push_back(std::move(oi));
      }
      c.groups.push_back(std::move(og));
    }
    out.push_back(std::move(c));
  }
  return out;
}

namespace {

// The options as parsed: whether one was given, its text, its number.
class Given {
 public:
  explicit Given(const po::variables_map& vm) : vm_(vm) {}
  bool has(const char* name) const { return vm_.count(name) > 0; }
  std::optional<std::string> text(const char* name) const {
    if (!vm_.count(name)) return std::nullopt;
    return vm_[name].as<std::string>();
  }
  std::optional<std::uint64_t> u64(const char* name) const {
    if (!vm_.count(name)) return std::nullopt;
    return parse_u64(vm_[name].as<std::string>(), name);
  }
  std::vector<std::string> list(const char* name) const {
    if (!vm_.count(name)) return {};
    return vm_[name].as<std::vector<std::string>>();
  }
  const po::variables_map& map() const { return vm_; }

 private:
  const po::variables_map& vm_;
};

// The reading path's range and filters: the same for every command. Returns a MariaDB GTID
// --start-position when one was given (its transactions are left out by the filter).
std::optional<std::string> read_range_and_filters(const Given& g, Options& o) {
  std::optional<std::string> start_gtids;
  // The reading path and its filters: the same for every command.
  if (auto tz = g.text("timezone")) apply_timezone(*tz);
  // --start-position=0-1-42[,1-2-7]: a MariaDB GTID position (as mariadb-binlog 10.8+ takes
  // it): what comes after it, per domain; the transactions at or before it are left out.
  if (auto v = g.text("start-position"); v && maria_gtid_list(*v)) {
    start_gtids = *v;
    o.filter.exclude_gtids.add_maria_position(*v);
  } else {
    o.filter.start_position = g.u64("start-position");
  }
  if (auto from = g.u64("from")) {
    if (o.filter.start_position) usage_error("--from and --start-position are the same: give one");
    o.filter.start_position = from;
  }
  o.filter.stop_position = g.u64("stop-position");
  if (o.filter.start_position && *o.filter.start_position < 4)
    usage_error("--start-position must be at least 4 (the first event follows the magic)");
  if (o.filter.start_position && o.filter.stop_position &&
      *o.filter.stop_position <= *o.filter.start_position && !g.has("index-file") &&
      g.has("files") && g.list("files").size() == 1)
    usage_error("--stop-position must be past --start-position for a single file");
  if (auto t = g.text("start-datetime"))
    o.filter.start_datetime = recovery::parse_datetime(*t, "--start-datetime").first_whole_second();
  if (auto t = g.text("stop-datetime"))
    o.filter.stop_datetime = recovery::parse_datetime(*t, "--stop-datetime").first_whole_second();
  if (auto gtid = g.text("stop-gtid")) {
    if (!valid_gtid(*gtid))
      usage_error(
          "--stop-gtid needs a GTID (0-1-42, or 3e11fa47-71ca-11e1-9e33-c80aa9429562:42 "
          "with an optional :tag before the number), not '" +
          *gtid + "'");
    o.filter.stop_gtid = *gtid;
  }
  if (auto id = g.u64("server-id")) {
    if (*id > 0xffffffffULL) usage_error("--server-id is at most 4294967295");
    o.filter.server_id = static_cast<std::uint32_t>(*id);
  }
  if (g.has("rewrite-db"))
    for (const auto& r : g.list("rewrite-db")) o.filter.rewrite_db.push_back(parse_rewrite(r));
  o.sql.rewrite_db = o.filter.rewrite_db;
  if (g.has("database")) o.filter.databases = g.list("database");
  if (g.has("table"))
    for (const auto& t : g.list("table")) o.filter.tables.push_back(parse_table(t));
  for (const char* name : {"include-gtids", "exclude-gtids"}) {
    const auto set = g.text(name);
    if (!set) continue;
    recovery::AppliedGtids gtids;
    try {
      gtids.add_mysql_set(*set);
    } catch (const Error&) {
      usage_error(std::string("--") + name +
                  " needs a MySQL GTID set (uuid:1-5:7 or uuid:tag:1-3, " +
                  "comma-separated), not '" + *set + "'");
    }
    if (gtids.empty()) usage_error(std::string("--") + name + " is empty");
    if (name[0] == 'i')
      o.filter.include_gtids = std::move(gtids);
    else
      o.filter.exclude_gtids.add_mysql_set(*set);
    if (name[0] == 'e') o.filter.exclude_gtids_given = true;
  }
  if (g.has("skip-event"))
    for (const auto& v : g.list("skip-event")) {
      if (valid_gtid(v)) {
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
  o.decode.reader.force_read = g.has("force-read");
  if (auto v = g.text("verify-binlog-checksum"))
    o.decode.reader.verify_checksum =
        !(*v == "0" || *v == "OFF" || *v == "off" || *v == "FALSE" || *v == "false");
  if (g.has("skip-verify-binlog-checksum")) o.decode.reader.verify_checksum = false;
  if (auto n = g.u64("offset")) o.decode.skip_events = *n;
  if (auto t = g.text("transaction-memory"))
    o.decode.max_unit_memory = parse_size(*t, "transaction-memory");
  o.progress = !g.has("no-progress");
  o.result_file = g.text("result-file");
  return start_gtids;
}

// plan and drill: the backup, where to start, the incident, the filters repeated in the
// commands printed, and the drill's own options.
void read_plan_and_drill(const Given& g, Command cmd, Options& o) {
  if (auto d = g.text("dump")) o.plan.dump = *d;
  if (auto n = g.u64("rows-threshold")) o.plan.rows_threshold = std::max<std::uint64_t>(*n, 1);
  o.plan.databases = o.filter.databases;
  // The filters plan repeats in the commands it prints.
  for (const char* name : {"database", "table", "rewrite-db"})
    if (g.has(name))
      for (const auto& v : g.list(name))
        o.plan.filter_args.push_back(std::string("--") + name + "=" + v);
  for (const char* name : {"server-id", "start-datetime", "stop-datetime", "stop-gtid",
                           "include-gtids", "exclude-gtids", "offset", "transaction-memory"})
    if (auto v = g.text(name)) o.plan.filter_args.push_back(std::string("--") + name + "=" + *v);
  if (g.has("force-read")) o.plan.filter_args.emplace_back("--force-read");
  if (g.has("read-from-remote-server") || g.has("read-from-remote-source")) {
    // The commands plan prints read from the same server (never with its password: the
    // option files or the prompt give it, as they gave it here).
    if (!o.connection.read_defaults) o.plan.command_prefix.emplace_back("--no-defaults");
    if (o.connection.defaults_file)
      o.plan.command_prefix.push_back("--defaults-file=" + *o.connection.defaults_file);
    o.plan.filter_args.emplace_back("-R");
    for (const char* name :
         {"host", "port", "user", "socket", "connection-server-id", "ssl-mode", "ssl-ca",
          "ssl-capath", "ssl-cert", "ssl-key", "ssl-cipher", "protocol", "bind-address",
          "compression-algorithms", "ssl-crl", "ssl-crlpath", "tls-version"})
      if (auto v = g.text(name)) o.plan.filter_args.push_back(std::string("--") + name + "=" + *v);
    for (const char* name : {"ssl", "ssl-verify-server-cert"})
      if (g.has(name)) o.plan.filter_args.push_back(std::string("--") + name);
    if (g.has("password")) o.plan.filter_args.emplace_back("-p");
  }
  if (!o.decode.reader.verify_checksum)
    o.plan.filter_args.emplace_back("--skip-verify-binlog-checksum");
  o.plan.stop_position = o.filter.stop_position;
  if (cmd == Command::kPlan || cmd == Command::kDrill) {
    o.plan.start_position = o.filter.start_position;
    o.plan.start_file = g.text("start-file");
    o.plan.start_datetime = o.filter.start_datetime.has_value();
    o.plan.incident = g.text("incident");
    if (g.has("allow")) o.plan.allow = g.list("allow");
    if (o.plan.incident && o.plan.incident->empty()) usage_error("--incident is empty");
    if (o.plan.incident && g.has("to-end"))
      usage_error("--to-end replays everything: not with --incident");
  }
  if (cmd == Command::kPlan && !o.plan.dump && !o.plan.start_position && !o.plan.start_file &&
      !o.plan.start_datetime)
    usage_error(
        "plan needs to know where the backup stands: --dump=BACKUP, or --start-file / "
        "--start-position / --start-datetime");
  if (cmd == Command::kDrill) {
    if (!o.plan.dump) usage_error("drill needs --dump=BACKUP (a mysqldump/mariadb-dump file)");
    if (o.plan.incident && (o.filter.stop_position || o.filter.stop_datetime || o.filter.stop_gtid))
      usage_error(
          "--incident chooses the stop point: not with --stop-position, --stop-datetime "
          "or --stop-gtid");
    o.drill.plan = o.plan;
    o.drill.filter = o.filter;
    o.drill.to_end = g.has("to-end");
    o.drill.keep = g.has("keep");
    o.drill.expect_file = g.text("expect");
    o.drill.write_expect_file = g.text("write-expect");
    o.drill.report_file = g.text("report");
    if (auto b = g.text("server-binary")) o.drill.server_binary = *b;
    o.drill.server_applier = g.has("server-applier");
    if (o.drill.server_applier && g.has("no-preserve-commit-order"))
      usage_error(
          "--no-preserve-commit-order does not apply with --server-applier (the "
          "server's applier commits in the log's order)");
  }
}

// The inputs: files, an index (its names, or --binlog-dir), stdin, s3:// objects; with -R the
// server's files by name (listed once connected).
void read_inputs(const Given& g, bool stdin_is_tty, Options& o) {
  std::vector<std::string> paths;
  if (g.has("files")) paths = g.list("files");
  if (o.remote) {  // the server's binlogs by name: listed once connected (cli/remote.cc)
    o.remote_files = paths;
    return;
  }
  if (auto index = g.text("index-file")) {
    if (!paths.empty()) usage_error("give either binlog files or --index-file, not both");
    if (recovery::s3::is_url(*index)) {
      if (g.has("binlog-dir")) usage_error("--binlog-dir applies to an index file, not s3://");
      paths.push_back(*index);  // (an index object: its files below)
    } else {
      paths = binlog::read_index_file(*index, g.text("binlog-dir").value_or(""));
    }
  } else if (g.has("binlog-dir")) {
    usage_error("--binlog-dir names where the files of an --index-file are: give --index-file");
  }
  if (paths.empty()) {
    if (stdin_is_tty)
      usage_error(
          "no binlog given: name files, --index-file, or pipe one into standard input "
          "(see binrecover --help)");
    paths.push_back("-");
  }
  // The --s3-* options mean something only where a store is read.
  if (std::none_of(paths.begin(), paths.end(),
                   [](const std::string& p) { return recovery::s3::is_url(p); }))
    for (const char* n : {"s3-endpoint", "s3-region", "s3-profile", "s3-addressing"})
      if (g.has(n)) usage_error(std::string("--") + n + " applies to s3:// inputs");
  for (const auto& p : paths) {
    if (!recovery::s3::is_url(p)) {
      o.inputs.push_back({p, base_name(p), std::nullopt, {}, {}, std::nullopt});
      continue;
    }
    // An object, an index object or an archive folder of a bucket: read by ranged GETs
    // (recovery/storage/s3_archive.h).
    const recovery::s3::Url url = recovery::s3::parse_url(p);
    const auto client = recovery::s3::reader_client();
    // Each folder's manifest (a prefix above several servers' folders gives files of each).
    using ManifestPtr = std::shared_ptr<std::optional<recovery::s3::Manifest>>;
    std::map<std::string, ManifestPtr> manifests;
    for (const recovery::s3::Url& u : recovery::s3::expand_inputs(*client, url)) {
      const std::string name = recovery::s3::base_name_of(u.key);
      const recovery::s3::Url folder = recovery::s3::folder_of(u);
      ManifestPtr& manifest = manifests[folder.key];
      if (!manifest)
        manifest = std::make_shared<std::optional<recovery::s3::Manifest>>(
            recovery::s3::read_manifest(*client, folder));
      recovery::InputFile in{u.text(), name, std::nullopt, {}, {}, std::nullopt};
      if (*manifest)
        for (const auto& f : (*manifest)->files)
          if (f.name == name) in.size = f.size;
      if (!in.size)
        if (auto info = client->head(u)) in.size = info->size;
      in.open = [u, name, manifest]() -> std::unique_ptr<binlog::Source> {
        return std::make_unique<recovery::s3::S3Source>(recovery::s3::reader_client(), u, name,
                                                        manifest.get());
      };
      o.inputs.push_back(std::move(in));
    }
  }
}

// -h, -P, -u, -p, -S and the rest of a connection: whether any was given.
bool connection_given(const Given& g) {
  return g.has("host") || g.has("port") || g.has("user") || g.has("password") || g.has("socket") ||
         g.has("ssl-mode") || g.has("ssl") || g.has("ssl-ca") || g.has("ssl-capath") ||
         g.has("ssl-cert") || g.has("ssl-key") || g.has("ssl-cipher") ||
         g.has("ssl-verify-server-cert") || g.has("protocol") || g.has("bind-address") ||
         g.has("compression-algorithms") || g.has("zstd-compression-level");
}

// SQL output's own options, and which of them apply together.
void read_sql_output(const Given& g, Command cmd, int verbose, Options& o) {
  o.sql.short_form = g.has("short-form");
  o.sql.hexdump = g.has("hexdump");
  o.sql.skip_gtids = g.has("skip-gtids");
  o.sql.disable_log_bin = g.has("disable-log-bin");
  if (auto d = g.text("local-load")) o.sql.local_load_dir = *d;
  o.sql.verbose = verbose;
  o.sql.rows_as_sql = g.has("rows-as-sql");
  o.schema_file = g.text("schema");
  o.flashback = g.has("flashback");
  if (auto t = g.text("target-flavor")) {
    if (*t != "mysql" && *t != "mariadb")
      usage_error("--target-flavor must be mysql or mariadb, not '" + *t + "'");
    o.sql.target_mariadb = *t == "mariadb";
    o.sql.target_mysql = *t == "mysql";
  }
  if (auto cs = g.text("set-charset")) {
    if (cs->empty() || cs->size() > 32 ||
        cs->find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") !=
            std::string::npos)
      usage_error("--set-charset needs a character set name (letters, digits, _), not '" + *cs +
                  "'");
    o.sql.set_charset = *cs;
  }
  o.sql.idempotent = g.has("idempotent");
  o.sql.require_row_format = g.has("require-row-format");
  o.sql.print_table_metadata = g.has("print-table-metadata");
  if (o.sql.print_table_metadata && o.sql.short_form)
    usage_error("--print-table-metadata adds comments, which -s (--short-form) leaves out");
  if (o.sql.idempotent && o.sql.rows_as_sql)
    usage_error(
        "--idempotent makes the server apply row events over what is there "
        "(RBR_EXEC_MODE): plain statements of --rows-as-sql are not row events");
  if (o.sql.idempotent && o.flashback) usage_error("--idempotent does not apply to --flashback");
  for (const char* n : {"binlog-row-event-max-size", "open-files-limit"})
    if (g.has(n)) parse_u64(*g.text(n), n);  // accepted, checked, no effect here (see --help)
  if (auto t = g.text("trigger-tables")) {
    if (*t != "sql" && *t != "binlog")
      usage_error("--trigger-tables must be sql or binlog, not '" + *t + "'");
    if (!o.sql.rows_as_sql) usage_error("--trigger-tables applies to --rows-as-sql");
    o.sql.trigger_tables_binlog = *t == "binlog";
  }
  if (auto b = g.text("base64-output")) {
    std::string v = *b;
    for (char& c : v) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (v == "AUTO" || v == "UNSPEC")
      o.sql.base64_output = recovery::Base64Output::kAuto;
    else if (v == "DECODE-ROWS")
      o.sql.base64_output = recovery::Base64Output::kDecodeRows;
    else if (v == "NEVER")
      o.sql.base64_output = recovery::Base64Output::kNever;
    else
      usage_error("--base64-output must be AUTO, DECODE-ROWS or NEVER, not '" + *b + "'");
  }
  if (o.flashback && (o.sql.rows_as_sql || o.sql.hexdump || o.sql.verbose || o.sql.short_form ||
                      g.has("base64-output") || o.sql.skip_gtids || g.has("local-load") ||
                      g.has("target-flavor") || g.has("set-charset") ||
                      g.has("require-row-format") || o.sql.print_table_metadata))
    usage_error(
        "--flashback writes undo SQL of its own: -v, -s, -H, --rows-as-sql, --skip-gtids, "
        "--base64-output, --local-load, --target-flavor, --set-charset, --require-row-format "
        "and --print-table-metadata do not apply to it");
  if (o.schema_file && cmd == Command::kSql && !o.flashback && !o.sql.rows_as_sql)
    usage_error("--schema names columns for --rows-as-sql and --flashback");
  if (o.schema_file && cmd == Command::kReplay && !o.sql.rows_as_sql)
    usage_error("--schema names columns for --rows-as-sql");
  if (!o.filter.rewrite_db.empty() &&
      (cmd == Command::kEvents || cmd == Command::kStats || cmd == Command::kDrill))
    usage_error("--rewrite-db does not apply to " + command_label(cmd) +
                " (it changes the SQL that SQL output, plan's commands and replay write)");
}

// --timeline, --html and their buckets; --format and --limit of the listing commands.
void read_timeline_and_format(const Given& g, Command cmd, Options& o) {
  o.timeline = g.has("timeline");
  if (auto tl = g.text("bucket")) {
    if (!g.has("timeline") && !g.has("html"))
      usage_error("--bucket applies to --timeline and --html");
    std::string v = *tl;
    std::uint64_t unit = 1;
    if (v == "auto") v = "0";
    if (v == "minute") v = "60";
    if (v == "hour") v = "3600";
    if (v == "day") v = "86400";
    if (!v.empty() && (v.back() == 'm' || v.back() == 'h' || v.back() == 's')) {
      unit = v.back() == 'm' ? 60 : v.back() == 'h' ? 3600 : 1;
      v.pop_back();
    }
    if (v.empty() || v.size() > 7 || v.find_first_not_of("0123456789") != std::string::npos)
      usage_error("--bucket takes auto, minute, hour, day or N (seconds), Nm, Nh, not '" + *tl +
                  "'");
    o.timeline_bucket = static_cast<std::uint32_t>(std::stoull(v) * unit);
  }
  if (auto by = g.text("by")) {
    if (*by != "database" && *by != "table")
      usage_error("--by must be database or table, not '" + *by + "'");
    if (!g.has("timeline") && !g.has("html")) usage_error("--by applies to --timeline and --html");
    o.timeline_by_table = *by == "table";
  }
  o.html_file = g.text("html");

  if (auto f = g.text("format")) {
    if (cmd == Command::kStats) {
      if (*f != "table" && *f != "json")
        usage_error("stats --format must be table or json, not '" + *f + "'");
      o.stats_json = *f == "json";
    } else if (cmd == Command::kPlan) {
      if (*f != "text" && *f != "json")
        usage_error("plan --format must be text or json, not '" + *f + "'");
      o.plan_json = *f == "json";
    } else if (*f == "table") {
      o.events.format = recovery::TableFormat::kTable;
    } else if (*f == "tsv") {
      o.events.format = recovery::TableFormat::kTsv;
    } else if (*f == "json") {
      o.events.format = recovery::TableFormat::kJson;
    } else {
      usage_error("--format must be table, tsv or json, not '" + *f + "'");
    }
  }
  if (o.timeline && (o.stats_json || o.plan_json))
    usage_error("--timeline is a picture: not with --format=json");

  if (auto l = g.text("limit")) {
    const auto comma = l->find(',');
    if (comma == std::string::npos) {
      o.events.limit_count = parse_u64(*l, "limit");
    } else {
      o.events.limit_offset = parse_u64(trim(l->substr(0, comma)), "limit");
      o.events.limit_count = parse_u64(trim(l->substr(comma + 1)), "limit");
    }
  }
}

// -R and --stop-never (following a server), and mysqlbinlog's -R --raw (a binlog backup: an
// archive).
void read_follow_and_raw(const Given& g, Command cmd, int verbose, Options& o) {
  o.remote = g.has("read-from-remote-server") || g.has("read-from-remote-source");
  if ((cmd == Command::kSql || cmd == Command::kEvents) && g.has("stop-never") && !g.has("raw")) {
    if (!o.remote) usage_error("--stop-never follows a server: give -R");
    if (g.has("stop-position"))
      usage_error(
          "--stop-position names a position of the last file, which --stop-never never "
          "reaches: use --stop-datetime or --stop-gtid");
    o.follow = true;
    o.events.flush_each = true;
  }
  if (cmd == Command::kSql && g.has("raw")) {
    // mysqlbinlog's spelling of a binlog backup: -R --raw --result-file=PREFIX [--stop-never].
    if (!o.remote) usage_error("--raw copies a server's binlogs: give -R");
    o.command = Command::kArchive;
    const std::string prefix = g.text("result-file").value_or("");
    const auto slash = prefix.rfind('/');
    o.archive.dir =
        slash == std::string::npos ? "." : prefix.substr(0, std::max<std::size_t>(slash, 1));
    o.archive.prefix = slash == std::string::npos ? prefix : prefix.substr(slash + 1);
    o.archive.stop_never = g.has("stop-never");
    o.archive_raw = true;
    // A byte-for-byte copy: nothing that selects, decodes or writes SQL applies to it.
    static const std::set<std::string> kRawOptions = {"read-from-remote-server",
                                                      "read-from-remote-source",
                                                      "raw",
                                                      "result-file",
                                                      "stop-never",
                                                      "to-last-log",
                                                      "connection-server-id",
                                                      "host",
                                                      "port",
                                                      "user",
                                                      "password",
                                                      "socket",
                                                      "ssl-mode",
                                                      "ssl",
                                                      "ssl-ca",
                                                      "ssl-capath",
                                                      "ssl-cert",
                                                      "ssl-key",
                                                      "ssl-cipher",
                                                      "ssl-verify-server-cert",
                                                      "protocol",
                                                      "bind-address",
                                                      "compression-algorithms",
                                                      "zstd-compression-level",
                                                      "compress",
                                                      "ssl-crl",
                                                      "ssl-crlpath",
                                                      "tls-version",
                                                      "read-from-remote-master",
                                                      "stop-never-slave-server-id",
                                                      "binlog-row-event-max-size",
                                                      "open-files-limit",
                                                      "no-progress",
                                                      "files"};
    if (verbose > 0) usage_error("-v does not apply to -R --raw (a byte-for-byte copy)");
    for (const auto& [name, value] : g.map())
      if (!value.defaulted() && kRawOptions.count(name) == 0)
        usage_error("--" + name +
                    " does not apply to -R --raw (a byte-for-byte copy of the "
                    "server's binlogs; binrecover archive)");
  }
}

// The object store's endpoint, region, profile and addressing (every command that reads
// s3://, and archive --to).
void read_s3(const Given& g, Options& o) {
  recovery::s3::ConfigOverrides so;
  so.endpoint = g.text("s3-endpoint");
  so.region = g.text("s3-region");
  so.profile = g.text("s3-profile");
  if (auto a = g.text("s3-addressing")) {
    if (*a == "path")
      so.addressing = recovery::s3::Addressing::kPath;
    else if (*a == "virtual")
      so.addressing = recovery::s3::Addressing::kVirtual;
    else if (*a != "auto")
      usage_error("--s3-addressing must be auto, path or virtual, not '" + *a + "'");
  }
  if (so.endpoint && so.endpoint->rfind("http://", 0) != 0 &&
      so.endpoint->rfind("https://", 0) != 0)
    usage_error("--s3-endpoint takes http(s)://HOST[:PORT], not '" + *so.endpoint + "'");
  o.archive.s3 = so;
  recovery::s3::set_reader_config(so);
}

// archive's own options: where the copy goes (--dir or --to), --verify, --status.
void read_archive(const Given& g, Command cmd, Options& o) {
  if (cmd == Command::kArchive) {
    o.remote = true;
    o.archive.stop_never = g.has("stop-never");
    o.archive_verify = g.has("verify");
    if (auto d = g.text("dir")) o.archive.dir = *d;
    if (auto n = g.u64("fsync-interval"))
      o.archive.fsync_seconds = static_cast<unsigned>(std::min<std::uint64_t>(*n, 86400));
    o.archive.remote.heartbeat_seconds = 30;
    if (auto n = g.u64("heartbeat-period"))
      o.archive.remote.heartbeat_seconds =
          static_cast<unsigned>(std::min<std::uint64_t>(*n, 4294967));
    o.archive.status_file = g.text("status-file");
    o.archive_status = g.has("status");
    if (auto f = g.text("format")) {
      if (!o.archive_status) usage_error("--format applies to archive --status");
      if (*f != "table" && *f != "json")
        usage_error("--format must be table or json, not '" + *f + "'");
      o.archive_status_json = *f == "json";
    }
    o.archive.to = g.text("to");
    o.archive.folder = g.text("s3-folder");
    if (o.archive.to) {
      if (!recovery::s3::is_url(*o.archive.to))
        usage_error("--to takes s3://BUCKET/PREFIX/, not '" + *o.archive.to + "'");
      recovery::s3::parse_url(*o.archive.to);
      if (!o.archive.dir.empty()) usage_error("give either --dir or --to, not both");
      if (g.has("fsync-interval"))
        usage_error("--fsync-interval applies to --dir (with --to, see --upload-interval)");
      if (o.archive.status_file) usage_error("--status-file applies to --dir");
    } else {
      for (const char* n : {"s3-folder", "upload-interval", "part-size"})
        if (g.has(n)) usage_error(std::string("--") + n + " applies with --to s3://...");
    }
    if (o.archive.folder &&
        (o.archive.folder->empty() || o.archive.folder->find('/') != std::string::npos ||
         (*o.archive.folder)[0] == '.'))
      usage_error("--s3-folder takes a name without '/', not '" + *o.archive.folder + "'");
    if (auto n = g.u64("upload-interval")) {
      if (*n < 1 || *n > 3600) usage_error("--upload-interval must be 1 to 3600 seconds");
      o.archive.upload_seconds = static_cast<unsigned>(*n);
    }
    if (auto n = g.u64("part-size")) {
      if (*n < 5 || *n > 1024) usage_error("--part-size must be 5 to 1024 (MiB)");
      o.archive.part_bytes = static_cast<std::size_t>(*n) << 20;
    }
    {
      bool store = o.archive.to.has_value();
      if (g.has("files"))
        for (const auto& f : g.list("files")) store = store || recovery::s3::is_url(f);
      for (const char* n : {"s3-endpoint", "s3-region", "s3-profile", "s3-addressing"})
        if (g.has(n) && !store) usage_error(std::string("--") + n + " applies with --to or s3://");
    }
    const int modes = (o.archive_verify ? 1 : 0) + (o.archive_status ? 1 : 0);
    if (modes > 1) usage_error("give either --verify or --status, not both");
    if (modes > 0 && (o.archive.to || !o.archive.dir.empty()))
      usage_error(std::string(o.archive_verify ? "--verify" : "--status") +
                  " reads an archive: no --dir or --to");
    if (modes == 0 && o.archive.dir.empty() && !o.archive.to)
      usage_error(
          "archive needs --dir=DIR or --to=s3://BUCKET/PREFIX/ (where the binlogs go), or "
          "--verify DIR, or --status s3://BUCKET/");
  }
}

// How -R reads: by file and position or by GTIDs; --to-last-log, the server id, the timeout.
void read_remote(const Given& g, Command cmd, const std::optional<std::string>& start_gtids,
                 Options& o) {
  if (auto v = g.text("read-from-remote-source")) {
    if (*v == "BINLOG-DUMP-GTID")
      o.gtid_start = true;
    else if (*v != "BINLOG-DUMP-NON-GTID")
      usage_error(
          "--read-from-remote-source must be BINLOG-DUMP-NON-GTID (files and positions) "
          "or BINLOG-DUMP-GTID (from the GTIDs --exclude-gtids does not name), not '" +
          *v + "'");
    if (o.gtid_start && (cmd == Command::kArchive || o.command == Command::kArchive))
      usage_error(
          "archive copies whole files from the one named (or the first): "
          "BINLOG-DUMP-GTID does not apply to it");
    if (o.gtid_start && (g.has("files") || o.filter.start_position || g.has("to-last-log")))
      usage_error(
          "BINLOG-DUMP-GTID finds where to start from the GTIDs (--exclude-gtids, or a MariaDB "
          "GTID --start-position): no FILE, position or --to-last-log");
  }
  // -R with a GTID start and no file: from the binlog where those GTIDs end, as a replica
  // connecting by GTID would be sent.
  if (start_gtids && o.remote && !g.has("files") && !g.has("to-last-log") &&
      cmd != Command::kArchive && o.command != Command::kArchive)
    o.gtid_start = true;
  if (!o.remote &&
      (g.has("to-last-log") || g.has("connection-server-id") || g.has("net-read-timeout")))
    usage_error("--to-last-log, --connection-server-id and --net-read-timeout apply with -R");
  if (!o.remote && connection_given(g) && cmd != Command::kReplay && cmd != Command::kDrill)
    usage_error("-h, -P, -u, -p and -S name the server to read from: give -R too");
  if (o.remote) {
    if (g.has("index-file") || g.has("binlog-dir"))
      usage_error("-R reads the server's own list of binlogs: no --index-file or --binlog-dir");
    o.to_last_log = g.has("to-last-log");
    if (auto n = g.u64("net-read-timeout")) {
      if (*n == 0 || *n > 86400) usage_error("--net-read-timeout must be 1..86400 seconds");
      o.net_read_timeout = static_cast<unsigned>(*n);
    }
    if (auto id = g.u64("connection-server-id")) {
      if (*id > 0xffffffffULL) usage_error("--connection-server-id is at most 4294967295");
      o.remote_server_id = static_cast<std::uint32_t>(*id);
    }
  }
}

// --ssl-mode and the certificates of a connection.
void read_tls(const Given& g, Options& o) {
  using Ssl = recovery::ConnectionOptions::SslMode;
  if (auto m = g.text("ssl-mode")) {
    std::string v = *m;
    for (char& c : v) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (v == "DISABLED")
      o.connection.ssl_mode = Ssl::kDisabled;
    else if (v == "PREFERRED")
      o.connection.ssl_mode = Ssl::kPreferred;
    else if (v == "REQUIRED")
      o.connection.ssl_mode = Ssl::kRequired;
    else if (v == "VERIFY_CA")
      o.connection.ssl_mode = Ssl::kVerifyCa;
    else if (v == "VERIFY_IDENTITY")
      o.connection.ssl_mode = Ssl::kVerifyIdentity;
    else
      usage_error(
          "--ssl-mode must be DISABLED, PREFERRED, REQUIRED, VERIFY_CA or "
          "VERIFY_IDENTITY, not '" +
          *m + "'");
  }
  if (g.has("ssl") && o.connection.ssl_mode == Ssl::kDefault)
    o.connection.ssl_mode = Ssl::kRequired;
  if (g.has("ssl-verify-server-cert")) o.connection.ssl_mode = Ssl::kVerifyIdentity;
  o.connection.ssl_ca = g.text("ssl-ca");
  o.connection.ssl_capath = g.text("ssl-capath");
  o.connection.ssl_cert = g.text("ssl-cert");
  o.connection.ssl_key = g.text("ssl-key");
  o.connection.ssl_cipher = g.text("ssl-cipher");
  o.connection.ssl_crl = g.text("ssl-crl");
  o.connection.ssl_crlpath = g.text("ssl-crlpath");
  o.connection.tls_version = g.text("tls-version");
}

// The connection to the server: the target (replay, drill) or the server -R reads from.
void read_connection(const Given& g, Command cmd, Options& o) {
  if (cmd == Command::kReplay || (cmd == Command::kDrill && connection_given(g)) || o.remote) {
    read_tls(g, o);
    if (auto p = g.text("protocol")) {
      std::string v = *p;
      for (char& c : v) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      using Protocol = recovery::ConnectionOptions::Protocol;
      if (v == "TCP")
        o.connection.protocol = Protocol::kTcp;
      else if (v == "SOCKET")
        o.connection.protocol = Protocol::kSocket;
      else if (v == "PIPE" || v == "MEMORY")
        usage_error("--protocol=" + *p + " is Windows-only; here: TCP or SOCKET");
      else
        usage_error("--protocol must be TCP or SOCKET, not '" + *p + "'");
    }
    o.connection.bind_address = g.text("bind-address");
    if (auto a = g.text("compression-algorithms")) {
      // mysql's list, e.g. "zlib,zstd,uncompressed": the connection uses the first it can.
      std::string v = *a;
      for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      bool zlib = false, none = false, zstd = false;
      std::istringstream items(v);
      for (std::string item; std::getline(items, item, ',');) {
        if (item == "zlib")
          zlib = true;
        else if (item == "uncompressed")
          none = true;
        else if (item == "zstd")
          zstd = true;
        else
          usage_error("--compression-algorithms takes zlib, zstd, uncompressed, not '" + item +
                      "'");
      }
      if (zstd && !zlib && !none)
        usage_error(
            "--compression-algorithms=zstd: the client library (MariaDB Connector/C) "
            "compresses with zlib only; use zlib");
      o.connection.compress = zlib;
    }
    if (g.has("zstd-compression-level"))
      usage_error(
          "--zstd-compression-level: zstd protocol compression is not available (the "
          "client library has zlib only)");
    o.connection.host = g.text("host");
    o.connection.user = g.text("user");
    o.connection.socket = g.text("socket");
    if (auto p = g.u64("port")) {
      if (*p == 0 || *p > 65535) usage_error("--port must be 1..65535");
      o.connection.port = static_cast<unsigned>(*p);
    }
    if (auto pw = g.text("password")) {
      // -p alone asks; -pSECRET / --password=SECRET is taken (never required).
      if (*pw == kAskPassword || pw->empty())
        o.password_prompt = true;
      else
        o.connection.password = *pw == kEmptyPassword ? std::string() : *pw;
    }
    if (cmd == Command::kDrill && connection_given(g)) o.drill.server = o.connection;
  }
}

// The server -R reads from: the connection options, or for replay and drill (whose -h ...
// name the target) the --source-* ones.
void read_source(const Given& g, Command cmd, Options& o) {
  // (option files and --no-defaults alike for both)
  o.source = o.connection;
  o.source.read_timeout = o.net_read_timeout;  // (the target's sessions wait as apply.h says)
  o.source_password_prompt = o.password_prompt;
  if (cmd == Command::kReplay || cmd == Command::kDrill) {
    const bool source_given = g.has("source-host") || g.has("source-port") ||
                              g.has("source-user") || g.has("source-password") ||
                              g.has("source-socket");
    if (source_given && !o.remote) usage_error("--source-* name the server -R reads from: give -R");
    o.source.host = g.text("source-host");
    o.source.user = g.text("source-user");
    o.source.socket = g.text("source-socket");
    o.source.port.reset();
    o.source.password.reset();
    o.source_password_prompt = false;
    if (auto p = g.u64("source-port")) {
      if (*p == 0 || *p > 65535) usage_error("--source-port must be 1..65535");
      o.source.port = static_cast<unsigned>(*p);
    }
    if (auto pw = g.text("source-password")) {
      if (*pw == kAskPassword || pw->empty())
        o.source_password_prompt = true;
      else
        o.source.password = *pw == kEmptyPassword ? std::string() : *pw;
    }
  }
}

// --parallel, --no-preserve-commit-order, --merge-transactions (replay and drill).
void read_parallel(const Given& g, Command cmd, Options& o) {
  if (cmd == Command::kReplay || cmd == Command::kDrill) {
    std::size_t& workers = cmd == Command::kReplay ? o.replay.parallel : o.drill.parallel;
    if (auto n = g.text("parallel")) {
      if (n->empty() || n->size() > 3 || n->find_first_not_of("0123456789") != std::string::npos ||
          std::stoul(*n) < 1 || std::stoul(*n) > 64)
        usage_error("--parallel needs a number of sessions from 1 to 64, not '" + *n + "'");
      workers = std::stoul(*n);
    }
    if (g.has("no-preserve-commit-order")) {
      if (workers < 2) usage_error("--no-preserve-commit-order needs --parallel 2 or more");
      if (cmd == Command::kReplay) o.replay.preserve_commit_order = false;
      if (cmd == Command::kDrill) o.drill.preserve_commit_order = false;
    }
    if (auto m = g.text("merge-transactions")) {
      if (m->empty() || m->size() > 5 || m->find_first_not_of("0123456789") != std::string::npos ||
          std::stoul(*m) < 1 || std::stoul(*m) > 10000)
        usage_error("--merge-transactions needs a number from 1 to 10000, not '" + *m + "'");
      (cmd == Command::kReplay ? o.replay.merge_transactions : o.drill.merge_transactions) =
          std::stoul(*m);
      if (std::stoul(*m) > 1 && g.has("no-preserve-commit-order"))
        usage_error(
            "--merge-transactions needs the commit order: not with --no-preserve-commit-order");
    }
  }
}

// --server-applier and what goes with it (--window, --listen).
void read_server_applier(const Given& g, Options& o) {
  if (g.has("server-applier")) {
    o.replay.server_applier = true;
    // What the target's replication cannot honour: it applies the log's events as they are.
    for (const char* n :
         {"rows-as-sql", "idempotent", "skip-gtids", "progress-table", "in-doubt",
          "no-preserve-commit-order", "trigger-tables", "schema", "local-load", "rewrite-db"})
      if (g.has(n))
        usage_error(std::string("--") + n +
                    " does not apply with --server-applier (the target's replication applies "
                    "the log's events as they are, and records them in its gtid_slave_pos)");
    if (auto gm = g.text("gtids"); gm && *gm == "strip")
      usage_error(
          "--gtids=strip does not apply with --server-applier (the target's "
          "replication keeps the log's GTIDs)");
  }
  if (auto w = g.text("window")) {
    if (!o.replay.server_applier) usage_error("--window applies with --server-applier");
    if (w->empty() || w->size() > 6 || w->find_first_not_of("0123456789") != std::string::npos ||
        std::stoul(*w) < 1 || std::stoul(*w) > 65536)
      usage_error("--window needs MiB from 1 to 65536, not '" + *w + "'");
    o.replay.window_bytes = std::uint64_t{std::stoul(*w)} << 20;
  }
  if (auto l = g.text("listen")) {
    if (!o.replay.server_applier) usage_error("--listen applies with --server-applier");
    std::string host = *l;
    if (const auto colon = host.rfind(':');
        colon != std::string::npos && host.find(':') == colon) {  // (an IPv6 address: no port)
      const std::string port = host.substr(colon + 1);
      if (port.empty() || port.size() > 5 ||
          port.find_first_not_of("0123456789") != std::string::npos || std::stoul(port) > 65535)
        usage_error("--listen needs HOST[:PORT], not '" + *l + "'");
      o.replay.listen_port = static_cast<unsigned>(std::stoul(port));
      host = host.substr(0, colon);
    }
    if (host.empty() || host.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV"
                                               "WXYZ0123456789.-:_") != std::string::npos)
      usage_error("--listen needs a host name or address of this machine, not '" + host + "'");
    o.replay.listen_host = host;
  }
}

// replay's own options: report, state, resume, progress table, in-doubt, GTIDs.
void read_replay(const Given& g, Command cmd, Options& o) {
  if (cmd == Command::kReplay) {
    o.replay_report = g.text("report");
    if (auto f = g.text("state-file")) o.replay.state_file = *f;
    o.replay.resume = g.has("resume");
    o.replay.idempotent = g.has("idempotent");
    o.sql.idempotent = false;  // (the sessions' setting, not a statement of the stream)
    if (auto t = g.text("progress-table")) {
      if (*t == "none") {
        o.replay.progress_table.clear();
      } else if (*t == "auto") {
        o.replay.progress_table = "auto";
      } else {
        const auto dot = t->find('.');
        if (dot == std::string::npos || dot == 0 || dot + 1 == t->size() ||
            t->find('.', dot + 1) != std::string::npos)
          usage_error("--progress-table needs auto, none or DB.TABLE, not '" + *t + "'");
        o.replay.progress_table = *t;
      }
    }
    if (!o.replay.preserve_commit_order && o.replay.progress_table.empty())
      usage_error(
          "--no-preserve-commit-order needs the progress table (not --progress-table=none)");
    if (auto v = g.text("in-doubt")) {
      if (*v == "applied")
        o.replay.in_doubt = recovery::InDoubt::kApplied;
      else if (*v == "not-applied")
        o.replay.in_doubt = recovery::InDoubt::kNotApplied;
      else
        usage_error("--in-doubt must be applied or not-applied, not '" + *v + "'");
      if (!o.replay.resume) usage_error("--in-doubt applies with --resume");
    }
    read_server_applier(g, o);
    if (auto gm = g.text("gtids")) {
      if (*gm == "keep")
        o.replay.gtids = recovery::GtidMode::kKeep;
      else if (*gm == "skip-applied")
        o.replay.gtids = recovery::GtidMode::kSkipApplied;
      else if (*gm == "strip")
        o.replay.gtids = recovery::GtidMode::kStrip;
      else
        usage_error("--gtids must be keep, skip-applied or strip, not '" + *gm + "'");
      if (o.sql.skip_gtids && o.replay.gtids != recovery::GtidMode::kStrip)
        usage_error("--skip-gtids contradicts --gtids=" + *gm);
    } else if (o.sql.skip_gtids) {
      o.replay.gtids = recovery::GtidMode::kStrip;
    }
  }
}

// The command a word names (the SQL output's is no word).
std::optional<Command> command_named(const std::string& a) {
  for (const CommandSpec& s : kCommands)
    if (*s.name && a == s.name) return s.command;
  return std::nullopt;
}

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
        {"stop-never-slave-server-id", "connection-server-id"}};
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
                (*spec_of(cmd).name ? std::string(spec_of(cmd).name) + " " : "") + "--help)");
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
    if (args.size() >= 2 && !command_named(args[1]))
      usage_error("no command '" + args[1] + "' (events, stats, plan, drill, replay)");
    return o;
  }
  const OptionFiles of = take_option_files(args, o);
  if (of.print) return print_defaults(of);
  if (!args.empty()) {
    if (const auto c = command_named(args.front())) {
      o.command = *c;
      args.erase(args.begin());
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
  read_inputs(given, stdin_is_tty, o);
  return o;
}

}  // namespace binrecover::cli
