// Several local ports on one subnet (PollerGroup): the split of the nodes, failover and the MAD
// rate, against fake engines on one virtual clock (poller_group_harness.h). No simulator.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "poller_group_harness.h"

namespace ibpulse::collector {
namespace {

using namespace std::chrono_literals;
using schema::Attribute;

TEST(PollerGroup, TwoLocalPortsSplitTheNodesAndReadEveryPortOncePerSweep) {
  GroupHarness h;
  h.options.mad.per_node = 1;
  ASSERT_TRUE(h.run(5).ok());
  ASSERT_EQ(h.sweeps.size(), 5u);
  for (const SweepSummary& s : h.sweeps) {
    EXPECT_EQ(s.ports, GroupHarness::kLinked) << "both parts summed";
    EXPECT_EQ(s.stale, 0u);
  }
  EXPECT_EQ(h.sweeps[0].number, 1u) << "the first full sweep of the fabric";
  for (PortKey p : h.linked_ports())
    EXPECT_EQ(h.fabric.attempts(p, Attribute::kPortCounters), 5u) << p.node_guid;
  // Each node through exactly one local port: the one rendezvous hashing names.
  const LocalPortSplit expected(2);
  std::map<uint64_t, std::set<size_t>> rings_of;
  for (const auto& t : h.samples)
    rings_of[t.sample.port.node_guid].insert(t.ring);
  std::set<size_t> used;
  for (const auto& [guid, rings] : rings_of) {
    ASSERT_EQ(rings.size(), 1u) << guid;
    EXPECT_EQ(*rings.begin(), expected.owner(guid)) << guid;
    used.insert(*rings.begin());
  }
  EXPECT_EQ(used.size(), 2u) << "both local ports poll";
  for (uint64_t guid = 0x1001; guid < 0x1001 + GroupHarness::kHcas; ++guid)
    EXPECT_LE(h.fabric.wire(guid).max_in_flight, 1u) << "mad.per-node holds per engine";
  EXPECT_EQ(h.stats.mad.sent, h.stats.mad.answered);
  EXPECT_EQ(h.stats.sweeps, 5u);
  EXPECT_EQ(h.stats.ports, GroupHarness::kLinked);
  ASSERT_EQ(h.stats.local_ports.size(), 2u);
  EXPECT_TRUE(h.stats.local_ports[0].up && h.stats.local_ports[1].up);
}

// The longest time between two answered PortCounters reads of a port, from `after` on.
std::chrono::steady_clock::duration longest_gap(const GroupHarness& h, PortKey port) {
  std::vector<std::chrono::steady_clock::time_point> at;
  for (const auto& t : h.samples) {
    if (t.sample.port == port && t.sample.attribute == Attribute::kPortCounters &&
        t.sample.failure == MadFailure::kNone)
      at.push_back(t.sample.received);
  }
  std::sort(at.begin(), at.end());
  std::chrono::steady_clock::duration gap{};
  for (size_t i = 1; i < at.size(); ++i)
    gap = std::max(gap, at[i] - at[i - 1]);
  return gap;
}

TEST(PollerGroup, ALocalPortThatGoesDownHandsItsNodesOverAndTakesThemBack) {
  GroupHarness h;
  const LocalPortSplit all_up(2);
  size_t down_at = 0;
  size_t up_at = 0;
  h.on_sweep = [&](const SweepSummary& s) {
    if (s.number == 3) {  // mlx5_1 unplugged: its MADs and its discovery fail
      h.engines.at("mlx5_1")->set_local_port_down(true);
      h.discovery_down.insert("mlx5_1");
      down_at = h.samples.size();
    }
    if (s.number == 20) {
      h.engines.at("mlx5_1")->set_local_port_down(false);
      h.discovery_down.clear();
      up_at = h.samples.size();
    }
  };
  ASSERT_TRUE(h.run(40).ok());
  ASSERT_EQ(h.sweeps.size(), 40u);
  EXPECT_EQ(h.count("event=local_port_down ca=mlx5_1 port=1"), 1u);
  EXPECT_EQ(h.count("event=local_port_up ca=mlx5_1 port=1"), 1u);
  EXPECT_EQ(h.stats.local_port_failovers, 1u);
  ASSERT_EQ(h.stats.local_ports.size(), 2u);
  EXPECT_TRUE(h.stats.local_ports[1].up) << "back";
  // Detection takes one sweep of mlx5_1 (every read refused at once), the hand-over one more
  // counters interval: no port goes unread longer than that, and none for two sweeps after.
  for (PortKey p : h.linked_ports())
    EXPECT_LE(longest_gap(h, p), 3s) << p.node_guid;
  // While it was down, mlx5_0 read every port; a full sweep lost no port.
  std::set<uint64_t> via_0_while_down;
  for (size_t i = down_at; i < up_at; ++i) {
    if (h.samples[i].ring == 0) via_0_while_down.insert(h.samples[i].sample.port.node_guid);
  }
  EXPECT_EQ(via_0_while_down.size(), GroupHarness::kHcas + 2);
  // Back: in the last sweeps every node is read through its own local port again.
  for (const auto& t : h.samples) {
    if (t.after_sweeps < 30) continue;
    EXPECT_EQ(t.ring, all_up.owner(t.sample.port.node_guid)) << t.sample.port.node_guid;
  }
  for (size_t i = 5; i < h.sweeps.size(); ++i)
    EXPECT_EQ(h.sweeps[i].ports, GroupHarness::kLinked) << "sweep " << i + 1;
}

// Answered MADs per second of virtual time, every node answering after a fixed 1 ms, with a
// window of 4 per engine and counters due faster than one engine can read them.
double answered_rate(size_t local_ports) {
  GroupHarness h;
  h.ports.resize(local_ports);
  h.options.mad.window = 4;
  h.options.intervals.counters = 10ms;
  const auto start = h.clock.now();
  EXPECT_TRUE(h.run(1000000, 2000ms).ok());
  const std::chrono::duration<double> took = h.clock.now() - start;
  return static_cast<double>(h.stats.mad.answered) / took.count();
}

TEST(PollerGroup, TwoLocalPortsReadNearlyTwiceAsFastAsOne) {
  const double one = answered_rate(1);
  const double two = answered_rate(2);
  RecordProperty("answered_per_second_one", std::to_string(one));
  RecordProperty("answered_per_second_two", std::to_string(two));
  EXPECT_GT(one, 3000.0) << "4 in flight, 1 ms each: about 4000/s";
  EXPECT_GE(two / one, 1.8) << one << " vs " << two;
  std::printf("answered MADs/s (virtual time): one local port %.0f, two %.0f, ratio %.2f\n", one,
              two, two / one);
}

// counters.clear-policy threshold with several local ports: every poller gets each request and
// the one that polls the port sends the Set, whichever local port that is.
TEST(PollerGroup, EachLocalPortClearsTheCountersOfTheNodesItPolls) {
  GroupHarness h;
  ClearRings clears(2, 64);
  h.clears = clears.rings();
  const uint64_t symbol_error = 1;  // field 0 of PortCounters
  std::vector<PortKey> hcas;
  for (uint64_t guid = 0x1001; guid < 0x1001 + GroupHarness::kHcas; ++guid) {
    hcas.push_back({guid, 1});
    h.fabric.set(hcas.back(), schema::CounterId::kSymbolError, 50);
    ASSERT_TRUE(clears.push(ClearRequest{hcas.back(), Attribute::kPortCounters, symbol_error}));
  }
  ASSERT_TRUE(h.run(3).ok());
  EXPECT_EQ(h.stats.clears_sent, GroupHarness::kHcas) << "each port cleared once";
  const LocalPortSplit owners(2);
  std::set<size_t> clearing;
  for (PortKey p : hcas) {
    EXPECT_EQ(h.fabric.attempts(p, Attribute::kPortCounters), 4u) << "3 Gets and the Set";
    size_t answers = 0;
    for (const auto& t : h.samples) {
      if (t.sample.port != p || t.sample.cleared == 0) continue;
      ++answers;
      EXPECT_EQ(t.sample.cleared, symbol_error);
      EXPECT_EQ(t.sample.values[0], 0u) << "the Set's answer: the counter after the clear";
      EXPECT_EQ(t.ring, owners.owner(p.node_guid)) << "sent by the poller that owns the node";
      clearing.insert(t.ring);
    }
    EXPECT_EQ(answers, 1u) << p.node_guid;
  }
  EXPECT_EQ(clearing.size(), 2u) << "both local ports cleared their own nodes";
}

}  // namespace
}  // namespace ibpulse::collector
