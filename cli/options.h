#pragma once

#include <optional>
#include <string>
#include <vector>

#include "recovery/apply/replay.h"
#include "recovery/archive/archive.h"
#include "recovery/backups/make_backup.h"
#include "recovery/backups/restore.h"
#include "recovery/emit/event_list.h"
#include "recovery/emit/row_changes.h"
#include "recovery/emit/run_sql.h"
#include "recovery/reading/filter.h"
#include "recovery/recover/drill.h"
#include "recovery/recover/plan.h"
#include "recovery/sql/sql_sink.h"

namespace binrecover::cli {

enum class Command {
  kSql,
  kEvents,
  kPlan,
  kDrill,
  kStats,
  kReplay,
  kArchive,
  kBackup,
  kRestore,
  kHelp,
  kVersion
};

// Everything a run needs, validated. Built from the command line plus the [binrecover] group of
// the option files (command line wins).
struct Options {
  Command command = Command::kSql;
  std::vector<recovery::InputFile> inputs;
  recovery::DecodeOptions decode;
  recovery::FilterOptions filter;
  recovery::SqlOptions sql;
  recovery::EventListOptions events;
  recovery::PlanOptions plan;
  recovery::DrillOptions drill;
  recovery::ConnectionOptions connection;  // replay
  recovery::ReplayOptions replay;
  std::optional<std::string> replay_report;  // replay --report: a JSON summary
  bool password_prompt = false;              // -p without a value: ask on the terminal
  // -R: the server's binlogs (`connection` names the server; `inputs` are filled in by
  // resolve_remote_inputs once connected).
  bool remote = false;
  std::vector<std::string> remote_files;  // as named on the command line (none: all)
  bool to_last_log = false;
  bool gtid_start = false;  // --read-from-remote-source=BINLOG-DUMP-GTID
  bool follow = false;      // -R --stop-never (SQL output): wait for more, go on with each new file
  std::uint32_t remote_server_id = 0;
  unsigned net_read_timeout = 60;      // --net-read-timeout (seconds)
  recovery::ConnectionOptions source;  // the server -R reads from
  recovery::ArchiveOptions archive;
  recovery::BackupOptions backup;  // binrecover backup
  // backup --list LOCATION (a folder archive or s3://...), as text or JSON.
  std::optional<std::string> backup_list;
  bool backup_list_json = false;
  recovery::RestoreOptions restore;  // binrecover restore (drill options in restore.drill)
  std::string restore_from;          // --from: the archive
  bool archive_verify = false;       // archive --verify
  bool archive_status = false;       // archive --status s3://BUCKET/
  bool archive_status_json = false;
  bool archive_retain_only = false;  // archive --retain=N DIR|s3://... (no server)
  bool archive_raw = false;          // reached as mysqlbinlog's -R --raw --result-file=PREFIX
  bool source_password_prompt = false;
  bool plan_json = false;
  bool stats_json = false;
  // SQL output --format=jsonl / csv: the row changes as data instead of SQL.
  std::optional<recovery::RowChangeFormat> row_changes;
  // --split-by=table --output-dir=DIR: one file per table.
  std::optional<std::string> split_dir;
  std::size_t stats_top = 5;  // stats --transactions=N
  // stats/plan --timeline (the bucket in seconds, 0: auto), --html=F, --by=table.
  bool timeline = false;                         // --timeline: the terminal picture
  std::optional<std::uint32_t> timeline_bucket;  // --bucket (0: auto)
  std::optional<std::string> html_file;
  bool timeline_by_table = false;
  bool flashback = false;
  std::optional<std::string> schema_file;  // --schema
  std::optional<std::string> result_file;
  std::string help_text;
  bool progress = true;  // on a terminal only
};

// The commands and the options each takes, as the parser has them: for the manual page and the
// shell completion (cli/manual.cc), so that neither can miss an option.
struct OptionInfo {
  std::string long_name;
  char short_name = 0;
  bool takes_value = false;
  bool value_optional = false;  // --password[=VALUE]
  std::string description;
};
struct OptionGroup {
  std::string caption;
  std::vector<OptionInfo> options;
};
struct CommandInfo {
  Command command = Command::kSql;
  std::string name;                                        // "" for SQL output
  std::vector<std::pair<std::string, std::string>> forms;  // command line, what it does
  std::string example;
  std::vector<OptionGroup> groups;
};
std::vector<CommandInfo> command_table();

// Parses argv (argv[0] excluded from `args`). Throws binrecover::Error(kUsage) with a message
// that names the offending option. `stdin_is_tty` decides whether "no input" means stdin.
Options parse_options(const std::vector<std::string>& args, bool stdin_is_tty);

// Sets the process time zone for --timezone: "UTC", "SYSTEM", "+02:00", "-05:30", or a zone
// name such as "Europe/Berlin" (needs tzdata).
void apply_timezone(const std::string& tz);

// The option-file arguments of group [binrecover] (and [client] is not read: it holds
// connection settings this mode does not use), as "--name=value" strings in file order.
std::vector<std::string> option_file_args(const std::vector<std::string>& files,
                                          const std::vector<std::string>& groups = {"binrecover"});
// The usual places: /etc/my.cnf, /etc/mysql/my.cnf, ~/.my.cnf (MariaDB/MySQL order).
std::vector<std::string> default_option_files();

}  // namespace binrecover::cli
