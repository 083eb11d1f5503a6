#include "recovery/apply/width_control.h"

#include <gtest/gtest.h>

#include <string>

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

  std::uint64_t level = 0;

  // `per_level`: units side by side (at one dependency level) before the next level; 0: all
  // at one level.
  void units(int n, microseconds one, microseconds wide, std::size_t bytes = 0, int per_level = 0) {
    for (int i = 0; i < n; ++i) {
      const std::size_t w = control.width();
      widths += w == 1 ? '1' : 'N';
      now += w == 1 ? one : wide;
      if (per_level != 0 && i % per_level == 0) ++level;
      control.committed(bytes, now, level);
    }
  }
};

TEST(WidthControlTest, StartsWideAndStaysWideWhereWideIsFaster) {
  Feed r;
  r.units(20000, microseconds(1000), microseconds(500));
  EXPECT_EQ(r.widths.substr(0, 32), std::string(32, 'N'));
  // (one epoch on one session after the first measured one, then a probe now and then, ever
  // rarer: 128 units each, after 8, 16, 32, 64 epochs)
  EXPECT_LE(r.control.narrowed(), 6u * 128u);
  EXPECT_GE(r.control.narrowed(), 128u);
  EXPECT_EQ(r.widths.back(), 'N');
}

TEST(WidthControlTest, GoesToOneSessionWhereThatIsFaster) {
  Feed r;
  r.units(20000, microseconds(1000), microseconds(1200));
  // The first commit, the warm-up (32 units) and one epoch at N (128), then one session from
  // then on but for the probes.
  const auto first_one = r.widths.find('1');
  EXPECT_EQ(first_one, 1u + 32u + 128u);
  const std::size_t wide = r.widths.size() - r.control.narrowed();
  EXPECT_LE(wide, 1u + 32u + 128u + 5u * 128u);
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

TEST(WidthControlTest, SmallDifferencesDoNotMoveAChoiceMade) {
  // Wide faster at first: chosen. Then one session 2% faster (within the margin of 4%, as a
  // disk's syncs make epochs differ): the probes of one session do not take over.
  Feed r;
  r.units(2000, microseconds(510), microseconds(500));
  EXPECT_EQ(r.widths.back(), 'N');
  r.units(20000, microseconds(490), microseconds(500));
  EXPECT_EQ(r.widths.back(), 'N');
  EXPECT_EQ(r.control.changes() % 2, 0u);  // (each probe went back)
  // One session 5% faster: it takes over.
  r.units(20000, microseconds(475), microseconds(500));
  EXPECT_EQ(r.widths.back(), '1');
  // The first choice goes by the rates alone: one session 2% faster is chosen.
  Feed s;
  s.units(20000, microseconds(490), microseconds(500));
  EXPECT_EQ(s.widths.back(), '1');
}

TEST(WidthControlTest, LargeUnitsCountByTheirBytes) {
  // 1 MiB units: an epoch is 128 work units, a unit 65 of them: two units an epoch, so the
  // first probe comes after five units, not after 161.
  Feed r;
  r.units(40, microseconds(30000), microseconds(20000), std::size_t{1} << 20);
  EXPECT_EQ(r.widths.find('1'), 5u);
}

TEST(WidthControlTest, AnEpochLastsAtLeast25Milliseconds) {
  // Units of 10 us: 128 of them take 1.3 ms; the warm-up and the first epoch wait for 25 ms
  // each (2,500 units).
  Feed r;
  r.units(6000, microseconds(10), microseconds(10));
  EXPECT_EQ(r.widths.find('1'), 1u + 2500u + 2500u);
}

TEST(WidthControlTest, TheTestFlipChangesEveryNUnits) {
  WidthControl control(4, 3);
  std::string widths;
  Clock::time_point now{};
  for (int i = 0; i < 12; ++i) {
    widths += control.width() == 1 ? '1' : 'N';
    control.committed(10, now);
  }
  EXPECT_EQ(widths, "NNN111NNN111");
  EXPECT_EQ(control.changes(), 4u);
  EXPECT_EQ(control.narrowed(), 6u);
}

TEST(WidthControlTest, AChainGoesOnOneSessionWithoutTryingN) {
  // Every unit waits for the one before it (a level each): after the warm-up, one session, and
  // N is never tried (even where its epochs would look faster: noise).
  Feed r;
  r.units(20000, microseconds(1000), microseconds(900), 0, 1);
  EXPECT_EQ(r.widths.find('1'), 1u + 32u);
  EXPECT_EQ(r.widths.find('N', 1u + 32u), std::string::npos);
  EXPECT_EQ(r.control.changes(), 1u);
  // Two units a level (1.5 a level needed): N measured, and kept where faster.
  Feed two;
  two.units(20000, microseconds(1000), microseconds(900), 0, 2);
  EXPECT_EQ(two.widths.substr(0, 1u + 32u + 128u), std::string(1u + 32u + 128u, 'N'));
  EXPECT_EQ(two.widths.back(), 'N');
}

TEST(WidthControlTest, NTriedOnceTheLogAllowsIt) {
  Feed r;
  r.units(3000, microseconds(1000), microseconds(1000), 0, 1);  // a chain
  EXPECT_EQ(r.widths.back(), '1');
  const std::size_t chain = r.widths.size();
  r.units(3000, microseconds(1000), microseconds(400), 0, 8);  // eight side by side a level
  // (the run of 8 epochs on one session ends, then N is tried and kept)
  const auto wide = r.widths.find('N', chain);
  ASSERT_NE(wide, std::string::npos);
  EXPECT_LE(wide, chain + 9u * 128u);
  EXPECT_EQ(r.widths.back(), 'N');
  // A chain again: one session from the first epoch that shows it.
  const std::size_t overlap = r.widths.size();
  r.units(3000, microseconds(1000), microseconds(900), 0, 1);
  EXPECT_LE(r.widths.find('1', overlap), overlap + 2u * 128u);
  EXPECT_EQ(r.widths.find('N', overlap + 2u * 128u), std::string::npos);
}

TEST(WidthControlTest, UnitsRunAgainForLocksEndAnEpochOnN) {
  // Units side by side by their write sets, but two run again for a lock in the warm-up: one
  // session from its end, without the epoch on N (wide looks faster here: the rates are not
  // what decides); N tried again after the run of 8 epochs on one session, and kept where no
  // unit runs again.
  Feed r;
  r.units(5, microseconds(1000), microseconds(500));
  r.control.retried();
  r.control.retried();
  r.units(1200, microseconds(1000), microseconds(500));
  // (the warm-up: 32 units and at least 25 ms, 50 units of 500 us)
  const auto first_one = r.widths.find('1');
  EXPECT_EQ(first_one, 1u + 50u);
  EXPECT_EQ(r.widths.substr(first_one, 8u * 128u), std::string(8u * 128u, '1'));
  r.units(3000, microseconds(1000), microseconds(500));
  EXPECT_EQ(r.widths.back(), 'N');
  // One retry an epoch does not.
  Feed one;
  one.units(5, microseconds(1000), microseconds(500));
  one.control.retried();
  one.units(200, microseconds(1000), microseconds(500));
  EXPECT_EQ(one.widths.substr(0, 1u + 32u + 128u), std::string(1u + 32u + 128u, 'N'));
}

}  // namespace
}  // namespace binrecover::recovery
