#pragma once

#include <csignal>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "recovery/apply/replay.h"
#include "recovery/reading/gtid_set.h"
#include "recovery/reading/walker.h"
#include "recovery/server/apply.h"

namespace binrecover::recovery {

// What both ways of replaying (binrecover's sessions, recovery/apply/replay.cc, and the
// target's own replication applier, recovery/apply/server_applier.cc) share.

// "file:position (GTID g)", for messages.
std::string coordinates(const ReplayState& st);

// The target as a state file names it: where it is and which server it is, so that a resume
// against another server (a copy restored elsewhere, another port) is told apart.
std::string server_identity(Session& session);
// Whether the state file's server is this one (older state files name only host:port).
bool same_server(const std::string& recorded, const std::string& identity, Session& session);

// SIGINT and SIGTERM handled for the lifetime of a replay: the unit being applied finishes,
// then the replay stops where it can be resumed. (A second signal ends it at once.)
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};
// The signal that asked a replay to stop (0: none).
int stop_signal();
// (a test's fault point, test_pause.h) Nothing more until SIGINT or SIGTERM: the target asked
// every 50 ms, so that its loss ends the run as it would.
void wait_for_stop_signal(Session& target);

// An exclusive lock on STATE.lock for the lifetime of a replay: a second run with the same state
// file is refused instead of applying the same transactions again.
class StateLock {
 public:
  explicit StateLock(const std::string& state_file);
  ~StateLock();
  StateLock(const StateLock&) = delete;
  StateLock& operator=(const StateLock&) = delete;

 private:
  std::string path_;
  int fd_ = -1;
};

// The replay's state on disk, written by the replay (from its workers too) and read by
// --resume: STATE, replaced atomically after each write (what a reader sees), and STATE.journal,
// where a durable state is written in place and synced (what a crash of the machine leaves).
// Every write is numbered; the later of the two is the state.
class StateStore {
 public:
  explicit StateStore(std::string state_file);  // opens (makes) STATE.journal; throws Error(kIo)
  ~StateStore();
  StateStore(const StateStore&) = delete;
  StateStore& operator=(const StateStore&) = delete;

  // The state an earlier run left: the later of STATE and the journal; nullopt without STATE.
  // Throws Error(kUsage) for a STATE that is not one (and no journal to stand for it).
  std::optional<ReplayState> read();
  // A new run: the journal of an earlier one (whose STATE was removed) forgotten.
  void reset();
  // Every state written from now on says so (ReplayState::target_gtids_at_start).
  void keep_target_gtids_at_start(std::optional<std::string> gtids);
  // STATE replaced; with `durable` the state survives a crash of the machine once this returns.
  void write(const ReplayState& state, bool durable);
  // Whether this run has written the state yet.
  bool made() {
    std::lock_guard lock(mu_);
    return state_made_;
  }

 private:
  std::mutex mu_;
  std::string path_;
  int fd_ = -1;
  std::uint64_t writes_ = 0;  // the last write's number
  std::size_t next_slot_ = 0;
  bool state_made_ = false;  // STATE was written durably in this run
  std::optional<std::string> gtids_at_start_;
};

// The inputs' sizes (0 where unknown: stdin), for the progress line; `total` their sum.
std::vector<std::uint64_t> input_sizes(const std::vector<InputFile>& inputs, std::uint64_t& total);

}  // namespace binrecover::recovery
