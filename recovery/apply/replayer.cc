#include "recovery/apply/replayer.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "binlog/event_type.h"
#include "recovery/apply/ddl_scope.h"
#include "recovery/apply/replay_common.h"
#include "recovery/apply/replay_target.h"
#include "recovery/apply/test_pause.h"
#include "recovery/reading/statement_dbs.h"
#include "recovery/reading/transaction.h"
#include "recovery/sql/ddl_parser.h"

namespace binrecover::recovery {

namespace {

// The target's sessions may read the LOAD files the SQL writer makes (and nothing else).
ConnectionOptions with_load_folder(ConnectionOptions conn, const SharedFolder& folder) {
  conn.local_files = folder.reader();
  return conn;
}

}  // namespace

Replayer::Replayer(const ReplayOptions& opts, SqlOptions sql, const ConnectionOptions& conn,
                   Session& session, const std::string& identity, std::uint64_t started_at,
                   bool by_gtids, EngineOptions engine_opts,
                   std::set<std::pair<std::string, std::uint64_t>> skip, StateStore& store)
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
      sink_(out_, sql_),
      witness_(session, opts.gtids != GtidMode::kStrip && !sql_.disable_log_bin),
      engines_(session) {
  parallel_ = engine_.workers() > 1;
  // (merging asks the target's tables too: only transactional ones may share a transaction)
  keys_wanted_ = parallel_ || opts_.merge_transactions > 1;
  sink_.set_unit_hook([this](const UnitInfo& u) { unit_written(u); });
}

void Replayer::begin() {
  mode_ = Mode::kHeader;
  sink_.begin();
  out_.flush();
  mode_ = Mode::kUnits;
}

void Replayer::finish() {
  flush_held();
  engine_.drain();
  mode_ = Mode::kFooter;
  sink_.finish();
  out_.flush();
  update_last();
}

void Replayer::update_last() {
  if (auto lw = engine_.low_water()) {
    last_ = ReplayState{lw->file, lw->end_pos, lw->gtid, identity_, started_at_};
    last_->target_binlog = target_binlog_;
  }
}

void Replayer::set_start(std::optional<std::string> gtids_at_start, bool resumed,
                         std::uint64_t prior_started, std::string prior_binlog) {
  witness_.set_start(std::move(gtids_at_start));
  resume_prefix_ = resumed;
  prior_started_ = prior_started;
  prior_binlog_ = std::move(prior_binlog);
  if (session_.mariadb()) target_binlog_ = current_binlog(session_);
}

void Replayer::set_paths(const std::vector<InputFile>& inputs) {
  for (const InputFile& in : inputs) paths_[in.display_name] = error_name(in);
}

void Replayer::begin_unit(const UnitInfo& u, const binlog::FormatContext& ctx) {
  unit_ = u;
  file_ = *u.file;
  gtid_later_in_run_ = later_in_run(u.gtid);
  skipping_ = u.kind == UnitKind::kTransaction && skip_.count({file_, u.first_pos}) != 0;
  if (skipping_) return;
  verbatim_ = ctas_ = schema_may_change_ = xa_ = xid_ = rows_ = false;
  target_non_trans_ = false;
  row_statements_ = 0;
  statements_ = 0;
  ddl_tables_.emplace();
  format_unit_ = false;
  maria_gtid_ = false;
  // (in parallel, the width control says whether this unit's keys are wanted: on one session
  // they are not, but for the epochs that decide whether N is tried, WidthControl::wants_keys)
  keyed_ = keys_wanted_ && (!parallel_ || opts_.merge_transactions > 1 || engine_.wants_keys());
  if (keys_wanted_) scheduler_.begin_unit(file_);
  sink_.begin_unit(u, ctx);
}

void Replayer::event(const binlog::Event& ev, std::uint8_t marks,
                     const binlog::FormatContext& ctx) {
  if (skipping_) return;
  ++events_;
  const binlog::EventType t = ev.type();
  if (t == binlog::EventType::kFormatDescription || t == binlog::EventType::kStartV3)
    format_unit_ = true;
  if (const auto* q = std::get_if<binlog::Query>(&ev.body)) {
    if (is_atomic_ctas(ev)) ctas_ = true;
    if (q->compressed || !is_transaction_control(q->query)) {
      ++statements_;
      schema_may_change_ = true;
      note_tables_changed(*q);
    }
    // (SAVEPOINT, ROLLBACK TO, RELEASE SAVEPOINT change no row of their own: a transaction
    // of row events with them goes by its write set like any other; each one made a
    // SAVEPOINT-heavy log's units barriers, --parallel 8 slower than serial)
    const bool savepoint = starts_with_keyword(q->query, "SAVEPOINT") ||
                           starts_with_keyword(q->query, "RELEASE") ||
                           starts_with_keyword(q->query, "ROLLBACK");
    const bool xa = starts_with_keyword(q->query, "XA");
    if (xa) xa_ = true;  // (alone, or to the workers as an XA unit: submit_xa)
    if (q->compressed ||
        !(xa || is_begin(q->query) || is_commit_or_rollback(q->query) || savepoint)) {
      verbatim_ = true;
      if (!target_non_trans_ && !xa && writes_non_transactional(*q)) target_non_trans_ = true;
    }
  } else if (t == binlog::EventType::kUserVar || t == binlog::EventType::kIntvar ||
             t == binlog::EventType::kRand) {
    verbatim_ = true;
  } else if (t == binlog::EventType::kXid) {
    xid_ = true;
  } else if (const auto* map = std::get_if<binlog::TableMap>(&ev.body)) {
    // (its engine on the target: a table there that is not transactional makes the unit one
    // that is not a transaction, whatever the source's engine was)
    if (!engines_.transactional(target_db(map->db), map->table)) target_non_trans_ = true;
  } else if (const auto* r = std::get_if<binlog::Rows>(&ev.body)) {
    rows_ = true;
    if ((r->flags & binlog::kStmtEndFlag) != 0) ++row_statements_;
  } else if (const auto* mg = std::get_if<binlog::MariaGtid>(&ev.body)) {
    maria_gtid_ = true;
    maria_ = MariaUnit{mg->domain_id, ev.header.server_id, mg->seq_no, mg->flags};
  }
  if (keyed_) scheduler_.add(ev, ctx);
  sink_.event(ev, marks, ctx);
  if (!load_folder_known_ && !sink_.load_dir().empty()) {
    load_folder_.set(sink_.load_dir());  // (the sessions may read files from it now)
    load_folder_known_ = true;
  }
}

std::string_view Replayer::target_db(std::string_view db) const {
  for (const auto& [from, to] : rewrites_)
    if (ddl::ieq(db, from)) return to;
  return db;
}

bool Replayer::writes_non_transactional(const binlog::Query& q) {
  if (q.compressed) return false;  // (the SQL writer refuses it: not supported yet)
  const StatementTargets st = statement_targets(q.query);
  using Action = StatementTargets::Action;
  if (st.action != Action::kInsert && st.action != Action::kUpdate &&
      st.action != Action::kDelete && st.action != Action::kLoad)
    return false;
  // (rows written where the text does not say: as if to a table that keeps them)
  if (st.kind != StatementTargets::Kind::kTables || st.overflow) return true;
  std::string db_buf, table_buf;
  for (std::uint8_t i = 0; i < st.count; ++i) {
    const std::string_view db = st.refs[i].db.empty() ? q.db : ident_name(st.refs[i].db, db_buf);
    if (db.empty()) return true;
    if (!engines_.transactional(target_db(db), ident_name(st.refs[i].table, table_buf)))
      return true;
  }
  return false;
}

void Replayer::note_tables_changed(const binlog::Query& q) {
  if (!ddl_tables_) return;
  std::optional<TableNames> named;
  if (!q.compressed) named = tables_changed_by(q.query, q.db);
  if (!named) return ddl_tables_.reset();
  for (auto& [db, table] : *named) {
    for (const auto& [from, to] : rewrites_)
      if (ddl::ieq(db, from)) ddl_tables_->emplace_back(to, table);
    ddl_tables_->emplace_back(std::move(db), std::move(table));
  }
}

void Replayer::end_unit(const UnitInfo& u) {
  if (skipping_) {
    skipping_ = false;
    return;
  }
  sink_.end_unit(u);
}

void Replayer::abort_unit(const UnitInfo& u) {
  if (skipping_) return;
  sink_.abort_unit(u);
  if (direct_open_) {
    engine_.abort_direct();
    direct_open_ = false;
  }
  pieces_not_one_ = false;
  pieces_apply_ = true;
}

SqlOptions Replayer::prepare(SqlOptions sql) {
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

void Replayer::on_text(std::string_view text, const std::vector<Output::Statement>& statements) {
  if (mode_ == Mode::kFooter) return;
  if (mode_ == Mode::kHeader) {
    header_ = Prelude{std::string(text), statements};
    engine_.set_prelude(std::make_shared<Prelude>(header_));
    return;
  }
  if (!in_hook_) {  // a piece of a unit too large to hold: applied as it comes
    Applier::Hooks::Piece piece = Applier::Hooks::Piece::kMore;
    if (!direct_open_) {
      // One the source committed without an Xid (a bulk statement on a MyISAM table, say) is
      // not a transaction: its rows stay as each of its statements ends, a progress row in it
      // could not say whether they ran. It is marked in doubt, its pieces go as statements of
      // their own (on MariaDB each with the unit's GTID, see Applier::Hooks::Piece).
      pieces_not_one_ = (!unit_.xid || target_non_trans_) && !xa_ && !verbatim_;
      pieces_apply_ = open_direct(!pieces_not_one_);
      piece = Applier::Hooks::Piece::kFirst;
    }
    if (pieces_apply_) {
      try {
        engine_.direct_piece(text, statements, !pieces_not_one_,
                             pieces_not_one_ ? piece : Applier::Hooks::Piece::kWhole);
      } catch (const Error&) {
        if (piece == Applier::Hooks::Piece::kFirst) failed_before_rows();
        throw;
      }
    }
    if (piece == Applier::Hooks::Piece::kFirst) pieces_ = 0;
    if (++pieces_ == test_pause_after_pieces()) pause_for_test();
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
    if (pieces_apply_)
      engine_.direct_piece(
          text, statements, !pieces_not_one_,
          pieces_not_one_ ? Applier::Hooks::Piece::kMore : Applier::Hooks::Piece::kWhole);
    close_direct();
    pieces_not_one_ = false;
    pieces_apply_ = true;
    return;
  }
  // (where the target's GTIDs record the progress, a transaction without one is recorded
  // as a unit that is not a transaction; so is one the source committed without an Xid, a
  // transaction of non-transactional tables: its rows stay when its COMMIT does not come, so
  // a progress row inside it could not say whether they were applied)
  const bool transactional = is_transaction(text, statements) &&
                             (!by_gtids_ || !unit_.gtid.empty()) && !non_transactional();
  if (xa_ && submit_xa(text, statements)) return;
  const bool alone =
      !transactional || verbatim_ || xa_ || ctas_ || (parallel_ && scheduler_.write_set().barrier);
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
  if (parallel_ && keyed_) scheduler_.schedule(task);
  if (parallel_ && !keyed_) scheduler_.schedule_unkeyed(task);
  engine_.submit(std::move(task));
}

bool Replayer::submit_xa(std::string_view text, const std::vector<Output::Statement>& statements) {
  if (!parallel_ || !keyed_ || !engine_.ordered() || opts_.merge_transactions > 1 || verbatim_ ||
      ctas_ || resume_prefix_ || scheduler_.write_set().barrier)
    return false;
  const std::optional<XaUnit> xa = read_xa_unit(text, statements);
  if (!xa) return false;
  if (told_by_mysql_gtid()) {
    if (!mysql_xa_detached()) return false;
  } else {
    // MariaDB: its GTID event says which XA unit it is; the target's binary log keeps it.
    const bool prepare = (maria_.flags & binlog::MariaGtid::kPreparedXa) != 0;
    const bool complete = (maria_.flags & binlog::MariaGtid::kCompletedXa) != 0;
    if (!maria_gtid_ || prepare == complete || xa->prepare != prepare) return false;
    if (!witness_.new_since_start(unit_.gtid) || !witness_.target_logs(unit_.gtid)) return false;
  }
  const bool prepare = xa->prepare;
  std::optional<PreparedXas::Prepared> prepared;
  if (!prepare && !(prepared = prepared_.take(xa->xid))) return false;
  ApplyTask task;
  task.text.assign(text);
  task.statements = statements;
  task.place = place();
  task.prelude = engine_.prelude();
  task.xa = true;
  make_state();
  if (prepare) {
    task.xa_xid = xa->xid;
    scheduler_.schedule(task);
    prepared_.add(xa->xid, engine_.next_seq(), scheduler_.write_set());
  } else {
    scheduler_.schedule_group(task, prepared->writes);
    task.deps.push_back(prepared->seq);
  }
  engine_.submit(std::move(task));
  return true;
}

std::optional<MariaUnit> Replayer::maria() const {
  return maria_gtid_ ? std::optional<MariaUnit>(maria_) : std::nullopt;
}

void Replayer::hold(std::string_view text, const std::vector<Output::Statement>& statements) {
  const bool can = mergeable_unit(text, statements, scheduler_.write_set().barrier, maria());
  if (!group_.empty() && (!can || !group_.fits(file_, engine_.prelude(), text.size(), maria())))
    flush_held();
  group_.append(text, statements, place(), engine_.prelude(), maria(),
                parallel_ ? &scheduler_.write_set() : nullptr);
  if (!can || group_.units() >= opts_.merge_transactions) flush_held();
}

void Replayer::flush_held() {
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

UnitPlace Replayer::place() const {
  const auto it = paths_.find(file_);
  return UnitPlace{file_, it != paths_.end() ? it->second : file_, unit_.first_pos, unit_.end_pos,
                   unit_.gtid};
}

bool Replayer::is_transaction(std::string_view text,
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

bool Replayer::open_direct(bool transactional) {
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

void Replayer::close_direct() {
  engine_.end_direct();
  direct_open_ = false;
  scheduler_.barrier(direct_seq_);
  // A DDL may have changed any table's keys. (Not a unit whose statements are only
  // transaction control, SAVEPOINT or XA with row events: reading every table's keys again
  // after each of those made a parallel replay of a SAVEPOINT-heavy log several times slower
  // than serial.)
  // (a DDL that adds no foreign key: only the tables it names, and those whose foreign keys
  // or cascades reach them; a log that creates and drops scratch tables between its writes
  // read every table's keys again after each of those, --parallel 8 twice serial's time)
  if (schema_may_change_ && ddl_tables_) {
    scheduler_.tables_changed(*ddl_tables_);
    engines_.forget(*ddl_tables_);
  }
  if (schema_may_change_ && !ddl_tables_) {
    scheduler_.tables_changed();
    engines_.forget_all();
  }
  update_last();
  if (!told_by_gtid_ && (in_doubt_marked_ || !direct_transactional_)) write_state(true);
  in_doubt_marked_ = told_by_gtid_ = false;
}

void Replayer::apply_direct(std::string_view text, const std::vector<Output::Statement>& statements,
                            bool transactional) {
  text_size_ = text.size();
  if (open_direct(transactional)) {
    try {
      engine_.direct_piece(text, statements, transactional);
    } catch (const Error&) {
      failed_before_rows();
      throw;
    }
  }
  close_direct();
}

// (test_pause.h) The unit part-way: nothing more until a signal or a kill.
void Replayer::pause_for_test() {
  announce_test_pause(pieces_, "pieces applied");
  wait_for_stop_signal(session_);
  throw Error(ErrorCode::kInterrupted, "stopped by a signal");
}

void Replayer::write_state(bool durable) {
  update_last();
  if (!last_) return;
  store_.write(*last_, durable);
  last_state_write_ = std::chrono::steady_clock::now();
}

void Replayer::unit_written(const UnitInfo& u) {
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
  if (!workers_write_state_ && now - last_state_write_ >= std::chrono::seconds(1)) {
    // (the target's binary log now: one it opens later tells a restart, see target_restarted)
    if (session_.mariadb()) target_binlog_ = current_binlog(session_);
    write_state(false);
  }
  if (progress_) progress_(u);
}

}  // namespace binrecover::recovery
