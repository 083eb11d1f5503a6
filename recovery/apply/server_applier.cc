#include "recovery/apply/server_applier.h"

#include <sys/random.h>

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
#include "recovery/apply/replication_stream.h"
#include "recovery/apply/test_pause.h"
#include "recovery/server/remote_source.h"
#include "recovery/server/replication_source.h"

namespace binrecover::recovery {

namespace {

using Clock = std::chrono::steady_clock;
using binlog::EventType;

constexpr const char* kConnection = "binrecover";  // the target's replication connection
constexpr const char* kUser = "binrecover";
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

// A replication status of the target's connection, as SHOW SLAVE 'binrecover' STATUS has it.
struct ReplicaStatus {
  bool valid = false;
  bool io_running = false, sql_running = false;
  std::string io_state;  // Slave_IO_Running: Yes, No, Connecting, Preparing
  unsigned sql_errno = 0, io_errno = 0;
  std::string sql_error, io_error, gtid_slave_pos;
};

ReplicaStatus read_status(Session& s) {
  ReplicaStatus st;
  for (const auto& [k, v] : s.named_row(std::string("SHOW SLAVE '") + kConnection + "' STATUS")) {
    st.valid = true;
    if (k == "Slave_IO_Running")
      st.io_state = v, st.io_running = v == "Yes";
    else if (k == "Slave_SQL_Running")
      st.sql_running = v == "Yes";
    else if (k == "Last_SQL_Errno")
      st.sql_errno = static_cast<unsigned>(std::stoul("0" + v));
    else if (k == "Last_SQL_Error")
      st.sql_error = v;
    else if (k == "Last_IO_Errno")
      st.io_errno = static_cast<unsigned>(std::stoul("0" + v));
    else if (k == "Last_IO_Error")
      st.io_error = v;
  }
  // (SHOW ALL SLAVES STATUS has it as a column; SHOW SLAVE 'name' STATUS does not)
  if (st.valid) st.gtid_slave_pos = s.value("SELECT @@GLOBAL.gtid_slave_pos").value_or("");
  return st;
}

// Watches the target's replication connection on a session of its own, every 100 ms.
class Monitor {
 public:
  explicit Monitor(const ConnectionOptions& conn) : session_(conn) {
    thread_ = std::thread([this] { run(); });
  }
  ~Monitor() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  Monitor(const Monitor&) = delete;
  Monitor& operator=(const Monitor&) = delete;

  ReplicaStatus status() {
    std::lock_guard<std::mutex> lock(mu_);
    if (failure_) std::rethrow_exception(failure_);
    return status_;
  }

 private:
  void run() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop_) {
      lock.unlock();
      try {
        ReplicaStatus st = read_status(session_);
        lock.lock();
        status_ = std::move(st);
      } catch (...) {
        lock.lock();
        failure_ = std::current_exception();
        return;
      }
      cv_.wait_for(lock, std::chrono::milliseconds(100), [this] { return stop_; });
    }
  }

  Session session_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  ReplicaStatus status_;
  std::exception_ptr failure_;
  std::thread thread_;
};

// A setting's value as SQL: a number as it is, a word quoted (only letters, digits and _ are
// taken: values come from the target and the state file).
std::string setting_literal(const std::string& v) {
  if (v.empty() || v.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                       "0123456789_") != std::string::npos)
    throw Error(ErrorCode::kUsage, "not a setting's value: '" + v + "'");
  return v.find_first_not_of("0123456789") == std::string::npos ? v : "'" + v + "'";
}

// "a=1,b=X" as pairs, and back.
std::vector<std::pair<std::string, std::string>> parse_settings(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  std::size_t from = 0;
  while (from < text.size()) {
    std::size_t comma = text.find(',', from);
    if (comma == std::string::npos) comma = text.size();
    const std::string item = text.substr(from, comma - from);
    const auto eq = item.find('=');
    if (eq != std::string::npos) out.emplace_back(item.substr(0, eq), item.substr(eq + 1));
    from = comma + 1;
  }
  return out;
}
std::string settings_text(const std::vector<std::pair<std::string, std::string>>& s) {
  std::string out;
  for (const auto& [k, v] : s) out += (out.empty() ? "" : ",") + k + "=" + v;
  return out;
}

// The target's replication connection for the run, and what is put back when it ends.
class Connection {
 public:
  explicit Connection(Session& s) : s_(s) {}
  ~Connection() {
    try {
      release();
    } catch (const Error&) {  // (the target is gone: nothing to put back now)
    }
  }
  // The connection removed, the settings given back (once). Throws Error(kServer).
  void release() {
    if (made_) {
      made_ = false;
      s_.execute(std::string("STOP SLAVE '") + kConnection + "'");
      s_.execute(std::string("RESET SLAVE '") + kConnection + "' ALL");
    }
    while (!restore_.empty()) {
      const auto [name, value] = restore_.back();
      restore_.pop_back();
      s_.execute("SET GLOBAL " + name + " = " + setting_literal(value));
    }
  }

  // SET GLOBAL name = value, given back to `before` at the end.
  void set(const std::string& name, const std::string& before, const std::string& value) {
    s_.execute("SET GLOBAL " + name + " = " + setting_literal(value));
    restore_.emplace_back(name, before);
  }
  void made() { made_ = true; }

 private:
  Session& s_;
  bool made_ = false;
  std::vector<std::pair<std::string, std::string>> restore_;
};

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

std::string random_password() {
  unsigned char bytes[16];
  if (::getrandom(bytes, sizeof bytes, 0) != static_cast<ssize_t>(sizeof bytes))
    throw Error(ErrorCode::kIo, std::string("getrandom: ") + std::strerror(errno));
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  }
  return out;
}

// The target must be a MariaDB with GTID replication.
void check_flavour(Session& session) {
  if (!session.mariadb())
    throw Error(ErrorCode::kUsage, "--server-applier: " + session.where() + " is MySQL " +
                                       session.server_version() +
                                       "; binrecover serves MariaDB replicas only (10.0 or later)");
  if (session.server_version().rfind("5.", 0) == 0)
    throw Error(ErrorCode::kUsage, "--server-applier: " + session.where() + " is MariaDB " +
                                       session.server_version() +
                                       ", without GTID replication (10.0 or later needed)");
}

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

// What the target would do with what it is sent: refuses a target that skips errors, applies
// rows over what differs, or binlogs otherwise than -D asks. Returns its server id.
std::uint32_t check_target(Session& session, bool disable_log_bin) {
  std::map<std::string, std::string> var;
  for (auto& [k, v] : session.named_row(
           "SELECT @@GLOBAL.server_id AS server_id, @@GLOBAL.log_bin AS log_bin, "
           "@@GLOBAL.log_slave_updates AS log_slave_updates, @@GLOBAL.slave_skip_errors AS "
           "slave_skip_errors, @@GLOBAL.slave_exec_mode AS slave_exec_mode, "
           "@@GLOBAL.slave_parallel_threads AS slave_parallel_threads"))
    var[k] = v;
  if (!var["slave_skip_errors"].empty() && var["slave_skip_errors"] != "OFF")
    throw Error(ErrorCode::kUsage,
                "--server-applier: the target skips replication errors (slave_skip_errors=" +
                    var["slave_skip_errors"] +
                    "): a transaction that fails would be left out without a word");
  if (var["slave_exec_mode"] != "STRICT")
    throw Error(ErrorCode::kUsage, "--server-applier: the target's slave_exec_mode is " +
                                       var["slave_exec_mode"] +
                                       ": its replication would apply rows over what differs");
  const bool logs = var["log_bin"] == "1";
  const bool logs_replicated = var["log_slave_updates"] == "1";
  if (logs && !logs_replicated && !disable_log_bin)
    throw Error(ErrorCode::kUsage,
                "--server-applier: the target binlogs (log_bin) but not what its replication "
                "applies (log_slave_updates=OFF, set at its start): give -D to replay without "
                "binlogging, or replay without --server-applier");
  if (logs && logs_replicated && disable_log_bin)
    throw Error(ErrorCode::kUsage,
                "-D: the target binlogs what its replication applies (log_slave_updates=ON, set "
                "at its start): replay without --server-applier to leave the replay out of its "
                "binlog");
  return static_cast<std::uint32_t>(std::strtoul(var["server_id"].c_str(), nullptr, 10));
}

// A connection of an earlier run: still fed by a live replay (an error), or left by a killed one
// (which a restarted target starts again by itself, maybe a moment after it takes clients):
// removed. Returns whether there was one.
bool remove_earlier(Session& session, const binlog::WarningSink& warn) {
  ReplicaStatus earlier;
  try {
    earlier = read_status(session);
  } catch (const Error& e) {
    if (!is_server_error(e, 1617)) throw;  // ER_MASTER_CONNECTION_NOT_FOUND... (not there)
    return false;
  }
  if (!earlier.valid) return false;
  if (earlier.io_running)
    throw Error(ErrorCode::kUsage,
                std::string("--server-applier: the target's replication connection '") +
                    kConnection + "' is connected to a running binrecover replay: one at a time");
  if (warn)
    warn(std::string("removing the target's replication connection '") + kConnection +
         "' of an earlier replay that did not end (its GTIDs stay in gtid_slave_pos)");
  session.execute(std::string("STOP SLAVE '") + kConnection + "'");
  session.execute(std::string("RESET SLAVE '") + kConnection + "' ALL");
  return true;
}

using Settings = std::vector<std::pair<std::string, std::string>>;

// The target's global settings this replay needs otherwise: its parallel applier's threads
// (--parallel), and DDL as in a pipe into mysql (MariaDB's replication runs CREATE TABLE as
// CREATE OR REPLACE, DROP as DROP IF EXISTS by default: slave_ddl_exec_mode=IDEMPOTENT).
Settings wanted_settings(const ReplayOptions& opts) {
  const std::size_t threads = opts.parallel > 1 ? opts.parallel : 0;
  return {{"slave_parallel_threads", std::to_string(threads)}, {"slave_ddl_exec_mode", "STRICT"}};
}

// The values of `wanted` to give back at the end: those an earlier (killed) run of this replay
// found (`prior`), else those the target has now where they differ.
Settings settings_before(Session& session, const Settings& wanted,
                         const std::optional<ReplayState>& prior) {
  Settings before;
  for (const auto& [name, value] : parse_settings(prior ? prior->settings_before : ""))
    for (const auto& w : wanted)
      if (w.first == name) before.emplace_back(name, value);
  for (const auto& w : wanted) {
    const std::string now = session.value("SELECT @@GLOBAL." + w.first).value_or("");
    const bool known = std::any_of(before.begin(), before.end(),
                                   [&](const auto& b) { return b.first == w.first; });
    if (!known && now != w.second) before.emplace_back(w.first, now);
  }
  return before;
}

// The settings changed through the guard (which gives them back).
void change_settings(Connection& guard, Session& session, const Settings& before,
                     const Settings& wanted, const ReplayOptions& opts,
                     const binlog::WarningSink& warn) {
  for (const auto& b : before) {
    const std::string& name = b.first;
    const std::string& old = b.second;
    const std::string value = std::find_if(wanted.begin(), wanted.end(), [&](const auto& w) {
                                return w.first == name;
                              })->second;
    try {
      try {
        guard.set(name, old, value);
      } catch (const Error& e) {
        // (1198: a replication runs; ours, started again by a restarted target, goes)
        if (!is_server_error(e, 1198) || !remove_earlier(session, warn)) throw;
        guard.set(name, old, value);
      }
    } catch (const Error& e) {
      throw Error(ErrorCode::kServer,
                  std::string(e.what()) + ": cannot set the target's " + name + " to " + value +
                      (name == "slave_parallel_threads"
                           ? " for --parallel " + std::to_string(opts.parallel) +
                                 " (another replication runs there?)"
                           : std::string()));
    }
  }
}

// The target's replication connection to the listener, without any filter of its
// configuration, started.
void start_replication(Session& session, const ListenerOptions& lo, unsigned port,
                       const ReplayOptions& opts) {
  const std::string c = std::string("'") + kConnection + "'";
  session.execute("CHANGE MASTER " + c + " TO MASTER_HOST = '" + opts.listen_host +
                  "', MASTER_PORT = " + std::to_string(port) + ", MASTER_USER = '" + kUser +
                  "', MASTER_PASSWORD = '" + lo.password +
                  "', MASTER_USE_GTID = slave_pos, MASTER_CONNECT_RETRY = 1, "
                  "MASTER_HEARTBEAT_PERIOD = 1, MASTER_SSL = 0, IGNORE_SERVER_IDS = (), "
                  "DO_DOMAIN_IDS = (), IGNORE_DOMAIN_IDS = ()");
  for (const char* f :
       {"replicate_do_db", "replicate_ignore_db", "replicate_do_table", "replicate_ignore_table",
        "replicate_wild_do_table", "replicate_wild_ignore_table"}) {
    const std::string name = std::string(kConnection) + "." + f;
    try {
      session.execute("SET GLOBAL " + name + " = ''");
    } catch (const Error&) {
    }
    if (!session.value("SELECT @@GLOBAL." + name).value_or("").empty())
      throw Error(ErrorCode::kUsage, std::string("--server-applier: the target filters what it "
                                                 "replicates (") +
                                         f + "), and it cannot be cleared for this replay");
  }
  if (const auto rw = session.value("SELECT @@GLOBAL.replicate_rewrite_db"); rw && !rw->empty())
    throw Error(ErrorCode::kUsage,
                "--server-applier: the target renames databases it replicates "
                "(replicate_rewrite_db=" +
                    *rw + ")");
  if (opts.parallel > 1)
    session.execute("SET GLOBAL " + std::string(kConnection) +
                    ".slave_parallel_mode = 'optimistic'");
  session.execute("START SLAVE " + c);
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
