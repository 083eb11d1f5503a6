#include "cli/command_table.h"

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "cli/option_groups.h"
#include "cli/option_values.h"

namespace binrecover::cli {

namespace {

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
    {Command::kBackup,
     "backup",
     {{"binrecover backup -h HOST -u USER -p --dir=DIR | --to=s3://BUCKET/PREFIX/",
       "the server's own dump, compressed, into the archive beside its binlogs"},
      {"binrecover backup --list DIR|s3://BUCKET/PREFIX/",
       "the backups there and the time range each can restore to"}},
     "binrecover backup -h db1 -u backup -p --to=s3://binlogs/fleet/"},
    {Command::kRestore,
     "restore",
     {{"binrecover restore --from=DIR|s3://... --to-time=T|--before-incident -h TARGET",
       "the newest backup before the point loaded into TARGET, the binlogs replayed to it"},
      {}},
     "binrecover restore --from=s3://binlogs/fleet/ --to-time='2026-12-05 17:59:00' -h db2 -u "
     "admin -p"},
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

}  // namespace

const char* command_word(Command c) { return spec_of(c).name; }

// The command a word names (the SQL output's is no word).
std::optional<Command> command_named(const std::string& a) {
  for (const CommandSpec& s : kCommands)
    if (*s.name && a == s.name) return s.command;
  return std::nullopt;
}

std::optional<std::string> command_near(const std::string& word) {
  if (word.empty() || word[0] == '-' || word.find_first_of("/.") != std::string::npos)
    return std::nullopt;
  std::error_code ec;
  if (std::filesystem::exists(word, ec)) return std::nullopt;
  for (const CommandSpec& s : kCommands) {
    const std::string name = s.name;
    // (two edits: a swap of two letters, "plna", is two)
    if (!name.empty() && word != name && edit_distance(word, name) <= 2 &&
        word.size() + 2 >= name.size())
      return name;
  }
  return std::nullopt;
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

}  // namespace binrecover::cli
