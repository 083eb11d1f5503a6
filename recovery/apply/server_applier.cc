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
#include "recovery/apply/replay_common.h"
#include "recovery/apply/replay_resume.h"
#include "recovery/apply/replica_feed.h"
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
