// The threshold engine's IB-SMA-MIB notifications (kSma events), on the hand-built fabric:
// 128 for a switch port's link change, 129/130 once per window when a counter grows past the
// port's PortInfo threshold, 144/145 when a discovery reads another capability mask or system
// image GUID (never at first sight); and the Notices the subnet manager forwards, named by
// the node of their LID.
#include <gtest/gtest.h>

#include <vector>

#include "alert_fabric.h"

namespace ibpulse::exporters::alerts {
namespace {

std::vector<AlertEvent> sma_events(const std::vector<Decision>& decisions) {
  std::vector<AlertEvent> out;
  for (const Decision& d : decisions) {
    if (d.event.kind == EventKind::kSma) out.push_back(d.event);
  }
  return out;
}

EngineOptions options() {
  EngineOptions o;
  o.sma_window = 60s;
  o.rate_limit = 1000;
  return o;
}

const collector::PortKey kHcaPort{kHca, 1};

TEST(SmaTraps, LinkIntegrityPastThePortsThresholdOncePerWindow) {
  FabricClock f;
  f.link(kHca, 1).sma.local_phys_error_threshold = 3;
  f.link(kHca, 1).lid = 2;
  ThresholdEngine engine({}, options());
  const auto at = [&](double s, uint64_t total) {
    f.counters[{kHcaPort, CounterId::kLocalLinkIntegrityErrors}] = total;
    return sma_events(engine.evaluate(f.at(s), kWall));
  };
  EXPECT_TRUE(at(0, 10).empty());  // the window starts
  EXPECT_TRUE(at(10, 13).empty()) << "3 more: not past the threshold of 3";
  const auto past = at(20, 14);
  ASSERT_EQ(past.size(), 1u);
  EXPECT_EQ(past[0].sma_trap, 129);
  EXPECT_EQ(past[0].port, kHcaPort);
  EXPECT_EQ(past[0].lid, 2);
  EXPECT_EQ(past[0].value, 4);
  EXPECT_EQ(past[0].threshold, 3);
  EXPECT_EQ(past[0].window_seconds, 60u);
  EXPECT_TRUE(at(30, 40).empty()) << "once per window";
  EXPECT_TRUE(at(61, 40).empty()) << "a new window starts";
  ASSERT_EQ(at(70, 44).size(), 1u);
  EXPECT_TRUE(at(80, 0).empty()) << "a clear restarts the window, no trap";
  // Growth read at the reading that ends a window counts in that window.
  EXPECT_TRUE(at(100, 2).empty());
  const auto last = at(140, 9);  // the window that started at 80 ends here: 9 > 3
  ASSERT_EQ(last.size(), 1u);
  EXPECT_EQ(last[0].value, 9);
  EXPECT_TRUE(at(150, 12).empty()) << "3 more in the new window";
}

TEST(SmaTraps, BufferOverrunUsesItsOwnThreshold) {
  FabricClock f;
  f.link(kSwitch, 1).sma.overrun_error_threshold = 1;
  f.link(kSwitch, 1).lid = 1;
  ThresholdEngine engine({}, options());
  const collector::PortKey sw{kSwitch, 1};
  f.counters[{sw, CounterId::kExcessiveBufferOverrunErrors}] = 0;
  EXPECT_TRUE(sma_events(engine.evaluate(f.at(0), kWall)).empty());
  f.counters[{sw, CounterId::kExcessiveBufferOverrunErrors}] = 2;
  const auto e = sma_events(engine.evaluate(f.at(5), kWall));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].sma_trap, 130);
  EXPECT_EQ(e[0].lid, 1);
}

TEST(SmaTraps, ASwitchPortsLinkChangeIs128WithTheSwitchsLid) {
  FabricClock f;
  ThresholdEngine engine({}, options());
  EXPECT_TRUE(sma_events(engine.evaluate(f.at(0), kWall)).empty());
  f.link(kSwitch, 1).link.state = 1;  // down
  f.link(kHca, 1).link.state = 1;     // a CA's port: IF-MIB linkDown only
  const auto e = sma_events(engine.evaluate(f.at(1), kWall));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].sma_trap, 128);
  EXPECT_EQ(e[0].port, (collector::PortKey{kSwitch, 1}));
  EXPECT_EQ(e[0].lid, 1) << "the switch node's LID";
}

TEST(SmaTraps, CapabilityMaskAndSystemImageGuidChangesBetweenDiscoveries) {
  FabricClock f;
  f.link(kHca, 1).sma.lid = 2;
  f.link(kHca, 1).sma.capability_mask = 0x0000004a;
  f.link(kHca, 1).lid = 2;
  auto with_node = [&](uint64_t guid, auto&& change) {
    auto t = std::make_shared<collector::Topology>(*f.topology);
    for (collector::Node& n : t->nodes) {
      if (n.guid == guid) change(n);
    }
    f.topology = t;
  };
  with_node(kSwitch, [](collector::Node& n) {
    n.port0 = collector::SmaPortInfo{};
    n.port0->capability_mask = 0xc048;
  });
  ThresholdEngine engine({}, options());
  EXPECT_TRUE(sma_events(engine.evaluate(f.at(0), kWall)).empty()) << "first sight";
  f.link(kHca, 1).sma.capability_mask = 0x0000005a;
  with_node(kSwitch, [](collector::Node& n) { n.port0->capability_mask = 0xc04a; });
  with_node(kHca, [](collector::Node& n) { n.system_image_guid = 0x77; });
  auto e = sma_events(engine.evaluate(f.at(1), kWall));
  ASSERT_EQ(e.size(), 3u);
  std::sort(e.begin(), e.end(), [](const AlertEvent& a, const AlertEvent& b) {
    return std::pair(a.sma_trap, a.port) < std::pair(b.sma_trap, b.port);
  });
  EXPECT_EQ(e[0].sma_trap, 144);
  EXPECT_EQ(e[0].port.node_guid, kSwitch) << "a switch's mask is its port 0's, once";
  EXPECT_EQ(e[0].capability_mask, 0xc04au);
  EXPECT_EQ(e[1].sma_trap, 144);
  EXPECT_EQ(e[1].port, kHcaPort);
  EXPECT_EQ(e[1].capability_mask, 0x5au);
  EXPECT_EQ(e[1].lid, 2);
  EXPECT_EQ(e[2].sma_trap, 145);
  EXPECT_EQ(e[2].system_image_guid, 0x77u);
  // The same topology again: nothing new.
  EXPECT_TRUE(sma_events(engine.evaluate(f.at(2), kWall)).empty());
  EXPECT_EQ(engine.stats().sma_events, 3u);
}

TEST(SmaTraps, NoticesFromTheSubnetManagerNameTheNodeOfTheirLid) {
  FabricClock f;
  for (uint8_t port = 1; port <= 4; ++port)
    f.link(kSwitch, port).lid = 1;
  f.link(kHca, 1).lid = 2;
  EngineOptions o = options();
  o.rate_limit = 3;
  ThresholdEngine engine({}, o);
  const FabricSnapshot first = f.at(0);
  engine.evaluate(first, kWall);  // the topology notices are named from
  collector::SmNotice bad_key;    // seen by the CA (the issuer), sent from LID 9
  bad_key.trap = 257;
  bad_key.issuer_lid = 2;
  bad_key.lid = 9;
  bad_key.key = 0x8001;
  collector::SmNotice at_switch;  // dropped at the switch's port 3
  at_switch.trap = 259;
  at_switch.issuer_lid = 1;
  at_switch.switch_lid = 1;
  at_switch.port = 3;
  at_switch.lid = 2;
  collector::SmNotice unknown;  // a LID discovery did not see
  unknown.trap = 128;
  unknown.lid = 77;
  const auto d = engine.forward({bad_key, at_switch, unknown, unknown}, first.published, kWall);
  ASSERT_EQ(d.size(), 4u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(d[i].event.kind, EventKind::kSma) << i;
    EXPECT_TRUE(d[i].notify) << i;
    ASSERT_TRUE(d[i].event.notice) << i;
  }
  EXPECT_EQ(d[0].event.sma_trap, 257);
  EXPECT_EQ(d[0].event.port, kHcaPort);
  EXPECT_EQ(d[0].event.node_name, "node07");
  EXPECT_EQ(d[0].event.lid, 9) << "the offender's LID, as ibSmaNodeLid";
  EXPECT_EQ(d[0].event.notice->key, 0x8001u);
  EXPECT_EQ(d[1].event.port, (collector::PortKey{kSwitch, 3}));
  EXPECT_EQ(d[1].event.node_name, "leaf01");
  EXPECT_EQ(d[2].event.sma_trap, 128);
  EXPECT_EQ(d[2].event.port.node_guid, 0u);
  EXPECT_EQ(d[2].event.node_name, "");
  EXPECT_EQ(d[2].event.lid, 77);
  EXPECT_FALSE(d[3].notify) << "storm control: the fourth within the interval";
  EXPECT_EQ(engine.stats().sma_events, 4u);
  EXPECT_EQ(engine.stats().notified, 3u);
}

}  // namespace
}  // namespace ibpulse::exporters::alerts
