#include "recovery/apply/server_applier.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>

#include "binlog/error.h"
#include "binlog/event_edit.h"
#include "binlog/event_type.h"
#include "recovery/apply/held_events.h"
#include "recovery/apply/replay_common.h"
#include "recovery/apply/replay_resume.h"
#include "recovery/apply/replication_stream.h"
#include "recovery/apply/server_target.h"
#include "recovery/apply/test_pause.h"
#include "recovery/server/remote_source.h"
#include "recovery/server/replication_source.h"

namespace binrecover::recovery {

namespace {

using namespace replica;  // NOLINT(google-build-using-namespace): the target's side,
                          // server_target.h
using Clock = std::chrono::steady_clock;
using binlog::EventType;

constexpr std::uint16_t kSkipReplication = 0x8000;  // LOG_EVENT_SKIP_REPLICATION_F

// A MariaDB GTID "D-S-N" as (domain, seq_no); nullopt when it is not one.
std::optional<std::pair<std::uint32_t, std::uint64_t>> maria_gtid(const std::string& g) {
  const auto d1 = g.find('-');
  const auto d2 = d1 == std::string::npos ? d1 : g.find('-', d1 + 1);
  if (d1 == std::string::npos || d2 == std::string::npos || g.find(':') != std::string::npos)
    return std::nullopt;
  return std::make_pair(static_cast<std::uint32_t>(std::strtoul(g.c_str(), nullptr, 10)),
                        std::strtoull(g.c_str() + d2 + 1, nullptr, 10));
}

// A GTID position "D-S-N,..." as the last seq_no of each domain.
std::map<std::uint32_t, std::uint64_t> domain_positions(const std::string& text) {
  std::map<std::uint32_t, std::uint64_t> out;
  std::size_t from = 0;
  while (from < text.size()) {
    std::size_t comma = text.find(',', from);
    if (comma == std::string::npos) comma = text.size();
    std::string g = text.substr(from, comma - from);
    while (!g.empty() && g.front() == ' ') g.erase(0, 1);
    if (const auto d = maria_gtid(g)) out[d->first] = std::max(out[d->first], d->second);
    from = comma + 1;
  }
  return out;
}

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

// The reading path's consumer: each kept unit as events of the stream.
class Feed : public WalkConsumer {
 public:
  Feed(ReplicationListener& listener, Monitor& monitor, const ReplayOptions& opts,
       std::uint32_t target_id, std::uint32_t stream_id, std::string identity)
      : stream_(listener, stream_id, [] { return stop_signal() != 0; }),
        monitor_(monitor),
        opts_(opts),
        target_id_(target_id),
        identity_(std::move(identity)) {
    heartbeats_ = std::thread([this] { beat(); });
  }
  ~Feed() override {
    quit_ = true;
    heartbeats_.join();
  }
  Feed(const Feed&) = delete;
  Feed& operator=(const Feed&) = delete;

  bool wants_gtid() const override { return true; }

  // A new dump request: a new stream file, the target's GTIDs.
  void connected(const DumpRequest& req, bool first) {
    const std::lock_guard<std::mutex> lock(io_mu_);
    stream_.restart();
    between_ = true;
    streaming_ = true;
    annotate_ = (req.flags & 2) != 0;
    have_ = domain_positions(req.connect_state.value_or(""));
    strict_ = first && !opts_.resume && opts_.gtids != GtidMode::kSkipApplied;
    connect_state_ = req.connect_state.value_or("");
    heartbeat_every_ = std::chrono::milliseconds(
        req.heartbeat_ns > 0 ? std::clamp<std::uint64_t>(req.heartbeat_ns / 2000000, 100, 5000)
                             : 1000);
    // (units in flight stay so: the target may still apply them from its relay log, and says
    // so in gtid_slave_pos; units held for a merge were never sent, and are sent again)
    while (!in_flight_.empty() && in_flight_.back().bytes_end == kNotSent) in_flight_.pop_back();
    held_.clear();
  }
  // The connection is being waited for (or the walk is over): no heartbeats.
  void pause() {
    const std::lock_guard<std::mutex> lock(io_mu_);
    streaming_ = false;
  }

  // The log's format descriptions (meta units): the stream's own is made of the first.
  void format(const binlog::Event& ev) {
    if (ev.header.type == static_cast<std::uint8_t>(EventType::kFormatDescription) &&
        !ev.in_payload) {
      if (!std::holds_alternative<binlog::FormatDescription>(ev.body)) return;
      const auto& fde = std::get<binlog::FormatDescription>(ev.body);
      if (!fde.context.mariadb || fde.context.server_version[0] < 10)
        throw Error(ErrorCode::kUsage,
                    "--server-applier needs a MariaDB 10.0 or later binlog (transactions with "
                    "GTIDs); this one was written by " +
                        std::string(fde.server_version))
            .with_offset(ev.pos);
      if (stream_.has_format() && fde_post_headers_ != fde.context.post_header_len)
        throw Error(ErrorCode::kUsage, "--server-applier: the binlogs are of two formats (" +
                                           std::string(fde.server_version) +
                                           " after another): replay them in two runs")
            .with_offset(ev.pos);
      stream_.set_format(std::vector<std::byte>(ev.raw.begin(), ev.raw.end()));
      fde_post_headers_ = fde.context.post_header_len;
    }
  }

  void begin_unit(const UnitInfo& u, const binlog::FormatContext& /*ctx*/) override {
    sending_ = false;
    meta_ = u.kind == UnitKind::kMeta;
    if (meta_) return;
    const auto g = maria_gtid(u.gtid);
    if (!g)
      throw Error(ErrorCode::kUsage, "--server-applier: a transaction without a MariaDB GTID (" +
                                         (u.gtid.empty() ? std::string("none") : u.gtid) +
                                         "): the target's replication needs them")
          .with_offset(u.first_pos);
    if (const auto it = have_.find(g->first); it != have_.end() && it->second >= g->second) {
      if (strict_)
        throw Error(ErrorCode::kUsage,
                    "--server-applier: the target's gtid_slave_pos (" + connect_state_ +
                        ") already has GTID " + u.gtid + " (" + *u.file + ":" +
                        std::to_string(u.first_pos) +
                        "), which it would not apply again: if the target has these "
                        "transactions, give --gtids=skip-applied; if its gtid_slave_pos comes "
                        "from elsewhere, set it to the GTID position before this one (SET "
                        "GLOBAL gtid_slave_pos = ...)");
      ++skipped_;
      return;
    }
    wait_room();
    if (const int sig = stop_signal(); sig != 0)
      throw Error(ErrorCode::kInterrupted,
                  std::string("stopped by ") + (sig == SIGINT ? "SIGINT" : "SIGTERM"));
    {
      const std::lock_guard<std::mutex> lock(io_mu_);
      between_ = false;
      mode_ = Mode::kUndecided;
      unit_streamed_ = u.streamed;
    }
    sending_ = true;
  }

  void event(const binlog::Event& ev, std::uint8_t marks,
             const binlog::FormatContext& ctx) override {
    if (meta_) format(ev);
    if (!sending_) return;
    if (ev.header.type == static_cast<std::uint8_t>(EventType::kMariaAnnotateRows) && !annotate_)
      return;  // (a replica that did not ask for them, as a server leaves them out)
    if (ev.header.server_id == target_id_)
      throw Error(ErrorCode::kUsage,
                  "--server-applier: this event carries the target's own server id " +
                      std::to_string(target_id_) +
                      ", and a replica leaves out its own events: replay without "
                      "--server-applier, or into a server with another server_id")
          .with_offset(ev.pos)
          .with_event(std::string(binlog::event_type_name(ev.header.type)));
    if (ev.header.type == static_cast<std::uint8_t>(EventType::kIncident))
      throw Error(ErrorCode::kServer,
                  "the log records an incident here (its server lost events): the replay "
                  "stops before it")
          .with_offset(ev.pos);
    const bool crc = ctx.checksum == binlog::ChecksumAlg::kCrc32 && !ev.in_payload;
    const binlog::Bytes raw = ev.raw.subspan(0, ev.raw.size() - (crc ? 4 : 0));
    buf_.assign(raw.begin(), raw.end());
    buf_.resize(buf_.size() + 4);
    if ((marks & kMarkStmtEnd) != 0) {
      const std::size_t at = binlog::rows_flags_offset(ctx, ev.header.type);
      if (at + 2 <= buf_.size()) buf_[at] |= std::byte{binlog::kStmtEndFlag};
    }
    const auto flags = static_cast<std::uint16_t>(static_cast<unsigned>(buf_[17]) |
                                                  (static_cast<unsigned>(buf_[18]) << 8));
    put_le(buf_, 17, flags & ~kSkipReplication, 2);
    const std::lock_guard<std::mutex> lock(io_mu_);
    if (mode_ == Mode::kUndecided) decide_locked(ev);
    if (mode_ == Mode::kHold) {
      held_.add(buf_);
      if (held_.bytes() > held_limit()) {
        // Too large to merge: what is held before it goes out, then it on its own.
        send_held_locked();
        held_.send_unit(stream_);
        mode_ = Mode::kDirect;
      }
      return;
    }
    emit_locked();
  }

  void end_unit(const UnitInfo& u) override {
    if (!sending_) return;
    sending_ = false;
    const auto g = maria_gtid(u.gtid);
    {
      const std::lock_guard<std::mutex> lock(io_mu_);
      between_ = true;
      Sent s{kNotSent, g ? g->first : 0, g ? g->second : 0, *u.file, u.end_pos, u.gtid, {}};
      if (mode_ == Mode::kHold && held_.last_is_xid()) {  // (it may be merged with the next)
        held_.end_unit();
        in_flight_.push_back(std::move(s));
        if (held_.units() >= opts_.merge_transactions ||
            Clock::now() - held_.since() > std::chrono::milliseconds(20))
          send_held_locked();
      } else {
        send_held_locked();                                  // (what is held goes out before it)
        if (mode_ == Mode::kHold) held_.send_unit(stream_);  // (not mergeable: on its own)
        s.bytes_end = stream_.bytes_sent();
        in_flight_.push_back(std::move(s));
      }
      mode_ = Mode::kUndecided;
    }
    ++sent_;
    if (Clock::now() - last_flush_ > std::chrono::milliseconds(20)) flush();
    if (test_pause_after_units() != 0 && sent_ == test_pause_after_units()) pause_for_test();
  }

  // test_pause.h: the units sent are applied by the target, then nothing more until a signal
  // (or the target's failure, which check() throws as it would).
  void pause_for_test() {
    announce_test_pause("sent");
    for (;;) {
      check();
      if (const int sig = stop_signal(); sig != 0)
        throw Error(ErrorCode::kInterrupted,
                    std::string("stopped by ") + (sig == SIGINT ? "SIGINT" : "SIGTERM") +
                        " (the target stops after the transactions it is applying)");
      idle(std::chrono::milliseconds(20));
    }
  }

  // After the walk: everything out, and applied.
  void finish() {
    {
      const std::lock_guard<std::mutex> lock(io_mu_);
      send_held_locked();
    }
    flush();
    while (in_flight() > 0) {
      check();
      if (in_flight() == 0) break;
      if (const int sig = stop_signal(); sig != 0)
        throw Error(ErrorCode::kInterrupted,
                    std::string("stopped by ") + (sig == SIGINT ? "SIGINT" : "SIGTERM") +
                        " (the target stops after the transactions it is applying)");
      idle(std::chrono::milliseconds(20));
    }
  }

  // What the target has applied: units confirmed since the last look; throws its error.
  void check() {
    const ReplicaStatus st = monitor_.status();
    if (!st.valid) return;
    const auto now = Clock::now();
    if (st.sql_running) sql_seen_ = now;
    if (st.sql_errno != 0 || now - sql_seen_ > std::chrono::seconds(5)) {
      // The transaction it failed on: the first one not confirmed.
      std::string at;
      const std::lock_guard<std::mutex> lock(io_mu_);
      if (!in_flight_.empty())
        at = " applying " + in_flight_.front().gtid + " (the transaction ending at " +
             in_flight_.front().file + ":" + std::to_string(in_flight_.front().end_pos) +
             (in_flight_.front().merged_to.empty()
                  ? std::string()
                  : ", merged with those after it up to " + in_flight_.front().merged_to) +
             ")";
      throw Error(
          ErrorCode::kServer,
          "the target's replication stopped" + at +
              (st.sql_errno != 0 ? ": error " + std::to_string(st.sql_errno) + ": " + st.sql_error
                                 : std::string(" (its SQL thread is not running)")));
    }
    settle(st.gtid_slave_pos);
    if (!link_up()) throw Reconnect{"the target's replication connection closed"};
  }

  // The units the target's gtid_slave_pos says it applied (it records it inside each
  // transaction, and commits a domain's transactions in their order).
  void settle(const std::string& gtid_slave_pos) {
    const auto applied = domain_positions(gtid_slave_pos);
    const auto covered = [&](const Sent& s) {
      const auto it = applied.find(s.domain);
      return s.bytes_end != kNotSent && it != applied.end() && it->second >= s.seq_no;
    };
    const std::lock_guard<std::mutex> lock(io_mu_);
    while (!in_flight_.empty() && covered(in_flight_.front())) {
      const Sent& s = in_flight_.front();
      last_ = ReplayState{s.file, s.end_pos, s.gtid, identity_};
      ++applied_;
      in_flight_.pop_front();
    }
  }

  std::uint64_t applied() const { return applied_; }
  std::uint64_t sent() const { return sent_; }
  std::uint64_t skipped() const { return skipped_; }
  std::uint64_t merged_groups() {
    const std::lock_guard<std::mutex> lock(io_mu_);
    return merged_groups_;
  }
  std::uint64_t merged_units() {
    const std::lock_guard<std::mutex> lock(io_mu_);
    return merged_units_;
  }
  std::size_t in_flight() {
    const std::lock_guard<std::mutex> lock(io_mu_);
    return in_flight_.size();
  }
  std::uint64_t events() const { return stream_.events(); }
  const std::optional<ReplayState>& last() const { return last_; }
  void set_last(std::optional<ReplayState> s) { last_ = std::move(s); }

 private:
  // (io_mu_ held) The stream's next event (its checksum room included: buf_ unless said).
  void emit_locked() { stream_.emit(buf_); }
  bool link_up() {
    const std::lock_guard<std::mutex> lock(io_mu_);
    return stream_.connected();
  }

  // The heartbeat thread: between units, a heartbeat when nothing went out for a while (the
  // reading of a large transaction, or of a slow input, takes longer than the replica waits).
  void beat() {
    while (!quit_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      const std::lock_guard<std::mutex> lock(io_mu_);
      if (!streaming_ || !between_) continue;
      try {
        if (!held_.empty() && Clock::now() - held_.since() > std::chrono::milliseconds(50)) {
          send_held_locked();  // (the input is slow: the next transactions are not waited for)
          stream_.flush();
        }
        if (!stream_.started() || Clock::now() - stream_.last_send() < heartbeat_every_) continue;
        stream_.heartbeat();
      } catch (...) {  // (the feed sees the connection gone)
      }
    }
  }

  // (io_mu_ held) A transaction starts in the stream (ReplicationStream::open).
  void open_locked() { stream_.open(); }

  // --merge-transactions: consecutive transactions held to go out as one (held_), each up to
  // this size.
  std::size_t held_limit() const {
    return static_cast<std::size_t>(std::min<std::uint64_t>(opts_.window_bytes / 4, 8u << 20));
  }
  // (io_mu_ held) The unit's first event, its GTID event, says whether it may be merged: a
  // transactional DML transaction ending with its Xid (known at its end), of the domain and
  // server of those held, its seq_no after theirs, not read twice (large).
  void decide_locked(const binlog::Event& ev) {
    mode_ = Mode::kDirect;
    const auto* gtid = std::get_if<binlog::MariaGtid>(&ev.body);
    constexpr std::uint8_t kAlone = binlog::MariaGtid::kStandalone | binlog::MariaGtid::kDdl |
                                    binlog::MariaGtid::kPreparedXa |
                                    binlog::MariaGtid::kCompletedXa;
    if (opts_.merge_transactions > 1 && !unit_streamed_ && gtid != nullptr && !ev.damaged &&
        buf_.size() > HeldEvents::kGtidFlagsAt && (gtid->flags & kAlone) == 0 &&
        (gtid->flags & binlog::MariaGtid::kTransactional) != 0) {
      if (!held_.may_join(ev.header.server_id, gtid->domain_id, gtid->seq_no)) send_held_locked();
      held_.begin_unit(ev.header.server_id, gtid->domain_id, gtid->seq_no, gtid->flags);
      mode_ = Mode::kHold;
      return;
    }
    send_held_locked();  // (what is held goes out before it)
    open_locked();
  }

  // (io_mu_ held) The held transactions out as one (HeldEvents::send), and the units in
  // flight told where the stream was then, and which group each went in.
  void send_held_locked() {
    const std::size_t n_units = held_.send(stream_);
    if (n_units == 0) return;
    if (n_units > 1) {
      ++merged_groups_;
      merged_units_ += n_units;
    }
    const std::uint64_t now = stream_.bytes_sent();
    const std::string group = n_units > 1 ? in_flight_.back().gtid : std::string();
    for (auto it = in_flight_.rbegin(); it != in_flight_.rend() && it->bytes_end == kNotSent;
         ++it) {
      it->bytes_end = now;
      if (it->gtid != group) it->merged_to = group;
    }
  }

  // Waits while the stream is too far ahead of the target.
  void wait_room() {
    for (;;) {
      check();
      {
        const std::lock_guard<std::mutex> lock(io_mu_);
        if (in_flight_.empty()) return;
        const std::uint64_t now = stream_.bytes_sent();
        const std::uint64_t ahead = now - std::min(in_flight_.front().bytes_end, now);
        if (ahead < opts_.window_bytes) return;
      }
      if (const int sig = stop_signal(); sig != 0) return;
      idle(std::chrono::milliseconds(10));
    }
  }

  // Nothing to send for a moment: what is gathered goes out, and a heartbeat when due.
  void idle(std::chrono::milliseconds d) {
    flush();
    {
      const std::lock_guard<std::mutex> lock(io_mu_);
      if (stream_.started() && Clock::now() - stream_.last_send() > heartbeat_every_)
        stream_.heartbeat();
    }
    std::this_thread::sleep_for(d);
  }

  void flush() {
    const std::lock_guard<std::mutex> lock(io_mu_);
    stream_.flush();
    last_flush_ = Clock::now();
  }

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

// The state file of an earlier run: with --resume, the inputs and the start position are cut
// to where it got (and `last` set); without, a state file there is an error.
std::optional<ReplayState> resume_from_state(const ReplayOptions& opts, const std::string& identity,
                                             Session& session, std::vector<InputFile>& inputs,
                                             FilterOptions& filter, DecodeOptions& decode,
                                             std::optional<ReplayState>& last,
                                             const binlog::WarningSink& warn) {
  std::optional<ReplayState> prior = read_replay_state(opts.state_file);
  if (opts.resume) {
    if (!prior)
      throw Error(ErrorCode::kUsage, "--resume: there is no replay state file " + opts.state_file +
                                         " (name it with --state-file)");
    if (!same_server(prior->server, identity, session))
      throw Error(ErrorCode::kUsage,
                  "--resume: the state file " + opts.state_file + " was written for " +
                      prior->server + ", this is " + identity +
                      ": resume on that server (or remove the state file to start over here)");
    std::size_t idx = 0;
    while (idx < inputs.size() && inputs[idx].display_name != prior->file) ++idx;
    if (idx == inputs.size())
      throw Error(ErrorCode::kUsage, "--resume: the replay continues at " + coordinates(*prior) +
                                         ", but " + prior->file +
                                         " is not among the binlogs given");
    if (filter.start_position && (idx != 0 || *filter.start_position != prior->position) && warn)
      warn("--start-position is replaced by the resume position " + coordinates(*prior));
    inputs.erase(inputs.begin(), inputs.begin() + static_cast<std::ptrdiff_t>(idx));
    filter.start_position = prior->position;
    decode.skip_events = 0;
    last = prior;
  } else if (prior) {
    throw Error(ErrorCode::kUsage,
                "the replay state file " + opts.state_file +
                    " exists: an earlier replay applied up to " + coordinates(*prior) +
                    ". Continue it with --resume, or remove the file to start over");
  }
  if (inputs.empty()) throw Error(ErrorCode::kUsage, "no binlog to replay");
  return prior;
}

// What the run has to serve the target: the inputs, the walk's options, the state file's
// settings and where progress goes.
struct Serving {
  const std::vector<InputFile>& inputs;
  const WalkOptions& walk;
  const ReplayOptions& opts;
  const std::string& settings_before;
  const ReplayProgressFn& progress;
};

// One connection of the target served: the walk from after what it confirmed, to the end.
// Throws Reconnect when the target's connection is lost.
RunStats serve_once(const Serving& sv, Feed& feed, const std::vector<std::uint64_t>& sizes,
                    std::uint64_t total, Clock::time_point& last_state,
                    const binlog::WarningSink& warn) {
  std::vector<InputFile> from = sv.inputs;
  WalkOptions w = sv.walk;
  if (const auto& l = feed.last(); l && order_of(sv.inputs, l->file, l->position)) {
    std::size_t idx = 0;
    while (from[idx].display_name != l->file) ++idx;
    from.erase(from.begin(), from.begin() + static_cast<std::ptrdiff_t>(idx));
    w.filter.start_position = l->position;
    w.decode.skip_events = 0;
  }
  std::size_t current = 0;
  std::uint64_t done_before = 0;
  const std::uint64_t skipped = w.filter.start_position.value_or(4) - 4;
  return walk(from, w, feed, warn,
              [&](const std::string& file, std::uint64_t pos, std::optional<std::uint64_t>) {
                if (Clock::now() - last_state > std::chrono::seconds(1)) {
                  last_state = Clock::now();
                  if (feed.last()) {
                    ReplayState st = *feed.last();
                    st.settings_before = sv.settings_before;
                    write_replay_state(sv.opts.state_file, st, false);
                  }
                }
                if (!sv.progress) return;
                while (current + 1 < sv.inputs.size() && sv.inputs[current].display_name != file) {
                  done_before += sizes[current];
                  ++current;
                }
                const std::uint64_t at = done_before + pos;
                sv.progress(ReplayProgress{
                    file, pos, feed.events(), feed.applied(), at > skipped ? at - skipped : 0,
                    total, std::max<std::size_t>(1, sv.opts.parallel), 0, feed.in_flight(), true});
              });
}

// The target served until the walk ends: each time it connects, from after what it confirmed
// (up to 20 losses of its connection; standard input cannot be read again).
RunStats serve(const Serving& sv, ReplicationListener& listener, Monitor& monitor, Feed& feed,
               const binlog::WarningSink& warn) {
  std::uint64_t total = 0;
  const std::vector<std::uint64_t> sizes = input_sizes(sv.inputs, total);
  bool first = true;
  int reconnects = 0;
  auto last_state = Clock::now();
  const auto stopped = [] { return stop_signal() != 0; };
  for (;;) {
    const std::optional<DumpRequest> req = listener.next_dump(std::chrono::seconds(30), stopped);
    if (!req) {
      if (const int sig = stop_signal(); sig != 0)
        throw Error(ErrorCode::kInterrupted,
                    std::string("stopped by ") + (sig == SIGINT ? "SIGINT" : "SIGTERM"));
      const ReplicaStatus st = monitor.status();
      throw Error(ErrorCode::kServer,
                  "the target did not connect to binrecover at " + sv.opts.listen_host + ":" +
                      std::to_string(listener.port()) + " within 30 s" +
                      (st.io_error.empty() ? std::string() : ": " + st.io_error));
    }
    feed.connected(*req, first);
    first = false;
    try {
      const RunStats stats = serve_once(sv, feed, sizes, total, last_state, warn);
      feed.finish();
      feed.pause();
      return stats;
    } catch (const Reconnect& r) {
      feed.pause();
      if (++reconnects > 20)
        throw Error(ErrorCode::kServer,
                    "the target's replication connection was lost 20 times: " + r.why);
      // The walk starts again after what the target confirmed: an input that cannot be read
      // again (standard input) ends the replay there instead.
      if (std::any_of(sv.inputs.begin(), sv.inputs.end(), [](const InputFile& in) {
            return !in.memory && !in.open && (in.path.empty() || in.path == "-");
          }))
        throw Error(ErrorCode::kServer, r.why +
                                            ", and standard input cannot be read again to send "
                                            "what the target did not get");
      if (warn) warn(r.why + ": waiting for the target to connect again");
    }
  }
}

// A stop (an error, a signal): the target's connection given back, the state file written, and
// the error said again with where to --resume.
[[noreturn]] void stop_with_state(const Error& e, Connection& guard, Session& session, Feed& feed,
                                  const ReplayOptions& opts, const std::string& settings) {
  bool given_back = false;
  try {
    guard.release();  // (the target stops after the transactions it is applying)
    given_back = true;
    feed.settle(session.value("SELECT @@GLOBAL.gtid_slave_pos").value_or(""));
  } catch (const Error&) {  // (a --resume gives it back)
  }
  const std::optional<ReplayState> last = feed.last();
  std::string where;
  if (last) {
    ReplayState st = *last;
    st.settings_before = given_back ? std::string() : settings;
    write_replay_state(opts.state_file, st);
    where = "; the last transaction applied ends at " + coordinates(*last) +
            (e.code() == ErrorCode::kInterrupted
                 ? ": continue there with --resume"
                 : ": fix the cause, then continue there with --resume") +
            " (state in " + opts.state_file + ")";
  } else {
    where = "; nothing was applied (continue with --resume once fixed; state in " +
            opts.state_file + ")";
  }
  throw e.extended(where);
}

}  // namespace

ReplayResult run_server_applier(std::vector<InputFile> inputs, DecodeOptions decode,
                                FilterOptions filter, bool disable_log_bin,
                                const ReplayOptions& opts, const ConnectionOptions& conn,
                                Session& session, const binlog::WarningSink& warn,
                                const ReplayProgressFn& progress) {
  const auto started = Clock::now();
  ReplayResult result;
  const StopSignals signals;
  const StateLock lock(opts.state_file);
  check_flavour(session);
  const std::string identity = server_identity(session);
  const std::optional<ReplayState> prior =
      resume_from_state(opts, identity, session, inputs, filter, decode, result.last, warn);
  const std::uint32_t target_id = check_target(session, disable_log_bin);
  remove_earlier(session, warn);
  const Settings wanted = wanted_settings(opts);
  const Settings before = settings_before(session, wanted, prior);
  const std::string settings = settings_text(before);
  // The start point, durably, before anything is applied: a kill leaves a state file to
  // --resume from (the target's GTIDs say what it applied after it).
  ReplayState start{inputs.front().display_name, filter.start_position.value_or(4), "", identity};
  if (prior) start = *prior;
  start.settings_before = settings;
  write_replay_state(opts.state_file, start);

  Connection guard(session);
  change_settings(guard, session, before, wanted, opts, warn);
  ListenerOptions lo;
  lo.address = opts.listen_host;
  lo.port = opts.listen_port;
  lo.user = kUser;
  lo.password = random_password();
  lo.server_id = target_id == 0xB1B1 ? 0xB1B2 : 0xB1B1;
  ReplicationListener listener(lo);
  guard.made();
  start_replication(session, lo, listener.port(), opts);

  Monitor monitor(conn);
  Feed feed(listener, monitor, opts, target_id, lo.server_id, identity);
  feed.set_last(result.last);
  WalkOptions wo;
  wo.decode = decode;
  wo.filter = filter;
  try {
    result.stats =
        serve(Serving{inputs, wo, opts, settings, progress}, listener, monitor, feed, warn);
  } catch (const Error& e) {
    stop_with_state(e, guard, session, feed, opts, settings);
  }
  result.last = feed.last();
  guard.release();  // (given back now: the state file then forgets the old value)
  if (result.last) write_replay_state(opts.state_file, *result.last);
  result.transactions_applied = feed.applied();
  result.events_applied = feed.events();
  result.merged_transactions = feed.merged_units();
  result.merged_groups = feed.merged_groups();
  result.workers = std::max<std::size_t>(1, opts.parallel);
  result.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  if (feed.skipped() > 0 && warn)
    warn(std::to_string(feed.skipped()) +
         " transaction(s) the target already had (its gtid_slave_pos) were not sent");
  return result;
}

}  // namespace binrecover::recovery
