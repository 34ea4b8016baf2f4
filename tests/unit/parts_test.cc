#include "ibpulse/sim/parts.h"

#include <gtest/gtest.h>

namespace ibpulse::sim {
namespace {

std::vector<std::string> ids(const Topology& t, const std::vector<size_t>& nodes) {
  std::vector<std::string> out;
  out.reserve(nodes.size());
  for (size_t n : nodes)
    out.push_back(t.nodes[n].id);
  return out;
}

TEST(Parts, AConnectedTopologyIsOnePart) {
  const Topology t = default_topology();
  const auto parts = connected_parts(t);
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0].size(), t.nodes.size());
  auto planned = plan_parts(t, {}, true);
  ASSERT_TRUE(planned.ok()) << planned.error();
  ASSERT_EQ(planned->size(), 1u);
  EXPECT_EQ((*planned)[0].attach_node, "Switch1");
  EXPECT_EQ((*planned)[0].subnet_prefix, kDefaultSubnetPrefix);
  EXPECT_EQ((*planned)[0].links, t.links.size());
}

TEST(Parts, PartsFollowTheFileOrderAndSkipNodesWithoutLinks) {
  auto t = parse_net(R"(
Hca 1 "Lonely"

Hca 1 "B1"
[1] "SwB"[1]

Switch 4 "SwA"
[1] "A1"[1]

Switch 4 "SwB"
[1] "B1"[1]
[2] "B2"[1]

Hca 1 "A1"
[1] "SwA"[1]

Hca 1 "B2"
[1] "SwB"[2]
)");
  ASSERT_TRUE(t.ok()) << t.error();
  const auto parts = connected_parts(*t);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(ids(*t, parts[0]), (std::vector<std::string>{"B1", "SwB", "B2"}));
  EXPECT_EQ(ids(*t, parts[1]), (std::vector<std::string>{"SwA", "A1"}));
  EXPECT_EQ(part_of(*t, "A1"), 1u);
  EXPECT_EQ(part_of(*t, "Lonely"), std::nullopt);
  auto planned = plan_parts(*t, {0xfe80000000000001, 0xfe80000000000002}, true);
  ASSERT_TRUE(planned.ok()) << planned.error();
  EXPECT_EQ((*planned)[0].attach_node, "B1");
  EXPECT_EQ((*planned)[0].links, 2u);
  EXPECT_EQ((*planned)[1].subnet_prefix, 0xfe80000000000002u);
}

TEST(Parts, RailsAreDisconnectedCopiesWithTheirOwnNames) {
  auto t = fat_tree(6, 4, 3);
  ASSERT_TRUE(t.ok()) << t.error();
  auto one = fat_tree(6, 4);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(t->nodes.size(), 3 * one->nodes.size());
  EXPECT_EQ(t->links.size(), 3 * one->links.size());
  auto planned = plan_parts(*t, {0x1}, true);
  ASSERT_TRUE(planned.ok()) << planned.error();
  ASSERT_EQ(planned->size(), 3u);
  EXPECT_EQ((*planned)[2].attach_node, "R3-Leaf1");
  EXPECT_EQ((*planned)[2].subnet_prefix, 1u) << "one prefix applies to every part";
  EXPECT_TRUE(part_of(*t, "R2-Hca6").has_value());
  EXPECT_FALSE(fat_tree(6, 4, 0).ok());
}

TEST(Parts, TooManyPartsForIbsimsClientsAreRefused) {
  auto t = fat_tree(2, 4, 10);
  ASSERT_TRUE(t.ok());
  auto planned = plan_parts(*t, {}, true);
  ASSERT_FALSE(planned.ok());
  EXPECT_NE(planned.error().find("at most 9 parts"), std::string::npos) << planned.error();
  EXPECT_TRUE(plan_parts(*t, {}, false).ok()) << "without resident SMs";
  auto nine = fat_tree(2, 4, 9);
  EXPECT_TRUE(plan_parts(*nine, {}, true).ok());
}

TEST(Parts, SubnetPrefixes) {
  auto two = parse_subnet_prefixes("0xfe80000000000000, 0xFE80000000000001");
  ASSERT_TRUE(two.ok()) << two.error();
  EXPECT_EQ(*two, (std::vector<uint64_t>{0xfe80000000000000, 0xfe80000000000001}));
  EXPECT_FALSE(parse_subnet_prefixes("fe80::1").ok());
  EXPECT_FALSE(parse_subnet_prefixes("0x1,").ok());
  EXPECT_FALSE(parse_subnet_prefixes("0x10000000000000000").ok());
  EXPECT_EQ(prefix_text(0xfe80000000000001), "0xfe80000000000001");
  auto t = fat_tree(2, 4, 2);
  auto wrong = plan_parts(*t, {1, 2, 3}, true);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().find("3 subnet prefixes given for 2 parts"), std::string::npos);
}

}  // namespace
}  // namespace ibpulse::sim
