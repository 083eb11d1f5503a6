#include <string_view>
#include <utility>
#include <vector>

#include "recovery/apply/apply_engine.h"  // (ApplyEngine's; its own header)
#include "recovery/server/remote_source.h"
#include "recovery/sql/sql_quote.h"

// The apply engine's direct path: a unit applied alone on the first worker's session, by the
// reading thread once every unit before it committed (DDL, statements as the log has them, a
// unit too large to hold, in pieces).

namespace binrecover::recovery {

namespace {

// A piece that waits for no row lock: DDL of tables and indexes (is_table_ddl) that names no
// foreign key (an ALTER TABLE that adds one checks the parent's rows under shared locks), with
// the writer's settings; no row events.
bool waits_for_no_row_lock(std::string_view text,
                           const std::vector<Output::Statement>& statements) {
  bool ddl = false;
  for (const Output::Statement& st : statements) {
    if (st.kind != Output::Statement::Kind::kSql) continue;
    const std::string_view s = text.substr(st.begin, st.end - st.begin);
    if (st.verbatim) {
      if (!is_table_ddl(s) || contains_ci(s, "FOREIGN") || contains_ci(s, "REFERENCES"))
        return false;
      ddl = true;
    } else if (binlog_base64(s)) {
      return false;
    }
  }
  return ddl;
}

}  // namespace

void ApplyEngine::begin_direct(const UnitPlace& place) {
  {
    std::lock_guard lock(mu_);
    throw_if_failed();
  }
  direct_ = place;
  direct_recorded_ = false;
  Worker& w = *workers_.front();
  // A unit applied alone waits for a lock of a session not ours as serial replay does (the
  // workers' short wait made a statement that met one fail at once: 1205, the replay stopped).
  // (in its first piece's first packet: a DDL log's every DDL cost two round trips more)
  // (a session left at a retry's 1 s too: waits_long stays for its next unit's short wait)
  if (opts_.workers > 1 && (!w.waits_default || w.waits_long)) {
    direct_before_ = "SET SESSION innodb_lock_wait_timeout = DEFAULT";
    w.waits_default = true;
  }
  run_prelude(w, prelude_);  // (drained: the reader's thread alone)
}

bool ApplyEngine::direct_piece(std::string_view text,
                               const std::vector<Output::Statement>& statements, bool with_progress,
                               Applier::Hooks::Piece piece) {
  Worker& w = *workers_.front();
  const std::string progress =
      with_progress && !direct_recorded_ ? progress_statement(w.index, *direct_) : std::string();
  Applier::Hooks hooks;
  hooks.after_begin = progress;
  hooks.not_one_transaction = !with_progress;
  hooks.piece = piece;
  hooks.before = std::exchange(direct_before_, {});
  // (a DDL waits for no row lock: the workers' short wait stays, two SETs less a DDL)
  if (!hooks.before.empty() && piece == Applier::Hooks::Piece::kWhole &&
      waits_for_no_row_lock(text, statements)) {
    hooks.before = {};
    w.waits_default = false;
  }
  const Applier::Outcome out = w.applier->apply(text, statements, hooks);
  if (out.after_begin_ran) direct_recorded_ = true;
  return out.after_begin_ran;
}

void ApplyEngine::end_direct() {
  if (opts_.on_commit) opts_.on_commit(*direct_);
  {
    std::lock_guard lock(mu_);
    const std::uint64_t seq = next_seq_++;
    done_above_[seq] = *direct_;
    advance_low_water();
    note_width(0, seq, nullptr, false);
  }
  ++committed_;
  direct_.reset();
  forget_direct_before();
  wake();
}

void ApplyEngine::abort_direct() {
  direct_.reset();
  forget_direct_before();
}

void ApplyEngine::forget_direct_before() {
  if (direct_before_.empty()) return;
  workers_.front()->waits_default = false;  // (no piece ran: the wait was never set)
  direct_before_ = {};
}

}  // namespace binrecover::recovery
