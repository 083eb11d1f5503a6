#include "recovery/apply/width_control.h"

#include <gtest/gtest.h>

#include <deque>
#include <string>
#include <vector>

namespace binrecover::recovery {
namespace {

using Clock = WidthControl::Clock;
using std::chrono::microseconds;

// Units of `bytes` committed one after another, each taking `one` at width 1 and `wide` at the
// full width; returns the widths the units ran at, one character each ('1' or 'N').
struct Feed {
  WidthControl control{8};
  Clock::time_point now{};
  std::string widths;

  std::uint64_t seq = 0;
  std::vector<std::uint64_t> deps;

  // `per_level`: that many chains side by side, each unit waiting for the one `per_level`
  // before it (units side by side at each dependency level); 0: no unit waits for another.
  void units(int n, microseconds one, microseconds wide, std::size_t bytes = 0, int per_level = 0) {
    for (int i = 0; i < n; ++i) {
      const std::size_t w = control.width();
      widths += w == 1 ? '1' : 'N';
      now += w == 1 ? one : wide;
      ++seq;
      deps.clear();
      if (per_level != 0 && seq > static_cast<std::uint64_t>(per_level))
        deps.push_back(seq - per_level);
      control.committed(bytes, now, seq, &deps);
    }
  }
};

// The first commit, the warm-up (32 units), the epoch the sessions open beside (128) and one
// measured (128), on one session.
constexpr std::size_t kBeforeN = 1 + 32 + 128 + 128;
// An epoch after a change of width: 16 units not measured, then 128.
constexpr std::size_t kChanged = 16 + 128;

TEST(WidthControlTest, StartsOnOneSessionAndGoesWideWhereWideIsFaster) {
  Feed r;
  r.units(20000, microseconds(1000), microseconds(500));
  EXPECT_EQ(r.widths.substr(0, kBeforeN), std::string(kBeforeN, '1'));
  EXPECT_EQ(r.widths[kBeforeN], 'N');
  // (the sessions open beside the epoch before the one at N)
  EXPECT_TRUE(r.control.open_ahead());
  // (then a probe of one session now and then, ever rarer: 128 units each, after 8, 16, 32, 64
  // epochs)
  EXPECT_LE(r.control.narrowed(), kBeforeN + 5u * kChanged);
  EXPECT_GE(r.control.narrowed(), kBeforeN + kChanged);
  EXPECT_EQ(r.widths.back(), 'N');
}

TEST(WidthControlTest, GoesToOneSessionWhereThatIsFaster) {
  Feed r;
  r.units(20000, microseconds(1000), microseconds(1200));
  // One epoch at N, then one session from then on but for the probes.
  EXPECT_EQ(r.widths.find('N'), kBeforeN);
  EXPECT_EQ(r.widths.find('1', kBeforeN), kBeforeN + kChanged);
  const std::size_t wide = r.widths.size() - r.control.narrowed();
  EXPECT_LE(wide, 5u * kChanged);
  EXPECT_EQ(r.widths.back(), '1');
}

TEST(WidthControlTest, FollowsTheLogWhenItChanges) {
  Feed r;
  r.units(5000, microseconds(500), microseconds(250));  // overlapping units
  EXPECT_EQ(r.widths.back(), 'N');
  r.units(20000, microseconds(500), microseconds(700));  // then a chain
  EXPECT_EQ(r.widths.back(), '1');
  r.units(20000, microseconds(500), microseconds(200));  // then overlapping again
  EXPECT_EQ(r.widths.back(), 'N');
}

TEST(WidthControlTest, NIsKeptOnlyWhereItIsFasterByTheMargin) {
  // N 2% faster (within the margin of 4%, as a disk's syncs make epochs differ; N costs the
  // machine more CPU): one session stays, the probes of N do not take over.
  Feed r;
  r.units(2000, microseconds(510), microseconds(500));
  EXPECT_NE(r.widths.find('N'), std::string::npos);  // (tried)
  EXPECT_EQ(r.widths.back(), '1');
  EXPECT_EQ(r.control.changes() % 2, 0u);  // (each probe went back)
  // N 8% faster: it takes over.
  r.units(20000, microseconds(540), microseconds(500));
  EXPECT_EQ(r.widths.back(), 'N');
  // N 2% faster again: one session takes over at its next probe.
  const std::size_t wide = r.widths.size();
  r.units(20000, microseconds(510), microseconds(500));
  EXPECT_EQ(r.widths.back(), '1');
  EXPECT_NE(r.widths.find('1', wide), std::string::npos);
  // One session faster from the start: N tried once, then one session.
  Feed s;
  s.units(20000, microseconds(490), microseconds(500));
  EXPECT_EQ(s.widths.back(), '1');
}

TEST(WidthControlTest, LargeUnitsCountByTheirBytes) {
  // 1 MiB units: an epoch is 128 work units, a unit 65 of them: two units an epoch (too few to
  // tell what the log allows), so N is tried after six units, not after 289.
  Feed r;
  r.units(40, microseconds(30000), microseconds(20000), std::size_t{1} << 20);
  EXPECT_EQ(r.widths.find('N'), 6u);
  EXPECT_EQ(r.widths.back(), 'N');
}

TEST(WidthControlTest, AnEpochLastsAtLeast25Milliseconds) {
  // Units of 10 us: 128 of them take 1.3 ms; the warm-up and the epochs before N wait for
  // 25 ms each (2,500 units).
  Feed r;
  r.units(9000, microseconds(10), microseconds(10));
  EXPECT_EQ(r.widths.find('N'), 1u + 3u * 2500u);
}

TEST(WidthControlTest, TheTestFlipChangesEveryNUnits) {
  WidthControl control(4, 3);
  std::string widths;
  Clock::time_point now{};
  for (int i = 0; i < 12; ++i) {
    widths += control.width() == 1 ? '1' : 'N';
    // (keys read for the units read at N only: those read on one session may run after the
    // flip, ordered by the unit before each)
    EXPECT_EQ(control.wants_keys(), control.width() != 1);
    control.committed(10, now, static_cast<std::uint64_t>(i) + 1, nullptr);
  }
  EXPECT_EQ(widths, "NNN111NNN111");
  EXPECT_EQ(control.changes(), 4u);
  EXPECT_EQ(control.narrowed(), 6u);
}

TEST(WidthControlTest, AChainGoesOnOneSessionWithoutTryingN) {
  // Every unit waits for the one before it (a level each): one session, N never tried (even
  // where its epochs would look faster: noise), its sessions never opened.
  Feed r;
  r.units(20000, microseconds(1000), microseconds(900), 0, 1);
  EXPECT_EQ(r.widths.find('N'), std::string::npos);
  EXPECT_EQ(r.control.changes(), 0u);
  EXPECT_FALSE(r.control.open_ahead());
  // Two units a level (1.5 a level needed): N measured, and kept where faster.
  Feed two;
  two.units(20000, microseconds(1000), microseconds(900), 0, 2);
  EXPECT_EQ(two.widths.find('N'), kBeforeN);
  EXPECT_EQ(two.widths.back(), 'N');
}

TEST(WidthControlTest, NTriedOnceTheLogAllowsIt) {
  Feed r;
  r.units(3000, microseconds(1000), microseconds(1000), 0, 1);  // a chain
  EXPECT_EQ(r.widths.back(), '1');
  EXPECT_FALSE(r.control.open_ahead());  // (no session but the first opened)
  const std::size_t chain = r.widths.size();
  r.units(3000, microseconds(1000), microseconds(400), 0, 8);  // eight side by side a level
  // (the run of 8 epochs on one session ends, the sessions open beside one more, one is
  // measured, then N is tried and kept)
  const auto wide = r.widths.find('N', chain);
  ASSERT_NE(wide, std::string::npos);
  EXPECT_LE(wide, chain + 11u * 128u);
  EXPECT_EQ(r.widths.back(), 'N');
  // A chain again: one session from the first epoch that shows it.
  const std::size_t overlap = r.widths.size();
  r.units(3000, microseconds(1000), microseconds(900), 0, 1);
  EXPECT_LE(r.widths.find('1', overlap), overlap + 2u * 128u);
  EXPECT_EQ(r.widths.find('N', overlap + 2u * 128u), std::string::npos);
}

TEST(WidthControlTest, ChainsThatGrowAtDifferentSpeedsStillOverlap) {
  // Eight hot rows, one of them in three units of ten, each unit waiting for the last one on
  // its row: about three units a level in any epoch, however long the chains grow. (Levels
  // counted from the start spread ever wider: after 5,000 units an epoch of 128 spanned 1,000
  // and looked like a chain, one session from then on.)
  Feed r;
  std::uint64_t last[8] = {};
  for (int i = 0; i < 20000; ++i) {
    const int row = i % 10 < 3 ? 0 : i % 10 - 2;
    r.widths += r.control.width() == 1 ? '1' : 'N';
    r.now += r.control.width() == 1 ? microseconds(1000) : microseconds(500);
    r.deps.clear();
    if (last[row] != 0) r.deps.push_back(last[row]);
    last[row] = ++r.seq;
    r.control.committed(0, r.now, r.seq, &r.deps);
  }
  EXPECT_EQ(r.widths.find('N'), kBeforeN);
  EXPECT_LE(r.control.narrowed(), kBeforeN + 5u * kChanged);
  EXPECT_EQ(r.widths.back(), 'N');
}

TEST(WidthControlTest, AUnitAppliedAloneComesAfterEveryOneBeforeIt) {
  // Units that wait for no other, but every other one applied alone (a DDL): each a level of
  // its own, one session after the warm-up. (Counted by their write sets alone, every unit
  // applied alone waited for nothing.)
  Feed r;
  for (int i = 0; i < 3000; ++i) {
    r.widths += r.control.width() == 1 ? '1' : 'N';
    r.now += r.control.width() == 1 ? microseconds(1000) : microseconds(900);
    r.deps.clear();
    r.control.committed(0, r.now, ++r.seq, i % 2 == 0 ? nullptr : &r.deps);
  }
  EXPECT_EQ(r.widths.find('N'), std::string::npos);
  EXPECT_FALSE(r.control.open_ahead());
}

TEST(WidthControlTest, UnitsRunAgainForLocksEndAnEpochOnN) {
  // Units side by side by their write sets, but two run again for a lock in the epoch at N:
  // one session from the second (wide looks faster here: the rates are not what decides); N
  // tried again after the run of 8 epochs on one session, and kept where no unit runs again.
  Feed r;
  r.units(static_cast<int>(kBeforeN) + 5, microseconds(1000), microseconds(500));
  r.control.retried(r.now);
  r.control.retried(r.now);
  r.units(1200, microseconds(1000), microseconds(500));
  const auto back_to_one = r.widths.find('1', kBeforeN);
  EXPECT_EQ(back_to_one, kBeforeN + 5u);
  EXPECT_EQ(r.widths.substr(back_to_one, 8u * 128u), std::string(8u * 128u, '1'));
  r.units(3000, microseconds(1000), microseconds(500));
  EXPECT_EQ(r.widths.back(), 'N');
  // One retry an epoch does not.
  Feed one;
  one.units(static_cast<int>(kBeforeN) + 5, microseconds(1000), microseconds(500));
  one.control.retried(one.now);
  one.units(1200, microseconds(1000), microseconds(500));
  EXPECT_EQ(one.widths.substr(kBeforeN, 300u), std::string(300u, 'N'));
}

TEST(WidthControlTest, NMetWithRetriesEachTimeIsTriedLessAndLessOften) {
  // Units side by side by their write sets that InnoDB's next-record locks chain on N
  // sessions: every epoch at N meets two retries. Each time, twice as long on one session
  // before N is tried again (8, 16, 32, then 64 epochs), not every 10 epochs.
  Feed r;
  std::vector<std::size_t> tried;  // where each run at N began
  for (int i = 0; i < 60000; ++i) {
    const bool wide = r.control.width() != 1;
    if (wide && (r.widths.empty() || r.widths.back() == '1')) tried.push_back(r.widths.size());
    r.units(1, microseconds(1000), microseconds(500));
    if (wide && r.widths.size() - tried.back() == 5) {
      r.control.retried(r.now);
      r.control.retried(r.now);
    }
  }
  ASSERT_GE(tried.size(), 4u);
  EXPECT_LE(tried.size(), 12u);  // (every 10 epochs: 55)
  for (std::size_t i = 1; i + 1 < tried.size() && i < 4; ++i)
    EXPECT_GT(tried[i + 1] - tried[i], 3 * (tried[i] - tried[i - 1]) / 2) << i;
  // N holding a whole run ends the back-off: the next time it ends with retries, one session
  // for 8 epochs again.
  Feed h;
  h.units(static_cast<int>(kBeforeN) + 5, microseconds(1000), microseconds(500));
  h.control.retried(h.now);
  h.control.retried(h.now);
  h.units(3000, microseconds(1000), microseconds(500));
  ASSERT_EQ(h.widths.back(), 'N');                          // (tried again after 8 epochs, kept)
  h.units(9 * 128, microseconds(1000), microseconds(500));  // (a whole run at N)
  const std::size_t at = h.widths.size();
  h.control.retried(h.now);
  h.control.retried(h.now);
  h.units(2000, microseconds(1000), microseconds(500));
  const auto back = h.widths.find('N', at);
  ASSERT_NE(back, std::string::npos);
  EXPECT_LE(back - at, 11u * 128u);
}

// Units read `lag` commits ahead of their own (a window of that many): each read with its keys
// when the control wanted them as the unit `lag` before it committed; returns how many were.
struct Reader {
  WidthControl control{8, 0, WidthControl::kQuiet};
  Clock::time_point now{};
  std::string widths;
  std::uint64_t seq = 0;
  std::deque<bool> read;  // (wants_keys() as each unit waiting was read)
  std::size_t keyed = 0;

  void units(int n, microseconds one, microseconds wide, int per_level, std::size_t lag) {
    std::vector<std::uint64_t> deps;
    while (read.size() < lag) read.push_back(control.wants_keys());
    for (int i = 0; i < n; ++i) {
      read.push_back(control.wants_keys());
      const bool with_keys = read.front();
      read.pop_front();
      keyed += with_keys ? 1 : 0;
      widths += control.width() == 1 ? '1' : 'N';
      now += control.width() == 1 ? one : wide;
      ++seq;
      deps.clear();
      if (per_level != 0 && seq > static_cast<std::uint64_t>(per_level))
        deps.push_back(seq - per_level);
      control.committed(0, now, seq, &deps, with_keys);
    }
  }
  // Then `n` units eight side by side a level, faster at N: how many until N took them (npos:
  // never).
  std::size_t until_wide(int n, std::size_t lag) {
    const std::size_t from = widths.size();
    units(n, microseconds(1000), microseconds(400), 8, lag);
    const auto wide = widths.find('N', from);
    return wide == std::string::npos ? wide : wide - from;
  }
};

TEST(WidthControlTest, TheFirstHalfSecondIsQuiet) {
  // Units of 1 ms, faster at N: for the first 500 ms no keys are wanted and one session takes
  // them; then keys are, and the units read with them (after the 64 read before, waiting) start
  // the warm-up.
  Reader r;
  r.units(5000, microseconds(1000), microseconds(500), 0, 64);
  const std::size_t quiet = 1 + 500 + 64;  // (from the first commit; the 64 read before)
  EXPECT_EQ(r.widths.find('N'), quiet + kBeforeN);
  EXPECT_EQ(r.widths.back(), 'N');
  EXPECT_GE(r.keyed, 5000u - quiet - 1);
  // A log replayed in less than that: never a key read, never a session opened.
  Reader s;
  s.units(450, microseconds(1000), microseconds(500), 0, 64);
  EXPECT_EQ(s.keyed, 0u);
  EXPECT_FALSE(s.control.open_ahead());
  EXPECT_EQ(s.widths, std::string(450, '1'));
}

TEST(WidthControlTest, AWindowLongerThanTheKeyedEpochsStillTells) {
  // A window five epochs long (the engine's holds 128 units; units of 48 KiB make an epoch of
  // 32): the keys wanted for a run's last two epochs reach the commits three epochs after its
  // end. The run waits, keys read, for an epoch that tells, and N is found once the log allows
  // it (counted as chains, the units read without keys kept it on one session for good).
  Reader r;
  r.units(20000, microseconds(1000), microseconds(900), 1, 640);
  EXPECT_EQ(r.widths.find('N'), std::string::npos);
  EXPECT_LE(r.keyed, 20000u / 2);
  EXPECT_LE(r.until_wide(20000, 640), 20u * 128u);
  EXPECT_EQ(r.widths.back(), 'N');
}

TEST(WidthControlTest, ASecondLeftEndsTheQuietAfter100Milliseconds) {
  // Told after each unit what is left at the rate so far: where a second or more is, keys are
  // wanted once 100 ms have shown the rate; where less is, the quiet lasts its half second.
  for (const int left_ms : {5000, 1000, 999}) {
    WidthControl control(8, 0, WidthControl::kQuiet);
    Clock::time_point now{};
    const std::vector<std::uint64_t> none;
    int wanted_at = 0;
    for (int i = 1; i <= 600 && wanted_at == 0; ++i) {
      now += microseconds(1000);
      control.committed(0, now, static_cast<std::uint64_t>(i), &none, false);
      control.expect_left(now, std::chrono::milliseconds(left_ms));
      if (control.wants_keys()) wanted_at = i;
    }
    EXPECT_EQ(wanted_at, left_ms >= 1000 ? 101 : 501) << left_ms;
    EXPECT_FALSE(control.quiet());
  }
}

TEST(WidthControlTest, OnOneSessionKeysAreReadForTheLastTwoEpochsOfARun) {
  // A chain: after the quiet half second and the warm-up, runs of 8 epochs on one session, keys
  // read for the last two of each (the last one decides): about a quarter of the units.
  Reader r;
  r.units(40000, microseconds(1000), microseconds(900), 1, 64);
  EXPECT_EQ(r.widths.find('N'), std::string::npos);
  EXPECT_GE(r.keyed, 40000u / 5);
  EXPECT_LE(r.keyed, 40000u * 3 / 10);
  // Then units eight side by side a level: a run's last epoch shows it, N tried and kept.
  EXPECT_LE(r.until_wide(6000, 64), 12u * 128u);
  EXPECT_EQ(r.widths.back(), 'N');
  // (at N every unit is read with its keys)
  const std::size_t before = r.keyed;
  r.units(1000, microseconds(1000), microseconds(400), 8, 64);
  EXPECT_EQ(r.keyed - before, 1000u);
}

TEST(WidthControlTest, UnitsReadWithoutKeysTellNothing) {
  // After the warm-up, units that wait for nothing but were read without their keys (each
  // waited for the one before it): N is not tried on their account.
  WidthControl control(8, 0, std::chrono::milliseconds(0));
  Clock::time_point now{};
  const std::vector<std::uint64_t> none;
  for (std::uint64_t seq = 1; seq <= 3000; ++seq) {
    now += microseconds(1000);
    control.committed(0, now, seq, &none, seq == 1);
  }
  EXPECT_EQ(control.width(), 1u);
  EXPECT_FALSE(control.open_ahead());
}

}  // namespace
}  // namespace binrecover::recovery
