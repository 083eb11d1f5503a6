#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "recovery/apply/held_events.h"
#include "recovery/apply/replay_common.h"
#include "recovery/apply/replication_stream.h"
#include "recovery/apply/server_target.h"
#include "recovery/reading/walker.h"
#include "recovery/server/replication_source.h"

namespace binrecover::recovery::replica {

using Clock = std::chrono::steady_clock;

// A unit sent and not yet applied: its GTID, where it ends in its binlog, and how many bytes
// the stream had sent when it was out.
struct Sent {
  std::uint64_t bytes_end = 0;
  std::uint32_t domain = 0;
  std::uint64_t seq_no = 0;
  std::string file;
  std::uint64_t end_pos = 0;
  std::string gtid;
  std::string merged_to;  // --merge-transactions: the GTID of its group, when not its own
};

// --server-applier's consumer of the reading path: each kept unit written as events of the
// replication stream the target reads as its primary's (ReplicationStream), with heartbeats
// between units, --merge-transactions groups held (HeldEvents), and the units in flight until
// the target's gtid_slave_pos says it applied them.
class Feed : public WalkConsumer {
 public:
  Feed(ReplicationListener& listener, Monitor& monitor, const ReplayOptions& opts,
       std::uint32_t target_id, std::uint32_t stream_id, std::string identity);
  ~Feed() override;
  Feed(const Feed&) = delete;
  Feed& operator=(const Feed&) = delete;

  bool wants_gtid() const override { return true; }

  // A new dump request: a new stream file, the target's GTIDs.
  void connected(const DumpRequest& req, bool first);
  // The connection is being waited for (or the walk is over): no heartbeats.
  void pause();

  // The log's format descriptions (meta units): the stream's own is made of the first.
  void format(const binlog::Event& ev);

  void begin_unit(const UnitInfo& u, const binlog::FormatContext& /*ctx*/) override;

  void event(const binlog::Event& ev, std::uint8_t marks,
             const binlog::FormatContext& ctx) override;

  void end_unit(const UnitInfo& u) override;

  // test_pause.h: the units sent are applied by the target, then nothing more until a signal
  // (or the target's failure, which check() throws as it would).
  void pause_for_test();

  // After the walk: everything out, and applied.
  void finish();

  // What the target has applied: units confirmed since the last look; throws its error.
  void check();

  // The units the target's gtid_slave_pos says it applied (it records it inside each
  // transaction, and commits a domain's transactions in their order).
  void settle(const std::string& gtid_slave_pos);

  std::uint64_t applied() const { return applied_; }
  std::uint64_t sent() const { return sent_; }
  std::uint64_t skipped() const { return skipped_; }
  std::uint64_t merged_groups();
  std::uint64_t merged_units();
  std::size_t in_flight();
  std::uint64_t events() const { return stream_.events(); }
  const std::optional<ReplayState>& last() const { return last_; }
  void set_last(std::optional<ReplayState> s) { last_ = std::move(s); }

 private:
  // (io_mu_ held) The stream's next event (its checksum room included: buf_ unless said).
  void emit_locked() { stream_.emit(buf_); }
  bool link_up();

  // The heartbeat thread: between units, a heartbeat when nothing went out for a while (the
  // reading of a large transaction, or of a slow input, takes longer than the replica waits).
  void beat();

  // (io_mu_ held) A transaction starts in the stream (ReplicationStream::open).
  void open_locked() { stream_.open(); }

  // --merge-transactions: consecutive transactions held to go out as one (held_), each up to
  // this size.
  std::size_t held_limit() const;
  // (io_mu_ held) The unit's first event, its GTID event, says whether it may be merged: a
  // transactional DML transaction ending with its Xid (known at its end), of the domain and
  // server of those held, its seq_no after theirs, not read twice (large).
  void decide_locked(const binlog::Event& ev);

  // (io_mu_ held) The held transactions out as one (HeldEvents::send), and the units in
  // flight told where the stream was then, and which group each went in.
  void send_held_locked();

  // Waits while the stream is too far ahead of the target.
  void wait_room();

  // Nothing to send for a moment: what is gathered goes out, and a heartbeat when due.
  void idle(std::chrono::milliseconds d);

  void flush();

  ReplicationStream stream_;  // (io_mu_)
  Monitor& monitor_;
  const ReplayOptions& opts_;
  std::uint32_t target_id_;
  std::string identity_;
  std::array<std::uint8_t, 256> fde_post_headers_{};
  std::vector<std::byte> buf_;
  // (--merge-transactions, under io_mu_)
  enum class Mode : std::uint8_t { kUndecided, kDirect, kHold };
  static constexpr std::uint64_t kNotSent = ~std::uint64_t{0};  // (Sent::bytes_end)
  Mode mode_ = Mode::kUndecided;
  bool unit_streamed_ = false;
  HeldEvents held_;
  std::uint64_t merged_groups_ = 0, merged_units_ = 0;  // groups sent (again after a reconnect)
  bool sending_ = false;
  bool meta_ = false;
  bool annotate_ = true;  // the replica wants Annotate_rows events
  // The listener is used by the reading thread and the heartbeat thread: io_mu_ guards it and
  // what a heartbeat reads (stream_, between_, streaming_).
  std::mutex io_mu_;
  bool streaming_ = false;
  bool between_ = true;  // no unit half sent
  std::atomic<bool> quit_{false};
  bool strict_ = false;
  std::map<std::uint32_t, std::uint64_t> have_;  // the target's GTID position, per domain
  std::string connect_state_;
  std::deque<Sent> in_flight_;
  std::optional<ReplayState> last_;
  std::uint64_t applied_ = 0, sent_ = 0, skipped_ = 0;
  Clock::time_point last_flush_ = Clock::now(), sql_seen_ = Clock::now();
  std::chrono::milliseconds heartbeat_every_{1000};
  std::thread heartbeats_;  // (last: started when the rest is ready)
};

}  // namespace binrecover::recovery::replica
