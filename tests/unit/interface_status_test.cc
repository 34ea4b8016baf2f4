// The IF-MIB view of a port: ifOperStatus for every PortInfo state, ifMtu, ifPhysAddress,
// ifLastChange, and notPresent ports that expire after the grace period.
#include "ibpulse/converters/interface_status.h"

#include <gtest/gtest.h>

namespace ibpulse::converters {
namespace {

using collector::LinkState;
using collector::PortKey;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

LinkState link(uint8_t state, uint8_t phys) {
  LinkState l;
  l.state = state;
  l.phys_state = phys;
  return l;
}

TEST(InterfaceStatus, OperStatusFollowsTheIssueTable) {
  struct Case {
    uint8_t state, phys;
    OperStatus expected;
  };
  // state: 1 Down 2 Init 3 Armed 4 Active; phys: 1 Sleep 2 Polling 3 Disabled 4 Training
  // 5 LinkUp 6 LinkErrorRecovery 7 PhyTest.
  const Case cases[] = {
      {4, 5, OperStatus::kUp},      {2, 5, OperStatus::kDormant}, {3, 5, OperStatus::kDormant},
      {2, 4, OperStatus::kDown},    {1, 2, OperStatus::kDown},    {1, 3, OperStatus::kDown},
      {1, 1, OperStatus::kDown},    {1, 7, OperStatus::kTesting}, {2, 7, OperStatus::kTesting},
      {0, 0, OperStatus::kUnknown}, {9, 5, OperStatus::kUnknown},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(oper_status(link(c.state, c.phys)), c.expected) << int(c.state) << "/" << int(c.phys);
  }
  EXPECT_EQ(to_string(OperStatus::kNotPresent), "notPresent");
}

TEST(InterfaceStatus, MtuAndPhysAddress) {
  EXPECT_EQ(mtu_octets(1), 256u);
  EXPECT_EQ(mtu_octets(4), 2048u);
  EXPECT_EQ(mtu_octets(5), 4096u);
  EXPECT_EQ(mtu_octets(0), 0u);
  EXPECT_EQ(mtu_octets(6), 0u);
  collector::Port hca;
  hca.key = {0x10, 1};
  hca.lid = 0x1234;
  EXPECT_EQ(phys_address_lid(hca, false), 0x1234);
  collector::Port switch_port = hca;
  switch_port.key.port = 7;
  EXPECT_EQ(phys_address_lid(switch_port, true), 0);  // external switch ports have no LID
  switch_port.key.port = 0;
  EXPECT_EQ(phys_address_lid(switch_port, true), 0x1234);
  hca.lid = 0;
  EXPECT_EQ(phys_address_lid(hca, false), 0);
}

collector::Topology topology(const std::vector<std::pair<PortKey, LinkState>>& ports) {
  collector::Topology t;
  for (const auto& [key, l] : ports) {
    collector::Port p;
    p.key = key;
    p.link = l;
    t.ports.push_back(p);
  }
  return t;
}

TEST(InterfaceStatus, LastChangeAndNotPresentThenExpiry) {
  const PortKey a{0x10, 1};
  const PortKey b{0x20, 1};
  const PortKey restored{0x30, 1};
  const Clock::time_point t0 = Clock::time_point{} + 1h;
  InterfaceTable table;
  table.remember(restored);
  EXPECT_TRUE(table.update(topology({{a, link(4, 5)}, {b, link(2, 5)}}), t0, 10min).empty());
  EXPECT_EQ(table.find(a)->status, OperStatus::kUp);
  EXPECT_EQ(table.find(a)->last_change, Clock::time_point{});  // entered before we knew it
  EXPECT_EQ(table.find(b)->status, OperStatus::kDormant);
  ASSERT_EQ(table.by_topology_port().size(), 2u);
  EXPECT_EQ(table.by_topology_port()[1].status, OperStatus::kDormant);
  EXPECT_EQ(table.find(restored)->status, OperStatus::kNotPresent);
  EXPECT_EQ(table.find(restored)->last_change, t0);

  // b activates; a vanishes.
  EXPECT_TRUE(table.update(topology({{b, link(4, 5)}}), t0 + 1min, 10min).empty());
  EXPECT_EQ(table.find(b)->status, OperStatus::kUp);
  EXPECT_EQ(table.find(b)->last_change, t0 + 1min);
  EXPECT_EQ(table.find(a)->status, OperStatus::kNotPresent);
  EXPECT_EQ(table.find(a)->last_change, t0 + 1min);

  // The same topology again: nothing changes, nothing expires yet.
  EXPECT_TRUE(table.update(topology({{b, link(4, 5)}}), t0 + 5min, 10min).empty());
  EXPECT_EQ(table.find(b)->last_change, t0 + 1min);
  // The restored port was gone from t0: it expires first; a at t0 + 11 min.
  EXPECT_EQ(table.expired(t0 + 10min, 10min), std::vector<PortKey>{restored});
  EXPECT_EQ(table.find(restored), nullptr);
  EXPECT_TRUE(table.expired(t0 + 10min + 59s, 10min).empty());
  EXPECT_EQ(table.expired(t0 + 11min, 10min), std::vector<PortKey>{a});

  // A port that comes back within the grace period is present again, with a new last change.
  EXPECT_TRUE(table.update(topology({}), t0 + 20min, 10min).empty());
  EXPECT_EQ(table.find(b)->status, OperStatus::kNotPresent);
  table.update(topology({{b, link(4, 5)}}), t0 + 25min, 10min);
  EXPECT_EQ(table.find(b)->status, OperStatus::kUp);
  EXPECT_EQ(table.find(b)->last_change, t0 + 25min);
  EXPECT_TRUE(table.expired(t0 + 2h, 10min).empty());
}

}  // namespace
}  // namespace ibpulse::converters
