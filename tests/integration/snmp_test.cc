// The daemon's SNMP agent on the simulated fabric, read with net-snmp's own tools: ifXTable and
// IB-IF-MIB values equal the IF-MIB formulas applied to what perfquery reads; per-node contexts
// number ports by port number; ifIndex survives a restart that changes the topology; SNMPv3
// authPriv works and everything else is refused; malformed datagrams do not hurt the agent.
//
// Switch2 port 1 is the port with exact values: clients attach at Switch1, and with Hca2 left
// unpolled (poll.skip-nodes) and no PortInfo reads or rediscovery, no MAD crosses its link
// once the daemon is ready (in ibsim every MAD crossing a link moves its data counters).
#include <arpa/inet.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <set>

#include "daemon_client.h"
#include "eventually.h"
#include "ibpulse/sim/process.h"
#include "sim_fabric.h"
#include "snmp_client.h"

namespace ibpulse::testing {
namespace {

using namespace std::chrono_literals;

SimFabric& fabric() {
  return SimFabricEnvironment::fabric();
}

std::string v2c(const std::string& tool, uint16_t port, const std::string& community,
                const std::string& oids) {
  return snmp_tool(tool + " -v2c -c " + community +
                   " -On -Oq -t 2 -r 1 127.0.0.1:" + std::to_string(port) + " " + oids)
      .out;
}

// ifName -> ifIndex in `community`'s context.
std::map<std::string, std::string> if_indexes(uint16_t port, const std::string& community) {
  std::map<std::string, std::string> out;
  for (const auto& [oid, name] :
       parse_varbinds(v2c("snmpbulkwalk", port, community, "1.3.6.1.2.1.31.1.1.1.1"))) {
    out[name] = oid.substr(oid.rfind('.') + 1);
  }
  return out;
}

uint64_t number(const std::map<std::string, std::string>& values, const std::string& oid) {
  auto it = values.find(oid);
  if (it == values.end()) {
    ADD_FAILURE() << "no " << oid;
    return ~uint64_t{0};
  }
  return std::stoull(it->second);
}

std::string guid_context(const std::string& node) {
  return guid_text(fabric().port(node, 1).node_guid);
}

TEST(Snmp, IfXTableAndIbIfMibEqualTheFormulasOnPerfqueryReadings) {
  Daemon d(fabric(), {"--snmp.community", "public", "--poll.skip-nodes", guid_context("Hca2"),
                      "--poll.port-info-interval", "off", "--discovery.interval", "1h",
                      "--poll.counters-interval", "300ms", "--poll.details-interval", "300ms",
                      "--counters.publish-interval", "200ms", "--state.save-interval", "off"});
  ASSERT_TRUE(d.wait_for("event=ready", 10s)) << d.log();
  const uint16_t port = d.snmp_port();
  ASSERT_NE(port, 0) << d.log();
  const std::string sw = "\"Switch2\"[1] ";
  for (const char* set :
       {"PortCountersExtended.PortXmitData=1000000000", "PortCountersExtended.PortXmitPkts=2000000",
        "PortCountersExtended.PortRcvData=3000000", "PortCountersExtended.PortRcvPkts=40000",
        "PortCountersExtended.PortUnicastXmitPkts=1900000",
        "PortCountersExtended.PortMulticastXmitPkts=100000",
        "PortCountersExtended.PortUnicastRcvPkts=39000",
        "PortCountersExtended.PortMulticastRcvPkts=1000", "PortCounters.SymbolErrorCounter=11",
        "PortCounters.PortRcvErrors=12", "PortCounters.PortRcvRemotePhysicalErrors=13",
        "PortCounters.PortXmitDiscards=14", "PortCounters.PortRcvConstraintErrors=15",
        "PortCounters.VL15Dropped=16", "PortCounters.LinkDownedCounter=3",
        "PortCounters.PortXmitConstraintErrors=2"}) {
    fabric().set("PerformanceSet " + sw + set);
  }
  ASSERT_TRUE(d.wait_for_sweeps(3)) << d.log();  // a sweep and a publish after the values were set
  const auto ext = [](const char* f) { return fabric().perfquery("Switch2", 1, f, true); };
  const auto basic = [](const char* f) { return fabric().perfquery("Switch2", 1, f); };
  const std::string index = if_indexes(port, "public").at("Switch2/1");
  const auto x = [&](int column) {
    return fmt::format(".1.3.6.1.2.1.31.1.1.1.{}.{}", column, index);
  };
  const auto t = [&](int column) { return fmt::format(".1.3.6.1.2.1.2.2.1.{}.{}", column, index); };
  const auto ib = [&](int column) {
    return fmt::format(".1.3.6.1.3.117.2.1.1.1.{}.{}", column, index);
  };
  const auto values =
      parse_varbinds(v2c("snmpget", port, "public",
                         x(6) + " " + x(7) + " " + x(8) + " " + x(10) + " " + x(11) + " " + x(12) +
                             " " + t(10) + " " + t(16) + " " + t(13) + " " + t(14) + " " + t(19) +
                             " " + t(3) + " " + ib(2) + " " + ib(4)));
  // No flow control packets in the simulator: the SLP terms are 0.
  const uint64_t out_octets = ext("PortXmitData") * 4 + ext("PortXmitPkts") * 4;
  const uint64_t in_octets = ext("PortRcvData") * 4 + ext("PortRcvPkts") * 4;
  EXPECT_EQ(out_octets, 4'008'000'000u);  // the injected values, untouched by MADs
  EXPECT_EQ(number(values, x(10)), out_octets);
  EXPECT_EQ(number(values, x(6)), in_octets);
  // The draft counts discarded outbound packets as sent: ifOutUcastPkts includes them.
  const uint64_t out_dropped = basic("PortXmitDiscards") + basic("PortXmitConstraintErrors");
  EXPECT_EQ(number(values, x(11)), ext("PortUnicastXmitPkts") + out_dropped);
  EXPECT_EQ(number(values, x(7)), ext("PortUnicastRcvPkts"));
  EXPECT_EQ(number(values, x(12)), ext("PortMulticastXmitPkts"));
  EXPECT_EQ(number(values, x(8)), ext("PortMulticastRcvPkts"));
  EXPECT_EQ(number(values, t(16)), out_octets & 0xFFFFFFFFu);  // ifOutOctets wraps at 2^32
  EXPECT_EQ(number(values, t(10)), in_octets & 0xFFFFFFFFu);
  EXPECT_EQ(number(values, t(13)), basic("PortRcvConstraintErrors") + basic("VL15Dropped"));
  EXPECT_EQ(number(values, t(14)), basic("PortRcvRemotePhysicalErrors") + basic("PortRcvErrors"));
  EXPECT_EQ(number(values, t(19)), out_dropped);
  EXPECT_EQ(number(values, t(3)), 199u);  // infiniband(199)
  EXPECT_EQ(number(values, ib(2)), basic("SymbolErrorCounter"));
  EXPECT_EQ(number(values, ib(4)), 3u);  // ibIfPortLinkDowned
  d.stop();
  for (const char* reset :
       {"PortCountersExtended.PortXmitData=0", "PortCountersExtended.PortXmitPkts=0",
        "PortCountersExtended.PortRcvData=0", "PortCountersExtended.PortRcvPkts=0",
        "PortCounters.SymbolErrorCounter=0", "PortCounters.PortRcvErrors=0",
        "PortCounters.PortRcvRemotePhysicalErrors=0", "PortCounters.PortXmitDiscards=0",
        "PortCounters.PortRcvConstraintErrors=0", "PortCounters.VL15Dropped=0",
        "PortCounters.LinkDownedCounter=0", "PortCounters.PortXmitConstraintErrors=0"}) {
    fabric().set("PerformanceSet " + sw + reset);
  }
}

// Every ifXTable and ifTable row has all of its counter columns or none (its data counters never
// read): MRTG's cfgmaker takes a missing ifHCInOctets for an interface without 64-bit counters.
// Here the linked ports have them all; the uncabled ones (idle: ibsim's error counters only,
// or no LID at all) none, where the broadcast zeros and error sums used to make holes.
TEST(Snmp, EveryInterfaceRowHasAllItsCounterColumns) {
  Daemon d(fabric(), {"--snmp.community", "public", "--poll.idle-interval", "1s",
                      "--state.save-interval", "off", "--log.level", "debug"});
  ASSERT_TRUE(d.wait_for("event=ready", 10s)) << d.log();
  const std::string target = " -On -Oq 127.0.0.1:" + std::to_string(d.snmp_port());
  const std::string if_x = "1.3.6.1.2.1.31.1.1.1";
  const std::string if_table = "1.3.6.1.2.1.2.2.1";
  // Columns and ifName per ifIndex of a table walk (.<table>.<column>.<ifIndex>).
  struct Row {
    std::set<std::string> columns;
    std::string name;
  };
  const auto rows_of = [&](const std::string& table) {
    std::map<std::string, Row> rows;
    const auto walk = snmp_tool("snmpwalk -v2c -c public" + target + " " + table).out;
    for (const auto& [oid, value] : parse_varbinds(walk)) {
      const std::string rest = oid.substr(table.size() + 2);  // "<column>.<ifIndex>"
      const size_t dot = rest.find('.');
      Row& row = rows[rest.substr(dot + 1)];
      row.columns.insert(rest.substr(0, dot));
      if (rest.substr(0, dot) == "1") row.name = value;
    }
    return rows;
  };
  const std::set<std::string> whole = {"1",  "2",  "3",  "4",  "5",  "6",  "7",  "8",  "9", "10",
                                       "11", "12", "13", "14", "15", "16", "17", "18", "19"};
  const std::set<std::string> no_counters = {"1", "14", "15", "16", "17", "18", "19"};
  // The idle switch ports read (every second here): their error counters are in the snapshot.
  ASSERT_TRUE(eventually(
      [&] {
        const auto log = d.log();
        return log.find("event=sweep sweep=3 ") != std::string::npos;
      },
      20s));
  const auto x = rows_of(if_x);
  EXPECT_EQ(x.size(), 24u);
  size_t whole_rows = 0;
  for (const auto& [index, row] : x) {
    EXPECT_TRUE(row.columns == whole || row.columns == no_counters)
        << "ifXTable row " << index << " (" << row.name << ") has " << row.columns.size()
        << " columns";
    whole_rows += row.columns == whole;
  }
  EXPECT_EQ(whole_rows, 12u) << "every linked port";
  const std::set<std::string> if_counters = {"10", "11", "13", "14", "15", "16", "17", "19", "20"};
  for (const auto& [index, row] : rows_of(if_table)) {
    size_t has = 0;
    for (const std::string& c : if_counters)
      has += row.columns.count(c);
    EXPECT_TRUE(has == 0 || has == if_counters.size())
        << "ifTable row " << index << " has " << has << " of its counter columns";
  }
}

TEST(Snmp, NodeContextsServeOneNodeNumberedByPort) {
  Daemon d(fabric(), {"--snmp.community", "public", "--snmp.community", "ops",
                      "--state.save-interval", "off"});
  ASSERT_TRUE(d.wait_for("event=ready", 10s)) << d.log();
  const uint16_t port = d.snmp_port();
  // Every port of the fabric, once the agent serves the first snapshot.
  EXPECT_TRUE(eventually([&] { return if_indexes(port, "public").size() == 24u; }, 20s))
      << if_indexes(port, "public").size();
  for (const std::string community : {"public", "ops"}) {
    const auto sw = if_indexes(port, community + "@" + guid_context("Switch2"));
    ASSERT_EQ(sw.size(), 8u) << community;
    for (unsigned p = 1; p <= 8; ++p)
      EXPECT_EQ(sw.at("Switch2/" + std::to_string(p)), std::to_string(p));
  }
  const auto hca = parse_varbinds(v2c("snmpget", port, "public@" + guid_context("Hca3"),
                                      "1.3.6.1.2.1.2.1.0 1.3.6.1.2.1.1.5.0"));
  EXPECT_EQ(hca.at(".1.3.6.1.2.1.2.1.0"), "2");  // ifNumber: the HCA's two ports
  EXPECT_EQ(hca.at(".1.3.6.1.2.1.1.5.0"), "Hca3");
  // IBPULSE-MIB's ibpulsePortTable: every interface's subnet, in every context; the local port
  // is the one the daemon says it polls through.
  std::smatch local;
  const std::string log = d.log();
  ASSERT_TRUE(
      std::regex_search(log, local, std::regex("event=local_ports ports=([^ ]+) subnets=1")))
      << log;
  const std::string entry = "1.3.6.1.4.1.8072.9999.9999.1.4.1.1";
  const auto prefixes = parse_varbinds(v2c("snmpbulkwalk", port, "public", entry + ".1"));
  const auto local_ports = parse_varbinds(v2c("snmpbulkwalk", port, "public", entry + ".2"));
  EXPECT_EQ(prefixes.size(), 24u);
  EXPECT_EQ(local_ports.size(), 24u);
  for (const auto& [oid, value] : prefixes)
    EXPECT_EQ(value, "0xfe80000000000000") << oid;  // ibsim's subnet, ports without a link too
  for (const auto& [oid, value] : local_ports)
    EXPECT_EQ(value, local[1].str()) << oid;
  const auto in_switch =
      parse_varbinds(v2c("snmpbulkwalk", port, "public@" + guid_context("Switch2"), entry + ".2"));
  ASSERT_EQ(in_switch.size(), 8u);
  EXPECT_EQ(in_switch.begin()->first, "." + entry + ".2.1");
  EXPECT_EQ(in_switch.begin()->second, local[1].str());
  // IBPULSE-MIB's collector scalars, in the fabric's context.
  const auto status = parse_varbinds(v2c("snmpget", port, "public",
                                         "1.3.6.1.4.1.8072.9999.9999.1.1.1.0 "
                                         "1.3.6.1.4.1.8072.9999.9999.1.1.2.0 "
                                         "1.3.6.1.4.1.8072.9999.9999.1.1.5.0"));
  EXPECT_EQ(status.at(".1.3.6.1.4.1.8072.9999.9999.1.1.1.0"), "6");              // nodes
  EXPECT_EQ(status.at(".1.3.6.1.4.1.8072.9999.9999.1.1.2.0"), "24");             // ports
  EXPECT_GE(std::stoull(status.at(".1.3.6.1.4.1.8072.9999.9999.1.1.5.0")), 1u);  // sweeps
  // An unknown context and an unknown community get nothing (a timeout: no answer at all).
  const auto quick_get = [&](const std::string& community) {
    return snmp_tool(
        fmt::format("snmpget -v2c -c {} -On -Oq -t 1 -r 0 127.0.0.1:{} "
                    "1.3.6.1.2.1.2.1.0",
                    community, port));
  };
  EXPECT_NE(quick_get("public@0x00000000deadbeef").out.find("Timeout"), std::string::npos);
  EXPECT_NE(quick_get("private").out.find("Timeout"), std::string::npos);
}

TEST(Snmp, IfIndexSurvivesARestartThatChangesTheTopology) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("ibpulse-snmp-state-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  // Missing-limit 1: the node gone meanwhile is dropped by the first discovery, not kept
  // from the last run's topology for the discoveries that must agree it is gone.
  const std::vector<std::string> args = {
      "--snmp.community",          "public", "--state.dir", dir.string(), "--mad.timeout", "20ms",
      "--discovery.missing-limit", "1"};
  std::map<std::string, std::string> before;
  std::map<std::string, std::string> after;
  {
    Daemon d(fabric(), args);
    ASSERT_TRUE(d.wait_for("event=ready ports=12", 10s)) << d.log();
    // The agent's view of the first snapshot: every row at once.
    eventually([&] { return !(before = if_indexes(d.snmp_port(), "public")).empty(); }, 20s);
    d.stop();
  }
  ASSERT_EQ(fabric().sim("link-down", {"Hca1[1]"}).exit_code, 0);
  {
    Daemon d(fabric(), args);
    const bool ready = d.wait_for("event=ready", 10s);
    eventually([&] { return !(after = if_indexes(d.snmp_port(), "public")).empty(); }, 20s);
    d.stop();
    EXPECT_TRUE(ready) << d.log();
  }
  ASSERT_EQ(fabric().sim("link-up", {"Hca1[1]"}).exit_code, 0);
  std::filesystem::remove_all(dir);
  ASSERT_EQ(before.size(), 24u);
  // Hca1 left the fabric; it came first in GUID order, so fresh numbers would all have moved.
  // Its ports stay as notPresent rows, named by GUID now that discovery no longer names them.
  const std::string hca1 = guid_context("Hca1");
  EXPECT_EQ(after.count("Hca1/1"), 0u);
  // Every port discovered now, plus Hca1's read port as a notPresent row (its unlinked port 2
  // was never read, so the restored state has no row for it).
  ASSERT_EQ(after.size(), 23u);
  for (const auto& [reported, index] : after) {
    std::string name = reported;
    if (name.starts_with(hca1)) name = fmt::format("Hca1{}", name.substr(hca1.size()));
    ASSERT_EQ(before.count(name), 1u) << name;
    EXPECT_EQ(index, before.at(name)) << name;
  }
}

TEST(Snmp, V3AuthPrivOnlyAndNoV2cUnlessConfigured) {
  const auto config = std::filesystem::temp_directory_path() /
                      ("ibpulse-snmp-" + std::to_string(getpid()) + ".yaml");
  std::ofstream(config)
      << "snmp:\n  users:\n    - name: monitor\n      auth-password: \"auth-secret-1\"\n"
         "      priv-password: \"priv-secret-1\"\n";
  Daemon d(fabric(), {"--config", config.string(), "--state.save-interval", "off"});
  ASSERT_TRUE(d.wait_for("event=ready", 10s)) << d.log();
  const std::string target =
      " -On -Oq -t 1 -r 0 127.0.0.1:" + std::to_string(d.snmp_port()) + " 1.3.6.1.2.1.2.1.0";
  const std::string good =
      "snmpget -v3 -u monitor -l authPriv -a SHA-256 -A auth-secret-1 -x AES -X priv-secret-1";
  SnmpToolRun ok;
  eventually(  // the agent's first view
      [&] {
        return parse_varbinds((ok = snmp_tool(good + target)).out)[".1.3.6.1.2.1.2.1.0"] == "24";
      },
      20s);
  EXPECT_EQ(ok.status, 0) << ok.out;
  EXPECT_EQ(parse_varbinds(ok.out)[".1.3.6.1.2.1.2.1.0"], "24");
  SnmpToolRun in_context = snmp_tool(good + " -n " + guid_context("Switch1") + target);
  EXPECT_EQ(parse_varbinds(in_context.out)[".1.3.6.1.2.1.2.1.0"], "8") << in_context.out;
  SnmpToolRun wrong = snmp_tool(
      "snmpget -v3 -u monitor -l authPriv -a SHA-256 -A wrong-secret-9 -x AES -X priv-secret-1" +
      target);
  EXPECT_NE(wrong.status, 0);
  EXPECT_NE(wrong.out.find("Authentication failure"), std::string::npos) << wrong.out;
  SnmpToolRun unknown = snmp_tool(
      "snmpget -v3 -u nobody -l authPriv -a SHA-256 -A auth-secret-1 -x AES -X priv-secret-1" +
      target);
  EXPECT_NE(unknown.status, 0);
  EXPECT_NE(unknown.out.find("Unknown user name"), std::string::npos) << unknown.out;
  SnmpToolRun no_priv =
      snmp_tool("snmpget -v3 -u monitor -l authNoPriv -a SHA-256 -A auth-secret-1" + target);
  EXPECT_TRUE(parse_varbinds(no_priv.out).empty()) << no_priv.out;  // authorizationError
  SnmpToolRun community = snmp_tool("snmpget -v2c -c public" + target);
  EXPECT_NE(community.status, 0);
  EXPECT_NE(community.out.find("Timeout"), std::string::npos) << community.out;
  std::filesystem::remove(config);
}

// v1/v2c reads only from the configured sources; no SET changes anything, for any principal.
TEST(Snmp, OnlyConfiguredSourcesReadAndNothingIsWritable) {
  const std::string sys_name = " 1.3.6.1.2.1.1.5.0";
  {
    Daemon d(fabric(), {"--snmp.community", "public", "--snmp.sources", "10.0.0.0/8",
                        "--state.save-interval", "off"});
    ASSERT_TRUE(d.wait_for("event=ready", 10s)) << d.log();
    SnmpToolRun refused = snmp_tool("snmpget -v2c -c public -On -Oq -t 1 -r 0 127.0.0.1:" +
                                    std::to_string(d.snmp_port()) + sys_name);
    EXPECT_NE(refused.status, 0);
    EXPECT_NE(refused.out.find("Timeout"), std::string::npos) << refused.out;
  }
  Daemon d(fabric(), {"--snmp.community", "public", "--snmp.sources", "127.0.0.0/8",
                      "--snmp.sys-name", "fabric-a", "--state.save-interval", "off"});
  ASSERT_TRUE(d.wait_for("event=ready", 10s)) << d.log();
  const std::string target = " -On -Oq -t 1 -r 0 127.0.0.1:" + std::to_string(d.snmp_port());
  const auto get_sys_name = [&] {
    return parse_varbinds(
        snmp_tool("snmpget -v2c -c public" + target + sys_name).out)[".1.3.6.1.2.1.1.5.0"];
  };
  EXPECT_TRUE(eventually([&] { return get_sys_name() == "fabric-a"; }, 20s)) << get_sys_name();
  for (const std::string& oid : {sys_name, std::string(" 1.3.6.1.2.1.31.1.1.1.18.1")}) {
    SnmpToolRun set = snmp_tool("snmpset -v2c -c public" + target + oid + " s changed");
    EXPECT_NE(set.status, 0) << set.out;
    EXPECT_NE(set.out.find("noAccess"), std::string::npos) << set.out;
  }
  EXPECT_EQ(parse_varbinds(
                snmp_tool("snmpget -v2c -c public" + target + sys_name).out)[".1.3.6.1.2.1.1.5.0"],
            "fabric-a");
}

// RFC 3414 across restarts: the same engineID, snmpEngineBoots one more each start; users
// only as the config says now (net-snmp's own store would keep the old password's keys); a
// damaged boots record is a clear error.
TEST(Snmp, V3EngineAndUsersFollowTheStateAndConfigAcrossRestarts) {
  const auto dir =
      std::filesystem::temp_directory_path() / fmt::format("ibpulse-snmp-engine-{}", getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto config = dir / "ibpulse.yaml";
  const auto write_config = [&](const std::string& auth_password) {
    std::ofstream(config) << "snmp:\n  users:\n    - name: monitor\n      auth-password: \""
                          << auth_password << "\"\n      priv-password: \"priv-secret-1\"\n";
  };
  const std::string engine_oids = " 1.3.6.1.6.3.10.2.1.1.0 1.3.6.1.6.3.10.2.1.2.0";
  const auto v3_get = [&](uint16_t port, const std::string& auth_password) {
    return snmp_tool("snmpget -v3 -u monitor -l authPriv -a SHA-256 -A " + auth_password +
                     " -x AES -X priv-secret-1 -On -Oq -Ox -t 1 -r 0 127.0.0.1:" +
                     std::to_string(port) + engine_oids);
  };
  const std::vector<std::string> args = {
      "--config", config.string(), "--state.dir", (dir / "state").string(), "--state.save-interval",
      "off"};
  std::map<std::string, std::string> first;
  std::map<std::string, std::string> second;
  write_config("auth-secret-1");
  {
    Daemon d(fabric(), args);
    ASSERT_TRUE(d.wait_for("event=snmp_listening", 10s)) << d.log();
    SnmpToolRun got = v3_get(d.snmp_port(), "auth-secret-1");
    EXPECT_EQ(got.status, 0) << got.out;
    first = parse_varbinds(unwrap_lines(got.out));
    d.stop();
  }
  write_config("auth-secret-2");
  {
    Daemon d(fabric(), args);
    ASSERT_TRUE(d.wait_for("event=snmp_listening", 10s)) << d.log();
    SnmpToolRun old_password = v3_get(d.snmp_port(), "auth-secret-1");
    EXPECT_NE(old_password.out.find("Authentication failure"), std::string::npos)
        << old_password.out;
    SnmpToolRun got = v3_get(d.snmp_port(), "auth-secret-2");
    EXPECT_EQ(got.status, 0) << got.out;
    second = parse_varbinds(unwrap_lines(got.out));
    d.stop();
  }
  const std::string id = ".1.3.6.1.6.3.10.2.1.1.0";
  const std::string boots = ".1.3.6.1.6.3.10.2.1.2.0";
  // The engineID file's "0x80001f8805" + 16 octets, as -Ox prints them: "80 00 1F 88 05 ...".
  const std::string stored = read_text_file(dir / "state" / "snmp" / "engine-id");
  ASSERT_EQ(stored.size(), 2u + 2 * 21 + 1) << stored;
  std::string served = "0x";
  for (char c : first[id])
    if (c != ' ') served += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  EXPECT_EQ(served + "\n", stored);
  EXPECT_EQ(second[id], first[id]);
  EXPECT_EQ(first[boots], "1");
  EXPECT_EQ(second[boots], "2");
  std::ofstream(dir / "state" / "snmp" / "engine-boots") << "many\n";
  const auto out = fabric().exec({IBPULSE_BINARY_FOR_TESTS, "run", "--exit-after-sweeps", "1",
                                  "--config", config.string(), "--state.dir",
                                  (dir / "state").string(), "--state.save-interval", "off"});
  EXPECT_NE(out.exit_code, 0);
  EXPECT_NE(out.err.find("engine-boots: not an engine boots record written by ibpulse"),
            std::string::npos)
      << out.err;
  std::filesystem::remove_all(dir);
}

// The host's snmpd, unprivileged on a loopback port, as the AgentX master: `public` reads the
// `ib` context, `host` the default one, `sw2` Switch2's context.
class Snmpd {
 public:
  explicit Snmpd(const std::string& switch2_context) {
    std::filesystem::create_directories(dir_);
    port_ = free_loopback_port(SOCK_DGRAM);
    // Not snmpd.conf: snmpd writes its persistent state to persistentDir/snmpd.conf when it
    // stops, which would replace this configuration before a restart.
    std::ofstream(dir_ / "master.conf")
        << fmt::format("agentaddress udp:127.0.0.1:{}\n", port_) << "master agentx\n"
        << "agentXSocket unix:" << socket() << "\n"
        << "agentXPerms 0700 0700\n"
        << "com2sec -Cn ib ibsec default public\n"
        << "com2sec hostsec default host\n"
        << "com2sec -Cn " << switch2_context << " nodesec default sw2\n"
        << "group ibgroup v2c ibsec\ngroup hostgroup v2c hostsec\ngroup nodegroup v2c nodesec\n"
        << "view all included .1\n"
        << "access ibgroup ib any noauth exact all none none\n"
        << "access hostgroup \"\" any noauth exact all none none\n"
        << "access nodegroup " << switch2_context << " any noauth exact all none none\n"
        << "[snmp] persistentDir " << dir_.string() << "\n";
    start();
  }
  ~Snmpd() {
    if (process_.pid != 0) sim::terminate(process_, 3s);
    std::filesystem::remove_all(dir_);
  }
  Snmpd(const Snmpd&) = delete;
  Snmpd& operator=(const Snmpd&) = delete;

  // Stops the master and starts it again on the same port and socket, as an operator's
  // `systemctl restart snmpd` does.
  void restart() {
    if (process_.pid != 0) sim::terminate(process_, 3s);
    process_ = {};
    start();
  }
  bool started() const { return process_.pid != 0; }
  uint16_t port() const { return port_; }
  std::string socket() const { return (dir_ / "agentx.sock").string(); }
  std::string log() const { return read_text_file(dir_ / "snmpd.log"); }

 private:
  void start() {
    sim::SpawnSpec spec;
    spec.argv = {"snmpd", "-f",
                 "-Lo",   "-C",
                 "-c",    (dir_ / "master.conf").string(),
                 "-p",    (dir_ / "snmpd.pid").string(),
                 "-I",    "agentx,vacm_conf,vacm_vars,vacm_context,system_mib"};
    spec.env = {{"MIBS", ""}};
    spec.stdout_path = dir_ / "snmpd.log";
    spec.stderr_path = dir_ / "snmpd.log";
    auto started = sim::spawn_detached(spec);
    if (started) process_ = *started;
  }

  std::filesystem::path dir_ =
      std::filesystem::temp_directory_path() / fmt::format("ibpulse-snmpd-{}", getpid());
  uint16_t port_ = 0;
  sim::ProcessRef process_;
};

TEST(Snmp, AgentXSubagentServesTheFabricInItsOwnContextOnly) {
  const std::string switch2 = guid_context("Switch2");
  Snmpd snmpd(switch2);
  ASSERT_TRUE(snmpd.started());
  ASSERT_TRUE(eventually([&] { return std::filesystem::exists(snmpd.socket()); }, 10s))
      << snmpd.log();
  Daemon d(fabric(), {"--snmp.agentx", fmt::format("unix:{}", snmpd.socket()),
                      "--state.save-interval", "off"});
  ASSERT_TRUE(d.wait_for("event=ready", 10s)) << d.log();
  ASSERT_TRUE(d.wait_for("event=snmp_agentx", 1s)) << d.log();
  std::map<std::string, std::string> fabric_rows;
  eventually(  // until the registrations land
      [&] { return (fabric_rows = if_indexes(snmpd.port(), "public")).size() >= 24; }, 10s);
  EXPECT_EQ(fabric_rows.size(), 24u) << snmpd.log() << d.log();
  EXPECT_EQ(fabric_rows.count("Switch2/1"), 1u);
  EXPECT_TRUE(if_indexes(snmpd.port(), "host").empty()) << "the default context is the host's";
  // Node contexts are registered with the master apart from the fabric's: wait for them too.
  std::map<std::string, std::string> node;
  eventually([&] { return (node = if_indexes(snmpd.port(), "sw2")).size() >= 8; }, 10s);
  ASSERT_EQ(node.size(), 8u) << snmpd.log();
  EXPECT_EQ(node.at("Switch2/3"), "3");
  EXPECT_EQ(d.log().find("Unknown token"), std::string::npos) << d.log();
  EXPECT_EQ(d.log().find("registering pdu failed"), std::string::npos) << d.log();

  // The master restarts: the subagent notices (AgentX ping every 5 s), connects again and
  // registers everything anew.
  snmpd.restart();
  ASSERT_TRUE(snmpd.started());
  EXPECT_TRUE(eventually([&] { return if_indexes(snmpd.port(), "public").size() == 24; }, 40s))
      << snmpd.log() << d.log();
  EXPECT_EQ(if_indexes(snmpd.port(), "sw2").size(), 8u) << snmpd.log();
}

// Bad SNMP settings stop the start with an error naming the key and the problem.
// net-snmp's own address syntax, IPv6 included: the same objects over udp6 (fabric and node
// contexts, v2c community@context mapped for IPv6 too) and over TCP.
TEST(Snmp, ServesOverIpv6AndTcpInNetSnmpsAddressSyntax) {
  // ifNumber at `target`, once the agent serves the first snapshot (it builds its view on its
  // own thread after event=ready: until then ifNumber is 0).
  const auto if_number = [](const std::string& target) {
    std::string value;
    ibpulse::testing::eventually(
        [&] {
          value = parse_varbinds(
              snmp_tool("snmpget -v2c -c public -On -Oq -t 2 " + target + " 1.3.6.1.2.1.2.1.0")
                  .out)[".1.3.6.1.2.1.2.1.0"];
          return !value.empty() && value != "0";
        },
        20s);
    return value;
  };
  std::string over_ipv4;
  {
    Daemon d(fabric(), {"--snmp.community", "public", "--snmp.listen", "127.0.0.1:0",
                        "--state.save-interval", "off"});
    ASSERT_TRUE(d.wait_for("event=ready", 10s)) << d.log();
    over_ipv4 = if_number("127.0.0.1:" + std::to_string(d.snmp_port()));
    ASSERT_EQ(over_ipv4, "24") << d.log();  // every port of the fabric
  }
  // Where each listen address is asked: "[::]" listens on every address, IPv4 included.
  const std::vector<std::pair<std::string, std::vector<std::string>>> listens = {
      {"udp6:[::1]:0", {"udp6:[::1]:"}},
      {"[::1]:0", {"udp6:[::1]:"}},
      {"tcp:127.0.0.1:0", {"tcp:127.0.0.1:"}},
      {"[::]:0", {"udp6:[::1]:", "udp:127.0.0.1:"}},
      {"tcp6:[::]:0", {"tcp6:[::1]:", "tcp:127.0.0.1:"}},
  };
  for (const auto& [listen, targets] : listens) {
    Daemon d(fabric(), {"--snmp.community", "public", "--snmp.listen", listen,
                        "--state.save-interval", "off"});
    ASSERT_TRUE(d.wait_for("event=ready", 10s)) << d.log();
    for (const std::string& prefix : targets) {
      const std::string target = prefix + std::to_string(d.snmp_port());
      EXPECT_EQ(if_number(target), over_ipv4) << listen << " asked at " << target;
      // A node context, reached with COMMUNITY@CONTEXT (registered with the first snapshot).
      const std::string node_get = "snmpget -v2c -c public@" + guid_context("Hca3") +
                                   " -On -Oq -t 1 -r 0 " + target + " 1.3.6.1.2.1.1.5.0";
      EXPECT_TRUE(eventually(
          [&] { return parse_varbinds(snmp_tool(node_get).out)[".1.3.6.1.2.1.1.5.0"] == "Hca3"; },
          20s))
          << listen << " asked at " << target << ": " << snmp_tool(node_get).out;
    }
  }
}

// SNMPv1 has no Counter64 (RFC 3584 4.2.1): a v1 GET of an HC column is noSuchName, a v1
// walk of ifXTable steps over the HC columns and still reaches the Counter32/Gauge32 ones,
// and ifInOctets (Counter32) reads as over v2c.
TEST(Snmp, SnmpV1GetsNoCounter64ButEverythingElse) {
  Daemon d(fabric(), {"--snmp.community", "public", "--snmp.listen", "127.0.0.1:0",
                      "--state.save-interval", "off"});
  ASSERT_TRUE(d.wait_for("event=ready", 10s)) << d.log();
  const std::string target = " 127.0.0.1:" + std::to_string(d.snmp_port());
  std::map<std::string, std::string> names;
  ASSERT_TRUE(
      eventually([&] { return !(names = if_indexes(d.snmp_port(), "public")).empty(); }, 20s));
  const std::string index = names.begin()->second;

  const auto hc = snmp_tool("snmpget -v1 -c public -On -t 2 -r 0" + target +
                            " 1.3.6.1.2.1.31.1.1.1.6." + index);
  EXPECT_NE(hc.out.find("noSuchName"), std::string::npos) << hc.out;
  const auto in_octets = parse_varbinds(snmp_tool("snmpget -v1 -c public -On -Oq -t 2 -r 0" +
                                                  target + " 1.3.6.1.2.1.2.2.1.10." + index)
                                            .out);
  ASSERT_EQ(in_octets.count(".1.3.6.1.2.1.2.2.1.10." + index), 1u);
  EXPECT_FALSE(in_octets.at(".1.3.6.1.2.1.2.2.1.10." + index).empty());

  const auto walk =
      snmp_tool("snmpwalk -v1 -c public -On -Oq -t 2 -r 0" + target + " 1.3.6.1.2.1.31.1.1.1");
  EXPECT_EQ(walk.status, 0) << walk.out;
  const auto rows = parse_varbinds(walk.out);
  size_t names_seen = 0;
  size_t high_speed = 0;
  for (const auto& [oid, value] : rows) {
    const std::string column = oid.substr(0, oid.rfind('.'));
    EXPECT_TRUE(column != ".1.3.6.1.2.1.31.1.1.1.6" && column != ".1.3.6.1.2.1.31.1.1.1.10")
        << "a Counter64 column over SNMPv1: " << oid;
    names_seen += column == ".1.3.6.1.2.1.31.1.1.1.1";
    high_speed += column == ".1.3.6.1.2.1.31.1.1.1.15";
  }
  EXPECT_EQ(names_seen, names.size()) << walk.out;
  EXPECT_EQ(high_speed, names.size()) << walk.out;
}

TEST(Snmp, BadSettingsAreClearErrors) {
  const auto run = [](std::vector<std::string> args) {
    args.insert(args.begin(), {IBPULSE_BINARY_FOR_TESTS, "run", "--exit-after-sweeps", "1",
                               "--state.save-interval", "off"});
    return fabric().exec(args);
  };
  auto out = run({"--snmp.users", R"({"name":"ops","auth-password":"short"})"});
  EXPECT_NE(out.exit_code, 0);
  EXPECT_NE(out.err.find("snmp: SNMPv3 user 'ops': the auth password needs 8 or more "
                         "characters"),
            std::string::npos)
      << out.err;
  out = run({"--snmp.users", R"({"name":"ops","auth-password":"long-enough","colour":"red"})"});
  EXPECT_NE(out.err.find("--snmp.users: unknown user field 'colour'"), std::string::npos)
      << out.err;
  out = run(
      {"--snmp.users", R"({"name":"ops","auth-password":"long-enough","auth-protocol":"SHA-1"})"});
  EXPECT_NE(out.err.find("auth protocol 'SHA-1' is not one of"), std::string::npos) << out.err;
  out = run({"--snmp.community", "pub@lic"});
  EXPECT_NE(out.err.find("SNMP community 'pub@lic'"), std::string::npos) << out.err;
  out = run({"--snmp.listen", "localhost"});
  EXPECT_NE(out.err.find("SNMP listen address 'localhost': the port is missing; write HOST:PORT, "
                         "[IPV6]:PORT, or udp:, udp6:, tcp:, tcp6:"),
            std::string::npos)
      << out.err;
  out = run({"--snmp.listen", "::1:161"});
  EXPECT_NE(out.err.find("'::1:161': an IPv6 address needs brackets"), std::string::npos)
      << out.err;
  out = run({"--snmp.listen", "sctp:127.0.0.1:161"});
  EXPECT_NE(out.err.find("unknown transport 'sctp:'"), std::string::npos) << out.err;
  out = run({"--snmp.listen", "unix:/tmp/agent"});
  EXPECT_NE(out.err.find("unix: is for AgentX only"), std::string::npos) << out.err;
  out = run({"--snmp.trap-sink", "udp6:::1"});
  EXPECT_NE(out.err.find("trap sink 'udp6:::1': an IPv6 address needs brackets"), std::string::npos)
      << out.err;
  out = run({"--snmp.community", "public", "--snmp.sources", "10.0.0.0/33"});
  EXPECT_NE(out.err.find("SNMP source '10.0.0.0/33'"), std::string::npos) << out.err;
  // "[::]" needs the port on IPv4 too: taken there, the start fails and says which side.
  const int taken = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_in any{};
  any.sin_family = AF_INET;
  socklen_t length = sizeof any;
  ASSERT_EQ(::bind(taken, reinterpret_cast<sockaddr*>(&any), sizeof any), 0);
  ASSERT_EQ(::getsockname(taken, reinterpret_cast<sockaddr*>(&any), &length), 0);
  const std::string port = std::to_string(ntohs(any.sin_port));
  out = run({"--snmp.listen", "[::]:" + port});
  ::close(taken);
  EXPECT_NE(out.exit_code, 0);
  EXPECT_NE(out.err.find("cannot listen on [::]:" + port + " (its IPv4 side, udp:0.0.0.0:" + port +
                         "): address in use"),
            std::string::npos)
      << out.err;
}

// Random bytes, truncated and corrupted copies of a valid request, and oversized datagrams:
// the agent drops them and still answers.
TEST(Snmp, MalformedDatagramsDoNotHurtTheAgent) {
  Daemon d(fabric(), {"--snmp.community", "public", "--state.save-interval", "off"});
  ASSERT_TRUE(d.wait_for("event=ready", 10s)) << d.log();
  const uint16_t port = d.snmp_port();
  // GET sysName.0, v2c, community "public".
  const std::string valid(
      "\x30\x29\x02\x01\x01\x04\x06public\xa0\x1c\x02\x04\x12\x34\x56\x78"
      "\x02\x01\x00\x02\x01\x00\x30\x0e\x30\x0c\x06\x08\x2b\x06\x01\x02\x01"
      "\x01\x05\x00\x05\x00",
      43);
  const int fd = ::socket(AF_INET, SOCK_DGRAM, 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(port);
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::mt19937 random(12345);
  const auto send = [&](const std::string& bytes) {
    ::sendto(fd, bytes.data(), bytes.size(), 0, reinterpret_cast<const sockaddr*>(&to), sizeof to);
  };
  send(valid);
  for (int i = 0; i < 3000; ++i) {
    std::string bytes = valid;
    switch (i % 4) {
      case 0:  // flip bytes
        for (int k = 0; k < 3; ++k)
          bytes[random() % bytes.size()] = static_cast<char>(random());
        break;
      case 1:  // truncate
        bytes.resize(random() % bytes.size());
        break;
      case 2:  // random garbage of random length
        bytes.resize(random() % 1500);
        for (char& c : bytes)
          c = static_cast<char>(random());
        break;
      case 3:  // a length field claiming more than there is, in a huge datagram
        bytes = std::string("\x30\x84\x7f\xff\xff\xff", 6) + std::string(60000, '\x04');
        break;
    }
    send(bytes);
    if (i % 200 == 0) std::this_thread::sleep_for(5ms);  // let the agent drain
  }
  ::close(fd);
  const auto values = parse_varbinds(v2c("snmpget", port, "public", "1.3.6.1.2.1.2.1.0"));
  EXPECT_EQ(values.count(".1.3.6.1.2.1.2.1.0"), 1u) << d.log();
  EXPECT_TRUE(d.running());
}

}  // namespace
}  // namespace ibpulse::testing
