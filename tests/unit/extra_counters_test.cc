// The per-VL / per-lane counters are stored packed (13 bytes a counter): every field of a state
// reads back exactly, for every counter, next to its neighbours and through a copy.
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

}  // namespace
}  // namespace ibpulse::converters
