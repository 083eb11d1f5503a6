#include "recovery/apply/replica_feed.h"

#include <algorithm>
#include <cstring>

#include "binlog/error.h"
#include "binlog/event_edit.h"
#include "binlog/event_type.h"
#include "recovery/apply/test_pause.h"

namespace binrecover::recovery::replica {

namespace {

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

}  // namespace

Feed::Feed(ReplicationListener& listener, Monitor& monitor, const ReplayOptions& opts,
           std::uint32_t target_id, std::uint32_t stream_id, std::string identity)
    : stream_(listener, stream_id, [] { return stop_signal() != 0; }),
      monitor_(monitor),
      opts_(opts),
      target_id_(target_id),
      identity_(std::move(identity)) {
  heartbeats_ = std::thread([this] { beat(); });
}

Feed::~Feed() {
  quit_ = true;
  heartbeats_.join();
}

void Feed::connected(const DumpRequest& req, bool first) {
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

void Feed::pause() {
  const std::lock_guard<std::mutex> lock(io_mu_);
  streaming_ = false;
}

void Feed::format(const binlog::Event& ev) {
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

void Feed::begin_unit(const UnitInfo& u, const binlog::FormatContext& /*ctx*/) {
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

void Feed::event(const binlog::Event& ev, std::uint8_t marks, const binlog::FormatContext& ctx) {
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

void Feed::end_unit(const UnitInfo& u) {
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

void Feed::pause_for_test() {
  announce_test_pause(test_pause_after_units(), "units sent");
  for (;;) {
    check();
    if (const int sig = stop_signal(); sig != 0)
      throw Error(ErrorCode::kInterrupted,
                  std::string("stopped by ") + (sig == SIGINT ? "SIGINT" : "SIGTERM") +
                      " (the target stops after the transactions it is applying)");
    idle(std::chrono::milliseconds(20));
  }
}

void Feed::finish() {
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

void Feed::check() {
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

void Feed::settle(const std::string& gtid_slave_pos) {
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

std::uint64_t Feed::merged_groups() {
  const std::lock_guard<std::mutex> lock(io_mu_);
  return merged_groups_;
}

std::uint64_t Feed::merged_units() {
  const std::lock_guard<std::mutex> lock(io_mu_);
  return merged_units_;
}

std::size_t Feed::in_flight() {
  const std::lock_guard<std::mutex> lock(io_mu_);
  return in_flight_.size();
}

bool Feed::link_up() {
  const std::lock_guard<std::mutex> lock(io_mu_);
  return stream_.connected();
}

void Feed::beat() {
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

std::size_t Feed::held_limit() const {
  return static_cast<std::size_t>(std::min<std::uint64_t>(opts_.window_bytes / 4, 8u << 20));
}

void Feed::decide_locked(const binlog::Event& ev) {
  mode_ = Mode::kDirect;
  const auto* gtid = std::get_if<binlog::MariaGtid>(&ev.body);
  constexpr std::uint8_t kAlone = binlog::MariaGtid::kStandalone | binlog::MariaGtid::kDdl |
                                  binlog::MariaGtid::kPreparedXa | binlog::MariaGtid::kCompletedXa;
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

void Feed::send_held_locked() {
  const std::size_t n_units = held_.send(stream_);
  if (n_units == 0) return;
  if (n_units > 1) {
    ++merged_groups_;
    merged_units_ += n_units;
  }
  const std::uint64_t now = stream_.bytes_sent();
  const std::string group = n_units > 1 ? in_flight_.back().gtid : std::string();
  for (auto it = in_flight_.rbegin(); it != in_flight_.rend() && it->bytes_end == kNotSent; ++it) {
    it->bytes_end = now;
    if (it->gtid != group) it->merged_to = group;
  }
}

void Feed::wait_room() {
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

void Feed::idle(std::chrono::milliseconds d) {
  flush();
  {
    const std::lock_guard<std::mutex> lock(io_mu_);
    if (stream_.started() && Clock::now() - stream_.last_send() > heartbeat_every_)
      stream_.heartbeat();
  }
  std::this_thread::sleep_for(d);
}

void Feed::flush() {
  const std::lock_guard<std::mutex> lock(io_mu_);
  stream_.flush();
  last_flush_ = Clock::now();
}

}  // namespace binrecover::recovery::replica
