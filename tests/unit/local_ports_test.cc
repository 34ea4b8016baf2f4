// fabric.ports: parsing, resolving against the host's ports, the same-subnet check.
#include "ibpulse/collector/local_ports.h"

#include <gtest/gtest.h>

namespace ibpulse::collector {
namespace {

TEST(LocalPorts, ParsesListsAndAll) {
  auto two = parse_local_ports({"mlx5_0:1,mlx5_1:1"});
  ASSERT_TRUE(two.ok()) << two.error();
  ASSERT_EQ(two->size(), 2u);
  EXPECT_EQ((*two)[1], (LocalPort{"mlx5_1", 1}));
  auto items = parse_local_ports({"mlx5_0:1", " mlx5_0:2 "});
  ASSERT_TRUE(items.ok());
  EXPECT_EQ((*items)[1], (LocalPort{"mlx5_0", 2}));
  auto all = parse_local_ports({"all"});
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->empty());
}

TEST(LocalPorts, RefusesBadSyntaxWithTheEntry) {
  for (const char* bad : {"mlx5_0", "mlx5_0:", ":1", "mlx5_0:x", "mlx5_0:-1", "mlx5_0:255",
                          "mlx5_0:1,", "all,mlx5_0:1", "mlx5_0:1,mlx5_0:1"}) {
    auto r = parse_local_ports({bad});
    EXPECT_FALSE(r.ok()) << bad;
  }
  EXPECT_NE(parse_local_ports({"mlx5_0"}).error().find("'mlx5_0' is not CA:PORT"),
            std::string::npos);
}

const std::vector<LocalPortInfo> kHost = {
    {{"mlx5_0", 1}, true, true, 0xa1},
    {{"mlx5_1", 1}, true, true, 0xb1},
    {{"mlx5_1", 2}, false, true, 0xb2},
    {{"mlx5_2", 1}, true, false, 0xc1},  // RoCE
};

TEST(LocalPorts, AllTakesEveryActiveInfiniBandPort) {
  auto r = resolve_local_ports({}, kHost);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[1].port, (LocalPort{"mlx5_1", 1}));
}

TEST(LocalPorts, AnUnknownOrInactivePortIsNamed) {
  auto unknown = resolve_local_ports({{"mlx5_0", 1}, {"mlx5_9", 1}}, kHost);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().find("no local port mlx5_9:1"), std::string::npos) << unknown.error();
  EXPECT_NE(unknown.error().find("mlx5_0:1,mlx5_1:1,mlx5_1:2"), std::string::npos);
  auto down = resolve_local_ports({{"mlx5_1", 2}}, kHost);
  ASSERT_FALSE(down.ok());
  EXPECT_NE(down.error().find("local port mlx5_1:2 is not active"), std::string::npos);
  EXPECT_FALSE(resolve_local_ports({{"mlx5_2", 1}}, kHost).ok());
}

// Ports are grouped by what discovery through each group's first port reaches: mlx5_0:1 reaches
// mlx5_1:2 (as a shard's peer only); mlx5_1:1 is on a subnet of its own.
TEST(LocalPorts, PortsAreGroupedBySubnetInTheOrderGiven) {
  const std::vector<LocalPortInfo> host = {{{"mlx5_0", 1}, true, true, 0xa1},
                                           {{"mlx5_1", 1}, true, true, 0xb1},
                                           {{"mlx5_1", 2}, true, true, 0xa2}};
  Topology rail_a;
  Topology rail_b;
  Port p;
  p.key = {0x10, 1};
  p.port_guid = 0xa1;
  rail_a.ports = {p};
  p.key = {0x12, 1};
  p.port_guid = 0xa2;
  rail_a.peer_ports = {p};
  p.key = {0x11, 1};
  p.port_guid = 0xb1;
  rail_b.ports = {p};
  std::vector<std::string> discovered_through;
  auto groups = group_by_subnet(host, [&](const LocalPort& through) -> Result<Topology> {
    discovered_through.push_back(through.ca + ":" + std::to_string(through.port));
    return through.ca == "mlx5_0" ? rail_a : rail_b;
  });
  ASSERT_TRUE(groups.ok()) << groups.error();
  ASSERT_EQ(groups->size(), 2u);
  ASSERT_EQ((*groups)[0].size(), 2u);
  EXPECT_EQ((*groups)[0][0].port, (LocalPort{"mlx5_0", 1}));
  EXPECT_EQ((*groups)[0][1].port, (LocalPort{"mlx5_1", 2}));
  ASSERT_EQ((*groups)[1].size(), 1u);
  EXPECT_EQ((*groups)[1][0].port, (LocalPort{"mlx5_1", 1}));
  EXPECT_EQ(discovered_through, (std::vector<std::string>{"mlx5_0:1", "mlx5_1:1"}));

  auto failed = group_by_subnet(host, [](const LocalPort& through) -> Result<Topology> {
    if (through.ca == "mlx5_1") return Err("no SMP answered");
    return Topology{};
  });
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error(), "discovery through mlx5_1:1 failed: no SMP answered");
}

TEST(LocalPortSplit, DownPortsNodesGoToTheOthersOnly) {
  LocalPortSplit split(3);
  std::map<uint64_t, size_t> before;
  for (uint64_t g = 1; g <= 300; ++g)
    before[g] = split.owner(g);
  const uint64_t gen = split.generation();
  EXPECT_TRUE(split.set_up(1, false));
  EXPECT_FALSE(split.set_up(1, false));
  EXPECT_NE(split.generation(), gen);
  EXPECT_EQ(split.failovers(), 1u);
  for (const auto& [g, owner] : before) {
    if (owner != 1) {
      EXPECT_EQ(split.owner(g), owner) << "only port 1's nodes move";
    }
    EXPECT_NE(split.owner(g), 1u);
  }
  split.set_up(0, false);
  split.set_up(2, false);
  for (const auto& [g, owner] : before)
    EXPECT_EQ(split.owner(g), owner) << "all down: each keeps its own";
}

}  // namespace
}  // namespace ibpulse::collector
