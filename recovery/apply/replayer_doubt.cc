// Replayer (recovery/apply/replayer.h): the units that are not transactions (DDL, XA units,
// writes to non-transactional tables), which no progress row can ride on: told by the target's
// GTIDs where they tell, else marked in doubt in the state file before they run.
#include <cctype>
#include <cstdlib>

#include "recovery/apply/replay_target.h"
#include "recovery/apply/replayer.h"

namespace binrecover::recovery {

bool Replayer::told_by_mysql_gtid() {
  if (!by_gtids_ || unit_.gtid.find(':') == std::string::npos || sql_.disable_log_bin) return false;
  // (where the target binlogs them: an XA PREPARE's GTID is kept with the prepared transaction
  // by the binary log's crash recovery)
  if (!mysql_log_bin_) {
    try {
      mysql_log_bin_ = session_.value("SELECT @@GLOBAL.log_bin").value_or("0") == "1";
    } catch (const Error&) {
      mysql_log_bin_ = false;
    }
    // A DDL: MySQL 8.0 and later commit it with its GTID, atomically (5.7 logs it after it ran:
    // a crash between left it done without its GTID).
    const std::string& v = session_.server_version();
    mysql_atomic_ddl_ = !v.empty() && std::isdigit(static_cast<unsigned char>(v[0])) &&
                        std::strtoul(v.c_str(), nullptr, 10) >= 8;
  }
  // (a unit of several statements that are not one transaction: they go with the target's own
  // GTIDs, the unit's after them, Applier::not_one_transaction: it cannot tell how much ran)
  return *mysql_log_bin_ &&
         (xa_ ||
          (non_transactional_rows() ? one_statement() : mysql_atomic_ddl_ && statements_ <= 1));
}

bool Replayer::one_statement() const {
  if (pieces_not_one_) return false;
  if (non_transactional_rows())
    return row_statements_ <= 1 && text_size_ + 4096 < session_.max_allowed_packet();
  return statements_ <= 1 && !rows_;
}

void Replayer::failed_before_rows() {
  if (!in_doubt_marked_ || direct_transactional_ || engine_.direct_logged()) return;
  try {
    update_last();
    ReplayState st =
        last_ ? *last_ : ReplayState{file_, unit_.first_pos, "", identity_, started_at_};
    st.server_started = started_at_;
    st.target_binlog = target_binlog_;
    store_.write(st, true);
    in_doubt_marked_ = false;
  } catch (const Error&) {  // (the mark stays: --resume asks)
  }
}

bool Replayer::mysql_xa_detached() {
  if (!xa_detached_) {
    try {
      xa_detached_ = session_.value("SELECT @@GLOBAL.xa_detach_on_prepare").value_or("0") == "1";
    } catch (const Error&) {  // (before 8.0.29: a prepared XA transaction stays on its session)
      xa_detached_ = false;
    }
  }
  return *xa_detached_;
}

bool Replayer::later_in_run(const std::string& gtid) {
  const std::size_t d1 = gtid.find('-');
  const std::size_t d2 = d1 == std::string::npos ? d1 : gtid.find('-', d1 + 1);
  if (d2 == std::string::npos || gtid.find(':') != std::string::npos) return false;
  const std::uint64_t n = std::strtoull(gtid.c_str() + d2 + 1, nullptr, 10);
  std::uint64_t& top = highest_gtid_[gtid.substr(0, d2)];
  const bool later = n > top;
  top = std::max(top, n);
  return later;
}

void Replayer::told_by_gtid() {
  told_by_gtid_ = true;
  make_state();
}

void Replayer::make_state() {
  if (store_.made()) return;
  // (a run stopped before it wrote any state must be resumable where it began, with the
  // target's GTIDs at its start: they tell which of these units ran)
  update_last();
  ReplayState st = last_ ? *last_ : ReplayState{file_, unit_.first_pos, "", identity_, started_at_};
  st.server_started = started_at_;
  st.target_binlog = target_binlog_;
  store_.write(st, true);
}

bool Replayer::mark_in_doubt() {
  if (told_by_mysql_gtid()) {
    told_by_gtid();
    return true;
  }
  update_last();
  ReplayState doubt{file_, unit_.first_pos, "", identity_, started_at_};
  if (last_ && last_->file == file_) doubt = *last_;
  doubt.server_started = started_at_;
  doubt.target_binlog = target_binlog_;
  doubt.in_doubt_begin = unit_.first_pos;
  doubt.in_doubt_end = unit_.end_pos;
  const bool xa =
      maria_gtid_ &&
      (maria_.flags & (binlog::MariaGtid::kPreparedXa | binlog::MariaGtid::kCompletedXa)) != 0;
  // A MariaDB unit later than the target's GTIDs when the replay started, and than every unit
  // of this run before it, into a target that binlogs it, is not marked: its GTID, logged when
  // the unit's statement ends (also one whose client went away), says whether it ran. A
  // resumed run leaves out the units at its start (before it applies anything) that the
  // target has, and a crash of the machine cannot lose what is not written. (A durable mark
  // before and a state after each one made an XA-heavy log 1.6 times, a DDL-heavy one 1.2 times
  // and a MyISAM one 1.8 to 3 times as slow as mariadb-binlog | mariadb: a disk sync or a
  // rename costs more than the unit.) XA: MariaDB logs an XA PREPARE's GTID with it and
  // recovers the prepared transactions its binary log has, also after a crash. A DDL: its
  // crash recovery may complete one without logging its GTID, so after a restart of the target
  // its GTID cannot tell (below).
  // Where the unit is one statement on the target: a unit of several that are not one
  // transaction is logged by the target as several, the GTIDs after the first its own next
  // ones, which a later unit of the log then seems to have. (Row events go as one BINLOG
  // statement up to the server's max_allowed_packet, see Applier.)
  const bool rows = non_transactional_rows();
  const bool one = one_statement();
  const bool since_start = maria_gtid_ && (xa || (gtid_later_in_run_ && one)) &&
                           witness_.new_since_start(unit_.gtid) && witness_.target_logs(unit_.gtid);
  if (since_start && !resume_prefix_) {
    told_by_gtid();
    return true;
  }
  // (A target that cannot be asked fails the replay here, before the unit is marked or sent.)
  const std::optional<bool> has =
      target_has_gtid(session_, unit_.gtid, opts_.gtids, sql_.disable_log_bin);
  if (since_start && has == true) {
    ++resumed_skips_;
    return false;
  }
  if (since_start && has == false) {
    if (xa || rows || !target_restarted()) {
      told_by_gtid();
      return true;
    }
    // The first unit of a resumed run is a DDL the target does not have, and the target
    // started again since: it may have run it without logging its GTID. Asked, as for a DDL
    // marked in doubt (the state file names it, as then). (--in-doubt answers for this one
    // unit: those after it are not in doubt.)
    restart_answered_ = opts_.in_doubt != InDoubt::kRefuse;
    if (opts_.in_doubt == InDoubt::kApplied) {
      ++resumed_skips_;
      return false;
    }
    if (opts_.in_doubt == InDoubt::kRefuse) {
      doubt.server_started = prior_started_;
      doubt.target_binlog = doubt.in_doubt_binlog = prior_binlog_;
      store_.write(doubt, true);
      in_doubt_marked_ = refused_ = true;
      throw Error(ErrorCode::kUsage,
                  "--resume: the target started again since the replay stopped, and cannot tell "
                  "whether it ran the statement at " +
                      file_ + ":" + std::to_string(unit_.first_pos) +
                      " (not a transaction, where the replay continues: MariaDB's crash recovery "
                      "may complete a DDL without logging its GTID): look, then resume with "
                      "--in-doubt=applied or --in-doubt=not-applied");
    }
  }
  // (a unit of several statements that are not one transaction: its GTID is logged with the
  // first of them, it cannot tell whether the others ran)
  if (has == false && (xa || one)) doubt.in_doubt_gtid = unit_.gtid;
  if (session_.mariadb() && has == false) doubt.in_doubt_binlog = current_binlog(session_);
  store_.write(doubt, true);
  in_doubt_marked_ = true;
  return true;
}

bool Replayer::target_restarted() {
  if (restart_answered_) return false;
  if (prior_started_ == 0 || started_at_ == 0) return true;  // (not known: as if it had)
  if (prior_started_ != started_at_) return true;
  // (a restart in the second the target had started in: a new binary log; not known in a
  // state file written before binrecover kept it)
  return session_.mariadb() && !prior_binlog_.empty() && current_binlog(session_) != prior_binlog_;
}

}  // namespace binrecover::recovery
