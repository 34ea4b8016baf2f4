// `ibpulse sim traffic`: counters move by what the generator reports, at both ends of a link,
// in the 32-bit and the 64-bit copies, and never step backwards.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sim_fabric.h"

namespace ibpulse::testing {
namespace {

SimFabric& fabric() {
  return SimFabricEnvironment::fabric();
}

// Every MAD crossing a port adds 72 dwords and 1 packet (sim-facts.md); the tests' own
// perfquery calls and the generator's reads are far fewer than this many.
constexpr uint64_t kMadSlackPackets = 2000;
constexpr uint64_t kMadSlackDwords = kMadSlackPackets * 72;

struct Snapshot {
  uint64_t xmit32, rcv32, xmit64, rcv64, xmit_pkts64, rcv_pkts64;
};

Snapshot read(const std::string& node, unsigned port) {
  const auto& f = fabric();
  return {
      f.perfquery(node, port, "PortXmitData"),       f.perfquery(node, port, "PortRcvData"),
      f.perfquery(node, port, "PortXmitData", true), f.perfquery(node, port, "PortRcvData", true),
      f.perfquery(node, port, "PortXmitPkts", true), f.perfquery(node, port, "PortRcvPkts", true)};
}

nlohmann::json run_traffic(const std::vector<std::string>& args) {
  std::vector<std::string> all = {"--json", "--tick-ms", "500"};
  all.insert(all.end(), args.begin(), args.end());
  const auto out = fabric().sim("traffic", all);
  if (out.exit_code != 0) throw std::runtime_error("sim traffic failed: " + out.err);
  return nlohmann::json::parse(out.out);
}

const nlohmann::json& port_report(const nlohmann::json& report, const std::string& node,
                                  unsigned port) {
  for (const auto& p : report.at("ports")) {
    if (p.at("node") == node && p.at("port") == port) return p;
  }
  throw std::runtime_error("no report for " + node);
}

void expect_moved_by(uint64_t before, uint64_t after, uint64_t injected, uint64_t slack,
                     const std::string& what) {
  EXPECT_GE(after, before + injected) << what;
  EXPECT_LE(after, before + injected + slack) << what;
}

TEST(SimTraffic, BothEndsOfALinkMoveByTheInjectedAmount) {
  const Snapshot hca_before = read("Hca1", 1);
  const Snapshot sw_before = read("Switch1", 1);
  const auto report = run_traffic({"--utilization", "0.25", "--duration", "2"});
  const Snapshot hca_after = read("Hca1", 1);
  const Snapshot sw_after = read("Switch1", 1);

  const auto& hca = port_report(report, "Hca1", 1);
  const auto& sw = port_report(report, "Switch1", 1);
  const uint64_t hca_xmit = hca.at("xmit_data_dwords");
  // 25% of 4x SDR (1 GB/s of data) for 2 s = 500 MB = 125,000,000 dwords each way.
  EXPECT_EQ(hca_xmit, 125000000u);
  EXPECT_EQ(sw.at("rcv_data_dwords").get<uint64_t>(), hca_xmit)
      << "one side's transmit is the other side's receive";
  EXPECT_EQ(sw.at("xmit_data_dwords").get<uint64_t>(), hca.at("rcv_data_dwords").get<uint64_t>());
  EXPECT_EQ(hca.at("xmit_pkts").get<uint64_t>(), (hca_xmit * 4 + 2047) / 2048);

  expect_moved_by(hca_before.xmit64, hca_after.xmit64, hca_xmit, kMadSlackDwords, "Hca1 xmit 64");
  expect_moved_by(hca_before.xmit32, hca_after.xmit32, hca_xmit, kMadSlackDwords, "Hca1 xmit 32");
  expect_moved_by(sw_before.rcv64, sw_after.rcv64, hca_xmit, kMadSlackDwords, "Switch1 rcv 64");
  expect_moved_by(hca_before.xmit_pkts64, hca_after.xmit_pkts64, hca.at("xmit_pkts"),
                  kMadSlackPackets, "Hca1 xmit packets");
  expect_moved_by(sw_before.rcv_pkts64, sw_after.rcv_pkts64, sw.at("rcv_pkts"), kMadSlackPackets,
                  "Switch1 rcv packets");
  // Links between switches move too.
  EXPECT_EQ(port_report(report, "Switch2", 3).at("rcv_data_dwords").get<uint64_t>(),
            port_report(report, "Switch1", 3).at("xmit_data_dwords").get<uint64_t>());
}

TEST(SimTraffic, ErrorCountersMoveByExactlyTheReportedCount) {
  const uint64_t before = fabric().perfquery("Hca2", 1, "PortRcvErrors");
  const uint64_t other_before = fabric().perfquery("Hca3", 1, "PortRcvErrors");
  const auto report = run_traffic({"--errors", "PortRcvErrors=10@Hca2[1]", "--duration", "1.5"});
  const uint64_t injected =
      port_report(report, "Hca2", 1).at("errors").at("PortCounters.PortRcvErrors");
  EXPECT_EQ(injected, 15u);  // 10/s for 1.5 s
  // MADs never move error counters: the difference is exact.
  EXPECT_EQ(fabric().perfquery("Hca2", 1, "PortRcvErrors"), before + injected);
  EXPECT_EQ(fabric().perfquery("Hca3", 1, "PortRcvErrors"), other_before)
      << "rule was for Hca2 only";
}

// Each tick writes current + delta; two rules for one field must add up, not overwrite.
TEST(SimTraffic, TwoRulesOnOneCounterBothCount) {
  const uint64_t before = fabric().perfquery("Hca1", 1, "SymbolErrorCounter");
  const auto report = run_traffic(
      {"--errors", "SymbolErrorCounter=10@Hca1[1],SymbolErrorCounter=4@Hca1", "--duration", "1"});
  const uint64_t injected =
      port_report(report, "Hca1", 1).at("errors").at("PortCounters.SymbolErrorCounter");
  EXPECT_EQ(injected, 14u);
  EXPECT_EQ(fabric().perfquery("Hca1", 1, "SymbolErrorCounter"), before + injected)
      << "both rules' errors are written, not only the last one's";
}

TEST(SimTraffic, ThirtyTwoBitCountersLatchWhileExtendedOnesKeepCounting) {
  fabric().set("PerformanceSet \"Hca3\"[1] PortCounters.PortXmitData=4294967000");
  const uint64_t ext_before = fabric().perfquery("Hca3", 1, "PortXmitData", true);
  const auto report = run_traffic({"--utilization", "0.1", "--duration", "1"});
  const auto& hca = port_report(report, "Hca3", 1);
  const uint64_t injected = hca.at("xmit_data_dwords");
  EXPECT_EQ(fabric().perfquery("Hca3", 1, "PortXmitData"), 4294967295u);
  expect_moved_by(ext_before, fabric().perfquery("Hca3", 1, "PortXmitData", true), injected,
                  kMadSlackDwords, "extended keeps counting");
  const auto latched = hca.at("latched").get<std::vector<std::string>>();
  EXPECT_NE(std::find(latched.begin(), latched.end(), "PortCounters.PortXmitData"), latched.end());
}

TEST(SimTraffic, RejectsBadRequests) {
  EXPECT_EQ(fabric().sim("traffic", {"--duration", "1"}).exit_code, 1) << "nothing to generate";
  EXPECT_EQ(fabric().sim("traffic", {"--utilization", "2"}).exit_code, 2);
  const auto bad = fabric().sim("traffic", {"--errors", "Nope=1", "--duration", "1"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("not an error counter"), std::string::npos) << bad.err;
  const auto nowhere =
      fabric().sim("traffic", {"--errors", "PortRcvErrors=1@Hca9[1]", "--duration", "1"});
  EXPECT_EQ(nowhere.exit_code, 1);
  EXPECT_NE(nowhere.err.find("matches no"), std::string::npos) << nowhere.err;
}

}  // namespace
}  // namespace ibpulse::testing
