#include "recovery/apply/merge_group.h"

#include "binlog/event_type.h"
#include "binlog/events.h"
#include "recovery/server/apply.h"

namespace binrecover::recovery {

bool mergeable_unit(std::string_view text, const std::vector<Output::Statement>& statements,
                    bool barrier, const std::optional<MariaUnit>& maria) {
  if (text.size() > MergeGroup::kUnitBytes) return false;
  const Output::Statement* last = nullptr;
  for (const Output::Statement& st : statements) {
    if (st.event_type == static_cast<std::uint8_t>(binlog::EventType::kGtid) ||
        st.event_type == static_cast<std::uint8_t>(binlog::EventType::kAnonymousGtid) ||
        st.event_type == static_cast<std::uint8_t>(binlog::EventType::kGtidTagged))
      return false;
    if (st.kind == Output::Statement::Kind::kSql) last = &st;
  }
  if (last == nullptr || last->event_type != static_cast<std::uint8_t>(binlog::EventType::kXid))
    return false;
  if (barrier) return false;
  if (!maria) return true;
  constexpr std::uint8_t kAlone = binlog::MariaGtid::kStandalone | binlog::MariaGtid::kDdl |
                                  binlog::MariaGtid::kPreparedXa | binlog::MariaGtid::kCompletedXa;
  return (maria->flags & kAlone) == 0 && (maria->flags & binlog::MariaGtid::kTransactional) != 0;
}

bool MergeGroup::fits(const std::string& file, const std::shared_ptr<const Prelude>& prelude,
                      std::size_t bytes, const std::optional<MariaUnit>& maria) const {
  if (task_.place.file != file || task_.prelude != prelude ||
      task_.text.size() + bytes > kGroupBytes || maria_.has_value() != maria.has_value())
    return false;
  if (!maria) return true;
  return maria_->domain == maria->domain && maria_->server == maria->server &&
         maria_->seq_no < maria->seq_no &&
         ((maria_->flags ^ maria->flags) & binlog::MariaGtid::kAllowParallel) == 0;
}

void MergeGroup::append(std::string_view text, const std::vector<Output::Statement>& statements,
                        const UnitPlace& place, const std::shared_ptr<const Prelude>& prelude,
                        const std::optional<MariaUnit>& maria, const WriteSet* ws) {
  const std::uint8_t gtid_type = static_cast<std::uint8_t>(binlog::EventType::kMariaGtid);
  const bool first = units_ == 0;
  std::size_t commit_at = statements.size();
  for (std::size_t i = statements.size(); i-- > 0;)
    if (statements[i].kind == Output::Statement::Kind::kSql) {
      commit_at = i;
      break;
    }
  bool begun = first;
  for (std::size_t i = 0; i < statements.size(); ++i) {
    Output::Statement st = statements[i];
    const std::string_view t = text.substr(st.begin, st.end - st.begin);
    if (i == commit_at) {
      commit_text_.assign(t);
      commit_ = st;
      continue;
    }
    if (!first) {
      if (st.event_type == gtid_type) continue;
      if (!begun && st.kind == Output::Statement::Kind::kSql && !st.verbatim && is_plain_begin(t)) {
        begun = true;
        continue;
      }
    } else if (st.event_type == gtid_type) {
      // (where the first unit's sequence number is: the group's is the last unit's)
      if (const auto at = t.find("gtid_seq_no="); at != std::string_view::npos) {
        const auto end = t.find_first_not_of("0123456789", at + 12);
        seq_at_ = task_.text.size() + at + 12;
        seq_len_ = (end == std::string_view::npos ? t.size() : end) - (at + 12);
      }
    }
    st.begin = task_.text.size();
    task_.text.append(t);
    st.end = task_.text.size();
    task_.text.push_back('\n');
    task_.statements.push_back(st);
  }
  if (first) {
    task_.place = place;
    task_.prelude = prelude;
  } else {
    task_.place.end_pos = place.end_pos;
    task_.place.gtid = place.gtid;
  }
  maria_ = maria;
  if (ws != nullptr) {
    ws_.rows.insert(ws_.rows.end(), ws->rows.begin(), ws->rows.end());
    ws_.tables.insert(ws_.tables.end(), ws->tables.begin(), ws->tables.end());
  }
  ++units_;
}

ApplyTask MergeGroup::take(WriteSet& ws) {
  ApplyTask task = std::move(task_);
  if (units_ > 1 && maria_ && seq_at_ != std::string::npos) {
    const std::string seq = std::to_string(maria_->seq_no);
    const std::size_t at = seq_at_, was = seq_len_;
    task.text.replace(at, was, seq);
    for (Output::Statement& st : task.statements) {  // (the statements after it move)
      if (st.begin > at) st.begin = st.begin + seq.size() - was;
      if (st.end > at) st.end = st.end + seq.size() - was;
    }
  }
  commit_.begin = task.text.size();
  task.text.append(commit_text_);
  commit_.end = task.text.size();
  task.statements.push_back(commit_);
  task.units = units_;
  ws = std::move(ws_);
  task_ = ApplyTask{};
  ws_.clear();
  units_ = 0;
  seq_at_ = std::string::npos;
  maria_.reset();
  return task;
}

}  // namespace binrecover::recovery
