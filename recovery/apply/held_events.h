#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "recovery/apply/replication_stream.h"

namespace binrecover::recovery {

// --server-applier --merge-transactions: consecutive transactions held to go out to the target
// as one. Their events are kept as records (u32 size, then the event, its position and checksum
// still to be made by the stream). A unit is held event by event (begin_unit, add) and joins
// the held ones when it ends with its Xid (end_unit); send() puts the held ones out as one
// transaction. Not thread-safe: the Feed's lock guards it.
class HeldEvents {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::size_t kGtidFlagsAt = 19 + 8 + 4;  // a GTID event's flags2

  // A unit of (server, domain, seq_no) starts being held: false when it may not join the held
  // ones (another server or domain, or a seq_no not after theirs), which are then to be sent
  // first.
  bool may_join(std::uint32_t server, std::uint32_t domain, std::uint64_t seq_no) const {
    return units_.empty() || (server == server_ && domain == domain_ && seq_no > seq_no_);
  }
  void begin_unit(std::uint32_t server, std::uint32_t domain, std::uint64_t seq_no,
                  std::uint8_t gtid_flags);
  // An event of the unit (its checksum room included).
  void add(const std::vector<std::byte>& ev);
  bool last_is_xid() const { return last_is_xid_; }
  std::size_t bytes() const { return held_.size(); }
  std::size_t units() const { return units_.size(); }
  bool empty() const { return units_.empty(); }
  Clock::time_point since() const { return since_; }
  // The unit ends with its Xid: it joins the held ones.
  void end_unit();
  // The unit being held (not joined) out on its own, then forgotten (send() first: it goes
  // after the held ones).
  void send_unit(ReplicationStream& stream);
  // The held units out as one transaction: the last one's GTID event (waited if one of them
  // waited, parallel if all may be), the events of each without GTID and Xid, the last one's
  // Xid. The target records that GTID, which covers the others (lower seq_no of the same
  // domain), in the same commit. Returns how many units went (0: none held).
  std::size_t send(ReplicationStream& stream);
  // Everything forgotten (a new connection: the held units are sent again from the log).
  void clear();

 private:
  struct Unit {
    std::size_t begin = 0, xid = 0, end = 0;  // its records in held_: the first, the Xid, the end
    std::uint8_t flags = 0;                   // its GTID event's
  };
  void send_records(ReplicationStream& stream, std::size_t from, std::size_t to);
  std::uint32_t record_size(std::size_t at) const;

  std::vector<std::byte> held_, out_;  // (out_: a held event on its way out)
  std::vector<Unit> units_;
  std::size_t unit_at_ = 0, last_at_ = 0;  // the unit's first record, and its last, in held_
  bool last_is_xid_ = false;
  std::uint8_t unit_flags_ = 0;
  std::uint32_t server_ = 0, domain_ = 0;
  std::uint64_t seq_no_ = 0;
  Clock::time_point since_;
};

}  // namespace binrecover::recovery
