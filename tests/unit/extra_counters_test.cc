// The per-VL / per-lane counters are stored packed (13 bytes a counter, none for one read as 0
// only): every field of a state reads back exactly, for every counter, next to its neighbours
// and through a copy, whatever the order in which counters gain and lose their slots.
#include "ibpulse/converters/extra_counters.h"

#include <gtest/gtest.h>

#include <random>

#include "ibpulse/schema/counters.h"

namespace ibpulse::converters {
namespace {

ExtraCounterState random_state(std::mt19937_64& rng) {
  ExtraCounterState s;
  s.total = rng();
  s.last_raw = static_cast<uint32_t>(rng());
  s.source = static_cast<Source>(rng() % 3);
  s.saturated = rng() % 2 == 0;
  return s;
}

TEST(ExtraCounters, EveryFieldOfEveryCounterReadsBack) {
  std::mt19937_64 rng(3);
  const size_t n = schema::extra_counter_count();
  std::vector<ExtraCounterState> expected(n);
  ExtraCounters c;
  // In a shuffled order, so groups are added in any order and grow the storage each time.
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i)
    order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  for (size_t i : order) {
    expected[i] = random_state(rng);
    c.set(i, expected[i]);
  }
  expected[order[0]] = {UINT64_MAX, UINT32_MAX, Source::kWide, true};  // every bit set
  c.set(order[0], expected[order[0]]);
  const ExtraCounters copy(c);
  for (size_t i = 0; i < n; ++i) {
    ASSERT_TRUE(c.find(i)) << i;
    EXPECT_EQ(*c.find(i), expected[i]) << i;
    EXPECT_EQ(*copy.find(i), expected[i]) << i;
  }
  size_t seen = 0;
  c.for_each([&](size_t i, const ExtraCounterState& s) {
    EXPECT_EQ(s, expected[i]) << i;
    ++seen;
  });
  EXPECT_EQ(seen, n);
  EXPECT_FALSE(c.find(n)) << "out of range";
}

TEST(ExtraCounters, ANewGroupStartsNeverRead) {
  ExtraCounters c;
  c.set(0, {5, 6, Source::kNarrow, false});
  ASSERT_TRUE(c.find(1));  // same attribute: stored, never read
  EXPECT_EQ(*c.find(1), ExtraCounterState{});
  EXPECT_EQ(c.find(0)->total, 5u);
}

// Counters read as 0 take no slot; a counter that moves gets one, in index order among the
// others, and gives it back if it is set to a slotless state again (a state file's restore).
TEST(ExtraCounters, OnlyCountersThatMovedTakeASlot) {
  std::mt19937_64 rng(7);
  const size_t n = schema::extra_counter_count();
  const ExtraCounterState read_zero{0, 0, Source::kNarrow, false};
  std::vector<ExtraCounterState> expected(n);
  std::vector<bool> set(n, false);
  ExtraCounters c;
  for (int round = 0; round < 20 * static_cast<int>(n); ++round) {
    const size_t i = rng() % n;
    switch (rng() % 4) {
      case 0:
        expected[i] = read_zero;
        break;
      case 1:
        expected[i] = ExtraCounterState{};
        break;
      default:
        expected[i] = random_state(rng);
        expected[i].total |= 1;  // never one of the slotless states
    }
    set[i] = true;
    c.set(i, expected[i]);
    size_t moved = 0;
    for (size_t k = 0; k < n; ++k)
      moved += set[k] && expected[k] != read_zero && expected[k] != ExtraCounterState{};
    ASSERT_EQ(c.packed(), moved) << "round " << round;
  }
  const ExtraCounters copy(c);
  size_t seen = 0;
  copy.for_each([&](size_t i, const ExtraCounterState& s) {
    EXPECT_EQ(s, expected[i]) << i;
    ++seen;
  });
  EXPECT_EQ(seen, c.counters());
  for (size_t i = 0; i < n; ++i) {
    if (const auto state = c.find(i)) {
      EXPECT_EQ(*state, expected[i]) << i;
    }
  }
}

TEST(ExtraCounters, ACounterReadAsZeroIsReadNotAbsent) {
  ExtraCounters c;
  c.set(0, {0, 0, Source::kNarrow, false});
  ASSERT_TRUE(c.find(0));
  EXPECT_EQ(c.find(0)->source, Source::kNarrow);
  EXPECT_EQ(c.packed(), 0u);
  c.set(0, {0, 0, Source::kWide, false});  // 0, but not the slotless state
  EXPECT_EQ(c.find(0)->source, Source::kWide);
  EXPECT_EQ(c.packed(), 1u);
  c.set(0, {0, 0, Source::kNarrow, false});
  EXPECT_EQ(c.packed(), 0u) << "back to the slotless state";
  EXPECT_EQ(c.find(0)->source, Source::kNarrow);
}

}  // namespace
}  // namespace ibpulse::converters
