// The congestion classifier on a hand-built two-level fat tree: leaves L1 (HCAs H1, H2) and L2
// (H3, H4), spines S1 and S2, every leaf linked to every spine. Each test sets the wait ratios
// and utilisations a scenario gives and names the roots and victims it expects.
#include "ibpulse/exporters/alerts/congestion.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace ibpulse::exporters::alerts {
namespace {

using collector::PortKey;

// GUIDs in name order, so that snapshot order is name order too.
const std::map<std::string, uint64_t> kNodes = {{"H1", 0x11}, {"H2", 0x12}, {"H3", 0x13},
                                                {"H4", 0x14}, {"L1", 0x21}, {"L2", 0x22},
                                                {"S1", 0x31}, {"S2", 0x32}};

PortKey key(const std::string& node, uint8_t port) {
  return {kNodes.at(node), port};
}

std::string name_of(PortKey k) {
  for (const auto& [name, guid] : kNodes) {
    if (guid == k.node_guid) return name + "p" + std::to_string(k.port);
  }
  return "?";
}

class FatTree {
 public:
  FatTree() {
    link(key("H1", 1), key("L1", 1));
    link(key("H2", 1), key("L1", 2));
    link(key("H3", 1), key("L2", 1));
    link(key("H4", 1), key("L2", 2));
    link(key("L1", 3), key("S1", 1));
    link(key("L1", 4), key("S2", 1));
    link(key("L2", 3), key("S1", 2));
    link(key("L2", 4), key("S2", 2));
  }

  // Sending at `utilisation` of the link while waiting `wait` of the time.
  void port(const std::string& node, uint8_t p, float utilisation, float wait) {
    load_[key(node, p)] = {utilisation, wait};
  }

  Congestion classify(CongestionOptions options = {}) const {
    auto topology = std::make_shared<collector::Topology>();
    converters::FabricSnapshot s;
    for (const auto& [k, remote] : peers_) {
      collector::Port p;
      p.key = k;
      p.remote = remote;
      topology->ports.push_back(p);
      converters::PortSnapshot& out = s.ports.emplace_back();
      out.key = k;
      const auto found = load_.find(k);
      out.utilisation_out = found != load_.end() ? found->second.first : 0.3f;
      out.xmit_wait_ratio = found != load_.end() ? found->second.second : 0.0f;
    }
    s.topology = topology;
    return classify_congestion(s, options);
  }

 private:
  void link(PortKey a, PortKey b) {
    peers_[a] = b;
    peers_[b] = a;
  }
  std::map<PortKey, PortKey> peers_;                 // sorted by key
  std::map<PortKey, std::pair<float, float>> load_;  // utilisation, wait ratio
};

std::vector<std::string> roots(const Congestion& c) {
  std::vector<std::string> out;
  for (const auto& r : c.roots)
    out.push_back(name_of(r.key) + (r.stuck ? " stuck" : "") + " victims " +
                  std::to_string(r.victims));
  return out;
}

// Victim -> the roots it names.
std::map<std::string, std::vector<std::string>> victims(const Congestion& c) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& v : c.victims) {
    auto& names = out[name_of(v.key)];
    for (const uint32_t r : v.roots)
      names.push_back(name_of(c.roots[r].key));
  }
  return out;
}

using Names = std::vector<std::string>;

// H1, H2 and H3 all send to H4: L2's port to H4 runs at line rate and still waits (the root);
// the senders and the spine and leaf ports on their way wait while sending little.
void hot_spot_on_h4(FatTree& f, float root_utilisation) {
  f.port("L2", 2, root_utilisation, 0.6f);
  for (const auto& [node, p] : std::vector<std::pair<std::string, uint8_t>>{
           {"H1", 1}, {"H2", 1}, {"H3", 1}, {"L1", 3}, {"L1", 4}, {"S1", 2}, {"S2", 2}})
    f.port(node, p, 0.2f, 0.4f);
}

const std::map<std::string, Names> kEveryoneBlamesL2p2 = {
    {"H1p1", {"L2p2"}}, {"H2p1", {"L2p2"}}, {"H3p1", {"L2p2"}}, {"L1p3", {"L2p2"}},
    {"L1p4", {"L2p2"}}, {"S1p2", {"L2p2"}}, {"S2p2", {"L2p2"}}};

TEST(Congestion, AHotSpotHasOneRootAndNamesItsVictims) {
  FatTree f;
  hot_spot_on_h4(f, 0.98f);
  const Congestion c = f.classify();
  EXPECT_EQ(roots(c), Names{"L2p2 victims 7"});
  EXPECT_EQ(victims(c), kEveryoneBlamesL2p2);
  ASSERT_EQ(c.roles.size(), 16u);
  EXPECT_EQ(std::count(c.roles.begin(), c.roles.end(), CongestionRole::kVictim), 7);
}

TEST(Congestion, UniformLoadHasNoRootsAndNoVictims) {
  FatTree f;
  for (const auto& [node, guid] : kNodes) {
    for (uint8_t p = 1; p <= 4; ++p)
      f.port(node, p, 0.95f, 0.01f);  // busy, waiting now and then: below the wait ratio
  }
  const Congestion c = f.classify();
  EXPECT_TRUE(c.roots.empty());
  EXPECT_TRUE(c.victims.empty());
}

// H4 stops returning credits: L2's port to it waits without sending. Nothing waits beyond
// it, so it is the root of the tree, marked stuck, and the same victims name it.
TEST(Congestion, AStuckReceiversPortIsTheRootOfItsTree) {
  FatTree f;
  hot_spot_on_h4(f, 0.0f);
  const Congestion c = f.classify();
  EXPECT_EQ(roots(c), Names{"L2p2 stuck victims 7"});
  EXPECT_EQ(victims(c), kEveryoneBlamesL2p2);
}

// Two hot spots, H2 and H4: H1's waiting passes L1, where both L1's port to H2 and its uplink
// toward H4 wait, so H1 names both roots; without routes, either may hold its flows.
TEST(Congestion, AVictimNamesEveryRootItsWaitingReaches) {
  FatTree f;
  f.port("L1", 2, 0.97f, 0.5f);  // to H2
  f.port("L2", 2, 0.97f, 0.5f);  // to H4
  f.port("H1", 1, 0.1f, 0.5f);
  f.port("L1", 3, 0.1f, 0.5f);
  f.port("S1", 2, 0.1f, 0.5f);
  f.port("H3", 1, 0.1f, 0.5f);  // H3 sends to H4 through its own leaf
  const Congestion c = f.classify();
  EXPECT_EQ(roots(c), (Names{"L1p2 victims 1", "L2p2 victims 4"}));
  const auto v = victims(c);
  EXPECT_EQ(v.at("H1p1"), (Names{"L1p2", "L2p2"}));
  EXPECT_EQ(v.at("H3p1"), Names{"L2p2"});
  EXPECT_EQ(v.at("S1p2"), Names{"L2p2"});
  // Tracing stops after max_depth links: H1 is three links from L2p2.
  CongestionOptions shallow;
  shallow.max_depth = 2;
  EXPECT_EQ(victims(f.classify(shallow)).at("H1p1"), Names{"L1p2"});
}

// The thresholds are the operator's: a port waiting at mid load is neither root nor victim,
// and a lower root utilisation makes a busy waiting port a root.
TEST(Congestion, ThresholdsDecideTheRoles) {
  FatTree f;
  f.port("L2", 2, 0.7f, 0.3f);
  f.port("H3", 1, 0.1f, 0.3f);
  Congestion c = f.classify();
  EXPECT_TRUE(c.roots.empty()) << "0.7 is below root-utilization 0.9, above victim 0.5";
  EXPECT_EQ(roots(c), Names{});
  EXPECT_EQ(victims(c).at("H3p1"), Names{}) << "its wait goes nowhere it can name";
  CongestionOptions lower;
  lower.root_utilization = 0.6;
  c = f.classify(lower);
  EXPECT_EQ(roots(c), Names{"L2p2 victims 1"});
  lower.wait_ratio = 0.5;
  EXPECT_TRUE(f.classify(lower).roots.empty()) << "0.3 of the time is below a 0.5 wait ratio";
}

}  // namespace
}  // namespace ibpulse::exporters::alerts
