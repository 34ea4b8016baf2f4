// PortSnapshot::xmit_wait_ratio: PortXmitWait ticks over the ticks of the last interval, with
// the configured tick period, else the node's PortSamplesControl Tick at the link's speed, at
// most 1; absent before the counter is read and while its 32-bit copy is latched (the
// interval's count is short), back once a reading is exact again. vl_xmit_wait_ratio: the same
// per VL from PortVLXmitWaitCounters' 16-bit counters.
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

// A topology of kPort alone, its link 4X at `speed` (PortInfo LinkSpeedActive) or, with
// `speed_ext`, LinkSpeedExtActive.
std::shared_ptr<collector::Topology> linked_port(uint8_t speed, uint8_t speed_ext) {
  auto topology = testing::one_port_topology(kPort);
  collector::LinkState& link = topology->ports[0].link;
  link.state = 4;
  link.width_active = 2;  // 4X
  link.speed_active = speed;
  link.speed_ext_active = speed_ext;
  return topology;
}

RawSample tick_answer(uint8_t tick) {
  RawSample s;
  s.port = kPort;
  s.attribute = Attribute::kPortSamplesControl;
  s.received = t0;
  s.values[0] = tick;
  s.field_count = 1;
  s.advertised = 1;
  return s;
}

float tick_ns(const Converter& c) {
  const auto snap = c.snapshot(t0 + 1s);
  return snap->find(kPort) ? snap->find(kPort)->xmit_wait_tick_ns : -1.0f;
}

TEST(XmitWaitRatio, TheNodesTickIsTickPlusOneByteTimesOfALane) {
  // SDR: a byte on a lane takes 4 ns (2 Gb/s after 8b/10b): Tick 0 is 4 ns, Tick 3 is 16 ns.
  Converter sdr({});
  sdr.set_topology(linked_port(1, 0), t0);
  EXPECT_FLOAT_EQ(tick_ns(sdr), 4.0f) << "no answer: the default";
  sdr.apply(tick_answer(3));
  EXPECT_FLOAT_EQ(tick_ns(sdr), 16.0f);
  // EDR: 25 Gb/s per lane after 64b/66b, 0.32 ns a byte; Tick 7 (8 bytes) is 2.56 ns.
  Converter edr({});
  edr.set_topology(linked_port(4, 2), t0);
  edr.apply(tick_answer(7));
  EXPECT_FLOAT_EQ(tick_ns(edr), 2.56f);
  edr.apply(wait_reading(t0, 0));
  // 1 s, 97,656,250 ticks of 2.56 ns: a quarter of the time.
  edr.apply(wait_reading(t0 + 1s, 97'656'250));
  EXPECT_FLOAT_EQ(ratio(edr, t0 + 1s), 0.25f);
  // A configured period wins over the node's.
  ConverterOptions fixed;
  fixed.xmit_wait_tick = 10ns;
  Converter configured(fixed);
  configured.set_topology(linked_port(4, 2), t0);
  configured.apply(tick_answer(7));
  EXPECT_FLOAT_EQ(tick_ns(configured), 10.0f);
  // A link of unknown speed has no byte time: the default.
  Converter unknown({});
  unknown.set_topology(testing::one_port_topology(kPort), t0);
  unknown.apply(tick_answer(7));
  EXPECT_FLOAT_EQ(tick_ns(unknown), 4.0f);
}

RawSample vl_waits(Clock::time_point at, uint64_t vl0, uint64_t vl3, uint64_t vl5) {
  RawSample s = testing::sample(kPort, Attribute::kPortVLXmitWaitCounters, at);
  s.values[testing::field(Attribute::kPortVLXmitWaitCounters, "PortVLXmitWait0")] = vl0;
  s.values[testing::field(Attribute::kPortVLXmitWaitCounters, "PortVLXmitWait3")] = vl3;
  s.values[testing::field(Attribute::kPortVLXmitWaitCounters, "PortVLXmitWait5")] = vl5;
  return s;
}

TEST(XmitWaitRatio, PerVlFromThe16BitCountersAbsentWhileOneIsLatched) {
  ConverterOptions options;
  options.xmit_wait_tick = 1ms;  // 1,000 ticks a second: the 16-bit counters hold 65 s
  Converter c(options);
  c.set_topology(testing::one_port_topology(kPort), t0);
  c.apply(vl_waits(t0, 0, 100, 65000));
  auto snap = c.snapshot(t0);
  EXPECT_FALSE(snap->find(kPort)->vl_xmit_wait_ratio(3)) << "one reading: no interval yet";
  c.apply(vl_waits(t0 + 2s, 0, 1100, 0xFFFF));
  snap = c.snapshot(t0 + 2s);
  const PortSnapshot& p = *snap->find(kPort);
  EXPECT_EQ(p.vl_xmit_wait_ratio(0), 0.0) << "read, no wait";
  ASSERT_TRUE(p.vl_xmit_wait_ratio(3));
  EXPECT_DOUBLE_EQ(*p.vl_xmit_wait_ratio(3), 0.5) << "1,000 ticks of 1 ms in 2 s";
  EXPECT_FALSE(p.vl_xmit_wait_ratio(5)) << "latched: its count is short";
  EXPECT_EQ(p.vl_xmit_wait_ratio(15), 0.0);
  EXPECT_FALSE(p.vl_xmit_wait_ratio(16)) << "there are 16 VLs";
  c.apply(vl_waits(t0 + 3s, 0, 2100, 0));  // VL 5 cleared by another manager: still none
  c.apply(vl_waits(t0 + 4s, 0, 2100, 250));
  snap = c.snapshot(t0 + 4s);
  EXPECT_EQ(snap->find(kPort)->vl_xmit_wait_ratio(3), 0.0);
  EXPECT_DOUBLE_EQ(*snap->find(kPort)->vl_xmit_wait_ratio(5), 0.25) << "exact again";
}

}  // namespace
}  // namespace ibpulse::converters
