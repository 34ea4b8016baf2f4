#include "ibpulse/sim/topology.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

namespace ibpulse::sim {
namespace {

using LinkSet =
    std::set<std::pair<std::pair<std::string, unsigned>, std::pair<std::string, unsigned>>>;

LinkSet links_of(const Topology& t) {
  LinkSet out;
  for (const auto& l : t.links) {
    auto a = std::pair{t.nodes[l.a.node].id, l.a.port};
    auto b = std::pair{t.nodes[l.b.node].id, l.b.port};
    out.insert(a < b ? std::pair{a, b} : std::pair{b, a});
  }
  return out;
}

// Every port is used at most once and exists on its node.
void expect_consistent(const Topology& t) {
  std::set<std::pair<size_t, unsigned>> used;
  for (const auto& l : t.links) {
    for (const auto& e : {l.a, l.b}) {
      ASSERT_LT(e.node, t.nodes.size());
      EXPECT_GE(e.port, 1u);
      EXPECT_LE(e.port, t.nodes[e.node].ports) << t.nodes[e.node].id;
      EXPECT_TRUE(used.insert({e.node, e.port}).second)
          << t.nodes[e.node].id << "[" << e.port << "] used twice";
    }
  }
}

std::map<std::string, size_t> count_by_prefix(const Topology& t) {
  std::map<std::string, size_t> out;
  for (const auto& n : t.nodes)
    out[n.id.substr(0, n.id.find_first_of("0123456789"))]++;
  return out;
}

TEST(Topology, DefaultIsIbsimTwoSwitchFourHcaExample) {
  const Topology t = default_topology();
  ASSERT_EQ(t.nodes.size(), 6u);
  EXPECT_EQ(t.nodes[0].id, "Switch1");  // clients attach at the first node
  EXPECT_EQ(t.switch_count(), 2u);
  EXPECT_EQ(t.hca_count(), 4u);
  EXPECT_EQ(t.physical_port_count(), 2u * 8 + 4u * 2);
  EXPECT_EQ(t.lid_count(), 6u);
  const LinkSet expected = {{{"Hca1", 1}, {"Switch1", 1}},    {{"Hca3", 1}, {"Switch1", 2}},
                            {{"Switch1", 3}, {"Switch2", 3}}, {{"Switch1", 5}, {"Switch2", 5}},
                            {{"Hca2", 1}, {"Switch2", 1}},    {{"Hca4", 1}, {"Switch2", 2}}};
  EXPECT_EQ(links_of(t), expected);
}

TEST(Topology, DefaultMatchesTheShippedExampleFile) {
  const std::filesystem::path example = "/usr/share/doc/ibsim-utils/net-examples/net.2sw2path4hca";
  // A missing file fails the test (scripts/install-deps installs ibsim-utils): a test that
  // skipped itself here would pass on a machine where it checks nothing.
  ASSERT_TRUE(std::filesystem::exists(example)) << example << ": install ibsim-utils";
  std::ifstream in(example);
  auto parsed = parse_net(std::string(std::istreambuf_iterator<char>(in), {}));
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  const Topology ours = default_topology();
  ASSERT_EQ(parsed->nodes.size(), ours.nodes.size());
  for (size_t i = 0; i < ours.nodes.size(); ++i) {
    EXPECT_EQ(parsed->nodes[i].id, ours.nodes[i].id);
    EXPECT_EQ(parsed->nodes[i].ports, ours.nodes[i].ports);
    EXPECT_EQ(parsed->nodes[i].type, ours.nodes[i].type);
  }
  EXPECT_EQ(links_of(*parsed), links_of(ours));
}

TEST(Topology, RenderParsesBackToTheSameTopology) {
  auto tree = fat_tree(100, 8);
  ASSERT_TRUE(tree.ok()) << tree.error();
  auto parsed = parse_net(tree->render());
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_EQ(parsed->nodes.size(), tree->nodes.size());
  EXPECT_EQ(links_of(*parsed), links_of(*tree));
}

TEST(Topology, BenchmarkFabricIsATwoLevelTreeOfAbout8000Ports) {
  auto t = fat_tree(2016, 64);
  ASSERT_TRUE(t.ok()) << t.error();
  expect_consistent(*t);
  const auto counts = count_by_prefix(*t);
  EXPECT_EQ(counts.at("Leaf"), 63u);
  EXPECT_EQ(counts.at("Spine"), 32u);
  EXPECT_EQ(counts.at("Hca"), 2016u);
  EXPECT_EQ(t->physical_port_count(), 2016u + 95u * 64u);
  EXPECT_EQ(t->links.size(), 2016u + 63u * 32u);
  // Every leaf reaches every spine exactly once.
  std::map<std::pair<std::string, std::string>, int> pairs;
  for (const auto& l : t->links) {
    const auto& a = t->nodes[l.a.node].id;
    const auto& b = t->nodes[l.b.node].id;
    if (a.starts_with("Leaf") && b.starts_with("Spine")) pairs[{a, b}]++;
  }
  EXPECT_EQ(pairs.size(), 63u * 32u);
  for (const auto& [pair, n] : pairs)
    EXPECT_EQ(n, 1) << pair.first << "-" << pair.second;
  const auto cap = ibsim_capacity(*t);
  EXPECT_GT(cap.nodes, t->nodes.size());  // beyond ibsim's default of 2048 nodes
  EXPECT_GE(cap.ports, 2016u + 95u * 65u);
}

TEST(Topology, ThreeLevelsWhenTwoCannotHoldTheHosts) {
  // radix 36: two levels hold 36 * 18 = 648 hosts.
  auto two = fat_tree(648, 36);
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(count_by_prefix(*two).count("Core"), 0u);
  auto three = fat_tree(2000, 36);
  ASSERT_TRUE(three.ok()) << three.error();
  expect_consistent(*three);
  const auto counts = count_by_prefix(*three);
  EXPECT_EQ(counts.at("Hca"), 2000u);
  EXPECT_EQ(counts.at("Leaf"), 112u);  // ceil(2000 / 18)
  EXPECT_EQ(counts.at("Agg"), 7u * 18u);
  EXPECT_EQ(counts.at("Core"), 63u);
  for (const auto& n : three->nodes)
    EXPECT_LE(n.ports, 36u);
}

TEST(Topology, RefusesImpossibleSizes) {
  EXPECT_FALSE(fat_tree(0, 36).ok());
  EXPECT_FALSE(fat_tree(10, 7).ok());
  EXPECT_FALSE(fat_tree(10, 2).ok());
  EXPECT_FALSE(fat_tree(10, 256).ok());
  auto too_many = fat_tree(36 * 36 * 36 / 4 + 1, 36);
  ASSERT_FALSE(too_many.ok());
  EXPECT_NE(too_many.error().find("three-level"), std::string::npos);
  // Fits a 3-level radix-64 tree but not a subnet's LID space.
  auto lids = fat_tree(60000, 64);
  ASSERT_FALSE(lids.ok());
  EXPECT_NE(lids.error().find("LIDs"), std::string::npos) << lids.error();
}

TEST(Topology, ParseReadsIbnetdiscoverOutput) {
  const std::string text = R"(
vendid=0x0
switchguid=0x200000(200000)
Switch	8 "S-0000000000200000"		# "Switch1" base port 0 lid 1 lmc 0
[1]	"H-0000000000100000"[1](100001) 		# "Hca1" lid 2 4xSDR

vendid=0x0
caguid=0x100000
Ca	2 "H-0000000000100000"		# "Hca1"
[1](100001) 	"S-0000000000200000"[1]		# lid 2 lmc 0 "Switch1" lid 1 4xSDR
)";
  auto t = parse_net(text);
  ASSERT_TRUE(t.ok()) << t.error();
  ASSERT_EQ(t->nodes.size(), 2u);
  EXPECT_EQ(t->nodes[0].type, NodeType::kSwitch);
  EXPECT_EQ(t->nodes[1].type, NodeType::kHca);
  ASSERT_EQ(t->links.size(), 1u);
}

TEST(Topology, ParseRejectsBrokenFiles) {
  EXPECT_FALSE(parse_net("").ok());
  auto one_sided = parse_net("Switch 4 \"A\"\n[1] \"B\"[1]\n\nHca 1 \"B\"\n");
  ASSERT_FALSE(one_sided.ok());
  EXPECT_NE(one_sided.error().find("other end"), std::string::npos) << one_sided.error();
  auto unknown = parse_net("Switch 4 \"A\"\n[1] \"Z\"[1]\n");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().find("unknown node \"Z\""), std::string::npos);
  auto bad_port = parse_net("Switch 4 \"A\"\n[9] \"B\"[1]\n\nHca 1 \"B\"\n[1] \"A\"[9]\n");
  ASSERT_FALSE(bad_port.ok());
  EXPECT_NE(bad_port.error().find("no port 9"), std::string::npos) << bad_port.error();
}

}  // namespace
}  // namespace ibpulse::sim
