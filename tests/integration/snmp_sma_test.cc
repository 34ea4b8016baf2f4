// IB-SMA-MIB in every node's context and the partitions of every port, against the reference
// reader (its notifications: snmp_sma_notifications_test.cc, in the same binary): each served
// object of the node, switch and management port groups, the port info table and the P_Key table
// equals what `smpquery nodeinfo/switchinfo/portinfo/pkeys` reads from the same node, and
// `infiniband_port_partition_info` lists the same P_Keys. The fabric's subnet manager programs the
// partitions of data/partitions.conf (full and limited members).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "daemon_client.h"
#include "eventually.h"
#include "sim_fabric.h"
#include "sma_fabric.h"
#include "snmp_client.h"

namespace ibpulse::testing {
namespace {

using namespace std::chrono_literals;

// Every object below `prefix` (ending in a dot) in the context `community` reads:
// "rest of the OID" -> value, every OCTET STRING as hex octets ("00 20 ...").
std::map<std::string, std::string> walk(uint16_t port, const std::string& community,
                                        const std::string& prefix) {
  const auto run =
      snmp_tool(fmt::format("snmpbulkwalk -v2c -c {} -On -Oq -Ox -t 2 -r 1 127.0.0.1:{} {}",
                            community, port, prefix.substr(0, prefix.size() - 1)));
  std::map<std::string, std::string> out;
  for (auto [oid, value] : parse_varbinds(unwrap_lines(run.out))) {
    while (!value.empty() && value.back() == ' ')
      value.pop_back();
    if (oid.starts_with(prefix)) out[oid.substr(prefix.size())] = value;
  }
  return out;
}

// The node's IB-SMA-MIB objects below 1.3.6.1.3.117.3.1: "group.column.index" -> value.
std::map<std::string, std::string> sma_walk(uint16_t port, const std::string& node) {
  return walk(port, "public@" + guid_context(node), ".1.3.6.1.3.117.3.1.");
}

uint64_t num(const std::string& smp_text, const std::string& field) {
  const std::string v = smpquery_field(smp_text, field);
  EXPECT_FALSE(v.empty()) << field << " missing in\n" << smp_text;
  return v.empty() ? ~uint64_t{0} : std::stoull(v, nullptr, 0);
}

std::string truth(uint64_t bit) {
  return bit != 0 ? "1" : "2";  // TruthValue
}

// The names data/partitions.conf gives the partitions.
std::string partition_name(unsigned partition) {
  switch (partition) {
    case 0x7FFF:
      return "Default";
    case 0x0002:
      return "storage";
    case 0x0003:
      return "compute";
  }
  return "?";
}

class Sma : public ::testing::Test {
 protected:
  void SetUp() override {
    daemon_ = std::make_unique<Daemon>(
        fabric(),
        std::vector<std::string>{"--snmp.community", "public", "--discovery.interval", "1h",
                                 "--state.save-interval", "off", "--counters.publish-interval",
                                 "200ms", "--fabric.partitions-file", kPartitionsFile,
                                 // No PortInfo refresh: the P_Key tables are read all the same.
                                 "--poll.port-info-interval", "off"});
    ASSERT_TRUE(daemon_->wait_for("event=ready", 15s)) << daemon_->log();
    // Every P_Key table read: the fabric's 12 linked ports and 2 switches' port 0.
    ASSERT_TRUE(eventually(
        [&] {
          metrics_ = http_get(daemon_->web_port(), "/metrics");
          return metric_value(metrics_, "ibpulse_partition_reads_total", "") >= 14;
        },
        15s))
        << metrics_;
  }
  std::unique_ptr<Daemon> daemon_;
  std::string metrics_;
};

TEST_F(Sma, NodeAndSwitchGroupsEqualSmpquery) {
  for (const std::string node : {"Switch1", "Switch2", "Hca1", "Hca4"}) {
    SCOPED_TRACE(node);
    const auto mib = sma_walk(daemon_->snmp_port(), node);
    const unsigned lid = fabric().lid(node, 1);
    const std::string info = smp("nodeinfo", lid);
    const bool sw = node.starts_with("Switch");
    std::string description;  // ibSmaNodeString, as -Ox prints it
    for (const char c : node)
      description += fmt::format("{}{:02X}", description.empty() ? "" : " ", c);
    EXPECT_EQ(mib.at("1.1.0"), description);
    EXPECT_EQ(mib.at("1.2.0"), std::to_string(num(info, "BaseVers")));
    EXPECT_EQ(mib.at("1.3.0"), std::to_string(num(info, "ClassVers")));
    EXPECT_EQ(mib.at("1.4.0"), sw ? "2" : "1");
    EXPECT_EQ(smpquery_field(info, "NodeType"), sw ? "Switch" : "Channel Adapter");
    EXPECT_EQ(mib.at("1.5.0"), std::to_string(num(info, "NumPorts")));
    EXPECT_EQ(mib.at("1.6.0"), hex_octets(num(info, "SystemGuid"), 8));
    EXPECT_EQ(mib.at("1.7.0"), hex_octets(num(info, "Guid"), 8));
    EXPECT_EQ(mib.at("1.8.0"), hex_octets(num(info, "PortGuid"), 8));
    EXPECT_EQ(mib.at("1.9.0"), std::to_string(num(info, "PartCap")));
    EXPECT_EQ(mib.at("1.10.0"), hex_octets(num(info, "DevId"), 2));
    EXPECT_EQ(mib.at("1.11.0"), hex_octets(num(info, "Revision"), 4));
    // The IB port that received the SNMP request: none (it came over UDP), 0 as the MIB says.
    // (NodeInfo's LocalPortNum depends on the path the SMP took.)
    EXPECT_EQ(mib.at("1.12.0"), "0");
    EXPECT_EQ(mib.at("1.13.0"), hex_octets(num(info, "VendorId"), 3));
    EXPECT_FALSE(mib.contains("1.14.0")) << "ibSmaNodeLid is for notifications only";
    if (!sw) {
      EXPECT_FALSE(mib.contains("2.1.0")) << "a CA has no switch group";
      continue;
    }
    const std::string si = smp("switchinfo", lid);
    const std::vector<std::pair<int, std::string>> numbers = {
        {1, "LinearFdbCap"},        {2, "RandomFdbCap"}, {3, "McastFdbCap"},
        {4, "LinearFdbTop"},        {5, "DefPort"},      {6, "DefMcastPrimPort"},
        {7, "DefMcastNotPrimPort"}, {8, "LifeTime"},     {10, "LidsPerPort"},
        {11, "PartEnforceCap"}};
    for (const auto& [column, field] : numbers)
      EXPECT_EQ(mib.at(fmt::format("2.{}.0", column)), std::to_string(num(si, field))) << field;
    const std::vector<std::pair<int, std::string>> flags = {
        {9, "StateChange"},       {12, "InboundPartEnf"},    {13, "OutboundPartEnf"},
        {14, "FilterRawInbound"}, {15, "FilterRawOutbound"}, {16, "EnhancedPort0"}};
    for (const auto& [column, field] : flags)
      EXPECT_EQ(mib.at(fmt::format("2.{}.0", column)), truth(num(si, field))) << field;
  }
}

// IBPULSE-MIB's ibpulseSm in the default context: "table.column.<prefix>.<guid>" -> value, the
// index as dotted octets.
std::map<std::string, std::string> sm_mib_walk(uint16_t port) {
  return walk(port, "public", ".1.3.6.1.4.1.8072.9999.9999.1.5.");
}

std::string dotted(uint64_t v) {
  std::string out;
  for (int i = 7; i >= 0; --i)
    out += fmt::format("{}{}", out.empty() ? "" : ".", (v >> (8 * i)) & 0xFF);
  return out;
}

// The subnet manager MIB draft's node and switch tables, rehomed at ibpulseObjects 5 and served
// in the default context: a row per node (per switch), indexed by subnet prefix and GUID, with
// what smpquery nodeinfo/switchinfo read.
TEST_F(Sma, SubnetManagerMibNodeAndSwitchTablesEqualSmpquery) {
  const auto mib = sm_mib_walk(daemon_->snmp_port());
  const std::string subnet = dotted(0xfe80000000000000);  // the fabric's default prefix
  size_t node_rows = 0;
  size_t switch_rows = 0;
  for (const auto& [oid, value] : mib) {
    node_rows += oid.starts_with("1.1.4.");  // ibpulseSmNodeType: one per row
    switch_rows += oid.starts_with("2.1.2.");
  }
  EXPECT_EQ(node_rows, 6u);
  EXPECT_EQ(switch_rows, 2u);
  for (const std::string node : {"Switch1", "Switch2", "Hca1", "Hca2", "Hca3", "Hca4"}) {
    SCOPED_TRACE(node);
    const unsigned lid = fabric().lid(node, 1);
    const std::string info = smp("nodeinfo", lid);
    const std::string index = subnet + "." + dotted(num(info, "Guid"));
    const auto at = [&](int table, int column) {
      const auto it = mib.find(fmt::format("{}.1.{}.{}", table, column, index));
      return it == mib.end() ? std::string("absent") : it->second;
    };
    const bool sw = node.starts_with("Switch");
    EXPECT_EQ(at(1, 2), std::to_string(num(info, "BaseVers")));
    EXPECT_EQ(at(1, 3), std::to_string(num(info, "ClassVers")));
    EXPECT_EQ(at(1, 4), sw ? "2" : "1");
    EXPECT_EQ(at(1, 5), std::to_string(num(info, "NumPorts")));
    EXPECT_EQ(at(1, 7), std::to_string(num(info, "PartCap")));
    EXPECT_EQ(at(1, 8), hex_octets(num(info, "DevId"), 2));
    EXPECT_EQ(at(1, 9), hex_octets(num(info, "Revision"), 4));
    EXPECT_EQ(at(1, 11), hex_octets(num(info, "VendorId"), 3));
    // The port discovery read the NodeInfo through: a switch's is the node; a CA's its port.
    EXPECT_EQ(at(1, 6),
              sw ? hex_octets(num(info, "Guid"), 8) : hex_octets(num(info, "PortGuid"), 8));
    EXPECT_NE(at(1, 10), "absent");
    std::string description;
    for (const char c : node)
      description += fmt::format("{}{:02X}", description.empty() ? "" : " ", c);
    EXPECT_EQ(at(1, 13), description);
    EXPECT_EQ(at(1, 1), "absent") << "the index columns are not accessible";
    if (!sw) {
      EXPECT_EQ(at(2, 2), "absent") << "a CA has no switch row";
      continue;
    }
    const std::string si = smp("switchinfo", lid);
    const std::vector<std::pair<int, std::string>> numbers = {
        {2, "LinearFdbCap"},        {3, "RandomFdbCap"},   {4, "McastFdbCap"},
        {5, "LinearFdbTop"},        {6, "DefPort"},        {7, "DefMcastPrimPort"},
        {8, "DefMcastNotPrimPort"}, {9, "LifeTime"},       {10, "StateChange"},
        {11, "LidsPerPort"},        {12, "PartEnforceCap"}};
    for (const auto& [column, field] : numbers)
      EXPECT_EQ(at(2, column), std::to_string(num(si, field))) << field;
    const std::vector<std::pair<int, std::string>> flags = {{13, "InboundPartEnf"},
                                                            {14, "OutboundPartEnf"},
                                                            {15, "FilterRawInbound"},
                                                            {16, "FilterRawOutbound"}};
    for (const auto& [column, field] : flags)
      EXPECT_EQ(at(2, column), truth(num(si, field))) << field;
  }
}

// ibpulseSmInfoTable: the fabric's subnet manager (opensm, at Switch1's port 0) as `sminfo`
// reads it: one row, by subnet prefix and the SM's GUID, with its state, priority, LID and an
// activity count no greater than the one sminfo reads afterwards (each SMInfo read adds to it).
TEST_F(Sma, SubnetManagerInfoTableEqualsSminfo) {
  ASSERT_TRUE(eventually(
      [&] {
        return metric_value(http_get(daemon_->web_port(), "/metrics"),
                            "ibpulse_sm_info_reads_total", "") >= 1;
      },
      15s));
  const auto mib = sm_mib_walk(daemon_->snmp_port());
  const unsigned lid = fabric().lid("Switch1", 1);
  const auto run = fabric().exec({"sminfo", std::to_string(lid)}, "Hca1");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // "sminfo: sm lid 1 sm guid 0x200000, activity count 88 priority 0 state 3 SMINFO_MASTER"
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      run.out, m,
      std::regex(R"(sm guid (0x[0-9a-f]+), activity count (\d+) priority (\d+) state (\d+))")))
      << run.out;
  const std::string guid = m[1];
  const std::string count = m[2];
  const std::string priority = m[3];
  const std::string state = m[4];
  const std::string index =
      dotted(0xfe80000000000000) + "." + dotted(std::stoull(guid, nullptr, 0));
  size_t rows = 0;
  for (const auto& [oid, value] : mib)
    rows += oid.starts_with("3.1.5.");
  EXPECT_EQ(rows, 1u) << run.out;
  EXPECT_EQ(mib.count("3.1.5." + index), 1u) << run.out;
  const auto at = [&](const std::string& column) {
    const auto it = mib.find(column + "." + index);
    return it == mib.end() ? std::string("absent") : it->second;
  };
  EXPECT_EQ(at("3.1.5"), state);
  EXPECT_EQ(state, "3") << "opensm is the master";
  EXPECT_EQ(at("3.1.4"), priority);
  EXPECT_EQ(at("3.1.7"), std::to_string(lid));
  const auto act = mib.find("3.1.3." + index);
  ASSERT_NE(act, mib.end());
  EXPECT_GT(std::stoull(act->second), 0u);
  EXPECT_LE(std::stoull(act->second), std::stoull(count));
  EXPECT_EQ(at("3.1.2"), "absent") << "the SM_Key is never served";
}

// smpquery's text of the PortInfo encodings the port info table maps.
int code_of(const std::string& text, const std::map<std::string, int>& codes) {
  const auto it = codes.find(text);
  EXPECT_NE(it, codes.end()) << text;
  return it == codes.end() ? -1 : it->second;
}

TEST_F(Sma, ManagementPortAndPortInfoTableEqualSmpquery) {
  const std::map<std::string, int> states = {
      {"Down", 1}, {"Initialize", 2}, {"Armed", 3}, {"Active", 4}};
  const std::map<std::string, int> phys = {{"Sleep", 1},
                                           {"Polling", 2},
                                           {"Disabled", 3},
                                           {"PortConfigurationTraining", 4},
                                           {"LinkUp", 5}};
  const std::map<std::string, int> mtus = {
      {"256", 1}, {"512", 2}, {"1024", 3}, {"2048", 4}, {"4096", 5}};
  const std::map<std::string, int> vls = {
      {"VL0", 1}, {"VL0-1", 2}, {"VL0-3", 3}, {"VL0-7", 4}, {"VL0-14", 5}};
  for (const auto& [node, mgmt_port] :
       std::vector<std::pair<std::string, unsigned>>{{"Switch1", 0}, {"Hca3", 1}}) {
    SCOPED_TRACE(node);
    const auto mib = sma_walk(daemon_->snmp_port(), node);
    const unsigned lid = fabric().lid(node, 1);
    const std::string m = smp("portinfo", lid, std::to_string(mgmt_port));
    EXPECT_EQ(mib.at("4.2.0"), hex_octets(num(m, "GidPrefix"), 8));
    EXPECT_EQ(mib.at("4.3.0"), std::to_string(num(m, "Lid")));
    EXPECT_EQ(mib.at("4.4.0"), std::to_string(num(m, "SMLid")));
    // Column -> CapabilityMask bit. IsSM (bit 1, column 5) is left out: ibsim sets it on the
    // port of whichever client registers as SM, so it depends on who is attached when read.
    const uint64_t caps = num(m, "CapMask");
    const std::vector<std::pair<int, int>> bits = {
        {6, 2},   {7, 3},   {8, 5},   {9, 6},   {10, 7},  {11, 8},  {12, 9},  {13, 10}, {14, 11},
        {15, 12}, {16, 16}, {17, 17}, {18, 18}, {19, 19}, {20, 20}, {21, 21}, {22, 22}, {23, 23}};
    for (const auto& [column, bit] : bits)
      EXPECT_EQ(mib.at(fmt::format("4.{}.0", column)), truth(caps >> bit & 1)) << column;
    EXPECT_EQ(mib.at("4.24.0"), std::to_string(num(m, "MkeyLeasePeriod")));
    EXPECT_EQ(mib.at("4.25.0"), std::to_string(num(m, "ProtectBits") + 1));
    EXPECT_EQ(mib.at("4.26.0"), std::to_string(num(m, "SMSL")));
    for (int bit = 0; bit < 4; ++bit)
      EXPECT_EQ(mib.at(fmt::format("4.{}.0", 27 + bit)), truth(num(m, "InitType") >> bit & 1));
    for (int bit = 0; bit < 3; ++bit)
      EXPECT_EQ(mib.at(fmt::format("4.{}.0", 31 + bit)), truth(num(m, "InitReply") >> bit & 1));
    EXPECT_EQ(mib.at("4.34.0"), std::to_string(num(m, "MkeyViolations")));
    EXPECT_EQ(mib.at("4.35.0"), std::to_string(num(m, "PkeyViolations")));
    EXPECT_EQ(mib.at("4.36.0"), std::to_string(num(m, "QkeyViolations")));
    EXPECT_EQ(mib.at("4.37.0"), std::to_string(num(m, "GuidCap")));
    EXPECT_EQ(mib.at("4.38.0"), std::to_string(num(m, "SubnetTimeout")));
    EXPECT_EQ(mib.at("4.39.0"), std::to_string(num(m, "RespTimeVal")));
    EXPECT_FALSE(mib.contains("4.1.0")) << "the M_Key itself is never served";
    if (node == "Switch1") {
      // A switch port without a link still has its PortInfo: Down, as smpquery reads it.
      const std::string down = smp("portinfo", lid, "4");
      EXPECT_EQ(smpquery_field(down, "LinkState"), "Down");
      EXPECT_EQ(mib.at("5.1.1.6.4"), "1");
    } else {
      // A CA port without a link was never reached: its PortInfo is unknown, so no row.
      EXPECT_FALSE(mib.contains("5.1.1.6.2")) << "Hca3 port 2";
      EXPECT_TRUE(mib.contains("5.1.1.6.1"));
    }

    // Every linked port's row of ibSmaPortInfoTable.
    for (const PortInfo& p : fabric().ports()) {
      if (p.node != node || p.remote_node.empty()) continue;
      SCOPED_TRACE(p.port);
      const std::string pi = smp("portinfo", lid, std::to_string(p.port));
      const auto col = [&](int c) { return mib.at(fmt::format("5.1.1.{}.{}", c, p.port)); };
      EXPECT_EQ(col(2), smpquery_field(pi, "LinkWidthEnabled") == "4X" ? "2" : "?");
      EXPECT_EQ(col(4), smpquery_field(pi, "LinkWidthActive") == "4X" ? "2" : "?");
      EXPECT_EQ(col(6), std::to_string(code_of(smpquery_field(pi, "LinkState"), states)));
      EXPECT_EQ(col(7), std::to_string(code_of(smpquery_field(pi, "PhysLinkState"), phys)));
      EXPECT_EQ(col(8), std::to_string(code_of(smpquery_field(pi, "LinkDownDefState"), phys)));
      EXPECT_EQ(col(9), std::to_string(num(pi, "LMC")));
      EXPECT_EQ(col(10), smpquery_field(pi, "LinkSpeedActive") == "2.5 Gbps" ? "1" : "2");
      EXPECT_EQ(col(11), smpquery_field(pi, "LinkSpeedEnabled") == "2.5 Gbps" ? "1" : "3");
      EXPECT_EQ(col(12), std::to_string(code_of(smpquery_field(pi, "NeighborMTU"), mtus)));
      EXPECT_EQ(col(13), std::to_string(code_of(smpquery_field(pi, "VLCap"), vls)));
      EXPECT_EQ(col(14), std::to_string(num(pi, "VLHighLimit")));
      EXPECT_EQ(col(15), std::to_string(num(pi, "VLArbHighCap")));
      EXPECT_EQ(col(16), std::to_string(num(pi, "VLArbLowCap")));
      EXPECT_EQ(col(17), std::to_string(code_of(smpquery_field(pi, "MtuCap"), mtus)));
      EXPECT_EQ(col(18), std::to_string(num(pi, "VLStallCount")));
      EXPECT_EQ(col(19), std::to_string(num(pi, "HoqLife")));
      EXPECT_EQ(col(20), std::to_string(code_of(smpquery_field(pi, "OperVLs"), vls)));
      EXPECT_EQ(col(21), truth(num(pi, "PartEnforceInb")));
      EXPECT_EQ(col(22), truth(num(pi, "PartEnforceOutb")));
      EXPECT_EQ(col(23), truth(num(pi, "FilterRawInb")));
      EXPECT_EQ(col(24), truth(num(pi, "FilterRawOutb")));
      EXPECT_EQ(col(25), std::to_string(num(pi, "LocalPhysErr")));
      EXPECT_EQ(col(26), std::to_string(num(pi, "OverrunErr")));
    }
  }
}

// smpquery pkeys' valid entries: index -> P_Key ("   8: 0xffff 0x8003 ..." lines).
std::map<unsigned, unsigned> pkeys_of(const std::string& text) {
  std::map<unsigned, unsigned> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    unsigned first = 0;
    char colon = 0;
    if (!(words >> first >> colon) || colon != ':') continue;
    std::string word;
    for (unsigned i = first; words >> word; ++i) {
      const auto pkey = static_cast<unsigned>(std::stoul(word, nullptr, 16));
      if ((pkey & 0x7FFF) != 0) out[i] = pkey;
    }
  }
  return out;
}

TEST_F(Sma, PKeyTablesEqualSmpqueryInSnmpAndPrometheus) {
  struct Case {
    std::string node;
    unsigned port;    // 0: a switch's management port, index 255 in the MIB
    bool prometheus;  // switch port 0 is not an interface
  };
  for (const Case& c : std::vector<Case>{
           {"Hca1", 1, true}, {"Hca2", 1, true}, {"Switch1", 1, true}, {"Switch1", 0, false}}) {
    SCOPED_TRACE(c.node + "/" + std::to_string(c.port));
    const auto mib = sma_walk(daemon_->snmp_port(), c.node);
    const std::string text = smp("pkeys", fabric().lid(c.node, 1), std::to_string(c.port));
    const auto expected = pkeys_of(text);
    ASSERT_GE(expected.size(), 2u) << text;  // the default partition and one more, at least
    const unsigned index = c.port == 0 ? 255 : c.port;
    size_t rows = 0;
    for (const auto& [oid, value] : mib)
      rows += oid.starts_with(fmt::format("6.1.1.4.{}.", index));
    EXPECT_EQ(rows, expected.size());
    std::string scrape_lines;
    for (const auto& [entry, pkey] : expected) {
      EXPECT_EQ(mib.at(fmt::format("6.1.1.3.{}.{}", index, entry)), pkey & 0x8000 ? "3" : "2");
      EXPECT_EQ(mib.at(fmt::format("6.1.1.4.{}.{}", index, entry)), std::to_string(pkey & 0x7FFF));
      if (!c.prometheus) continue;
      const std::string labels = fmt::format(
          "node_guid=\"{}\",port=\"{}\",pkey=\"0x{:04x}\",membership=\"{}\",partition=\"{}\"",
          guid_context(c.node), c.port, pkey & 0x7FFF, pkey & 0x8000 ? "full" : "limited",
          partition_name(pkey & 0x7FFF));
      EXPECT_EQ(metric_value(metrics_, "infiniband_port_partition_info", labels), 1) << labels;
    }
    if (c.prometheus) {
      const std::string port_labels =
          fmt::format("infiniband_port_partition_info{{node_guid=\"{}\",port=\"{}\",",
                      guid_context(c.node), c.port);
      EXPECT_EQ(count(metrics_, port_labels), expected.size());
    }
  }
  // The partitions of data/partitions.conf: Hca1 a full, Hca2 a limited member of storage.
  const auto storage = [&](const std::string& node, const char* membership) {
    return metric_value(metrics_, "infiniband_port_partition_info",
                        fmt::format("node_guid=\"{}\",port=\"1\",pkey=\"0x0002\",membership=\"{}\","
                                    "partition=\"storage\"",
                                    guid_context(node), membership));
  };
  EXPECT_EQ(storage("Hca1", "full"), 1);
  EXPECT_EQ(storage("Hca2", "limited"), 1);
}

}  // namespace
}  // namespace ibpulse::testing

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new ibpulse::testing::SimFabricEnvironment(
      {"--partitions", ibpulse::testing::kPartitionsFile}));
  return RUN_ALL_TESTS();
}
