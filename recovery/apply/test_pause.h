#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace binrecover::recovery {

// A test-only fault point: with BINRECOVER_TEST_PAUSE_AFTER_UNITS=N in the environment, replay
// (and --server-applier) hands out no unit past the N-th: it waits there, the first N applied,
// until SIGINT/SIGTERM or a kill (or the target failing), so a test that must stop a run
// part-way has a certain moment instead of a sleep and a hope. Never set in a real run (0).
inline std::uint64_t test_pause_after_units() {
  static const std::uint64_t n = [] {
    const char* v = std::getenv("BINRECOVER_TEST_PAUSE_AFTER_UNITS");
    return v == nullptr ? std::uint64_t{0} : std::strtoull(v, nullptr, 10);
  }();
  return n;
}

// The same for the pieces of a unit too large to hold (BINRECOVER_TEST_PAUSE_AFTER_PIECES=N):
// replay waits after the N-th piece of such a unit was applied, the unit part-way.
inline std::uint64_t test_pause_after_pieces() {
  static const std::uint64_t n = [] {
    const char* v = std::getenv("BINRECOVER_TEST_PAUSE_AFTER_PIECES");
    return v == nullptr ? std::uint64_t{0} : std::strtoull(v, nullptr, 10);
  }();
  return n;
}

// Said on stderr once the fault point is reached ("test pause: N units applied", "... units
// sent" where the target's own applier applies, "... pieces applied"), so that a test waits for
// that line, not for a guess at it.
inline void announce_test_pause(std::uint64_t n, const char* what) {
  std::fprintf(stderr, "binrecover: test pause: %llu %s\n", static_cast<unsigned long long>(n),
               what);
  std::fflush(stderr);
}

// BINRECOVER_TEST_PAUSE_HOLDING=N:PATH: replay's worker, the N-th time it holds a unit's COMMIT
// for the next unit's first packet (Applier::Hooks::hold_commit), before it looks for that
// unit, reads the answer of the unit's packet if it is in flight (Hooks::pipeline: the moment
// is then certain, the COMMIT before it ran), says so on stderr ("binrecover: test pause: a
// COMMIT held (N)") and waits until PATH exists (up to ten minutes): a test kills the session's
// connection there, to see a held COMMIT fail (at the head of the next unit's packet, or alone
// where no unit is left). test_pause_holding_due(N): whether the N-th is the one.
inline const std::pair<std::uint64_t, std::string>& test_pause_holding_at() {
  static const std::pair<std::uint64_t, std::string> at = [] {
    const char* v = std::getenv("BINRECOVER_TEST_PAUSE_HOLDING");
    if (v == nullptr) return std::pair<std::uint64_t, std::string>{0, {}};
    char* end = nullptr;
    const std::uint64_t n = std::strtoull(v, &end, 10);
    if (end == nullptr || *end != ':') return std::pair<std::uint64_t, std::string>{0, {}};
    return std::pair<std::uint64_t, std::string>{n, end + 1};
  }();
  return at;
}
inline bool test_pause_holding_due(std::uint64_t held) {
  return test_pause_holding_at().first != 0 && held == test_pause_holding_at().first;
}
inline void test_pause_holding(std::uint64_t held) {
  const auto& at = test_pause_holding_at();
  if (at.first == 0 || held != at.first) return;
  std::fprintf(stderr, "binrecover: test pause: a COMMIT held (%llu)\n",
               static_cast<unsigned long long>(held));
  std::fflush(stderr);
  for (int k = 0; k < 60000 && access(at.second.c_str(), F_OK) != 0; ++k)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

// BINRECOVER_TEST_ANNOUNCE_DRAIN=1: replay says on stderr "binrecover: test pause: waiting for
// the units handed out to commit" each time its reading thread starts to wait for them
// (ApplyEngine::drain: before a unit it applies alone, a DDL, and at the run's end), and goes
// on (no pause): a test lets a unit that waits on its lock fail at that moment.
inline void test_announce_drain() {
  static const bool on = std::getenv("BINRECOVER_TEST_ANNOUNCE_DRAIN") != nullptr;
  if (!on) return;
  std::fprintf(stderr, "binrecover: test pause: waiting for the units handed out to commit\n");
  std::fflush(stderr);
}

}  // namespace binrecover::recovery
