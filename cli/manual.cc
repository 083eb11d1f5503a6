#include "cli/manual.h"

#include <map>
#include <set>
#include <sstream>

namespace binrecover::cli {
namespace {

// Text for troff: a backslash printed as one, every '-' a minus (command lines copy and paste),
// and no line that starts with a control character.
std::string roff(const std::string& text) {
  std::string out;
  bool line_start = true;
  for (const char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    line_start = c == '\n';
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
  }
  return out;
}

std::string option_syntax(const OptionInfo& o) {
  std::string s;
  if (o.short_name) s += "\\fB\\-" + std::string(1, o.short_name) + "\\fR, ";
  s += "\\fB\\-\\-" + roff(o.long_name) + "\\fR";
  if (o.value_optional)
    s += "[=\\fIVALUE\\fR]";
  else if (o.takes_value)
    s += "=\\fIVALUE\\fR";
  return s;
}

std::string command_title(const CommandInfo& c) {
  return c.name.empty() ? "SQL output (no command)" : "binrecover " + c.name;
}

}  // namespace

const std::vector<ManExample>& man_examples() {
  static const std::vector<ManExample> examples = {
      {"Find the damage since the dump: the destructive transactions and the commands that "
       "recover around them.",
       "binrecover plan --dump=shop.sql --index-file=/srv/recovery/mysql-bin.index "
       "--database=shop"},
      {"Prove the recovery on a throwaway server first.",
       "binrecover drill --dump=shop.sql --index-file=/srv/recovery/mysql-bin.index "
       "--database=shop --report=drill.json"},
      {"Recover to just before the DROP (after restoring the dump).",
       "binrecover -D --start-position=385 --database=shop --stop-position=1090 "
       "mysql-bin.000002 mysql-bin.000003 | mysql"},
      {"Or replay everything except the destructive transaction.",
       "binrecover -D --start-position=385 --database=shop "
       "--skip-event=mysql-bin.000003:1090 mysql-bin.000002 mysql-bin.000003 | mysql"},
      {"Apply the same range straight to the server, exactly once across stops, on eight "
       "sessions.",
       "binrecover replay -D --start-position=385 --database=shop --stop-position=1090 "
       "--parallel 8 -h localhost -u root -p mysql-bin.000002 mysql-bin.000003"},
      {"Drill from cron after every backup.",
       "binrecover drill --dump=/backup/shop.sql --index-file=/var/lib/mysql/mysql-bin.index "
       "--database=shop --to-end --report=/var/log/binrecover-drill.json"},
  };
  return examples;
}

namespace {

// OPTIONS: the option groups, each once, with the commands that take it.
void man_options(std::ostringstream& m, const std::vector<CommandInfo>& table) {
  m << ".SH OPTIONS\n"
    << "Options are given as \\fB\\-\\-name=value\\fR or \\fB\\-\\-name value\\fR; the long "
       "options may be abbreviated to a unique prefix. The [binrecover] group of the option "
       "files (/etc/my.cnf, /etc/mysql/my.cnf, ~/.my.cnf) gives defaults for the same names; "
       "the command line wins.\n";
  std::vector<std::pair<const OptionGroup*, std::vector<std::string>>> groups;
  std::map<std::string, std::size_t> seen;
  for (const CommandInfo& c : table)
    for (const OptionGroup& g : c.groups) {
      std::string key = g.caption;
      for (const OptionInfo& o : g.options) key += "\n" + o.long_name;
      const auto [it, fresh] = seen.emplace(key, groups.size());
      if (fresh) groups.push_back({&g, {}});
      groups[it->second].second.push_back(c.name.empty() ? "SQL output" : c.name);
    }
  for (const auto& [g, commands] : groups) {
    m << ".SS \"" << roff(g->caption) << "\"\n";
    if (commands.size() < table.size()) {
      m << "Taken by:";
      for (std::size_t i = 0; i < commands.size(); ++i)
        m << (i ? ", " : " ") << "\\fB" << roff(commands[i]) << "\\fR";
      m << ".\n";
    } else {
      m << "Taken by every command.\n";
    }
    for (const OptionInfo& o : g->options)
      m << ".TP\n" << option_syntax(o) << "\n" << roff(o.description) << "\n";
  }
}

// EXIT STATUS: the documented exit codes.
void man_exit_status(std::ostringstream& m) {
  m << ".SH \"EXIT STATUS\"\n";
  const std::pair<const char*, const char*> statuses[] = {
      {"0", "success (warnings may have been printed)"},
      {"1", "internal error or out of memory"},
      {"2",
       "a bad option or argument, a refused run (an existing replay state without "
       "\\-\\-resume, a second replay with the same state), or a target not met: a "
       "\\-\\-skip\\-event or \\-\\-stop\\-position inside an event or past a file, a "
       "GTID the log went past, a \\-\\-stop\\-datetime after every event (the run stops "
       "where the reading passes the target)"},
      {"3", "a file cannot be opened, read or written"},
      {"4",
       "a damaged or unreadable binlog (truncated, bad magic, checksum mismatch, unknown "
       "event, absurd length)"},
      {"5", "a format binrecover cannot read or turn into SQL (e.g. an encrypted binlog)"},
      {"6", "a server refused the connection or a statement"},
      {"7", "a drill ran but a step failed or the verification found a difference"},
      {"130", "stopped by SIGINT or SIGTERM where the run can be resumed (\\-\\-resume)"},
  };
  for (const auto& [code, what] : statuses) m << ".TP\n.B " << code << "\n" << what << "\n";
}

}  // namespace

std::string man_page(const std::vector<CommandInfo>& table, const std::string& version,
                     const std::string& date) {
  std::ostringstream m;
  m << ".TH BINRECOVER 1 \"" << date << "\" \"binrecover " << roff(version)
    << "\" \"User Commands\"\n"
    << ".SH NAME\n"
    << "binrecover \\- read MySQL and MariaDB binary logs: SQL that replays, recovery plans, "
       "drills, replay and archives\n"
    << ".SH SYNOPSIS\n.nf\n";
  for (const CommandInfo& c : table)
    for (const auto& f : c.forms) m << roff(f.first) << "\n";
  m << ".fi\n"
    << ".SH DESCRIPTION\n"
    << "binrecover decodes the binary logs of MySQL 4.x to 9.x and MariaDB 5.5 to 11.x, from "
       "files, a \\fI.index\\fR file, standard input (FILE \\fB\\-\\fR) or a live server "
       "(\\fB\\-R\\fR), and uses them for point\\-in\\-time recovery. Its options follow "
       "\\fBmysqlbinlog\\fR(1) where the two overlap. With no FILE, \\fBindex\\-file=\\fR in "
       "the [binrecover] group of the option files names the input; else standard input is "
       "read.\n"
    << ".PP\n"
    << "Every command reads through the same path, so an option means the same everywhere; an "
       "option a command does not take is refused (exit 2).\n"
    << ".SH COMMANDS\n";
  for (const CommandInfo& c : table) {
    m << ".SS \"" << roff(command_title(c)) << "\"\n";
    for (const auto& [form, what] : c.forms)
      m << ".TP\n.B \"" << roff(form) << "\"\n" << roff(what) << ".\n";
    m << ".PP\nExample:\n.PP\n.RS 4\n.nf\n" << roff(c.example) << "\n.fi\n.RE\n";
  }
  man_options(m, table);
  man_exit_status(m);
  m << ".PP\nEvery failure is one line on standard error naming the file, the offset and the "
       "event type; everything already written is whole transactions.\n"
    << ".SH ENVIRONMENT\n"
    << ".TP\n.B MYSQL_PWD\nthe password of the server connections (safer than the command "
       "line; an option file of mode 0600 is safer still)\n"
    << ".TP\n.B TZ\nthe time zone of datetimes and printed times unless \\-\\-timezone\n"
    << ".TP\n.B HOME\nwhere ~/.my.cnf is\n"
    << ".SH FILES\n"
    << ".TP\n.I /etc/my.cnf, /etc/mysql/my.cnf, ~/.my.cnf\noption files: [binrecover] for "
       "binrecover's options, [client] for the connection\n"
    << ".TP\n.I ./binrecover\\-replay.state\nwhere a replay got to (\\-\\-state\\-file)\n"
    << ".SH EXAMPLES\n";
  for (const ManExample& e : man_examples())
    m << ".PP\n" << roff(e.what) << "\n.PP\n.RS 4\n.nf\n" << roff(e.command) << "\n.fi\n.RE\n";
  m << ".SH \"SEE ALSO\"\n"
    << "\\fBmysqlbinlog\\fR(1), \\fBmariadb\\-binlog\\fR(1), \\fBmysql\\fR(1)\n";
  return m.str();
}

std::string bash_completion(const std::vector<CommandInfo>& table) {
  std::ostringstream b;
  std::string names;
  for (const CommandInfo& c : table)
    if (!c.name.empty()) names += (names.empty() ? "" : " ") + c.name;
  b << "# bash completion for binrecover (made from its option table by binrecover_docgen)\n"
    << "_binrecover() {\n"
    << "  local cur prev cmd i opts valued\n"
    << "  cur=${COMP_WORDS[COMP_CWORD]}\n"
    << "  prev=${COMP_WORDS[COMP_CWORD-1]}\n"
    << "  cmd=\n"
    << "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
    << "    case ${COMP_WORDS[i]} in\n"
    << "      " <<
      [&] {
        std::string alt;
        for (const CommandInfo& c : table)
          if (!c.name.empty()) alt += (alt.empty() ? "" : "|") + c.name;
        return alt;
      }()
    << ") cmd=${COMP_WORDS[i]}; break ;;\n"
    << "    esac\n"
    << "  done\n"
    << "  case $cmd in\n";
  for (const CommandInfo& c : table) {
    std::string opts, valued;
    std::set<std::string> done;
    for (const OptionGroup& g : c.groups)
      for (const OptionInfo& o : g.options) {
        if (!done.insert(o.long_name).second) continue;
        opts += " --" + o.long_name;
        if (o.takes_value && !o.value_optional) {
          valued += " --" + o.long_name;
          if (o.short_name) valued += std::string(" -") + o.short_name;
        }
      }
    b << "    " << (c.name.empty() ? "''" : c.name) << ")\n"
      << "      opts='" << opts.substr(1) << "'\n"
      << "      valued='" << valued.substr(valued.empty() ? 0 : 1) << "' ;;\n";
  }
  b << "  esac\n"
    << "  # an option's value: a file name (the default completion)\n"
    << "  case \" $valued \" in *\" $prev \"*) [[ $cur != -* ]] && return 0 ;; esac\n"
    << "  if [[ $cur == --*=* ]]; then return 0; fi\n"
    << "  if [[ $cur == -* ]]; then\n"
    << "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
    << "    [[ ${#COMPREPLY[@]} == 1 && ${COMPREPLY[0]} != *= ]] && "
       "case \" $valued \" in *\" ${COMPREPLY[0]} \"*) COMPREPLY=(\"${COMPREPLY[0]}=\"); "
       "compopt -o nospace 2>/dev/null ;; esac\n"
    << "    return 0\n"
    << "  fi\n"
    << "  if [[ -z $cmd ]]; then\n"
    << "    COMPREPLY=($(compgen -W '" << names << " help' -- \"$cur\"))\n"
    << "  fi\n"
    << "  # else: binlog files (the default completion)\n"
    << "}\n"
    << "complete -o default -o bashdefault -F _binrecover binrecover\n";
  return b.str();
}

}  // namespace binrecover::cli
