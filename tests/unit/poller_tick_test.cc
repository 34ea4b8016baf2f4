// The poller asks each node's PortSamplesControl once for its Tick (the period of its
// PortXmitWait tick) and hands the answer to the converter raw; a node that does not answer is
// asked twice, one that refuses once, and the counter reads go on meanwhile.
#include <gtest/gtest.h>

#include "poller_harness.h"

namespace ibpulse::collector {
namespace {

using namespace std::chrono_literals;
using schema::Attribute;

constexpr uint16_t kPortSamplesControl = 0x10;
constexpr PortKey kSwitch1{kSwitchGuid, 1};  // the switch's first linked port: asked through it

uint64_t switch_asks(const PollerHarness& h) {
  uint64_t n = 0;
  for (uint8_t port = 0; port <= 4; ++port)
    n += h.fabric.attempts(PortKey{kSwitchGuid, port}, Attribute::kPortSamplesControl);
  return n;
}

TEST(PollerTick, EachNodeIsAskedOnceAndItsTickReachesTheConverterRaw) {
  PollerHarness h;
  h.fabric.node(kSwitchGuid).sample_tick = 7;
  h.fabric.node(kHca2.node_guid).sample_tick = 3;
  h.options.rediscover = 5s;
  ASSERT_TRUE(h.run(1000, 12s).ok());
  ASSERT_GE(h.discoveries, 3u);
  EXPECT_EQ(switch_asks(h), 1u) << "once, whatever the discoveries and ports";
  EXPECT_EQ(h.fabric.attempts(kSwitch1, Attribute::kPortSamplesControl), 1u);
  for (const PortKey hca : {kHca1, kHca2, kHca3})
    EXPECT_EQ(h.fabric.attempts(hca, Attribute::kPortSamplesControl), 1u);
  const auto of_switch = h.of(kSwitch1, Attribute::kPortSamplesControl);
  ASSERT_EQ(of_switch.size(), 1u);
  EXPECT_EQ(of_switch[0].values[0], 7u);
  EXPECT_EQ(of_switch[0].field_count, 1u);
  const auto of_hca2 = h.of(kHca2, Attribute::kPortSamplesControl);
  ASSERT_EQ(of_hca2.size(), 1u);
  EXPECT_EQ(of_hca2[0].values[0], 3u);
  EXPECT_EQ(h.of(kHca1, Attribute::kPortSamplesControl).at(0).values[0], 0u);
}

TEST(PollerTick, AnUnansweredNodeIsAskedTwiceARefusingOneOnce) {
  PollerHarness h;
  h.fabric.node(kHca1.node_guid).lose_next[kPortSamplesControl] = 1000;  // as ibsim: never
  h.fabric.node(kHca3.node_guid).status[kPortSamplesControl] = testing::kStatusUnsupported;
  ASSERT_TRUE(h.run(1000, 20s).ok());
  // Two asks, each with the engine's retries (every attempt lost).
  EXPECT_EQ(h.fabric.attempts(kHca1, Attribute::kPortSamplesControl),
            2u * (h.options.mad.retries + 1));
  EXPECT_EQ(h.fabric.attempts(kHca3, Attribute::kPortSamplesControl), 1u);
  EXPECT_TRUE(h.of(kHca1, Attribute::kPortSamplesControl).empty());
  EXPECT_TRUE(h.of(kHca3, Attribute::kPortSamplesControl).empty());
  EXPECT_EQ(h.of(kHca2, Attribute::kPortSamplesControl).size(), 1u);
  // Counted apart from the reads: no read failed.
  EXPECT_EQ(h.stats.tick_asks_answered, 2u) << "the switch and Hca2";
  EXPECT_EQ(h.stats.tick_asks_failed, 3u) << "Hca1 twice, Hca3 once";
  EXPECT_EQ(h.stats.mad.failed_total(), 0u);
  // The counters were read all along: every sweep whole.
  ASSERT_GE(h.sweeps.size(), 15u);
  for (const SweepSummary& s : h.sweeps)
    EXPECT_EQ(s.stale, 0u) << s.number;
}

TEST(PollerTick, AConfiguredTickAsksNothing) {
  PollerHarness h;
  h.options.ask_xmit_wait_tick = false;
  ASSERT_TRUE(h.run(3).ok());
  EXPECT_EQ(switch_asks(h), 0u);
  EXPECT_EQ(h.fabric.attempts(kHca1, Attribute::kPortSamplesControl), 0u);
}

}  // namespace
}  // namespace ibpulse::collector
