// Table-driven: every width, the latch, foreign clears, own clears and source switches, with
// the totals worked out by hand.
#include "ibpulse/converters/accumulator.h"

#include <gtest/gtest.h>

#include <ostream>
#include <vector>

#include "ibpulse/converters/width.h"

namespace ibpulse::converters {
namespace {

struct Step {
  uint64_t raw;
  Source source = Source::kNarrow;
  bool own_clear = false;  // this reading is our Set's response
};

struct Case {
  const char* name;
  uint8_t width;
  uint8_t scale;
  std::vector<Step> steps;
  uint64_t total;  // expected, scaled
  unsigned lossy, foreign, switches;
  bool saturated;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

class AccumulatorTable : public ::testing::TestWithParam<Case> {};

TEST_P(AccumulatorTable, Totals) {
  const Case& c = GetParam();
  CounterState s;
  unsigned lossy = 0;
  unsigned foreign = 0;
  unsigned switches = 0;
  for (const Step& step : c.steps) {
    const uint8_t width = step.source == Source::kWide ? uint8_t{64} : c.width;
    const Reading r{step.raw, width, c.scale, step.source};
    if (step.own_clear) {
      rebase(s, r);
      continue;
    }
    const Outcome o = accumulate(s, r);
    lossy += o.lossy;
    foreign += o.foreign_clear;
    switches += o.source_switch;
  }
  EXPECT_EQ(s.total, c.total);
  EXPECT_EQ(lossy, c.lossy);
  EXPECT_EQ(foreign, c.foreign);
  EXPECT_EQ(switches, c.switches);
  EXPECT_EQ(s.saturated, c.saturated);
}

// clang-format off
const Case kCases[] = {
    {"starts_at_first_reading", 16, 1, {{123}}, 123, 0, 0, 0, false},
    {"grows_by_deltas", 16, 1, {{10}, {15}, {15}, {40}}, 40, 0, 0, 0, false},
    {"scales_once", 32, 4, {{10}, {11}}, 44, 0, 0, 0, false},
    {"latch_2_bit", 2, 1, {{1}, {3}, {3}}, 3, 2, 0, 0, true},
    {"latch_4_bit", 4, 1, {{0}, {9}, {15}}, 15, 1, 0, 0, true},
    {"latch_8_bit", 8, 1, {{200}, {255}}, 255, 1, 0, 0, true},
    {"latch_16_bit", 16, 1, {{65000}, {65535}, {65535}}, 65535, 2, 0, 0, true},
    {"latch_32_bit_data", 32, 4, {{0xfffffff0}, {0xffffffff}}, 0xffffffffull * 4, 1, 0, 0, true},
    {"below_latch_is_not_saturated", 16, 1, {{65534}}, 65534, 0, 0, 0, false},
    {"foreign_clear_adds_new_reading", 16, 1, {{100}, {150}, {20}}, 170, 0, 1, 0, false},
    {"foreign_clear_to_zero", 8, 1, {{7}, {0}, {3}}, 10, 0, 1, 0, false},
    {"foreign_clear_of_latched_counter", 8, 1, {{255}, {5}}, 260, 0, 1, 0, false},
    {"own_clear_rebases_without_adding", 16, 1, {{50000}, {0, Source::kNarrow, true}, {30}},
     50030, 0, 0, 0, false},
    {"own_clear_response_nonzero", 16, 1, {{50000}, {2, Source::kNarrow, true}, {30}}, 50028, 0,
     0, 0, false},
    {"latched_then_own_clear", 8, 1, {{255}, {0, Source::kNarrow, true}, {9}}, 264, 0, 0, 0,
     false},
    {"switch_to_wide_is_a_discontinuity", 32, 4, {{100}, {110}, {5000, Source::kWide},
     {5010, Source::kWide}}, 480, 0, 0, 1, false},
    {"switch_back_to_narrow", 32, 1, {{7, Source::kWide}, {9, Source::kWide}, {3}, {4}}, 10, 0, 0,
     1, false},
    {"wide_never_latches", 16, 1, {{0xfffffffffffffff0ull, Source::kWide},
     {0xffffffffffffffffull, Source::kWide}}, 0xffffffffffffffffull, 0, 0, 0, false},
};
// clang-format on

INSTANTIATE_TEST_SUITE_P(Converters, AccumulatorTable, ::testing::ValuesIn(kCases),
                         [](const auto& test) { return std::string(test.param.name); });

TEST(Width, MaxLatchAndFill) {
  EXPECT_EQ(counter_max(2), 3u);
  EXPECT_EQ(counter_max(4), 15u);
  EXPECT_EQ(counter_max(8), 255u);
  EXPECT_EQ(counter_max(16), 65535u);
  EXPECT_EQ(counter_max(32), 0xffffffffu);
  EXPECT_EQ(counter_max(64), ~uint64_t{0});
  EXPECT_TRUE(is_latched(255, 8));
  EXPECT_FALSE(is_latched(254, 8));
  EXPECT_DOUBLE_EQ(fill_ratio(0, 16), 0.0);
  EXPECT_GE(fill_ratio(49152, 16), 0.75);
  EXPECT_LT(fill_ratio(49151, 16), 0.75);
}

}  // namespace
}  // namespace ibpulse::converters
