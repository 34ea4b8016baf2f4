// PortSnapshot::xmit_wait_ratio: PortXmitWait ticks over the ticks of the last interval, with
// the configured tick period, at most 1; absent before the counter is read and while its
// 32-bit copy is latched (the interval's count is short), back once a reading is exact again.
#include <gtest/gtest.h>

#include <cmath>

#include "ibpulse/converters/converter.h"
#include "sample_builders.h"

namespace ibpulse::converters {
namespace {

using collector::RawSample;
using schema::Attribute;
using namespace std::chrono_literals;

const collector::PortKey kPort{0x0002c90300000001ull, 1};
const Clock::time_point t0 = Clock::time_point{} + 1h;

RawSample wait_reading(Clock::time_point at, uint64_t ticks) {
  RawSample s = testing::sample(kPort, Attribute::kPortCounters, at);
  s.values[testing::field(Attribute::kPortCounters, "PortXmitWait")] = ticks;
  return s;
}

float ratio(const Converter& c, Clock::time_point at) {
  const auto snap = c.snapshot(at);
  const PortSnapshot* p = snap->find(kPort);
  EXPECT_NE(p, nullptr);
  return p ? p->xmit_wait_ratio : -1.0f;
}

TEST(XmitWaitRatio, TicksTimesTheTickOverTheInterval) {
  ConverterOptions options;
  options.xmit_wait_tick = 4ns;
  Converter c(options);
  c.set_topology(testing::one_port_topology(kPort), t0);
  EXPECT_TRUE(std::isnan(ratio(c, t0))) << "never read: absent";
  c.apply(wait_reading(t0, 1000));
  EXPECT_EQ(ratio(c, t0), 0.0f) << "one reading: no interval yet";
  // 2 s, 125,000,000 ticks of 4 ns: 0.5 s waited, a quarter of the time.
  c.apply(wait_reading(t0 + 2s, 1000 + 125'000'000));
  EXPECT_FLOAT_EQ(ratio(c, t0 + 2s), 0.25f);
  // A tick of 16 ns makes the same count four times the time: all of it.
  options.xmit_wait_tick = 16ns;
  Converter slow(options);
  slow.set_topology(testing::one_port_topology(kPort), t0);
  slow.apply(wait_reading(t0, 0));
  slow.apply(wait_reading(t0 + 1s, 62'500'000));
  EXPECT_FLOAT_EQ(ratio(slow, t0 + 1s), 1.0f);
  slow.apply(wait_reading(t0 + 2s, 62'500'000 + 100'000'000));
  EXPECT_FLOAT_EQ(ratio(slow, t0 + 2s), 1.0f) << "more ticks than time: at most 1";
}

TEST(XmitWaitRatio, ALatchedCounterGivesNoRatioUntilAnExactReading) {
  Converter c({});
  c.set_topology(testing::one_port_topology(kPort), t0);
  c.apply(wait_reading(t0, 4'000'000'000));
  c.apply(wait_reading(t0 + 1s, 0xFFFFFFFF));  // latched: the count since is unknown
  EXPECT_TRUE(std::isnan(ratio(c, t0 + 1s)));
  c.apply(wait_reading(t0 + 2s, 0xFFFFFFFF));
  EXPECT_TRUE(std::isnan(ratio(c, t0 + 2s))) << "still latched";
  c.apply(wait_reading(t0 + 3s, 0));  // cleared (by another manager here)
  c.apply(wait_reading(t0 + 4s, 25'000'000));
  EXPECT_FLOAT_EQ(ratio(c, t0 + 4s), 0.1f) << "the default tick: 4 ns";
}

}  // namespace
}  // namespace ibpulse::converters
