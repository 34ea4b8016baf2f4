// A fabric of several disconnected parts (two rails): one subnet manager per part, LIDs that
// overlap between parts, and one daemon per part that sees its own subnet and nothing else.
// Parts from a net file, without resident SMs, and refused ones: sim_parts_file_test.cc.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "daemon_client.h"
#include "sim_fabric.h"

namespace ibpulse::testing {
namespace {

using namespace std::chrono_literals;

constexpr uint64_t kRail1Prefix = 0xfe80000000000000;
constexpr uint64_t kRail2Prefix = 0xfe80000000000001;

SimFabric& fabric() {
  return SimFabricEnvironment::fabric();
}

std::string rail(int r) {
  return fmt::format("R{}-", r);
}

// Node ids of one rail, from the generator's naming (R1-Leaf1, R2-Hca3, ...).
std::set<std::string> rail_nodes(int r) {
  std::set<std::string> out;
  for (const auto& p : fabric().ports()) {
    if (p.node.starts_with(rail(r))) out.insert(p.node);
  }
  return out;
}

std::set<uint64_t> rail_guids(int r) {
  std::set<uint64_t> out;
  for (const auto& p : fabric().ports()) {
    if (p.node.starts_with(rail(r))) out.insert(p.node_guid);
  }
  return out;
}

// LID of every node of a rail (a switch's port-0 LID, an HCA's port-1 LID).
std::map<std::string, unsigned> rail_lids(int r) {
  std::map<std::string, unsigned> out;
  for (const auto& p : fabric().ports()) {
    if (p.node.starts_with(rail(r)) && p.lid != 0) out[p.node] = p.lid;
  }
  return out;
}

// The node_guid labels of `infiniband_port_info` in a scrape.
std::set<uint64_t> port_info_guids(const std::string& metrics) {
  static const std::regex info(R"(^infiniband_port_info\{node_guid="(0x[0-9a-f]+)\")");
  std::set<uint64_t> out;
  std::istringstream lines(metrics);
  std::smatch m;
  for (std::string line; std::getline(lines, line);) {
    if (std::regex_search(line, m, info)) out.insert(std::stoull(m[1], nullptr, 16));
  }
  return out;
}

// A scrape that lists ports. `event=ready` is logged when the first sweep ends, which can be
// just before the exporter's snapshot holds the topology: a scrape then has no port_info yet.
std::string scrape_with_port_info(uint16_t port) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (true) {
    std::string metrics = http_get(port, "/metrics");
    if (!port_info_guids(metrics).empty() || std::chrono::steady_clock::now() > deadline) {
      return metrics;
    }
    std::this_thread::sleep_for(50ms);
  }
}

TEST(SimParts, EachRailIsItsOwnSubnetWithItsOwnSubnetManager) {
  ASSERT_EQ(fabric().parts().size(), 2u);
  EXPECT_EQ(fabric().parts()[0].attach_node, "R1-Leaf1");
  EXPECT_EQ(fabric().parts()[1].attach_node, "R2-Leaf1");
  EXPECT_EQ(fabric().parts()[0].subnet_prefix, kRail1Prefix);
  EXPECT_EQ(fabric().parts()[1].subnet_prefix, kRail2Prefix);
  size_t linked = 0;
  for (const auto& p : fabric().ports()) {
    if (p.remote_node.empty()) continue;
    ++linked;
    EXPECT_EQ(p.state, "Active") << p.node << "[" << p.port << "]";
    EXPECT_GT(p.lid, 0u) << p.node << "[" << p.port << "]";
    EXPECT_EQ(p.node.substr(0, 3), p.remote_node.substr(0, 3)) << "a link between rails";
  }
  // 6 hosts on 4-port switches: 3 leaves with 2 uplinks each, per rail.
  EXPECT_EQ(linked, 2u * 2u * (6u + 6u));
}

TEST(SimParts, LidsAreUniqueInARailAndOverlapBetweenRails) {
  std::set<unsigned> lids[2];
  for (int r : {1, 2}) {
    const auto by_node = rail_lids(r);
    ASSERT_EQ(by_node.size(), rail_nodes(r).size());
    for (const auto& [node, lid] : by_node) {
      EXPECT_TRUE(lids[r - 1].insert(lid).second) << "LID " << lid << " twice in rail " << r;
    }
  }
  // Each rail's SM numbers its own subnet from LID 1: the same LIDs name different ports.
  std::vector<unsigned> shared;
  std::set_intersection(lids[0].begin(), lids[0].end(), lids[1].begin(), lids[1].end(),
                        std::back_inserter(shared));
  EXPECT_EQ(shared.size(), lids[0].size());
}

TEST(SimParts, ALidReachesTheNodeOfTheClientsOwnRail) {
  for (int r : {1, 2}) {
    const unsigned lid = fabric().lid(rail(r) + "Hca3", 1);
    const auto info =
        fabric().exec({"smpquery", "portinfo", std::to_string(lid), "1"}, rail(r) + "Hca1");
    ASSERT_EQ(info.exit_code, 0) << info.err;
    EXPECT_EQ(smpquery_field(info.out, "Lid"), std::to_string(lid));
    EXPECT_EQ(smpquery_field(info.out, "LinkState"), "Active");
    EXPECT_EQ(smpquery_field(info.out, "GidPrefix"),
              guid_text(r == 1 ? kRail1Prefix : kRail2Prefix));
    const auto desc =
        fabric().exec({"smpquery", "nodedesc", std::to_string(lid)}, rail(r) + "Hca1");
    ASSERT_EQ(desc.exit_code, 0) << desc.err;
    EXPECT_NE(desc.out.find(rail(r) + "Hca3"), std::string::npos) << desc.out;
  }
}

TEST(SimParts, IbnetdiscoverFromARailFindsExactlyThatRail) {
  for (int r : {1, 2}) {
    const auto out = fabric().exec({"ibnetdiscover"}, rail(r) + "Hca2");
    ASSERT_EQ(out.exit_code, 0) << out.err;
    EXPECT_EQ(ibnetdiscover_names(out.out), rail_nodes(r)) << out.out;
  }
}

TEST(SimParts, ExecPartAttachesWhereThePartsSubnetManagerIs) {
  const auto at = fabric().sim("exec", {"--part", "2", "--", "sh", "-c", "echo $SIM_HOST"});
  ASSERT_EQ(at.exit_code, 0) << at.err;
  EXPECT_EQ(at.out, "R2-Leaf1\n");
  const auto no_part = fabric().sim("exec", {"--part", "3", "--", "true"});
  EXPECT_EQ(no_part.exit_code, 1);
  EXPECT_NE(no_part.err.find("has 2 parts"), std::string::npos) << no_part.err;
  const auto no_node = fabric().sim("exec", {"--host", "R3-Hca1", "--", "true"});
  EXPECT_EQ(no_node.exit_code, 1);
  EXPECT_NE(no_node.err.find("has no such node"), std::string::npos) << no_node.err;
}

TEST(SimParts, OneDaemonPerRailExportsOnlyThatRailsPorts) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("ibpulse-parts-" + std::to_string(::getpid()));
  std::vector<std::unique_ptr<Daemon>> daemons;
  for (int r : {1, 2}) {
    const auto state = dir / ("rail" + std::to_string(r));
    std::filesystem::create_directories(state);
    // Any node of the rail will do; not the SM's node, to show the attachment is free.
    daemons.push_back(
        std::make_unique<Daemon>(fabric(),
                                 std::vector<std::string>{"--state.dir", state.string(),
                                                          "--poll.counters-interval", "200ms"},
                                 rail(r) + "Hca2"));
  }
  for (int r : {1, 2}) {
    const Daemon& d = *daemons[static_cast<size_t>(r - 1)];
    ASSERT_TRUE(d.wait_for("event=ready", 20s)) << d.log();
    ASSERT_NE(d.web_port(), 0) << d.log();
    const auto metrics = scrape_with_port_info(d.web_port());
    const auto seen = port_info_guids(metrics);
    EXPECT_EQ(seen, rail_guids(r)) << "rail " << r << "\n"
                                   << metrics.substr(0, 1500) << "\n"
                                   << d.log();
    const auto other = rail_guids(3 - r);
    for (uint64_t guid : seen)
      EXPECT_EQ(other.count(guid), 0u) << guid_text(guid) << " of the other rail";
  }
  for (const auto& d : daemons)
    d->stop();
  std::filesystem::remove_all(dir);
}

// The resident SM of rail 2 sweeps on the trap ibsim sends; the test of --no-sm below shows
// the re-sweep `link-up` asks for reaching every part.
TEST(SimParts, ALinkFlapInTheSecondRailComesBackActiveWithItsLid) {
  const auto& hca = fabric().port("R2-Hca4", 1);
  const std::string leaf_lid = std::to_string(fabric().lid(hca.remote_node, hca.remote_port));
  const std::string leaf_port = std::to_string(hca.remote_port);
  ASSERT_EQ(fabric().sim("link-down", {"R2-Hca4[1]"}).exit_code, 0);
  const auto down = fabric().exec({"smpquery", "portinfo", leaf_lid, leaf_port}, "R2-Hca1");
  ASSERT_EQ(down.exit_code, 0) << down.err;
  EXPECT_EQ(smpquery_field(down.out, "LinkState"), "Down");
  // link-up returns once both ends are Active again: only rail 2's SM can make them so.
  const auto up = fabric().sim("link-up", {"R2-Hca4[1]"});
  ASSERT_EQ(up.exit_code, 0) << up.err;
  const auto back =
      fabric().exec({"smpquery", "portinfo", std::to_string(hca.lid), "1"}, "R2-Hca1");
  ASSERT_EQ(back.exit_code, 0) << back.err;
  EXPECT_EQ(smpquery_field(back.out, "LinkState"), "Active");
  EXPECT_EQ(smpquery_field(back.out, "Lid"), std::to_string(hca.lid));
}

TEST(SimParts, ANewLidInOneRailLeavesTheOtherAlone) {
  const unsigned old_lid = fabric().lid("R2-Hca5", 1);
  const unsigned other_lid = fabric().lid("R1-Hca5", 1);
  ASSERT_EQ(fabric().sim("lid", {"R2-Hca5[1]", "42"}).exit_code, 0);
  const auto moved = fabric().exec({"smpquery", "nodedesc", "42"}, "R2-Hca1");
  ASSERT_EQ(moved.exit_code, 0) << moved.err;
  EXPECT_NE(moved.out.find("R2-Hca5"), std::string::npos) << moved.out;
  const auto kept =
      fabric().exec({"smpquery", "portinfo", std::to_string(other_lid), "1"}, "R1-Hca1");
  ASSERT_EQ(kept.exit_code, 0) << kept.err;
  EXPECT_EQ(smpquery_field(kept.out, "Lid"), std::to_string(other_lid));
  // Back to where it was: the other tests read LIDs from the map `sim up` wrote.
  ASSERT_EQ(fabric().sim("lid", {"R2-Hca5[1]", std::to_string(old_lid)}).exit_code, 0);
}

// One counter of a port, read with perfquery attached in the port's own rail.
uint64_t rail_counter(const std::string& node, const std::string& field) {
  const auto out = fabric().exec({"perfquery", std::to_string(fabric().lid(node, 1)), "1"},
                                 node.substr(0, 3) + "Hca1");
  if (out.exit_code != 0) throw std::runtime_error("perfquery " + node + ": " + out.err);
  return perfquery_field(out.out, field);
}

// bump reads the current value by LID: it must read it in the port's rail, not at the rail-1
// port that has the same LID.
TEST(SimParts, BumpAddsToTheValueOfThePortInItsOwnRail) {
  fabric().set("PerformanceSet \"R2-Hca4\"[1] PortCounters.SymbolErrorCounter=100");
  fabric().set("PerformanceSet \"R1-Hca4\"[1] PortCounters.SymbolErrorCounter=7");
  const auto bump =
      fabric().sim("bump", {"R2-Hca4[1]", "--counter", "SymbolErrorCounter", "--by", "3"});
  ASSERT_EQ(bump.exit_code, 0) << bump.err;
  EXPECT_EQ(bump.out, "103\n");
  EXPECT_EQ(rail_counter("R2-Hca4", "SymbolErrorCounter"), 103u);
  EXPECT_EQ(rail_counter("R1-Hca4", "SymbolErrorCounter"), 7u);
}

TEST(SimParts, TrafficDrivesTheRailItIsGiven) {
  fabric().set("PerformanceSet \"R2-Hca5\"[1] PortCounters.PortRcvErrors=1000");
  fabric().set("PerformanceSet \"R1-Hca5\"[1] PortCounters.PortRcvErrors=0");
  const auto out = fabric().sim(
      "traffic",
      {"--part", "2", "--errors", "PortRcvErrors=10@R2-Hca5[1]", "--duration", "1", "--json"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const auto report = nlohmann::json::parse(out.out);
  uint64_t injected = 0;
  for (const auto& p : report.at("ports")) {
    const auto node = p.at("node").get<std::string>();
    EXPECT_TRUE(node.starts_with("R2-")) << node << " is not in rail 2";
    if (node == "R2-Hca5") injected = p.at("errors").at("PortCounters.PortRcvErrors");
  }
  EXPECT_EQ(injected, 10u);  // 10/s for 1 s
  EXPECT_EQ(rail_counter("R2-Hca5", "PortRcvErrors"), 1000u + injected);
  EXPECT_EQ(rail_counter("R1-Hca5", "PortRcvErrors"), 0u);
  const auto no_part = fabric().sim("traffic", {"--part", "3", "--utilization", "0.1"});
  EXPECT_EQ(no_part.exit_code, 1);
  EXPECT_NE(no_part.err.find("has 2 part(s)"), std::string::npos) << no_part.err;
}

}  // namespace
}  // namespace ibpulse::testing

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // Two rails of 6 hosts on 4-port switches, the second rail on its own subnet prefix.
  ::testing::AddGlobalTestEnvironment(new ibpulse::testing::SimFabricEnvironment(
      {"--hosts", "6", "--radix", "4", "--rails", "2", "--subnet-prefix",
       "0xfe80000000000000,0xfe80000000000001"}));
  return RUN_ALL_TESTS();
}
