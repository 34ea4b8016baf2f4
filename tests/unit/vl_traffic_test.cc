// Per-VL traffic from PortSamples results: which selects count, the octet formulas (receive
// packets for ibIfVLInOctets), 32-bit saturation, coverage, and the converter's rows.
#include "ibpulse/converters/vl_traffic.h"

#include <gtest/gtest.h>

#include "ibpulse/converters/converter.h"
#include "ibpulse/converters/state_file.h"

namespace ibpulse::converters {
namespace {

using collector::PortKey;
using collector::RawSample;
using schema::Attribute;
using namespace std::chrono_literals;

const PortKey kPort{0x0002c90300000007ull, 2};
const Clock::time_point t0 = Clock::time_point{} + 1h;

RawSample result(Clock::time_point at, std::vector<std::pair<uint16_t, uint64_t>> counts,
                 Attribute a = Attribute::kPortSamplesResultExtended) {
  RawSample s;
  s.port = kPort;
  s.attribute = a;
  s.received = at;
  s.sampled_for = 1s;
  s.field_count = static_cast<uint8_t>(counts.size());
  for (size_t i = 0; i < counts.size(); ++i) {
    s.selects[i] = counts[i].first;
    s.values[i] = counts[i].second;
  }
  return s;
}

TEST(VlTraffic, OnlyPerVlTrafficSelectsCountAndFormulasUseReceivePackets) {
  PortVlTraffic t;
  // 0x4001 XmitDataVL0, 0x4302 RcvDataVL3, 0x4303 XmitPktVL3, 0x4304 RcvPktVL3, 0x0001
  // PortXmitData (not per VL), 0x4016 PortVLXmitWait0 (not traffic).
  ASSERT_TRUE(add_vl_sample(t, result(t0, {{0x4001, 100},
                                           {0x4302, 1000},
                                           {0x4303, 7},
                                           {0x4304, 30},
                                           {0x0001, 99999},
                                           {0x4016, 5}})));
  EXPECT_EQ(t.vl[0].xmit_octets, 400u);
  EXPECT_EQ(t.vl[3].rcv_octets, 4000u);
  EXPECT_EQ(t.vl[3].xmit_packets, 7u);
  EXPECT_EQ(t.vl[3].rcv_packets, 30u);
  EXPECT_EQ(t.in_octets(3), 4000u + 30 * 4);  // RcvDataVL x 4 + RcvPktVL x POH
  EXPECT_EQ(t.out_octets(3), 0u + 7 * 4);     // XmitDataVL x 4 + XmitPktVL x POH
  EXPECT_EQ(t.out_octets(0), 400u);           // no packets sampled on VL0: no POH term
  EXPECT_FALSE(t.packets_sampled(0));
  EXPECT_TRUE(t.packets_sampled(3));
  EXPECT_TRUE(t.has_vl(0));
  EXPECT_TRUE(t.has_vl(3));
  EXPECT_FALSE(t.has_vl(1));
  EXPECT_FALSE(t.has_vl(6));  // 0x4016's VL bits must not make a row
  // A second sample adds: totals are sums of every sample's counts.
  ASSERT_TRUE(add_vl_sample(t, result(t0 + 10s, {{0x4001, 50}, {0x4304, 1}})));
  EXPECT_EQ(t.vl[0].xmit_octets, 600u);
  EXPECT_EQ(t.vl[3].rcv_packets, 31u);
  EXPECT_EQ(t.samples, 2u);
  // Two 1 s samples: the first counts its own second, the second the 10 s since the first
  // ended: 2 s of 11.
  EXPECT_DOUBLE_EQ(t.coverage(), 2.0 / 11.0);
}

TEST(VlTraffic, SamplesWithoutPerVlSelectsMakeNoRow) {
  PortVlTraffic t;
  EXPECT_FALSE(add_vl_sample(t, result(t0, {{0x0001, 5}, {0x0002, 6}})));
  EXPECT_EQ(t.samples, 0u);
  Converter c({});
  c.apply(result(t0, {{0x0001, 5}}));
  EXPECT_TRUE(c.vl_traffic().empty());
  EXPECT_EQ(c.snapshot(t0)->find(kPort), nullptr);
}

TEST(VlTraffic, ThirtyTwoBitResultsAtAllOnesAreCountedAsSaturated) {
  PortVlTraffic t;
  add_vl_sample(t, result(t0, {{0x4001, 0xFFFFFFFF}, {0x4002, 3}}, Attribute::kPortSamplesResult));
  EXPECT_EQ(t.saturated, 1u);
  EXPECT_EQ(t.vl[0].xmit_octets, 0xFFFFFFFFull * 4);
  PortVlTraffic wide;
  add_vl_sample(wide, result(t0, {{0x4001, 0xFFFFFFFF}}));
  EXPECT_EQ(wide.saturated, 0u);  // 64-bit results do not saturate there
}

TEST(VlTraffic, ConverterPublishesRowsAndTheStateFileKeepsThem) {
  collector::Topology t;
  t.subnet_prefix = 0xfe80000000000000ull;
  t.ports.push_back(collector::Port{});
  t.ports[0].key = kPort;
  Converter c({});
  c.set_topology(std::make_shared<collector::Topology>(t));
  c.apply(result(t0, {{0x4102, 10}}));  // RcvDataVL1
  const auto before = c.snapshot(t0);
  c.apply(result(t0 + 5s, {{0x4102, 20}}));
  const auto after = c.snapshot(t0 + 5s);
  ASSERT_TRUE(before->find(kPort)->vl_traffic);
  EXPECT_EQ(before->find(kPort)->vl_traffic->vl[1].rcv_octets, 40u);  // snapshots are immutable
  EXPECT_EQ(after->find(kPort)->vl_traffic->vl[1].rcv_octets, 120u);

  Converter restored({});
  ASSERT_TRUE(apply_state(encode_state(c, t.subnet_prefix), t, restored));
  restored.set_topology(std::make_shared<collector::Topology>(t));
  restored.apply(result(t0 + 1h, {{0x4102, 1}}));
  const auto snapshot = restored.snapshot(t0 + 1h);  // kept: `row` points into it
  const auto* row = snapshot->find(kPort);
  ASSERT_TRUE(row && row->vl_traffic);
  EXPECT_EQ(row->vl_traffic->vl[1].rcv_octets, 124u);
  EXPECT_EQ(row->vl_traffic->samples, 3u);
  // 1 s + 5 s before the restart; the gap across it is unknown, so the first sample after it
  // counts only its own length: 3 s covered of 7.
  EXPECT_DOUBLE_EQ(row->vl_traffic->coverage(), 3.0 / 7.0);
}

}  // namespace
}  // namespace ibpulse::converters
