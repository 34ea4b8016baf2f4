// A node one discovery missed keeps its ports until `limit` discoveries in a row, spanning at
// least `min_span`, agree it is gone; found again, it starts over.
#include "ibpulse/collector/missing_nodes.h"

#include <gtest/gtest.h>

namespace ibpulse::collector {
namespace {

// Nodes 1..n (GUIDs 0x10, 0x20, ...), each with ports 1 and 2, LIDs 10*node + port.
Topology fabric_of(std::initializer_list<unsigned> nodes) {
  Topology t;
  for (const unsigned n : nodes) {
    Node node;
    node.guid = 0x10ull * n;
    node.name = "node" + std::to_string(n);
    t.nodes.push_back(node);
    for (uint8_t p = 1; p <= 2; ++p) {
      Port port;
      port.key = {node.guid, p};
      port.lid = static_cast<uint16_t>(10 * n + p);
      t.ports.push_back(port);
    }
  }
  return t;
}

std::vector<uint64_t> guids(const Topology& t) {
  std::vector<uint64_t> out;
  for (const Node& n : t.nodes)
    out.push_back(n.guid);
  return out;
}

TEST(MissingNodes, AMissedNodeIsKeptWithItsLidsUntilTheLimit) {
  MissingNodes m;
  m.limit = 3;
  Topology previous = fabric_of({1, 2, 3});
  for (unsigned discovery = 1; discovery <= 2; ++discovery) {
    Topology fresh = fabric_of({1, 3});  // node 2's SMPs were lost
    const auto o = m.carry_over(fresh, previous);
    EXPECT_EQ(o.kept, std::vector<uint64_t>{0x20}) << discovery;
    EXPECT_TRUE(o.gone.empty());
    EXPECT_EQ(guids(fresh), (std::vector<uint64_t>{0x10, 0x20, 0x30})) << "in GUID order";
    ASSERT_EQ(fresh.ports.size(), 6u);
    EXPECT_TRUE(std::is_sorted(fresh.ports.begin(), fresh.ports.end(),
                               [](const Port& a, const Port& b) { return a.key < b.key; }));
    const Port* kept = fresh.find_port({0x20, 2});
    ASSERT_NE(kept, nullptr);
    EXPECT_EQ(kept->lid, 22) << "polled by its last LID";
    EXPECT_EQ(fresh.find_node(0x20)->name, "node2");
    EXPECT_EQ(m.misses[0x20].count, discovery);
    previous = fresh;
  }
  Topology third = fabric_of({1, 3});
  const auto o = m.carry_over(third, previous);
  EXPECT_TRUE(o.kept.empty());
  EXPECT_EQ(o.gone, std::vector<uint64_t>{0x20});
  EXPECT_EQ(guids(third), (std::vector<uint64_t>{0x10, 0x30}));
  EXPECT_EQ(third.ports.size(), 4u);
  EXPECT_TRUE(m.misses.empty());
}

// Rediscoveries come every 5 s while a port is unreachable: three of them in 10 s do not make
// a node gone when the span asks for two discovery intervals.
TEST(MissingNodes, QuickRediscoveriesDoNotDropANodeBeforeTheSpan) {
  using namespace std::chrono_literals;
  MissingNodes m;
  m.limit = 3;
  m.min_span = 10min;  // a 5-minute discovery.interval
  const MissingNodes::Clock::time_point start{1h};
  Topology previous = fabric_of({1, 2});
  for (const auto at : {0s, 5s, 10s, 9min + 59s}) {
    Topology fresh = fabric_of({1});
    const auto o = m.carry_over(fresh, previous, start + at);
    EXPECT_EQ(o.kept, std::vector<uint64_t>{0x20}) << at.count();
    EXPECT_TRUE(o.gone.empty()) << at.count();
    previous = fresh;
  }
  EXPECT_EQ(m.misses[0x20].count, 4u);
  Topology fresh = fabric_of({1});
  const auto o = m.carry_over(fresh, previous, start + 10min);
  EXPECT_EQ(o.gone, std::vector<uint64_t>{0x20}) << "limit and span both reached";
  EXPECT_EQ(guids(fresh), std::vector<uint64_t>{0x10});
}

// libibnetdisc leaves a node's description empty when its NodeDescription SMP was lost: the
// node keeps the last one, and its name with it, so ifNames do not flap to the GUID.
TEST(MissingNodes, ANodeFoundWithoutItsDescriptionKeepsTheLastOne) {
  MissingNodes m;
  Topology previous = fabric_of({1, 2});
  previous.nodes[1].description = "node2 HCA-1";
  Topology lossy = fabric_of({1, 2});
  lossy.nodes[1].description.clear();
  lossy.nodes[1].name.clear();
  m.carry_over(lossy, previous);
  EXPECT_EQ(lossy.find_node(0x20)->description, "node2 HCA-1");
  EXPECT_EQ(lossy.find_node(0x20)->name, "node2");
  Topology renamed = fabric_of({1, 2});
  renamed.nodes[1].description = "node2 HCA-2";  // read, and changed: the new one holds
  m.carry_over(renamed, lossy);
  EXPECT_EQ(renamed.find_node(0x20)->description, "node2 HCA-2");
}

// A node whose links the discovery found Down at the other end was cut off (a downed link),
// not missed: dropped at once, whatever the limit and span. A peer in Init (opensm bringing a
// link up) or not found is no such evidence.
TEST(MissingNodes, ANodeCutOffByDownLinksIsDroppedAtOnce) {
  MissingNodes m;
  m.limit = 3;
  m.min_span = std::chrono::minutes(10);
  Topology previous = fabric_of({1, 2});
  previous.ports[0].remote = PortKey{0x20, 1};  // node1/1 <-> node2/1
  previous.ports[2].remote = PortKey{0x10, 1};
  for (const uint8_t peer_state : {uint8_t{4}, uint8_t{2}, uint8_t{1}}) {
    Topology fresh = fabric_of({1});
    fresh.ports[0].link.state = peer_state;
    MissingNodes fresh_limits = m;
    const auto o = fresh_limits.carry_over(fresh, previous);
    SCOPED_TRACE("peer state " + std::to_string(peer_state));
    if (peer_state == 1) {
      EXPECT_EQ(o.cut_off, std::vector<uint64_t>{0x20});
      EXPECT_TRUE(o.kept.empty());
      EXPECT_EQ(guids(fresh), std::vector<uint64_t>{0x10});
      EXPECT_TRUE(fresh_limits.misses.empty());
    } else {
      EXPECT_EQ(o.kept, std::vector<uint64_t>{0x20});
      EXPECT_TRUE(o.cut_off.empty());
    }
  }
}

TEST(MissingNodes, ThePeerKeepsItsLinkToAKeptNode) {
  MissingNodes m;
  Topology previous = fabric_of({1, 2});
  previous.ports[0].remote = PortKey{0x20, 1};  // node1/1 <-> node2/1
  previous.ports[2].remote = PortKey{0x10, 1};
  Topology fresh = fabric_of({1});  // node 2 missed: discovery saw no peer on node1/1
  ASSERT_FALSE(fresh.ports[0].remote);
  m.carry_over(fresh, previous);
  ASSERT_TRUE(fresh.find_port({0x10, 1})->remote);
  EXPECT_EQ(*fresh.find_port({0x10, 1})->remote, (PortKey{0x20, 1}));
  EXPECT_FALSE(fresh.find_port({0x10, 2})->remote) << "an unlinked port stays unlinked";
  EXPECT_EQ(*fresh.find_port({0x20, 1})->remote, (PortKey{0x10, 1}));
}

TEST(MissingNodes, ANodeFoundAgainStartsOver) {
  MissingNodes m;
  m.limit = 2;
  Topology previous = fabric_of({1, 2});
  Topology missed = fabric_of({1});
  EXPECT_EQ(m.carry_over(missed, previous).kept.size(), 1u);
  Topology back = fabric_of({1, 2});
  EXPECT_TRUE(m.carry_over(back, missed).kept.empty());
  EXPECT_TRUE(m.misses.empty());
  Topology missed_again = fabric_of({1});
  const auto o = m.carry_over(missed_again, back);
  EXPECT_EQ(o.kept.size(), 1u) << "one miss in a row, not two";
  EXPECT_TRUE(o.gone.empty());
}

TEST(MissingNodes, LimitOneDropsAtOnceAndOthersPortsAreNotKept) {
  MissingNodes m;
  m.limit = 1;
  Topology previous = fabric_of({1, 2});
  Topology fresh = fabric_of({1});
  const auto o = m.carry_over(fresh, previous);
  EXPECT_EQ(o.gone, std::vector<uint64_t>{0x20});
  EXPECT_EQ(fresh.nodes.size(), 1u);
  // A node listed without ports of this poller (another shard's): nothing to keep.
  MissingNodes shard;
  Topology named_only = fabric_of({1, 2});
  std::erase_if(named_only.ports, [](const Port& p) { return p.key.node_guid == 0x20; });
  Topology next = fabric_of({1});
  const auto s = shard.carry_over(next, named_only);
  EXPECT_TRUE(s.kept.empty());
  EXPECT_TRUE(s.gone.empty());
}

// A CA (node 1, port 1) linked to a switch (node 2, port 1, LIDs from its port 0), every
// PortInfo read: Active, with LIDs, capability mask and subnet prefix.
Topology linked_pair() {
  Topology t = fabric_of({1, 2});
  t.nodes[0].lid = 11;
  t.nodes[1].kind = NodeKind::kSwitch;
  t.nodes[1].lid = 20;
  for (Port& p : t.ports) {
    p.link.state = p.key.port == 1 ? 4 : 1;
    p.capability_mask = 0x2651084a;
    p.capability_mask2 = 0x0032;
    p.subnet_prefix = 0xfe80000000000000;
    if (p.key.node_guid == 0x20) p.lid = 20;
  }
  t.ports[0].remote = PortKey{0x20, 1};
  t.ports[2].remote = PortKey{0x10, 1};
  return t;
}

// The node was found but its port's PortInfo SMP was lost: libibnetdisc keeps the port and
// its link with PortInfo all zeros. Without the last PortInfo it would have LID 0 and no
// longer be polled, its series frozen with nothing reporting it.
TEST(MissingNodes, APortFoundWithoutItsPortInfoKeepsTheLastOne) {
  MissingNodes m;
  const Topology previous = linked_pair();
  Topology lossy = linked_pair();
  lossy.nodes[0].lid = 0;
  Port& lost = lossy.ports[0];
  lost.lid = 0;
  lost.link = {};
  lost.capability_mask = 0;
  lost.capability_mask2 = 0;
  lost.subnet_prefix = 0;
  const auto o = m.carry_over(lossy, previous);
  EXPECT_EQ(o.port_info_kept, std::vector<PortKey>{(PortKey{0x10, 1})});
  EXPECT_TRUE(o.port_info_unknown.empty());
  EXPECT_TRUE(o.kept.empty()) << "the node itself was found";
  const Port* kept = lossy.find_port({0x10, 1});
  EXPECT_EQ(kept->lid, 11);
  EXPECT_EQ(kept->link.state, 4);
  EXPECT_EQ(kept->capability_mask, 0x2651084au);
  EXPECT_EQ(kept->capability_mask2, 0x0032u);
  EXPECT_EQ(kept->subnet_prefix, 0xfe80000000000000u);
  EXPECT_EQ(lossy.find_node(0x10)->lid, 11);
  EXPECT_EQ(lossy.find_port({0x10, 2})->lid, 12) << "ports that were read are left alone";
  // A switch port's LID is port 0's, which was read: only its link state was lost.
  Topology switch_lossy = linked_pair();
  switch_lossy.ports[2].link = {};
  const auto s = m.carry_over(switch_lossy, previous);
  EXPECT_EQ(s.port_info_kept, std::vector<PortKey>{(PortKey{0x20, 1})});
  EXPECT_EQ(switch_lossy.find_port({0x20, 1})->link.state, 4);
  EXPECT_EQ(switch_lossy.find_port({0x20, 1})->lid, 20);
}

// The first discovery of a run without a cache has no earlier PortInfo: the port is reported,
// not invented. A port the earlier discovery had no PortInfo of either stays unknown.
TEST(MissingNodes, APortWithoutAnyPortInfoIsReportedUnknown) {
  MissingNodes m;
  Topology lossy = linked_pair();
  lossy.ports[0].lid = 0;
  lossy.ports[0].link = {};
  const auto o = m.carry_over(lossy, Topology{});
  EXPECT_TRUE(o.port_info_kept.empty());
  EXPECT_EQ(o.port_info_unknown, std::vector<PortKey>{(PortKey{0x10, 1})});
  EXPECT_EQ(lossy.find_port({0x10, 1})->lid, 0);
  Topology again = lossy;
  const auto a = m.carry_over(again, lossy);
  EXPECT_EQ(a.port_info_unknown, std::vector<PortKey>{(PortKey{0x10, 1})});
}

// A port unreached because its link went down (its peer read Down) has no link to keep; one
// whose peer is Active or was not found may have lost its SMPs and keeps its PortInfo.
TEST(MissingNodes, APortWhosePeerIsReadDownKeepsNothing) {
  for (const uint8_t peer_state : {uint8_t{1}, uint8_t{4}}) {
    SCOPED_TRACE("peer state " + std::to_string(peer_state));
    MissingNodes m;
    const Topology previous = linked_pair();
    Topology fresh = linked_pair();
    fresh.ports[0] = Port{};  // unreached: libibnetdisc has no port there
    fresh.ports[0].key = {0x10, 1};
    fresh.ports[2].link.state = peer_state;
    if (peer_state == 1) fresh.ports[2].remote.reset();
    const auto o = m.carry_over(fresh, previous);
    EXPECT_TRUE(o.port_info_unknown.empty());
    if (peer_state == 1) {
      EXPECT_TRUE(o.port_info_kept.empty());
      EXPECT_EQ(fresh.find_port({0x10, 1})->lid, 0);
    } else {
      EXPECT_EQ(o.port_info_kept, std::vector<PortKey>{(PortKey{0x10, 1})});
      EXPECT_EQ(fresh.find_port({0x10, 1})->lid, 11);
      ASSERT_TRUE(fresh.find_port({0x10, 1})->remote);
      EXPECT_EQ(*fresh.find_port({0x10, 1})->remote, (PortKey{0x20, 1}));
    }
  }
}

}  // namespace
}  // namespace ibpulse::collector
