// `ibpulse query` decodes every field of every attribute ibsim answers exactly as perfquery
// prints it, on HCA and switch ports, latched maxima included; `query --all` sweeps the fabric.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "sim_fabric.h"

namespace ibpulse::testing {
namespace {

SimFabric& fabric() {
  return SimFabricEnvironment::fabric();
}

// perfquery option for each attribute ibsim answers.
const std::vector<std::pair<std::string, std::string>> kAttributes = {
    {"PortCounters", ""},
    {"PortCountersExtended", "-x"},
    {"PortRcvErrorDetails", "-E"},
    {"PortXmitDiscardDetails", "-D"},
    {"PortOpRcvCounters", "--oprcvcounters"},
    {"PortFlowCtlCounters", "--flowctlcounters"},
    {"PortVLOpPackets", "--vloppackets"},
    {"PortVLOpData", "--vlopdata"},
    {"PortVLXmitFlowCtlUpdateErrors", "--vlxmitflowctlerrors"},
    {"PortVLXmitWaitCounters", "--vlxmitcounters"},
};

// Masks and selectors perfquery prints that are not counters; QP1Dropped: libibmad v44 reads
// VL15Dropped's bytes for it (and ibsim does not fill it).
bool skipped(const std::string& name) {
  return name == "PortSelect" || name == "CounterSelect" || name == "CounterSelect2" ||
         name == "OpCode" || name == "QP1Dropped";
}

// Data and packet counters move with every MAD (72 dwords, 1 packet per hop).
bool moves_with_mads(const std::string& name) {
  return name.find("Data") != std::string::npos || name.find("Pkts") != std::string::npos;
}

nlohmann::json query_json(const std::vector<std::string>& args) {
  std::vector<std::string> cmd = {IBPULSE_BINARY_FOR_TESTS, "query", "--json"};
  cmd.insert(cmd.end(), args.begin(), args.end());
  const auto out = fabric().exec(cmd);
  if (out.exit_code != 0) throw std::runtime_error("query failed: " + out.err);
  return nlohmann::json::parse(out.out);
}

void set_counters(const std::string& port) {
  const std::vector<std::string> values = {
      "PortCounters.SymbolErrorCounter=70000",  // latches at 65535
      "PortCounters.LinkErrorRecoveryCounter=17",
      "PortCounters.LinkDownedCounter=300",  // latches at 255
      "PortCounters.PortRcvErrors=1234",
      "PortCounters.PortRcvRemotePhysicalErrors=5",
      "PortCounters.PortRcvSwitchRelayErrors=6",
      "PortCounters.PortXmitDiscards=7",
      "PortCounters.PortXmitConstraintErrors=8",
      "PortCounters.PortRcvConstraintErrors=9",
      "PortCounters.LocalLinkIntegrityErrors=99",  // 4 bits: 15
      "PortCounters.ExcessiveBufferOverrunErrors=11",
      "PortCounters.VL15Dropped=12",
      "PortCounters.PortXmitWait=4000000000",
      "PortRcvErrorDetails.PortLocalPhysicalErrors=21",
      "PortRcvErrorDetails.PortMalformedPacketErrors=22",
      "PortRcvErrorDetails.PortBufferOverrunErrors=23",
      "PortRcvErrorDetails.PortDLIDMappingErrors=24",
      "PortRcvErrorDetails.PortVLMappingErrors=25",
      "PortRcvErrorDetails.PortLoopingErrors=65535",
      "PortXmitDiscardDetails.PortInactiveDiscards=31",
      "PortXmitDiscardDetails.PortNeighborMTUDiscards=32",
      "PortXmitDiscardDetails.PortSwLifetimeLimitDiscards=33",
      "PortFlowCtlCounters.PortXmitFlowPkts=41",
      "PortFlowCtlCounters.PortRcvFlowPkts=4294967295",
      "PortOpRcvCounters.PortOpRcvPkts=51",
      "PortOpRcvCounters.PortOpRcvData=52",
  };
  for (const auto& v : values)
    fabric().set("PerformanceSet " + port + " " + v);
}

void expect_same_as_perfquery(const std::string& node, unsigned port) {
  const unsigned lid = fabric().lid(node, port);
  const auto ours = query_json({std::to_string(lid), std::to_string(port)});
  EXPECT_EQ(ours.at("lid"), lid);
  for (const auto& [attribute, option] : kAttributes) {
    SCOPED_TRACE(node + "[" + std::to_string(port) + "] " + attribute);
    std::vector<std::string> cmd = {"perfquery"};
    if (!option.empty()) cmd.push_back(option);
    cmd.push_back(std::to_string(lid));
    cmd.push_back(std::to_string(port));
    const auto theirs_out = fabric().exec(cmd);
    ASSERT_EQ(theirs_out.exit_code, 0) << theirs_out.err;
    const auto theirs = perfquery_fields(theirs_out.out);
    ASSERT_TRUE(ours.contains(attribute));
    const auto& mine = ours.at(attribute);
    ASSERT_FALSE(mine.contains("error")) << mine.dump();
    size_t compared = 0;
    for (const auto& [name, value] : theirs) {
      if (skipped(name)) continue;
      ASSERT_TRUE(mine.contains(name)) << "ibpulse lacks " << name;
      if (mine.at(name).is_null()) {
        // Not advertised: on ibsim only PortCountersExtended's 64-bit error counters (its
        // CapabilityMask2 has no PortCountersExtended error counters); a null elsewhere would
        // hide a field we failed to decode.
        EXPECT_EQ(attribute, "PortCountersExtended") << name << " is null";
        EXPECT_FALSE(moves_with_mads(name)) << name << " is null";
        continue;
      }
      const uint64_t v = mine.at(name).get<uint64_t>();
      if (moves_with_mads(name) && attribute.starts_with("PortCounters")) {
        EXPECT_LE(v, value) << name;
        EXPECT_LE(value - v, 200u * 72) << name;
      } else {
        EXPECT_EQ(v, value) << name;
      }
      ++compared;
    }
    EXPECT_GT(compared, 0u);
  }
}

TEST(Query, EveryFieldMatchesPerfqueryOnAnHcaPort) {
  set_counters("\"Hca3\"[1]");
  expect_same_as_perfquery("Hca3", 1);
  // Spot checks that the latches and widths came through as set.
  const auto ours = query_json({std::to_string(fabric().lid("Hca3", 1)), "1"});
  EXPECT_EQ(ours["PortCounters"]["SymbolErrorCounter"], 65535);
  EXPECT_EQ(ours["PortCounters"]["LinkDownedCounter"], 255);
  EXPECT_EQ(ours["PortCounters"]["LocalLinkIntegrityErrors"], 15);
  EXPECT_EQ(ours["PortRcvErrorDetails"]["PortMalformedPktErrors"], 22);
  EXPECT_EQ(ours["PortFlowCtlCounters"]["PortRcvFlowPkts"], 4294967295u);
  EXPECT_TRUE(ours["PortCountersExtended"]["SymbolErrorCounter"].is_null())
      << "ibsim's CapabilityMask2 has no 64-bit error counters";
}

TEST(Query, EveryFieldMatchesPerfqueryOnASwitchPort) {
  set_counters("\"Switch2\"[5]");
  expect_same_as_perfquery("Switch2", 5);
  expect_same_as_perfquery("Switch1", 3);
}

TEST(Query, AGuidTargetIsResolvedThroughDiscovery) {
  const auto& hca = fabric().port("Hca2", 1);
  const auto ours = query_json({guid_text(hca.node_guid), "1"});
  EXPECT_EQ(ours.at("lid"), hca.lid);
}

TEST(Query, AllSweepsEveryActivePort) {
  fabric().set("PerformanceSet \"Hca1\"[1] PortCounters.PortRcvErrors=4242");
  const auto out = fabric().exec({IBPULSE_BINARY_FOR_TESTS, "query", "--all", "--json"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_NE(out.err.find("12 ports read (0 failed)"), std::string::npos) << out.err;
  const auto all = nlohmann::json::parse(out.out);
  ASSERT_EQ(all.at("ports").size(), 12u);
  bool found = false;
  for (const auto& p : all.at("ports")) {
    EXPECT_TRUE(p.contains("PortCounters") && p.contains("PortCountersExtended") &&
                p.contains("PortRcvErrorDetails") && p.contains("PortXmitDiscardDetails"))
        << p.dump();
    if (p.at("node") == "Hca1" && p.at("port") == 1) {
      EXPECT_EQ(p["PortCounters"]["PortRcvErrors"], 4242);
      found = true;
    }
  }
  EXPECT_TRUE(found);
}

// The IF-MIB values query derives, against hand-computed numbers. Error counters never move
// with MADs, so their sums are exact; data and packet counters move by 72 dwords and 1 packet
// per MAD crossing the link (ibsim counts MADs as traffic), so the octet sums are checked
// exactly against the
// readings printed beside them and, by hand, within the MADs query itself sent to the node.
TEST(Query, IfMibValuesFollowTheDraftsMappingOverWhatWasRead) {
  const std::string port = "\"Hca2\"[1]";
  const std::vector<std::string> values = {
      "PortCounters.PortRcvErrors=1234",
      "PortCounters.PortRcvRemotePhysicalErrors=5",
      "PortCounters.PortXmitDiscards=7",
      "PortCounters.PortXmitConstraintErrors=8",
      "PortCounters.PortRcvConstraintErrors=9",
      "PortCounters.VL15Dropped=12",
      // The 32-bit copies latched, the 64-bit ones far beyond: the extended copy is the source.
      "PortCounters.PortRcvData=4294967295",
      "PortCounters.PortXmitData=4294967295",
      "PortCountersExtended.PortRcvData=1000000000000",
      "PortCountersExtended.PortXmitData=2000000000000",
      "PortCountersExtended.PortRcvPkts=3000000",
      "PortCountersExtended.PortXmitPkts=4000000",
      "PortCountersExtended.PortUnicastRcvPkts=2900000",
      "PortCountersExtended.PortUnicastXmitPkts=3999000",
      "PortCountersExtended.PortMulticastXmitPkts=1000",
      "PortFlowCtlCounters.PortXmitFlowPkts=41",
      "PortFlowCtlCounters.PortRcvFlowPkts=43",
  };
  for (const auto& v : values)
    fabric().set("PerformanceSet " + port + " " + v);
  // By GUID: query discovers the fabric, so it knows the link (4X SDR: 4 x 2 Gb/s of data).
  const auto q = query_json({guid_text(fabric().port("Hca2", 1).node_guid), "1"});
  ASSERT_TRUE(q.contains("if_mib")) << q.dump();
  const auto& m = q.at("if_mib");
  const auto& ext = q.at("PortCountersExtended");
  const auto& flow = q.at("PortFlowCtlCounters");
  const auto u = [](const nlohmann::json& j, const char* name) {
    return j.at(name).get<uint64_t>();
  };

  // Exactly the draft's formulas over the readings shown beside them.
  EXPECT_EQ(u(m, "ifInOctets"),
            u(ext, "PortRcvData") * 4 + u(ext, "PortRcvPkts") * 4 + u(flow, "PortRcvFlowPkts") * 8);
  EXPECT_EQ(u(m, "ifOutOctets"), u(ext, "PortXmitData") * 4 + u(ext, "PortXmitPkts") * 4 +
                                     u(flow, "PortXmitFlowPkts") * 8);
  // By hand. Between the Sets and query's reading, only query's own MADs reached Hca2
  // (discovery's SMPs, ClassPortInfo, PortCounters): fewer than 40, each at most 72 dwords
  // and 1 packet each way.
  constexpr uint64_t kMadOctets = uint64_t{40} * (72 * 4 + 4);
  const uint64_t in_octets = 1000000000000ull * 4 + 3000000ull * 4 + 43ull * 8;
  const uint64_t out_octets = 2000000000000ull * 4 + 4000000ull * 4 + 41ull * 8;
  EXPECT_GE(u(m, "ifInOctets"), in_octets);
  EXPECT_LE(u(m, "ifInOctets"), in_octets + kMadOctets);
  EXPECT_GE(u(m, "ifOutOctets"), out_octets);
  EXPECT_LE(u(m, "ifOutOctets"), out_octets + kMadOctets);
  // ibsim advertises the IETF extended counters (CapabilityMask 0x200): unicast and multicast
  // apart, which MADs do not move; discarded packets join the unicast output count.
  EXPECT_EQ(u(m, "ifInUcastPkts"), 2900000u);
  // ibsim accepts a PerformanceSet of PortMulticastRcvPkts but it reads back 0 ever after.
  EXPECT_EQ(u(m, "ifInMulticastPkts"), u(ext, "PortMulticastRcvPkts"));
  EXPECT_EQ(u(m, "ifOutUcastPkts"), 3999000u + 7 + 8);
  EXPECT_EQ(u(m, "ifOutMulticastPkts"), 1000u);
  EXPECT_EQ(u(m, "ifInDiscards"), 9u + 12);  // PortRcvConstraintErrors + VL15Dropped
  EXPECT_EQ(u(m, "ifOutDiscards"), 7u + 8);  // PortXmitDiscards + PortXmitConstraintErrors
  EXPECT_EQ(u(m, "ifInErrors"), 5u + 1234);  // PortRcvRemotePhysicalErrors + PortRcvErrors
  EXPECT_EQ(u(m, "ifSpeed"), 4294967295u) << "8 Gb/s does not fit a Gauge32";
  EXPECT_EQ(u(m, "ifHighSpeed"), 8000u);
  EXPECT_EQ(q.at("if_mib_inputs").at("flow_control_counted"), true);
  EXPECT_EQ(q.at("if_mib_inputs").at("ietf_extended"), true);
  EXPECT_TRUE(q.at("if_mib_inputs").at("latched").empty())
      << "the latched 32-bit data copies are not the source: " << q.dump();

  // Text output: the same values beside the raw counters; a LID target has no link to show.
  const auto text =
      fabric().exec({IBPULSE_BINARY_FOR_TESTS, "query", std::to_string(fabric().lid("Hca2", 1))});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("IF-MIB (draft-ietf-ipoib-ibif-mib-00"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("ifInErrors                                         1239  "),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("ifOutUcastPkts                                  3999015  "),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("ifSpeed                                         unknown"),
            std::string::npos)
      << text.out;
  EXPECT_EQ(text.out.find("PortFlowCtlCounters not read"), std::string::npos) << text.out;

  for (const auto& v : values)
    fabric().set("PerformanceSet " + port + " " + v.substr(0, v.find('=')) + "=0");
}

// Parses "... N retried" from query --all's summary.
uint64_t retried(const std::string& summary) {
  const auto at = summary.find(" retried");
  const auto start = summary.rfind(' ', at - 1);
  return std::stoull(summary.substr(start + 1, at - start - 1));
}

nlohmann::json sweep_json(const std::vector<std::string>& extra, uint64_t* retries = nullptr) {
  std::vector<std::string> cmd = {IBPULSE_BINARY_FOR_TESTS, "query", "--all", "--json"};
  cmd.insert(cmd.end(), extra.begin(), extra.end());
  const auto out = fabric().exec(cmd);
  EXPECT_EQ(out.exit_code, 0) << out.err;
  EXPECT_NE(out.err.find("12 ports read (0 failed)"), std::string::npos) << out.err;
  if (retries != nullptr) *retries += retried(out.err);
  return nlohmann::json::parse(out.out).at("ports");
}

std::string port_name(const nlohmann::json& entry) {
  std::ostringstream name;
  name << '"' << entry.at("node").get<std::string>() << "\"[" << entry.at("port").get<int>() << ']';
  return name.str();
}

// Every port gets its own LinkErrorRecoveryCounter (it never moves with MADs), then half of
// the PortCounters MADs through Hca4[1] bounce (discovery's SMPs are spared): each sweep reads
// every port, and each port its own value, never an answer meant for another port or attempt.
TEST(Query, LossyPortsAreRetriedAndEachReadsItsOwnValues) {
  std::map<std::string, uint64_t> expected;
  for (const auto& entry : sweep_json({})) {
    const uint64_t value = 10 * entry.at("lid").get<uint64_t>() + entry.at("port").get<uint64_t>();
    ASSERT_LT(value, 255u) << "8-bit counter";
    fabric().set("PerformanceSet " + port_name(entry) +
                 " PortCounters.LinkErrorRecoveryCounter=" + std::to_string(value));
    expected[port_name(entry)] = value;
  }
  ASSERT_EQ(expected.size(), 12u);
  ASSERT_EQ(fabric().sim("error", {"Hca4[1]", "50", "--attribute", "PortCounters"}).exit_code, 0);
  uint64_t retries = 0;
  for (int sweep = 0; sweep < 10; ++sweep) {
    const auto ports = sweep_json({"--mad.retries", "12", "--mad.timeout", "50ms"}, &retries);
    ASSERT_EQ(ports.size(), 12u);
    for (const auto& entry : ports) {
      EXPECT_EQ(entry.at("PortCounters").at("LinkErrorRecoveryCounter"),
                expected.at(port_name(entry)))
          << port_name(entry) << " in sweep " << sweep;
    }
  }
  ASSERT_EQ(fabric().sim("error", {"Hca4[1]", "0"}).exit_code, 0);
  EXPECT_GT(retries, 0u) << "ten sweeps through a 50% loss cost retries";
  for (const auto& [port, value] : expected)
    fabric().set("PerformanceSet " + port + " PortCounters.LinkErrorRecoveryCounter=0");
}

// `ibpulse discover` against ibnetdiscover (infiniband-diags): the same links between the
// same LIDs and ports, at the same width and speed, and the same node names.
TEST(Discover, SeesEveryLinkIbnetdiscoverSees) {
  const auto theirs = fabric().exec({"ibnetdiscover", "-p"});
  ASSERT_EQ(theirs.exit_code, 0) << theirs.err;
  // "CA  6  1 0x... 4x SDR - SW  3  2 0x... ( 'Hca4' - 'Switch2' )": one line per port.
  const std::regex link_line(
      R"((CA|SW)\s+(\d+)\s+(\d+)\s+0x[0-9a-f]+\s+(\d+)x\s+(\w+)\s+-\s+(?:CA|SW)\s+(\d+)\s+(\d+)\s+0x[0-9a-f]+\s+\(\s*'([^']*)'\s+-\s+'([^']*)'\s*\))");
  std::map<std::string, std::string> expected;  // "lid/port" -> "peer lid/port width speed names"
  std::istringstream lines(theirs.out);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, link_line)) continue;
    expected[m[2].str() + "/" + m[3].str()] = m[6].str() + "/" + m[7].str() + " " + m[4].str() +
                                              "X " + m[5].str() + " " + m[8].str() + "-" +
                                              m[9].str();
  }
  ASSERT_GE(expected.size(), 12u) << theirs.out;

  const auto ours_out = fabric().exec({IBPULSE_BINARY_FOR_TESTS, "discover", "--json"});
  ASSERT_EQ(ours_out.exit_code, 0) << ours_out.err;
  const auto ours = nlohmann::json::parse(ours_out.out);
  std::map<std::string, const nlohmann::json*> nodes;
  for (const auto& n : ours.at("nodes"))
    nodes[n.at("guid").get<std::string>()] = &n;
  const auto port_of = [&](const std::string& guid, int port) -> const nlohmann::json& {
    for (const auto& p : nodes.at(guid)->at("ports")) {
      if (p.at("port") == port) return p;
    }
    throw std::runtime_error("no port " + std::to_string(port) + " on " + guid);
  };
  std::map<std::string, std::string> seen;
  for (const auto& n : ours.at("nodes")) {
    for (const auto& p : n.at("ports")) {
      if (!p.contains("remote")) continue;
      const std::string peer_guid = p.at("remote").at("node_guid");
      const int peer_port = p.at("remote").at("port");
      const auto& peer = port_of(peer_guid, peer_port);
      seen[std::to_string(p.at("lid").get<int>()) + "/" + std::to_string(p.at("port").get<int>())] =
          std::to_string(peer.at("lid").get<int>()) + "/" + std::to_string(peer_port) + " " +
          p.at("width").get<std::string>() + " " + p.at("speed").get<std::string>() + " " +
          n.at("name").get<std::string>() + "-" +
          nodes.at(peer_guid)->at("name").get<std::string>();
    }
  }
  EXPECT_EQ(seen, expected);
}

TEST(Query, BadTargetsGetClearErrors) {
  const auto bad = fabric().exec({IBPULSE_BINARY_FOR_TESTS, "query", "notalid"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("neither a LID"), std::string::npos) << bad.err;
  const auto none = fabric().exec({IBPULSE_BINARY_FOR_TESTS, "query"});
  EXPECT_EQ(none.exit_code, 1);
  const auto unknown = fabric().exec({IBPULSE_BINARY_FOR_TESTS, "query", "0x00000000deadbeef"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("no node or port with GUID"), std::string::npos) << unknown.err;
}

}  // namespace
}  // namespace ibpulse::testing
