#include "recovery/apply/replay.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <thread>

#include "binlog/error.h"
#include "binlog/event_type.h"
#include "recovery/apply/apply_engine.h"
#include "recovery/apply/merge_group.h"
#include "recovery/apply/replay_common.h"
#include "recovery/apply/test_pause.h"
#include "recovery/apply/unit_scheduler.h"
#include "recovery/server/remote_source.h"
#include "recovery/sql/output.h"
#include "recovery/sql/sql_quote.h"

namespace binrecover::recovery {

std::string coordinates(const ReplayState& st) {
  std::string s = st.file + ":" + std::to_string(st.position);
  if (!st.gtid.empty()) s += " (GTID " + st.gtid + ")";
  return s;
}

std::string server_identity(Session& session) {
  std::string id = session.where();
  if (auto sid = session.value("SELECT @@server_id")) id += " server_id=" + *sid;
  if (!session.mariadb())
    if (auto uuid = session.value("SELECT @@server_uuid")) id += " uuid=" + *uuid;
  return id;
}

bool same_server(const std::string& recorded, const std::string& identity, Session& session) {
  return recorded.empty() || recorded == identity || recorded == session.where();
}

namespace {
// The stop flag SIGINT and SIGTERM set while a replay runs.
std::atomic<int> g_stop_signal{0};
extern "C" void on_stop_signal(int sig) { g_stop_signal.store(sig); }
}  // namespace

int stop_signal() { return g_stop_signal.load(); }

StopSignals::StopSignals() {
  g_stop_signal.store(0);
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sa.sa_flags = SA_RESTART | SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, &old_int_);
  ::sigaction(SIGTERM, &sa, &old_term_);
}

StopSignals::~StopSignals() {
  ::sigaction(SIGINT, &old_int_, nullptr);
  ::sigaction(SIGTERM, &old_term_, nullptr);
}

namespace {

// The binary log the target writes now ("" when it writes none, or the replay's user may not
// ask: BINLOG MONITOR).
std::string current_binlog(Session& session) {
  try {
    return session.value("SHOW MASTER STATUS").value_or("");
  } catch (const Error&) {
    return {};
  }
}

// Whether the target has logged `gtid` (MySQL's gtid_executed; MariaDB's binlog position, which
// it keeps when it binlogs), or nullopt when it cannot tell (GTIDs stripped, no GTID, a MariaDB
// target that does not binlog this session).
// `no_log_bin`: the replay's sessions do not binlog (-D).
std::optional<bool> target_has_gtid(Session& session, const std::string& gtid, GtidMode mode,
                                    bool no_log_bin) {
  if (mode == GtidMode::kStrip || gtid.empty()) return std::nullopt;
  AppliedGtids on;
  if (session.mariadb()) {
    if (no_log_bin || session.value("SELECT @@GLOBAL.log_bin").value_or("0") != "1" ||
        gtid.find(':') != std::string::npos)
      return std::nullopt;
    // D-S-N: the binlog state's entry of domain D and server S (the position of a domain
    // counts the target's own transactions in it too). A target with the source's server id
    // logs its own transactions under it: it cannot tell then.
    const auto d1 = gtid.find('-'), d2 = gtid.find('-', d1 + 1);
    if (d1 == std::string::npos || d2 == std::string::npos) return std::nullopt;
    const std::string domain = gtid.substr(0, d1), server = gtid.substr(d1 + 1, d2 - d1 - 1);
    if (session.value("SELECT @@GLOBAL.server_id").value_or("") == server) return std::nullopt;
    const std::uint64_t seq = std::strtoull(gtid.c_str() + d2 + 1, nullptr, 10);
    const std::string state = session.value("SELECT @@GLOBAL.gtid_binlog_state").value_or("");
    std::size_t from = 0;
    while (from < state.size()) {
      std::size_t comma = state.find(',', from);
      if (comma == std::string::npos) comma = state.size();
      const std::string e = state.substr(from, comma - from);
      from = comma + 1;
      const auto e1 = e.find('-'), e2 = e.find('-', e1 + 1);
      if (e1 == std::string::npos || e2 == std::string::npos) continue;
      if (e.substr(0, e1) == domain && e.substr(e1 + 1, e2 - e1 - 1) == server)
        return std::strtoull(e.c_str() + e2 + 1, nullptr, 10) >= seq;
    }
    return false;
  } else {
    if (session.value("SELECT @@GLOBAL.gtid_mode").value_or("") != "ON" ||
        gtid.find(':') == std::string::npos)
      return std::nullopt;
    if (auto v = session.value("SELECT @@GLOBAL.gtid_executed")) on.add_mysql_set(*v);
  }
  return on.contains(gtid);
}

}  // namespace

// The GTIDs the target has applied (MariaDB: binlogged or replicated; MySQL: executed).
void add_target_gtids(Session& session, AppliedGtids& out) {
  if (session.mariadb()) {
    for (const char* var : {"@@GLOBAL.gtid_binlog_pos", "@@GLOBAL.gtid_slave_pos"})
      if (auto v = session.value(std::string("SELECT ") + var)) out.add_maria_position(*v);
  } else if (auto v = session.value("SELECT @@GLOBAL.gtid_executed")) {
    out.add_mysql_set(*v);
  }
}

// The position of (file, pos) in the inputs' order, for telling which of two resume points is
// later; nullopt when `file` is not among them.
std::optional<std::pair<std::size_t, std::uint64_t>> order_of(const std::vector<InputFile>& inputs,
                                                              const std::string& file,
                                                              std::uint64_t pos) {
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].display_name == file) return std::make_pair(i, pos);
  return std::nullopt;
}

namespace {

// The progress rows of a replay: the latest end of a committed prefix among them, and the
// units committed beyond some worker's mark (each "file\tposition\n": where a unit starts).
struct ProgressRows {
  std::optional<ReplayState> mark;
  std::set<std::pair<std::string, std::uint64_t>> applied;
};

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

// The target's sessions may read the LOAD files the SQL writer makes (and nothing else).
ConnectionOptions with_load_folder(ConnectionOptions conn, const SharedFolder& folder) {
  conn.local_files = folder.reader();
  return conn;
}

// One replay: the reading path's consumer. Every unit's SQL is made by the SQL writer (in a
// form that needs nothing of the units before it when there are several workers); a
// transaction of row events on tables the target has keys for goes to the workers with what
// it must wait for, anything else is applied here alone once all before it committed.
class Replayer : public WalkConsumer {
 public:
  Replayer(const ReplayOptions& opts, SqlOptions sql, const ConnectionOptions& conn,
           Session& session, const std::string& identity, std::uint64_t started_at, bool by_gtids,
           EngineOptions engine_opts, std::set<std::pair<std::string, std::uint64_t>> skip,
           StateStore& store)
      : opts_(opts),
        store_(store),
        session_(session),
        identity_(identity),
        started_at_(started_at),
        by_gtids_(by_gtids),
        workers_write_state_(static_cast<bool>(engine_opts.on_commit)),
        rewrites_(sql.rewrite_db),
        engine_(with_load_folder(conn, load_folder_), std::move(engine_opts)),
        scheduler_(session, engine_, &rewrites_),
        skip_(std::move(skip)),
        out_([this](std::string_view text,
                    const std::vector<Output::Statement>& st) { on_text(text, st); },
             session.where()),
        sql_(prepare(std::move(sql))),
        sink_(out_, sql_) {
    parallel_ = engine_.workers() > 1;
    // (merging asks the target's tables too: only transactional ones may share a transaction)
    keys_wanted_ = parallel_ || opts_.merge_transactions > 1;
    sink_.set_unit_hook([this](const UnitInfo& u) { unit_written(u); });
  }

  SqlSink& sink() { return sink_; }
  ApplyEngine& engine() { return engine_; }
  std::optional<ReplayState>& last() { return last_; }
  std::uint64_t units_parallel() const { return scheduler_.units(); }
  std::uint64_t held_whole() const { return scheduler_.held_whole(); }
  std::uint64_t barriers() const { return barriers_; }
  std::uint64_t events() const { return events_; }
  std::uint64_t merged_groups() const { return merged_groups_; }
  std::uint64_t merged_units() const { return merged_units_; }

  // The SQL header (pseudo-replica mode, sql_log_bin): every worker's session runs it first.
  void begin() {
    mode_ = Mode::kHeader;
    sink_.begin();
    out_.flush();
    mode_ = Mode::kUnits;
  }
  // Every unit handed over has committed; the footer is not sent (the sessions end).
  void finish() {
    flush_held();
    engine_.drain();
    mode_ = Mode::kFooter;
    sink_.finish();
    out_.flush();
    update_last();
  }
  void update_last() {
    if (auto lw = engine_.low_water())
      last_ = ReplayState{lw->file, lw->end_pos, lw->gtid, identity_, started_at_};
  }
  void set_progress(std::function<void(const UnitInfo&)> fn) { progress_ = std::move(fn); }
  // The target's GTIDs when the replay started (MariaDB), and whether this run resumes one.
  void set_start(std::optional<std::string> gtids_at_start, bool resumed) {
    gtids_at_start_ = std::move(gtids_at_start);
    resume_prefix_ = resumed;
  }
  // XA units a resumed run left out: the target had them (see mark_in_doubt).
  std::uint64_t resumed_skips() const { return resumed_skips_; }
  // The inputs' names in messages, by display name.
  void set_paths(const std::vector<InputFile>& inputs) {
    for (const InputFile& in : inputs) paths_[in.display_name] = error_name(in);
  }

  // ---- WalkConsumer ----
  void observe(const binlog::Event& ev) override { sink_.observe(ev); }
  void begin_unit(const UnitInfo& u, const binlog::FormatContext& ctx) override {
    unit_ = u;
    file_ = *u.file;
    skipping_ = u.kind == UnitKind::kTransaction && skip_.count({file_, u.first_pos}) != 0;
    if (skipping_) return;
    verbatim_ = ctas_ = schema_may_change_ = xa_ = false;
    format_unit_ = false;
    maria_gtid_ = false;
    if (keys_wanted_) scheduler_.begin_unit(file_);
    sink_.begin_unit(u, ctx);
  }
  void event(const binlog::Event& ev, std::uint8_t marks,
             const binlog::FormatContext& ctx) override {
    if (skipping_) return;
    ++events_;
    const binlog::EventType t = ev.type();
    if (t == binlog::EventType::kFormatDescription || t == binlog::EventType::kStartV3)
      format_unit_ = true;
    if (const auto* q = std::get_if<binlog::Query>(&ev.body)) {
      if (is_atomic_ctas(ev)) ctas_ = true;
      if (q->compressed || !is_transaction_control(q->query)) schema_may_change_ = true;
      // (SAVEPOINT, ROLLBACK TO, RELEASE SAVEPOINT change no row of their own: a transaction
      // of row events with them goes by its write set like any other; each one made a
      // SAVEPOINT-heavy log's units barriers, --parallel 8 slower than serial)
      const bool savepoint = starts_with_keyword(q->query, "SAVEPOINT") ||
                             starts_with_keyword(q->query, "RELEASE") ||
                             starts_with_keyword(q->query, "ROLLBACK");
      const bool xa = starts_with_keyword(q->query, "XA");
      if (xa) xa_ = true;  // (alone, or to the workers as an XA unit: submit_xa)
      if (q->compressed ||
          !(xa || is_begin(q->query) || is_commit_or_rollback(q->query) || savepoint))
        verbatim_ = true;
    } else if (t == binlog::EventType::kUserVar || t == binlog::EventType::kIntvar ||
               t == binlog::EventType::kRand) {
      verbatim_ = true;
    } else if (const auto* mg = std::get_if<binlog::MariaGtid>(&ev.body)) {
      maria_gtid_ = true;
      maria_ = MariaUnit{mg->domain_id, ev.header.server_id, mg->seq_no, mg->flags};
    }
    if (keys_wanted_) scheduler_.add(ev, ctx);
    sink_.event(ev, marks, ctx);
    if (!load_folder_known_ && !sink_.load_dir().empty()) {
      load_folder_.set(sink_.load_dir());  // (the sessions may read files from it now)
      load_folder_known_ = true;
    }
  }
  void end_unit(const UnitInfo& u) override {
    if (skipping_) {
      skipping_ = false;
      return;
    }
    sink_.end_unit(u);
  }
  void abort_unit(const UnitInfo& u) override {
    if (skipping_) return;
    sink_.abort_unit(u);
    if (direct_open_) {
      engine_.abort_direct();
      direct_open_ = false;
    }
  }
  void left_out(const UnitInfo& u, LeftOut why) override { sink_.left_out(u, why); }
  bool wants_gtid() const override { return true; }

 private:
  enum class Mode : std::uint8_t { kHeader, kUnits, kFooter };

  SqlOptions prepare(SqlOptions sql) {
    Session& s = engine_.first_session();
    // Row events of one statement that together pass the server's max_allowed_packet go in
    // several BINLOG statements (a MariaDB target takes one row too large even for that as
    // two fragments, see Applier). (never more than the default: memory stays that of one
    // statement of at most 16 MiB)
    const std::uint64_t map = s.max_allowed_packet();
    const std::size_t limit = map > 64 ? static_cast<std::size_t>(map - 64) : 0;
    sql.max_binlog_statement = std::min(limit, sql.max_binlog_statement);
    sql.apply = true;                  // statements marked as written, no comments
    sql.target_mariadb = s.mariadb();  // a MySQL log into MariaDB: no GTID_NEXT etc.
    // Several sessions, or units left out on resume: each unit sets the session it needs.
    sql.self_contained_units = engine_.workers() > 1 || !skip_.empty();
    return sql;
  }

  // The SQL of a unit (or of a piece of one too large to hold) is ready.
  void on_text(std::string_view text, const std::vector<Output::Statement>& statements) {
    if (mode_ == Mode::kFooter) return;
    if (mode_ == Mode::kHeader) {
      header_ = Prelude{std::string(text), statements};
      engine_.set_prelude(std::make_shared<Prelude>(header_));
      return;
    }
    if (!in_hook_) {  // a piece of a unit too large to hold: applied as it comes
      if (!direct_open_) (void)open_direct(true);
      engine_.direct_piece(text, statements, true);
      return;
    }
    if (unit_.kind == UnitKind::kMeta) {
      if (statements.empty()) return;
      if (format_unit_) {
        flush_held();  // (those held go with the format description they were read with)
        // The format description every later BINLOG statement needs, on every session.
        auto p = std::make_shared<Prelude>(header_);
        const std::size_t base = p->text.size();
        p->text.append(text);
        for (Output::Statement st : statements) {
          st.begin += base;
          st.end += base;
          p->statements.push_back(st);
        }
        engine_.set_prelude(std::move(p));
        return;
      }
      apply_direct(text, statements, false);
      return;
    }
    if (direct_open_) {  // the last piece of a unit too large to hold
      engine_.direct_piece(text, statements, true);
      close_direct();
      return;
    }
    // (where the target's GTIDs record the progress, a transaction without one is recorded
    // as a unit that is not a transaction)
    const bool transactional =
        is_transaction(text, statements) && (!by_gtids_ || !unit_.gtid.empty());
    if (xa_ && submit_xa(text, statements)) return;
    const bool alone = !transactional || verbatim_ || xa_ || ctas_ ||
                       (parallel_ && scheduler_.write_set().barrier);
    if (alone) {
      apply_direct(text, statements, transactional);
      return;
    }
    resume_prefix_ = false;
    if (opts_.merge_transactions > 1) {
      hold(text, statements);
      return;
    }
    ApplyTask task;
    task.text.assign(text);
    task.statements = statements;
    task.place = place();
    task.prelude = engine_.prelude();
    if (parallel_) scheduler_.schedule(task);
    engine_.submit(std::move(task));
  }

  // ---- XA units on the workers ----

  // An XA unit (XA START ... XA PREPARE, or the XA COMMIT/ROLLBACK of one handed to the
  // workers before) goes to the workers when the commit order is kept and its GTID tells
  // whether it ran (mark_in_doubt: it needs no mark before it nor a state after it): its last
  // statement is its commit, sent in its turn, so every unit before it has committed when it
  // prepares or commits, as alone. (Applied alone, each one waited for every unit before it
  // and held up every one after it: a log with a third of its units XA was replayed slower by
  // --parallel 8 than serially.) The XA COMMIT/ROLLBACK has the write set of its XA PREPARE:
  // the rows stay locked until it commits, so later units on them wait for it. Returns false
  // for a unit applied alone.
  bool submit_xa(std::string_view text, const std::vector<Output::Statement>& statements) {
    const bool prepare = (maria_.flags & binlog::MariaGtid::kPreparedXa) != 0;
    const bool complete = (maria_.flags & binlog::MariaGtid::kCompletedXa) != 0;
    if (!parallel_ || !engine_.ordered() || opts_.merge_transactions > 1 || verbatim_ || ctas_ ||
        !maria_gtid_ || prepare == complete || resume_prefix_ || scheduler_.write_set().barrier)
      return false;
    std::optional<std::string_view> started;
    std::string_view last;
    for (const Output::Statement& st : statements) {
      if (st.kind != Output::Statement::Kind::kSql) continue;
      last = trim_query(text.substr(st.begin, st.end - st.begin));
      if (auto xid = xa_xid(last, "START")) started = xid;
    }
    const auto prepared = xa_xid(last, "PREPARE");
    std::optional<std::string_view> ended = xa_xid(last, "COMMIT");
    if (!ended) ended = xa_xid(last, "ROLLBACK");
    if (prepare ? !(started && prepared && *prepared == *started) : (started || !ended))
      return false;
    const auto it = complete ? prepared_.find(std::string(*ended)) : prepared_.end();
    if (complete && it == prepared_.end()) return false;
    if (!new_since_start(unit_.gtid) || !target_logs_gtid(unit_.gtid)) return false;
    ApplyTask task;
    task.text.assign(text);
    task.statements = statements;
    task.place = place();
    task.prelude = engine_.prelude();
    task.xa = true;
    if (prepare) {
      task.xa_xid.assign(*started);
      scheduler_.schedule(task);
      // (bounded: the XA COMMIT of one not kept is applied alone)
      if (prepared_.size() < kMaxPreparedXa)
        prepared_[task.xa_xid] = PreparedXa{engine_.next_seq(), scheduler_.write_set()};
    } else {
      scheduler_.schedule_group(task, it->second.writes);
      task.deps.push_back(it->second.seq);
      prepared_.erase(it);
    }
    engine_.submit(std::move(task));
    return true;
  }

  // The xid of `XA <verb> xid` (trimmed), or nullopt for another statement.
  static std::optional<std::string_view> xa_xid(std::string_view stmt, std::string_view verb) {
    if (!starts_with_keyword(stmt, "XA")) return std::nullopt;
    const std::string_view rest = trim_query(stmt.substr(2));
    if (!starts_with_keyword(rest, verb)) return std::nullopt;
    const std::string_view xid = trim_query(rest.substr(verb.size()));
    if (xid.empty()) return std::nullopt;
    return xid;
  }

  // ---- --merge-transactions: consecutive small transactions applied as one ----

  std::optional<MariaUnit> maria() const {
    return maria_gtid_ ? std::optional<MariaUnit>(maria_) : std::nullopt;
  }

  // The unit joins the group held (which goes first when the unit cannot join it), or goes
  // on its own.
  void hold(std::string_view text, const std::vector<Output::Statement>& statements) {
    const bool can = mergeable_unit(text, statements, scheduler_.write_set().barrier, maria());
    if (!group_.empty() && (!can || !group_.fits(file_, engine_.prelude(), text.size(), maria())))
      flush_held();
    group_.append(text, statements, place(), engine_.prelude(), maria(),
                  parallel_ ? &scheduler_.write_set() : nullptr);
    if (!can || group_.units() >= opts_.merge_transactions) flush_held();
  }

  // The group held, as one transaction (MergeGroup::take), handed to the engine.
  void flush_held() {
    if (group_.empty()) return;
    const std::size_t units = group_.units();
    WriteSet ws;
    ApplyTask task = group_.take(ws);
    if (units > 1) {
      ++merged_groups_;
      merged_units_ += units;
    }
    if (parallel_) scheduler_.schedule_group(task, ws);
    engine_.submit(std::move(task));
  }

  UnitPlace place() const {
    const auto it = paths_.find(file_);
    return UnitPlace{file_, it != paths_.end() ? it->second : file_, unit_.first_pos, unit_.end_pos,
                     unit_.gtid};
  }

  // A BEGIN ... COMMIT of the writer's own: the progress row can ride on it.
  static bool is_transaction(std::string_view text,
                             const std::vector<Output::Statement>& statements) {
    bool begin = false;
    const Output::Statement* last = nullptr;
    for (const Output::Statement& st : statements) {
      if (st.kind != Output::Statement::Kind::kSql) continue;
      const std::string_view s = text.substr(st.begin, st.end - st.begin);
      if (!begin && !st.verbatim && is_plain_begin(s)) begin = true;
      last = &st;
    }
    return begin && last != nullptr && !last->verbatim &&
           is_commit(text.substr(last->begin, last->end - last->begin));
  }

  // (false: the unit is left out, see mark_in_doubt)
  bool open_direct(bool transactional) {
    flush_held();
    engine_.drain();
    ++barriers_;
    direct_seq_ = engine_.next_seq();
    direct_transactional_ = transactional;
    in_doubt_marked_ = told_by_gtid_ = false;
    const bool apply = transactional || mark_in_doubt();
    engine_.begin_direct(place());
    direct_open_ = true;
    if (apply) resume_prefix_ = false;
    return apply;
  }
  void close_direct() {
    engine_.end_direct();
    direct_open_ = false;
    scheduler_.barrier(direct_seq_);
    // A DDL may have changed any table's keys. (Not a unit whose statements are only
    // transaction control, SAVEPOINT or XA with row events: reading every table's keys again
    // after each of those made a parallel replay of a SAVEPOINT-heavy log several times slower
    // than serial.)
    if (schema_may_change_) scheduler_.tables_changed();
    update_last();
    if (!told_by_gtid_ && (in_doubt_marked_ || !direct_transactional_)) write_state(true);
    in_doubt_marked_ = told_by_gtid_ = false;
  }
  void apply_direct(std::string_view text, const std::vector<Output::Statement>& statements,
                    bool transactional) {
    if (open_direct(transactional)) engine_.direct_piece(text, statements, transactional);
    close_direct();
  }

  // Not a transaction (DDL, XA, a statement outside BEGIN ... COMMIT): its outcome cannot
  // ride on a COMMIT, so the state file says it is in doubt before it runs. Returns false for
  // a unit to leave out: one at the start of a resumed run that the target has already (below).
  bool mark_in_doubt() {
    update_last();
    ReplayState doubt{file_, unit_.first_pos, "", identity_, started_at_};
    if (last_ && last_->file == file_) doubt = *last_;
    doubt.server_started = started_at_;
    doubt.in_doubt_begin = unit_.first_pos;
    doubt.in_doubt_end = unit_.end_pos;
    const bool xa =
        maria_gtid_ &&
        (maria_.flags & (binlog::MariaGtid::kPreparedXa | binlog::MariaGtid::kCompletedXa)) != 0;
    const bool since_start = xa && new_since_start(unit_.gtid);
    // (past a resumed run's start the target cannot have it yet: not asked, three round trips
    // per XA unit)
    if (since_start && !resume_prefix_ && target_logs_gtid(unit_.gtid)) {
      told_by_gtid_ = true;
      return true;
    }
    // Its GTID settles it on resume only if the target does not have it yet. (A target that
    // cannot be asked fails the replay here, before the unit is marked or sent.)
    const std::optional<bool> has =
        target_has_gtid(session_, unit_.gtid, opts_.gtids, sql_.disable_log_bin);
    // An XA unit (XA PREPARE, XA COMMIT/ROLLBACK) later than the target's GTIDs when the replay
    // started is not marked: its GTID says whether it ran. A resumed run leaves out the XA units
    // at its start (before it applies anything) that the target has, and a crash of the
    // machine cannot lose what is not written. (MariaDB logs an XA PREPARE's GTID with it and
    // recovers the prepared transactions its binary log has, also after a crash.) A durable
    // mark before and a state after each one made an XA-heavy log 1.6 times as slow as
    // mariadb-binlog | mariadb: a disk sync or a rename costs more than the unit.
    if (since_start && has == true && resume_prefix_) {
      ++resumed_skips_;
      return false;
    }
    if (since_start && has == false) {
      told_by_gtid_ = true;
      return true;
    }
    if (has == false) doubt.in_doubt_gtid = unit_.gtid;
    if (session_.mariadb()) doubt.in_doubt_binlog = current_binlog(session_);
    store_.write(doubt, true);
    in_doubt_marked_ = true;
    return true;
  }

  // Whether the target's binary log keeps a MariaDB GTID (D-S-N) that this replay applies:
  // target_has_gtid can tell then. (The target's log_bin and server_id, asked once.)
  bool target_logs_gtid(const std::string& gtid) {
    if (opts_.gtids == GtidMode::kStrip || gtid.empty() || !session_.mariadb() ||
        sql_.disable_log_bin || gtid.find(':') != std::string::npos)
      return false;
    if (!target_log_bin_) {
      target_log_bin_ = session_.value("SELECT @@GLOBAL.log_bin").value_or("0") == "1";
      target_server_id_ = session_.value("SELECT @@GLOBAL.server_id").value_or("");
    }
    const auto d1 = gtid.find('-'), d2 = gtid.find('-', d1 + 1);
    if (d1 == std::string::npos || d2 == std::string::npos) return false;
    return *target_log_bin_ && gtid.substr(d1 + 1, d2 - d1 - 1) != target_server_id_;
  }

  // Whether a MariaDB GTID (D-S-N) is later than the target's entry for D-S when the replay
  // started (false when that is not known).
  bool new_since_start(const std::string& gtid) const {
    if (!gtids_at_start_ || gtid.find(':') != std::string::npos) return false;
    const auto d1 = gtid.find('-'), d2 = gtid.find('-', d1 + 1);
    if (d1 == std::string::npos || d2 == std::string::npos) return false;
    const std::string prefix = gtid.substr(0, d2 + 1);
    const std::uint64_t seq = std::strtoull(gtid.c_str() + d2 + 1, nullptr, 10);
    const std::string& state = *gtids_at_start_;
    for (std::size_t from = 0; from < state.size();) {
      std::size_t comma = state.find(',', from);
      if (comma == std::string::npos) comma = state.size();
      const std::string_view e = std::string_view(state).substr(from, comma - from);
      from = comma + 1;
      if (e.size() > prefix.size() && e.substr(0, prefix.size()) == prefix)
        return seq > std::strtoull(std::string(e.substr(prefix.size())).c_str(), nullptr, 10);
    }
    return true;
  }

 public:
  // The state file, for reading (or durably).
  void write_state(bool durable) {
    update_last();
    if (!last_) return;
    store_.write(*last_, durable);
    last_state_write_ = std::chrono::steady_clock::now();
  }
  bool in_doubt() const { return in_doubt_marked_; }

 private:
  void unit_written(const UnitInfo& u) {
    in_hook_ = true;
    try {
      out_.flush();
    } catch (Error& e) {
      in_hook_ = false;
      if (!e.has_offset()) e.with_offset(u.first_pos);
      throw;
    }
    in_hook_ = false;
    // (where the workers keep the state file after each commit, they alone write it)
    const auto now = std::chrono::steady_clock::now();
    if (!workers_write_state_ && now - last_state_write_ >= std::chrono::seconds(1))
      write_state(false);
    if (progress_) progress_(u);
  }

  const ReplayOptions& opts_;
  StateStore& store_;
  Session& session_;
  std::string identity_;
  std::uint64_t started_at_ = 0;      // when the target started (state file)
  bool by_gtids_ = false;             // the target's GTIDs record the progress
  bool workers_write_state_ = false;  // no progress rows: the state file after each commit
  std::vector<std::pair<std::string, std::string>> rewrites_;
  SharedFolder load_folder_;  // the SQL writer's LOAD files: what the target may read
  bool load_folder_known_ = false;
  ApplyEngine engine_;
  UnitScheduler scheduler_;  // (parallel or merging: what each unit waits for)
  std::set<std::pair<std::string, std::uint64_t>> skip_;
  Output out_;
  SqlOptions sql_;
  SqlSink sink_;
  bool parallel_ = false;
  bool keys_wanted_ = false;  // the write set builder runs (parallel or merging)
  Mode mode_ = Mode::kUnits;
  Prelude header_;
  UnitInfo unit_;
  std::string file_;
  bool skipping_ = false, verbatim_ = false, ctas_ = false, format_unit_ = false;
  bool schema_may_change_ = false;  // the unit has a statement that is not transaction control
  bool maria_gtid_ = false;
  MariaUnit maria_;  // the unit's MariaDB GTID (when maria_gtid_)
  bool xa_ = false;  // the unit has XA statements (submit_xa)
  struct PreparedXa {
    std::uint64_t seq = 0;  // the XA PREPARE unit's
    WriteSet writes;
  };
  static constexpr std::size_t kMaxPreparedXa = 4096;
  std::unordered_map<std::string, PreparedXa> prepared_;  // handed to the workers, by xid
  MergeGroup group_;                                      // --merge-transactions: the units held
  std::uint64_t merged_groups_ = 0, merged_units_ = 0;
  bool in_hook_ = false;
  bool direct_open_ = false, direct_transactional_ = false, in_doubt_marked_ = false;
  bool told_by_gtid_ = false;  // the unit that is not a transaction is not marked (mark_in_doubt)
  std::optional<std::string> gtids_at_start_;  // StateStore::keep_target_gtids_at_start
  bool resume_prefix_ = false;                 // a resumed run that has applied nothing yet
  std::optional<bool> target_log_bin_;         // target_logs_gtid
  std::string target_server_id_;
  std::uint64_t resumed_skips_ = 0;
  std::uint64_t direct_seq_ = 0;
  std::uint64_t barriers_ = 0, events_ = 0;
  std::optional<ReplayState> last_;
  std::chrono::steady_clock::time_point last_state_write_ = std::chrono::steady_clock::now();
  std::function<void(const UnitInfo&)> progress_;
  std::unordered_map<std::string, std::string> paths_;
};

// Option combinations the target cannot honour, refused before anything is written.
void refuse_combinations(const ReplayOptions& opts, const SqlOptions& sql, Session& session,
                         bool target_gtids) {
  if (opts.idempotent) {  // (before anything is written: refused, nothing to resume)
    if (session.mariadb())
      throw Error(ErrorCode::kUsage,
                  "--idempotent: " + session.where() +
                      " is MariaDB, which has no session rbr_exec_mode (its slave_exec_mode is "
                      "for replication threads only)");
    if (sql.rows_as_sql)
      throw Error(ErrorCode::kUsage,
                  "--idempotent applies to row events, not the plain statements of --rows-as-sql");
  }
  if (opts.merge_transactions > 1 && target_gtids)
    throw Error(ErrorCode::kUsage,
                "--merge-transactions: " + session.where() +
                    " keeps each transaction's GTID (gtid_mode=ON), and a transaction made of "
                    "several would keep only one: give --gtids=strip to merge them under new "
                    "GTIDs");
  if (opts.merge_transactions > 1 && opts.parallel > 1 && !opts.preserve_commit_order)
    throw Error(ErrorCode::kUsage,
                "--merge-transactions needs the commit order (not --no-preserve-commit-order)");
}

// One replay per state file (`key`: this machine and its full path), also from another machine:
// a lock the control session holds for the whole run. Each worker's session holds one of its
// own too: a session of an earlier run that the target still runs (a statement in flight when
// that run was killed goes on until it ends) is waited for, so that what it does is seen before
// anything is read. Returns the lock's name.
std::string take_run_locks(Session& session, const std::string& key,
                           const std::string& state_file) {
  const std::string lock_name =
      "binrecover:" + std::to_string(std::hash<std::string>{}(key)&0xffffffffffffULL);
  if (session.value("SELECT GET_LOCK(" + hex_literal(lock_name) + ", 0)").value_or("0") != "1")
    throw Error(ErrorCode::kUsage, "another binrecover replay holds the state of " + state_file +
                                       " on " + session.where() + ": one replay per state file");
  for (int w = 0; w < 64; ++w) {
    const std::string name = hex_literal(lock_name + ":w" + std::to_string(w));
    if (session.value("SELECT GET_LOCK(" + name + ", 120)").value_or("0") != "1")
      throw Error(ErrorCode::kServer, "a session of an earlier replay with the state file " +
                                          state_file + " is still applying on " + session.where() +
                                          " after 2 minutes: look at its "
                                          "process list");
    session.execute("DO RELEASE_LOCK(" + name + ")");
  }
  return lock_name;
}

// When the target started (seconds; 0: unknown): a unit in doubt across a restart of the target
// is not settled by MariaDB's GTIDs (its DDL recovery may complete a DDL without logging its
// GTID).
std::uint64_t target_started_at(Session& session) {
  // (Uptime is the statement's start less the server's start, in whole seconds: in the same
  // statement as UNIX_TIMESTAMP() the difference is the server's start exactly.)
  std::uint64_t started_at = 0;
  if (const auto v = session.value(
          std::string("SELECT UNIX_TIMESTAMP() - CAST(VARIABLE_VALUE AS SIGNED) FROM ") +
          (session.mariadb() ? "information_schema.GLOBAL_STATUS"
                             : "performance_schema.global_status") +
          " WHERE VARIABLE_NAME = 'Uptime'"))
    started_at = std::strtoull(v->c_str(), nullptr, 10);
  return started_at;
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
                    " (not a transaction) was being applied when the replay stopped, and the "
                    "target's GTIDs cannot tell whether it has it: look, then resume with "
                    "--in-doubt=applied or --in-doubt=not-applied");
  if (!known) applied = opts.in_doubt == InDoubt::kApplied;
  if (warn)
    warn("--resume: the statement at " + prior.file + ":" + std::to_string(prior.in_doubt_begin) +
         " was being applied when the replay stopped; " +
         (applied ? "the target has it, going on after it"
                  : "the target does not have it, applying it"));
  return applied ? prior.in_doubt_end : prior.in_doubt_begin;
}

// This replay's name on the target: this machine and the state file's full path.
std::string replay_key(const ReplayOptions& opts) {
  std::error_code ec;
  const std::filesystem::path abs = std::filesystem::absolute(opts.state_file, ec);
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  return std::string(host) + ":" + abs.lexically_normal().string();
}

// What a --resume continues from, and what it reads then.
struct Resume {
  const ReplayOptions& opts;
  const SqlOptions& sql;
  const std::string& identity;
  std::uint64_t started_at = 0;
  bool by_gtids = false;
};

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

// The progress line and the stop signals, at each unit handed out (and the test-only pause).
class UnitProgress {
 public:
  UnitProgress(const std::vector<InputFile>& inputs, std::uint64_t skipped,
               const ReplayProgressFn& progress, Replayer& replay, Session& session)
      : inputs_(inputs),
        skipped_(skipped),
        progress_(progress),
        replay_(replay),
        session_(session) {
    sizes_ = input_sizes(inputs, total_);
    total_ = total_ > skipped ? total_ - skipped : 0;
  }
  void operator()(const UnitInfo& u) {
    if (progress_) {
      const std::string& file = *u.file;
      while (current_ + 1 < inputs_.size() && inputs_[current_].display_name != file) {
        done_before_ += sizes_[current_];
        ++current_;
      }
      const std::uint64_t at = done_before_ + u.end_pos;
      progress_(ReplayProgress{file, u.end_pos, replay_.events(), replay_.engine().committed(),
                               at > skipped_ ? at - skipped_ : std::uint64_t{0}, total_,
                               replay_.engine().workers(), replay_.engine().busy(), 0, false});
    }
    if (test_pause_after_units() != 0 && ++units_handed_ == test_pause_after_units()) {
      // (test_pause.h: what was handed out is applied, then nothing more until a signal; the
      // target is asked after it every 50 ms, so its loss ends the run as it would)
      replay_.engine().drain();
      announce_test_pause("applied");
      while (stop_signal() == 0) {
        (void)session_.value("SELECT 1");
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    }
    if (const int sig = stop_signal(); sig != 0)
      throw Error(ErrorCode::kInterrupted,
                  std::string("stopped by ") + (sig == SIGINT ? "SIGINT" : "SIGTERM"));
  }

 private:
  const std::vector<InputFile>& inputs_;
  std::uint64_t skipped_;
  const ReplayProgressFn& progress_;
  Replayer& replay_;
  Session& session_;
  std::vector<std::uint64_t> sizes_;
  std::uint64_t total_ = 0;
  std::size_t current_ = 0;
  std::uint64_t done_before_ = 0;
  std::uint64_t units_handed_ = 0;
};

// The engine's sessions: how many, their lock and settings, the commit order, and where the
// progress goes (the progress table `table`, the target's GTIDs, or the state file after every
// commit).
EngineOptions engine_options(const ReplayOptions& opts, Session& session,
                             const std::string& lock_name, const std::string& table,
                             const std::string& key_literal, bool by_gtids, StateStore& store,
                             const Resume& r) {
  EngineOptions eo;
  eo.workers = std::max<std::size_t>(1, opts.parallel);
  eo.session_lock = lock_name;
  if (opts.idempotent) {
    eo.session_statements.emplace_back("SET SESSION rbr_exec_mode = IDEMPOTENT");
    session.execute(eo.session_statements.back());
  }
  eo.preserve_commit_order = opts.preserve_commit_order;
  if (!table.empty()) {
    eo.progress_table = table;
    eo.run_key = key_literal;
  } else if (!by_gtids) {
    // No progress rows: the state file after every commit, durably, in commit order.
    eo.preserve_commit_order = true;
    eo.on_commit = [&store, identity = r.identity, started_at = r.started_at](const UnitPlace& p) {
      store.write(ReplayState{p.file, p.end_pos, p.gtid, identity, started_at}, true);
    };
  }
  return eo;
}

// A stop (an error, a signal): what committed before it kept, the state file written (unless a
// unit stays in doubt), and the error said again with where to --resume.
[[noreturn]] void stop_with_state(const Error& e, Replayer& replay, StateStore& store,
                                  const std::vector<InputFile>& inputs, const FilterOptions& filter,
                                  const Resume& r) {
  try {
    replay.engine().drain();  // (the workers finish or roll back what they hold)
  } catch (const Error&) {
  }
  replay.update_last();
  if (!replay.sink().load_dir().empty() && r.sql.local_load_dir.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(replay.sink().load_dir(), ec);
  }
  std::optional<ReplayState> last = replay.last();
  if (!last && !inputs.empty() &&
      (e.code() == ErrorCode::kServer || e.code() == ErrorCode::kInterrupted)) {
    // Nothing committed yet: the run's own start is where to resume.
    last = ReplayState{inputs.front().display_name, filter.start_position.value_or(4), "",
                       r.identity, r.started_at};
  }
  // A unit in doubt stays so when the connection was lost while it ran; a statement the
  // server refused was not applied.
  const bool lost =
      is_server_error(e, 2013) || is_server_error(e, 2006) || is_server_error(e, 2055);
  const bool keep_doubt = replay.in_doubt() && e.code() == ErrorCode::kServer && lost;
  std::string where = "; nothing was applied";
  if (last) {
    if (!keep_doubt) store.write(*last, true);
    const bool unordered = r.opts.parallel > 1 && !r.opts.preserve_commit_order;
    where = "; the last transaction applied ends at " + coordinates(*last) +
            (unordered ? " (and the progress rows name those committed after it)" : "") +
            (e.code() == ErrorCode::kInterrupted ? ": continue there with --resume"
                                                 : ": fix the cause, then continue there with "
                                                   "--resume") +
            " (state in " + r.opts.state_file + ")";
  }
  throw e.extended(where);
}

}  // namespace

ReplayResult run_replay(std::vector<InputFile> inputs, DecodeOptions decode, FilterOptions filter,
                        SqlOptions sql, const ReplayOptions& opts, const ConnectionOptions& conn,
                        Session& session, const binlog::WarningSink& warn,
                        const ReplayProgressFn& progress, Schema* schema) {
  const auto started = std::chrono::steady_clock::now();
  ReplayResult result;
  const StopSignals signals;  // (from the start: a stop before the first unit is honoured there)
  const StateLock lock(opts.state_file);
  const std::string identity = server_identity(session);
  StateStore store(opts.state_file);
  std::optional<ReplayState> prior = store.read();
  if (!prior) store.reset();

  // What records the progress exactly (docs/usage.md, "Replay"): a MySQL target's own GTIDs
  // when it has gtid_mode=ON and they are kept (gtid_executed is an exact set, committed with
  // each transaction; nothing else is written to the target); else the progress table,
  // written inside each transaction. (MariaDB's GTIDs cannot serve: gtid_binlog_pos keeps only
  // the last sequence number per domain and server id, and a restored copy that has the
  // source's server id logs its own transactions under the source's GTIDs.)
  const bool no_log_bin =
      sql.disable_log_bin || session.value("SELECT @@GLOBAL.log_bin").value_or("0") != "1";
  // (MariaDB: the target's GTIDs now, kept by every state of the replay: an XA unit later than
  // them that the target has was applied by this replay, see Replayer::mark_in_doubt)
  std::optional<std::string> gtids_at_start;
  if (prior)
    gtids_at_start = prior->target_gtids_at_start;
  else if (!opts.resume && session.mariadb() && !no_log_bin && opts.gtids != GtidMode::kStrip)
    gtids_at_start = session.value("SELECT @@GLOBAL.gtid_binlog_state").value_or("");
  store.keep_target_gtids_at_start(gtids_at_start);
  const bool target_gtids = opts.gtids != GtidMode::kStrip && !session.mariadb() &&
                            session.value("SELECT @@GLOBAL.gtid_mode").value_or("") == "ON";
  refuse_combinations(opts, sql, session, target_gtids);
  const bool by_gtids = opts.progress_table == "auto" && target_gtids;
  const bool use_table = !opts.progress_table.empty() && !by_gtids;
  std::string table;
  ProgressRows rows;
  const std::string key = replay_key(opts);
  const std::string key_literal = hex_literal(key);
  const std::string lock_name = take_run_locks(session, key, opts.state_file);
  const std::uint64_t started_at = target_started_at(session);
  leave_out_progress(opts.progress_table, filter);
  if (use_table) {
    // The table is binlogged where its rows are (replicas of the target then have it too).
    if (no_log_bin) session.execute("SET SESSION sql_log_bin = 0");
    table = progress_table(session, opts.progress_table == "auto" ? "binrecover.replay_progress"
                                                                  : opts.progress_table);
    rows = read_progress(session, table, key_literal, inputs, identity);
  }

  const Resume r{opts, sql, identity, started_at, by_gtids};
  std::set<std::pair<std::string, std::uint64_t>> skip;
  if (opts.resume)
    skip = resume(r, session, prior, rows, inputs, filter, decode, result.last, warn);
  else if (prior)
    throw Error(ErrorCode::kUsage,
                "the replay state file " + opts.state_file +
                    " exists: an earlier replay applied up to " + coordinates(*prior) +
                    ". Continue it with --resume, or remove the file to start over");
  // A new replay forgets the rows of an earlier one with the same state file (its state file
  // was removed to start over).
  if (!opts.resume && use_table && (rows.mark || !rows.applied.empty()))
    session.execute("DELETE FROM " + table + " WHERE run_key = " + key_literal);

  if (opts.gtids == GtidMode::kStrip) sql.skip_gtids = true;
  if (opts.gtids == GtidMode::kSkipApplied) add_target_gtids(session, filter.applied_gtids);

  EngineOptions eo = engine_options(opts, session, lock_name, use_table ? table : std::string(),
                                    key_literal, by_gtids, store, r);
  result.workers = eo.workers;
  Replayer replay(opts, sql, conn, session, identity, started_at, by_gtids, std::move(eo),
                  std::move(skip), store);
  if (schema != nullptr) replay.sink().set_schema(schema);
  replay.last() = result.last;
  replay.set_paths(inputs);
  replay.set_start(gtids_at_start, opts.resume && prior.has_value());
  replay.set_progress(
      UnitProgress(inputs, filter.start_position.value_or(4) - 4, progress, replay, session));

  WalkOptions wo;
  wo.decode = decode;
  wo.filter = filter;
  try {
    replay.begin();
    result.stats = walk(inputs, wo, replay, warn);
    replay.finish();
  } catch (const Error& e) {
    stop_with_state(e, replay, store, inputs, filter, r);
  }
  result.last = replay.last();
  if (result.last) store.write(*result.last, true);
  if (replay.resumed_skips() > 0 && warn)
    warn("--resume: " + std::to_string(replay.resumed_skips()) +
         " XA statement(s) where the replay continued were on the target already (their GTIDs "
         "say so): left out");
  result.transactions_applied = replay.engine().committed();
  result.events_applied = replay.events();
  result.parallel_units = replay.units_parallel();
  result.barriers = replay.barriers();
  result.held_whole = replay.held_whole();
  result.retries = replay.engine().retries();
  result.max_busy = replay.engine().max_busy();
  result.merged_transactions = replay.merged_units();
  result.merged_groups = replay.merged_groups();
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (!replay.sink().load_dir().empty() && sql.local_load_dir.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(replay.sink().load_dir(), ec);
  }
  return result;
}

}  // namespace binrecover::recovery
