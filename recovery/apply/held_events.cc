#include "recovery/apply/held_events.h"

#include <algorithm>
#include <cstring>

#include "binlog/event_type.h"
#include "binlog/events.h"

namespace binrecover::recovery {

void HeldEvents::begin_unit(std::uint32_t server, std::uint32_t domain, std::uint64_t seq_no,
                            std::uint8_t gtid_flags) {
  server_ = server;
  domain_ = domain;
  seq_no_ = seq_no;
  unit_flags_ = gtid_flags;
  unit_at_ = held_.size();
}

void HeldEvents::add(const std::vector<std::byte>& ev) {
  last_at_ = held_.size();
  last_is_xid_ = ev[4] == static_cast<std::byte>(binlog::EventType::kXid);
  const auto n = static_cast<std::uint32_t>(ev.size());
  const auto* p = reinterpret_cast<const std::byte*>(&n);
  held_.insert(held_.end(), p, p + 4);
  held_.insert(held_.end(), ev.begin(), ev.end());
}

void HeldEvents::end_unit() {
  units_.push_back(Unit{unit_at_, last_at_, held_.size(), unit_flags_});
  if (units_.size() == 1) since_ = Clock::now();
}

std::uint32_t HeldEvents::record_size(std::size_t at) const {
  std::uint32_t n = 0;
  std::memcpy(&n, held_.data() + at, 4);
  return n;
}

void HeldEvents::send_records(ReplicationStream& stream, std::size_t from, std::size_t to) {
  while (from < to) {
    const std::uint32_t n = record_size(from);
    out_.assign(held_.begin() + static_cast<std::ptrdiff_t>(from + 4),
                held_.begin() + static_cast<std::ptrdiff_t>(from + 4 + n));
    stream.emit(out_);
    from += 4 + n;
  }
}

void HeldEvents::send_unit(ReplicationStream& stream) {
  stream.open();
  send_records(stream, unit_at_, held_.size());
  held_.clear();
  unit_at_ = 0;
  last_at_ = 0;
}

std::size_t HeldEvents::send(ReplicationStream& stream) {
  if (units_.empty()) return 0;
  stream.open();
  if (units_.size() == 1) {
    send_records(stream, units_[0].begin, units_[0].end);
  } else {
    std::uint8_t waited = 0, parallel = binlog::MariaGtid::kAllowParallel;
    for (const Unit& u : units_) {
      waited |= u.flags & binlog::MariaGtid::kWaited;
      parallel &= u.flags;
    }
    const Unit& last = units_.back();
    const std::uint32_t n = record_size(last.begin);
    out_.assign(held_.begin() + static_cast<std::ptrdiff_t>(last.begin + 4),
                held_.begin() + static_cast<std::ptrdiff_t>(last.begin + 4 + n));
    const auto f = static_cast<std::uint8_t>(out_[kGtidFlagsAt]);
    out_[kGtidFlagsAt] = static_cast<std::byte>(
        (f & ~(binlog::MariaGtid::kWaited | binlog::MariaGtid::kAllowParallel)) | waited |
        parallel);
    stream.emit(out_);
    for (const Unit& u : units_) send_records(stream, u.begin + 4 + record_size(u.begin), u.xid);
    send_records(stream, last.xid, last.end);
  }
  const std::size_t end = units_.back().end, sent = units_.size();
  held_.erase(held_.begin(), held_.begin() + static_cast<std::ptrdiff_t>(end));
  unit_at_ -= std::min(unit_at_, end);
  last_at_ -= std::min(last_at_, end);
  units_.clear();
  return sent;
}

void HeldEvents::clear() {
  held_.clear();
  units_.clear();
  unit_at_ = 0;
  last_at_ = 0;
}

}  // namespace binrecover::recovery
