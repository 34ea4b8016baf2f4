// `ibpulse sim traffic`: counters move by what the generator reports, at both ends of a link,
// in the 32-bit and the 64-bit copies, and never step backwards.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "sim_fabric.h"

namespace ibpulse::testing {
namespace {

SimFabric& fabric() {
  return SimFabricEnvironment::fabric();
}

// Every MAD crossing a port adds 72 dwords and 1 packet (ibsim counts MADs as traffic); the
// tests' own
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
  const auto report = run_traffic({"--errors", "PortRcvErrors=10@Hca2[1]", "--duration", "1500ms"});
  const uint64_t injected =
      port_report(report, "Hca2", 1).at("errors").at("PortCounters.PortRcvErrors");
  EXPECT_EQ(injected, 15u);  // 10/s for 1.5 s (a duration, as the configuration writes one)
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

uint64_t xmit_wait(const std::string& node, unsigned port) {
  return fabric().perfquery(node, port, "PortXmitWait");
}

uint64_t vl0_xmit_wait(const std::string& node, unsigned port) {
  const auto out = fabric().exec({"perfquery", "--vlxmitcounters",
                                  std::to_string(fabric().lid(node, port)), std::to_string(port)});
  if (out.exit_code != 0) throw std::runtime_error("perfquery --vlxmitcounters: " + out.err);
  return perfquery_field(out.out, "PortVLXmitWait0");
}

// MADs never move PortXmitWait: exact, up to where the 32-bit field latches (repeated runs).
void expect_wait_moved_by(uint64_t before, uint64_t after, uint64_t injected,
                          const std::string& what) {
  EXPECT_EQ(after, std::min(before + injected, kLatch32)) << what;
}

bool has(const nlohmann::json& port, const std::string& latched_field) {
  const auto latched = port.at("latched").get<std::vector<std::string>>();
  return std::find(latched.begin(), latched.end(), latched_field) != latched.end();
}

// The roles the report gives, "node[port]" -> role, for the ports that have one.
std::map<std::string, std::string> roles(const nlohmann::json& report) {
  std::map<std::string, std::string> out;
  for (const auto& p : report.at("ports")) {
    if (!p.at("role").get<std::string>().empty()) {
      out[p.at("node").get<std::string>() + "[" + std::to_string(p.at("port").get<unsigned>()) +
          "]"] = p.at("role");
    }
  }
  return out;
}

// net.2sw2path4hca: Hca1, Hca3 on Switch1[1], [2]; Hca2, Hca4 on Switch2[1], [2]; the switches
// linked by their ports 3 and 5. Senders on Switch2 reach Switch1 by port 3, the lower one.
TEST(SimTraffic, HotSpotRootSendsAtLineRateAndRootAndVictimsWait) {
  const uint64_t root_wait = xmit_wait("Switch1", 2);
  const uint64_t trunk_wait = xmit_wait("Switch2", 3);
  const uint64_t sender_wait = xmit_wait("Hca4", 1);
  const uint64_t spare_wait = xmit_wait("Switch2", 5);
  const uint64_t other_wait = xmit_wait("Switch1", 1);
  const uint64_t root_xmit = fabric().perfquery("Switch1", 2, "PortXmitData", true);
  const uint64_t hot_rcv = fabric().perfquery("Hca3", 1, "PortRcvData", true);
  const uint64_t spare_xmit = fabric().perfquery("Switch2", 5, "PortXmitData", true);
  const auto report = run_traffic({"--hot-spot", "Hca3", "--duration", "2"});

  EXPECT_EQ(roles(report), (std::map<std::string, std::string>{{"Switch1[2]", "root"},
                                                               {"Switch2[3]", "victim"},
                                                               {"Hca1[1]", "victim"},
                                                               {"Hca2[1]", "victim"},
                                                               {"Hca4[1]", "victim"}}));
  const auto& root = port_report(report, "Switch1", 2);
  const auto& trunk = port_report(report, "Switch2", 3);
  // 4x SDR carries 1 GB/s of data: 2 s at 100% = 500,000,000 dwords, at 20% 100,000,000.
  // Waiting half the time in 4 ns ticks: 0.5 * 2 s / 4 ns = 250,000,000 ticks.
  const uint64_t root_sent = root.at("xmit_data_dwords");
  EXPECT_EQ(root_sent, 500000000u);
  EXPECT_EQ(trunk.at("xmit_data_dwords").get<uint64_t>(), 100000000u);
  EXPECT_EQ(root.at("xmit_wait").get<uint64_t>(), 250000000u);
  EXPECT_EQ(trunk.at("xmit_wait").get<uint64_t>(), 250000000u);
  EXPECT_EQ(port_report(report, "Hca4", 1).at("xmit_wait").get<uint64_t>(), 250000000u);
  EXPECT_EQ(port_report(report, "Switch2", 5).at("xmit_wait").get<uint64_t>(), 0u);

  expect_wait_moved_by(root_wait, xmit_wait("Switch1", 2), root.at("xmit_wait"), "root");
  expect_wait_moved_by(trunk_wait, xmit_wait("Switch2", 3), trunk.at("xmit_wait"), "trunk");
  expect_wait_moved_by(sender_wait, xmit_wait("Hca4", 1),
                       port_report(report, "Hca4", 1).at("xmit_wait"), "sender");
  EXPECT_EQ(xmit_wait("Switch2", 5), spare_wait) << "the parallel link not taken";
  EXPECT_EQ(xmit_wait("Switch1", 1), other_wait) << "toward a sender, off every path";
  expect_moved_by(root_xmit, fabric().perfquery("Switch1", 2, "PortXmitData", true), root_sent,
                  kMadSlackDwords, "root transmits at line rate");
  expect_moved_by(hot_rcv, fabric().perfquery("Hca3", 1, "PortRcvData", true), root_sent,
                  kMadSlackDwords, "the hot spot receives it");
  expect_moved_by(spare_xmit, fabric().perfquery("Switch2", 5, "PortXmitData", true), 0,
                  kMadSlackDwords, "no traffic off the paths");
  EXPECT_EQ(vl0_xmit_wait("Switch1", 2), 0xFFFFu) << "the 16-bit VL 0 copy latches at once";
  EXPECT_TRUE(has(root, "PortVLXmitWaitCounters.PortVLXmitWaitCounters0"));
}

// A stuck Hca4[1]: Switch2[2] waits and sends nothing; Hca2 (same switch), Hca1 and Hca3 (via
// Switch1[3]) wait upstream. --utilization still drives the ports off the tree.
TEST(SimTraffic, StuckReceiverWaitsWithoutSendingAndVictimsWaitUpstream) {
  const uint64_t root_wait = xmit_wait("Switch2", 2);
  const uint64_t trunk_wait = xmit_wait("Switch1", 3);
  const uint64_t other_wait = xmit_wait("Switch1", 1);
  const uint64_t root_xmit = fabric().perfquery("Switch2", 2, "PortXmitData", true);
  const uint64_t stuck_rcv = fabric().perfquery("Hca4", 1, "PortRcvData", true);
  const auto report =
      run_traffic({"--stuck", "Hca4[1]", "--utilization", "0.1", "--wait-ratio", "0.25",
                   "--xmit-wait-tick", "1us", "--victim-utilization", "0.3", "--duration", "2"});

  EXPECT_EQ(roles(report), (std::map<std::string, std::string>{{"Switch2[2]", "root"},
                                                               {"Switch1[3]", "victim"},
                                                               {"Hca1[1]", "victim"},
                                                               {"Hca2[1]", "victim"},
                                                               {"Hca3[1]", "victim"}}));
  const auto& root = port_report(report, "Switch2", 2);
  const auto& trunk = port_report(report, "Switch1", 3);
  EXPECT_EQ(root.at("xmit_data_dwords").get<uint64_t>(), 0u);
  EXPECT_EQ(port_report(report, "Hca4", 1).at("rcv_data_dwords").get<uint64_t>(), 0u);
  // 0.25 * 2 s / 1 us = 500,000 ticks; 30% of 1 GB/s for 2 s = 150,000,000 dwords; 10%: 50M.
  EXPECT_EQ(root.at("xmit_wait").get<uint64_t>(), 500000u);
  EXPECT_EQ(trunk.at("xmit_wait").get<uint64_t>(), 500000u);
  EXPECT_EQ(trunk.at("xmit_data_dwords").get<uint64_t>(), 150000000u);
  EXPECT_EQ(port_report(report, "Switch1", 1).at("xmit_data_dwords").get<uint64_t>(), 50000000u);

  expect_wait_moved_by(root_wait, xmit_wait("Switch2", 2), root.at("xmit_wait"), "stuck port");
  expect_wait_moved_by(trunk_wait, xmit_wait("Switch1", 3), trunk.at("xmit_wait"), "upstream");
  EXPECT_EQ(xmit_wait("Switch1", 1), other_wait) << "off the tree: traffic, no waiting";
  expect_moved_by(root_xmit, fabric().perfquery("Switch2", 2, "PortXmitData", true), 0,
                  kMadSlackDwords, "the stuck port sends only MADs");
  expect_moved_by(stuck_rcv, fabric().perfquery("Hca4", 1, "PortRcvData", true), 0, kMadSlackDwords,
                  "the stuck receiver gets only MADs");
}

TEST(SimTraffic, HotSpotByGuidIsTheSameTree) {
  const std::string guid = guid_text(fabric().port("Hca3", 1).node_guid);
  const auto report =
      run_traffic({"--hot-spot", guid, "--wait-ratio", "0.01", "--duration", "0.5"});
  EXPECT_EQ(roles(report).at("Switch1[2]"), "root");
  EXPECT_EQ(roles(report).size(), 5u);
}

TEST(SimTraffic, RejectsBadCongestionRequests) {
  // With a duration, a request wrongly accepted ends soon instead of running until killed.
  const auto expect_refused = [](std::vector<std::string> args, int code,
                                 const std::string& message) {
    args.insert(args.end(), {"--duration", "0.5"});
    const auto out = fabric().sim("traffic", args);
    EXPECT_EQ(out.exit_code, code) << args.front() << ": " << out.err;
    EXPECT_NE(out.err.find(message), std::string::npos) << out.err;
  };
  expect_refused({"--hot-spot", "Hca3", "--wait-ratio", "2"}, 2, "--wait-ratio");
  expect_refused({"--hot-spot", "Hca3", "--victim-utilization", "1.5"}, 2, "--victim-utilization");
  expect_refused({"--hot-spot", "Hca3", "--xmit-wait-tick", "5parsecs"}, 2,
                 "'5parsecs' is not a PortXmitWait tick");
  expect_refused({"--hot-spot", "Hca3", "--stuck", "Hca4[1]"}, 2, "excludes");
  expect_refused({"--hot-spot", "NoSuchNode"}, 1, "\"NoSuchNode\": no active linked port");
  expect_refused({"--stuck", "Switch1[2]"}, 1, "Switch1 is a switch");
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
