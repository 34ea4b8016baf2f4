// A snapshot's compact totals read back exactly what was stored, whatever the number of
// non-zero counters (inline or in the shared block), and set() changes one total only.
#include "ibpulse/converters/port_totals.h"

#include <gtest/gtest.h>

#include <random>

namespace ibpulse::converters {
namespace {

// Totals with `nonzero` of the counters set to large random values, at random places.
CoreTotals random_totals(size_t nonzero, std::mt19937_64& rng) {
  CoreTotals t{};
  std::vector<size_t> order(t.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  for (size_t i = 0; i < nonzero; ++i)
    t[order[i]] = rng() | 1;  // never 0
  return t;
}

TEST(PortTotals, ReadBackExactlyInlineAndBeyond) {
  std::mt19937_64 rng(7);
  for (size_t nonzero : {size_t{0}, size_t{1}, PortTotals::kInline - 1, PortTotals::kInline,
                         PortTotals::kInline + 1, PortTotals::kCount}) {
    for (int round = 0; round < 50; ++round) {
      const CoreTotals t = random_totals(nonzero, rng);
      const PortTotals p(t);
      for (size_t c = 0; c < t.size(); ++c)
        ASSERT_EQ(p[c], t[c]) << "counter " << c << " of " << nonzero << " non-zero";
      EXPECT_EQ(p.all(), t);
      // NOLINTNEXTLINE(performance-unnecessary-copy-initialization): the copy is under test
      const PortTotals copy = p;  // snapshots are copied: the shared block goes along
      EXPECT_EQ(copy.all(), t);
    }
  }
  EXPECT_EQ(PortTotals{}.all(), CoreTotals{});
}

TEST(PortTotals, SetChangesOneTotal) {
  std::mt19937_64 rng(11);
  CoreTotals t = random_totals(PortTotals::kInline, rng);
  PortTotals p(t);
  for (size_t c : {size_t{0}, size_t{17}, PortTotals::kCount - 1}) {
    t[c] = t[c] == 0 ? 5 : 0;  // a new non-zero one, or one back to 0
    p.set(c, t[c]);
    EXPECT_EQ(p.all(), t) << c;
  }
  EXPECT_EQ(p, PortTotals(t));
  EXPECT_LT(sizeof(PortTotals), sizeof(CoreTotals) / 2);
}

}  // namespace
}  // namespace ibpulse::converters
