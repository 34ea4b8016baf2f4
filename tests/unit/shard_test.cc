// Rendezvous hashing of node GUIDs over shards: stable, balanced, minimal movement.
#include "ibpulse/collector/shard.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

namespace ibpulse::collector {
namespace {

std::vector<uint64_t> random_guids(size_t n) {
  std::mt19937_64 rng(20261125);
  std::set<uint64_t> guids;
  while (guids.size() < n)
    guids.insert(0x0002c90300000000ull | (rng() & 0xffffffffull));  // one vendor's OUI
  return {guids.begin(), guids.end()};
}

unsigned owner(uint64_t guid, unsigned count) {
  return shard_owners(guid, count, 1).front();
}

TEST(Shard, ThreeToFourMovesAQuarterAndNothingBetweenOldShards) {
  const auto guids = random_guids(10000);
  size_t moved = 0;
  for (uint64_t g : guids) {
    const unsigned before = owner(g, 3);
    const unsigned after = owner(g, 4);
    if (before == after) continue;
    ++moved;
    EXPECT_EQ(after, 4u) << "node 0x" << std::hex << g << " moved from shard " << before
                         << " to an old shard";
  }
  const double fraction = static_cast<double>(moved) / static_cast<double>(guids.size());
  EXPECT_NEAR(fraction, 0.25, 0.02);
}

TEST(Shard, BalancedOverShards) {
  const auto guids = random_guids(10000);
  std::map<unsigned, size_t> per_shard;
  for (uint64_t g : guids)
    ++per_shard[owner(g, 5)];
  ASSERT_EQ(per_shard.size(), 5u);
  for (const auto& [shard, n] : per_shard) {
    EXPECT_NEAR(static_cast<double>(n), 2000.0, 150.0) << "shard " << shard;
  }
}

TEST(Shard, OwnsAgreesWithOwnersForEveryShardAndReplicaCount) {
  const auto guids = random_guids(2000);
  for (unsigned count = 1; count <= 5; ++count) {
    for (unsigned replicas = 1; replicas <= count; ++replicas) {
      for (uint64_t g : guids) {
        const auto owners = shard_owners(g, count, replicas);
        ASSERT_EQ(owners.size(), replicas);
        ASSERT_EQ(std::set<unsigned>(owners.begin(), owners.end()).size(), replicas);
        unsigned owning = 0;
        for (unsigned k = 1; k <= count; ++k) {
          const bool owns = ShardSpec{k, count, replicas}.owns(g);
          owning += owns;
          EXPECT_EQ(owns, std::count(owners.begin(), owners.end(), k) == 1)
              << "guid " << g << " shard " << k << "/" << count << " replicas " << replicas;
        }
        EXPECT_EQ(owning, replicas);
      }
    }
  }
}

TEST(Shard, ReplicasExtendTheSingleOwner) {
  // The first owner with replicas is the owner without: adding replicas moves no primary.
  for (uint64_t g : random_guids(1000)) {
    EXPECT_EQ(shard_owners(g, 4, 3).front(), owner(g, 4));
  }
}

TEST(Shard, WeightIsTheDocumentedFormula) {
  // mix64(guid + k * 0x9E3779B97F4A7C15), SplitMix64's finaliser: pinned so that other tools
  // computing owners from docs/scale-out.md keep agreeing with the daemon.
  EXPECT_EQ(shard_weight(0, 0), 0u);
  EXPECT_EQ(shard_weight(0x0002c90300000001ull, 1), 0xf46be444b76f31ecull);
  EXPECT_EQ(shard_owners(0x0002c90300000001ull, 3, 2), (std::vector<unsigned>{1, 2}));
}

TEST(Shard, Validation) {
  EXPECT_TRUE(validate({1, 1, 1}).ok());
  EXPECT_TRUE(validate({3, 3, 2}).ok());
  EXPECT_FALSE(validate({0, 3, 1}).ok());
  EXPECT_FALSE(validate({4, 3, 1}).ok());
  EXPECT_FALSE(validate({1, 3, 4}).ok());
  EXPECT_FALSE(validate({1, 3, 0}).ok());
  EXPECT_NE(validate({4, 3, 1}).error().find("shard.index"), std::string::npos);
  EXPECT_NE(validate({1, 3, 4}).error().find("shard.replicas"), std::string::npos);
}

TEST(Shard, KeepShardPortsKeepsOwnPortsAndLinkedPeers) {
  Topology t;
  for (uint64_t g = 1; g <= 40; ++g) {
    Node n;
    n.guid = g;
    t.nodes.push_back(n);
  }
  // A chain: node g port 1 <-> node g+1 port 2.
  for (uint64_t g = 1; g <= 40; ++g) {
    Port p1;
    Port p2;
    p1.key = {g, 1};
    p2.key = {g, 2};
    if (g < 40) p1.remote = PortKey{g + 1, 2};
    if (g > 1) p2.remote = PortKey{g - 1, 1};
    t.ports.push_back(p1);
    t.ports.push_back(p2);
  }
  const ShardSpec spec{2, 3, 1};
  Topology mine = t;
  const size_t owned = keep_shard_ports(mine, spec);
  size_t expected_owned = 0;
  for (const Node& n : t.nodes)
    expected_owned += spec.owns(n.guid);
  EXPECT_EQ(owned, expected_owned);
  EXPECT_EQ(mine.nodes.size(), t.nodes.size()) << "peers keep their names";
  EXPECT_EQ(mine.ports.size(), 2 * expected_owned);
  for (const Port& p : mine.ports)
    EXPECT_TRUE(spec.owns(p.key.node_guid));
  ASSERT_TRUE(std::is_sorted(mine.ports.begin(), mine.ports.end(),
                             [](const Port& a, const Port& b) { return a.key < b.key; }));
  for (const Port& p : mine.ports) {
    if (!p.remote) continue;
    const Port* peer = mine.find_port_or_peer(*p.remote);
    ASSERT_NE(peer, nullptr) << "the peer of every own port is known";
    EXPECT_EQ(peer->key, *p.remote);
  }
  for (const Port& p : mine.peer_ports) {
    EXPECT_FALSE(spec.owns(p.key.node_guid));
    ASSERT_TRUE(p.remote.has_value());
    EXPECT_TRUE(spec.owns(p.remote->node_guid));
  }
}

}  // namespace
}  // namespace ibpulse::collector
