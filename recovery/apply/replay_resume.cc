#include "recovery/apply/replay_resume.h"

#include <cstdlib>

#include "recovery/apply/replay_target.h"
#include "recovery/sql/sql_quote.h"

namespace binrecover::recovery {

// The position of (file, pos) in the inputs' order, for telling which of two resume points is
// later; nullopt when `file` is not among them.
std::optional<std::pair<std::size_t, std::uint64_t>> order_of(const std::vector<InputFile>& inputs,
                                                              const std::string& file,
                                                              std::uint64_t pos) {
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].display_name == file) return std::make_pair(i, pos);
  return std::nullopt;
}

// A log of a server that was itself a replay's target holds that replay's progress rows (and
// the statements that made its table): never this run's. The `binrecover` database is ours by
// name; a --progress-table elsewhere is left out alone.
void leave_out_progress(const std::string& progress_table, FilterOptions& filter) {
  if (progress_table == "auto" || progress_table.rfind("binrecover.", 0) == 0) {
    filter.exclude_databases.emplace_back("binrecover");
  } else if (const auto dot = progress_table.find('.'); dot != std::string::npos) {
    filter.exclude_tables.emplace_back(progress_table.substr(0, dot),
                                       progress_table.substr(dot + 1));
  }
}

// The `db`.`table` of --progress-table=DB.TABLE, created when the target lacks it.
std::string progress_table(Session& session, const std::string& spec) {
  const auto dot = spec.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == spec.size())
    throw Error(ErrorCode::kUsage, "--progress-table needs DB.TABLE (or none), not '" + spec + "'");
  const std::string db = spec.substr(0, dot), name = spec.substr(dot + 1);
  const std::string table = quoted_ident(db) + "." + quoted_ident(name);
  // Created once per target (a CREATE ... IF NOT EXISTS is binlogged each time, and takes a
  // GTID of the target's: it is not run when the table is there).
  const auto cols = session.rows(
      "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = " + hex_literal(db) +
      " AND TABLE_NAME = " + hex_literal(name));
  if (!cols.empty()) {
    bool ok = false;
    for (const auto& c : cols) ok = ok || (!c.empty() && c[0] == "applied");
    if (!ok)
      throw Error(ErrorCode::kUsage, "the progress table " + spec +
                                         " is not binrecover's (it has no column `applied`): "
                                         "name another with --progress-table");
    return table;
  }
  if (session
          .value("SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = " +
                 hex_literal(db))
          .value_or("0") == "0")
    session.execute("CREATE DATABASE " + quoted_ident(db));
  session.execute("CREATE TABLE " + table +
                  " (run_key VARBINARY(512) NOT NULL, worker INT UNSIGNED NOT NULL,"
                  " file VARBINARY(512) NOT NULL, position BIGINT UNSIGNED NOT NULL,"
                  " gtid VARBINARY(255) NOT NULL, applied MEDIUMBLOB NOT NULL,"
                  " updated TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)"
                  " ON UPDATE CURRENT_TIMESTAMP(6), PRIMARY KEY (run_key, worker)) ENGINE=InnoDB"
                  " COMMENT='binrecover replay: where each replay got to (docs/usage.md)'");
  return table;
}

ProgressRows read_progress(Session& session, const std::string& table, const std::string& key,
                           const std::vector<InputFile>& inputs, const std::string& identity) {
  ProgressRows out;
  // (a flag and a value, not an optional: g++ 12 takes an optional pair's compare for a read
  // of uninitialised memory)
  bool have_best = false;
  std::pair<std::size_t, std::uint64_t> best{0, 0};
  for (const auto& r : session.rows("SELECT file, position, gtid, applied FROM " + table +
                                    " WHERE run_key = " + key)) {
    if (r.size() < 4) continue;
    const std::uint64_t pos = std::strtoull(r[1].c_str(), nullptr, 10);
    if (!r[0].empty() && pos >= 4) {
      const auto at = order_of(inputs, r[0], pos);
      if (!out.mark || (at && (!have_best || *at > best))) {
        out.mark = ReplayState{r[0], pos, r[2], identity};
        have_best = at.has_value();
        if (at) best = *at;
      }
    }
    std::size_t from = 0;
    while (from < r[3].size()) {
      std::size_t nl = r[3].find('\n', from);
      if (nl == std::string::npos) nl = r[3].size();
      const std::string line = r[3].substr(from, nl - from);
      from = nl + 1;
      const auto tab = line.rfind('\t');
      if (tab == std::string::npos) continue;
      out.applied.emplace(line.substr(0, tab), std::strtoull(line.c_str() + tab + 1, nullptr, 10));
    }
  }
  return out;
}

// --resume of a unit that was not a transaction and was being applied when the replay
// stopped: where to go on (after it, or at it), from the target's GTIDs or --in-doubt.
std::uint64_t settle_in_doubt(Session& session, const ReplayState& prior, std::uint64_t started_at,
                              const ReplayOptions& opts, const SqlOptions& sql,
                              const binlog::WarningSink& warn) {
  // The unit that is not a transaction may or may not be on the target.
  // (in_doubt_gtid is written only when the target did not have it before the unit ran:
  // then having it now says the unit was applied)
  // (A MariaDB target that started again in the second it had started in has the same
  // start time, but writes another binary log.)
  const bool restarted = prior.server_started != 0 && started_at != 0 &&
                         (prior.server_started != started_at ||
                          (session.mariadb() && current_binlog(session) != prior.in_doubt_binlog));
  const std::optional<bool> has =
      restarted && session.mariadb()
          ? std::nullopt
          : target_has_gtid(session, prior.in_doubt_gtid, opts.gtids, sql.disable_log_bin);
  const bool known = has.has_value();
  bool applied = has.value_or(false);
  if (!known && opts.in_doubt == InDoubt::kRefuse)
    throw Error(ErrorCode::kUsage,
                "--resume: the statement at " + prior.file + ":" +
                    std::to_string(prior.in_doubt_begin) +
                    " (not a transaction: none, part or all of it may be on the target) was being "
                    "applied when the replay stopped, and the target's GTIDs cannot tell: look, "
                    "then resume with --in-doubt=applied or --in-doubt=not-applied");
  if (!known) applied = opts.in_doubt == InDoubt::kApplied;
  if (warn)
    warn("--resume: the statement at " + prior.file + ":" + std::to_string(prior.in_doubt_begin) +
         " was being applied when the replay stopped; " +
         (applied ? "the target has it, going on after it"
                  : "the target does not have it, applying it"));
  return applied ? prior.in_doubt_end : prior.in_doubt_begin;
}

// --resume: the later of the state file and the progress rows (the rows are exact for
// transactions, the state file for units that are not), a unit in doubt settled; the inputs,
// start position and `last` cut to there. Returns the units committed after it (by workers that
// did not keep the commit order), to leave out.
std::set<std::pair<std::string, std::uint64_t>> resume(
    const Resume& r, Session& session, std::optional<ReplayState>& prior, const ProgressRows& rows,
    std::vector<InputFile>& inputs, FilterOptions& filter, DecodeOptions& decode,
    std::optional<ReplayState>& last, const binlog::WarningSink& warn) {
  const ReplayOptions& opts = r.opts;
  if (!prior && !rows.mark)
    throw Error(ErrorCode::kUsage, "--resume: there is no replay state file " + opts.state_file +
                                       " (name it with --state-file)");
  if (prior && !same_server(prior->server, r.identity, session))
    throw Error(ErrorCode::kUsage,
                "--resume: the state file " + opts.state_file + " was written for " +
                    prior->server + ", this is " + r.identity +
                    ": resume on that server (or remove the state file to start over here)");
  ReplayState from = prior ? *prior : *rows.mark;
  if (prior && rows.mark) {
    const auto p = order_of(inputs, prior->file, prior->position);
    const auto m = order_of(inputs, rows.mark->file, rows.mark->position);
    if (m && (!p || *m > *p)) from = *rows.mark;
  }
  from.server = r.identity;
  from.server_started = r.started_at;
  if (prior && prior->in_doubt_end > 0 && from.file == prior->file &&
      from.position <= prior->in_doubt_begin)
    from.position = settle_in_doubt(session, *prior, r.started_at, opts, r.sql, warn);
  from.in_doubt_begin = from.in_doubt_end = 0;
  from.in_doubt_gtid.clear();
  std::size_t idx = 0;
  while (idx < inputs.size() && inputs[idx].display_name != from.file) ++idx;
  if (idx == inputs.size())
    throw Error(ErrorCode::kUsage, "--resume: the replay continues at " + coordinates(from) +
                                       ", but " + from.file + " is not among the binlogs given");
  if (filter.start_position && (idx != 0 || *filter.start_position != from.position) && warn)
    warn("--start-position is replaced by the resume position " + coordinates(from));
  inputs.erase(inputs.begin(), inputs.begin() + static_cast<std::ptrdiff_t>(idx));
  filter.start_position = from.position;
  decode.skip_events = 0;
  last = from;
  prior = from;
  // The target's GTIDs say which transactions after the state file's point it has.
  if (r.by_gtids) add_target_gtids(session, filter.applied_gtids);
  std::set<std::pair<std::string, std::uint64_t>> skip;
  const auto from_at = order_of(inputs, from.file, from.position);
  for (const auto& a : rows.applied) {
    const auto at = order_of(inputs, a.first, a.second);
    if (at && from_at && *at >= *from_at) skip.insert(a);
  }
  return skip;
}

}  // namespace binrecover::recovery
