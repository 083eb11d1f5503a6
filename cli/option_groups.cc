#include "cli/option_groups.h"

#include <string>

#include "cli/option_groups_servers.h"

namespace binrecover::cli {

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
      "force-if-open,F",
      "accepted as mysqlbinlog's and mariadb-binlog's default: a binlog the server has not "
      "closed is read to its last whole event (a torn one at its end is said on stderr)")(
      "skip-force-if-open",
      "refuse a binlog its server has not closed (still written, or the server crashed): "
      "exit 4")(
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
      "with its transaction")("table,T", po::value<std::vector<std::string>>(),
                              "keep only this DATABASE.TABLE within its database, or this TABLE "
                              "within each --database (in any database without one; "
                              "repeatable)")(
      "server-id", po::value<std::string>(),
      "keep only events written by these server ids (1,2: as --do-server-ids; format "
      "descriptions and Rotates always stay)")("do-server-ids", po::value<std::string>(),
                                               "the same as --server-id (mariadb-binlog's name)")(
      "ignore-server-ids", po::value<std::string>(),
      "leave out the events written by these server ids (1,2)")(
      "do-domain-ids", po::value<std::string>(),
      "keep only the transactions of these MariaDB GTID domains (0,2; transactions without a "
      "MariaDB GTID stay)")("ignore-domain-ids", po::value<std::string>(),
                            "leave out the transactions of these MariaDB GTID domains")(
      "gtid-strict-mode",
      "stop with an error (exit 4) at a MariaDB GTID whose seq_no is not above the last one of "
      "its domain (mariadb-binlog's check, on by default there; off here: servers without "
      "gtid_strict_mode write such logs, and recovery reads them)")(
      "skip-gtid-strict-mode", "do not check GTID order (the default)")(
      "sql-type", po::value<std::string>(),
      "keep only these kinds of change: insert, update, delete (comma-separated; row events "
      "and statement-format DML; DDL and other statements stay)")(
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

// The option groups one command takes, in help order: each command's own list
// (cli/cmd_*.cc).
std::vector<Group> command_groups(Command c, bool for_option_files) {
  switch (c) {
    case Command::kEvents:
      return events_option_groups(for_option_files);
    case Command::kStats:
      return stats_option_groups(for_option_files);
    case Command::kPlan:
      return plan_option_groups(for_option_files);
    case Command::kDrill:
      return drill_option_groups(for_option_files);
    case Command::kReplay:
      return replay_option_groups(for_option_files);
    case Command::kArchive:
      return archive_option_groups(for_option_files);
    case Command::kBackup:
      return backup_option_groups(for_option_files);
    case Command::kRestore:
      return restore_option_groups(for_option_files);
    case Command::kSql:
    case Command::kHelp:
    case Command::kVersion:
      break;
  }
  return sql_option_groups(for_option_files);
}

std::vector<Group> reading_groups() {
  std::vector<Group> d;
  d.push_back(input_group());
  d.push_back(s3_group());
  d.push_back(filter_group());
  return d;
}

// The options one command takes, in help order.
po::options_description command_options(Command c, bool for_option_files) {
  po::options_description d;
  for (const Group& g : command_groups(c, for_option_files)) d.add(g.d);
  return d;
}

}  // namespace binrecover::cli
