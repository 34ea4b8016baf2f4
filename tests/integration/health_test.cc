// Link health end to end on the simulated fabric (4X SDR links, 8 Gb/s of data each way):
// symbol errors planted with ibsim's console make the port's BER above spec, the port and its
// link failing, the gauges lint clean with promtool, and IBPULSE-MIB's ibpulseLinkHealthTable
// says the same to snmpget.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "daemon_client.h"
#include "eventually.h"
#include "promtool_lint.h"
#include "sim_fabric.h"
#include "snmp_client.h"

namespace ibpulse::testing {
namespace {

using namespace std::chrono_literals;

SimFabric& fabric() {
  return SimFabricEnvironment::fabric();
}

TEST(Health, PlantedSymbolErrorsMakeThePortAndItsLinkFail) {
  const PortInfo& hca = fabric().port("Hca1", 1);
  const std::string labels = "node_guid=\"" + guid_text(hca.node_guid) + "\",port=\"1\"";
  Daemon d(fabric(), {"--web.listen-address", "127.0.0.1:0", "--poll.counters-interval", "300ms",
                      "--counters.publish-interval", "200ms", "--state.save-interval", "off",
                      "--health.ber-window", "20s", "--snmp.community", "public"});
  ASSERT_TRUE(d.wait_for("event=ready", 10s)) << d.log();
  ASSERT_TRUE(d.wait_for_sweeps(3)) << d.log();
  std::string scrape = http_get(d.web_port(), "/metrics");
  EXPECT_EQ(metric_value(scrape, "infiniband_port_health", labels + ",state=\"ok\""), 1) << scrape;
  EXPECT_EQ(metric_value(scrape, "infiniband_port_symbol_ber", labels), 0);

  fabric().set("PerformanceSet \"Hca1\"[1] PortCounters.SymbolErrorCounter=1000");
  ASSERT_TRUE(eventually(
      [&] {
        scrape = http_get(d.web_port(), "/metrics");
        return metric_value(scrape, "infiniband_port_health", labels + ",state=\"failing\"") == 1;
      },
      30s))
      << scrape;
  fabric().set("PerformanceSet \"Hca1\"[1] PortCounters.SymbolErrorCounter=0");
  EXPECT_EQ(metric_value(scrape, "infiniband_port_health", labels + ",state=\"ok\""), 0);
  EXPECT_EQ(metric_value(scrape, "infiniband_port_health_reason_info",
                         labels + ",reason=\"ber_above_spec\""),
            1);
  // 1,000 errors in at most 20 s of an 8 Gb/s link: at least 6e-9.
  EXPECT_GE(metric_value(scrape, "infiniband_port_symbol_ber", labels), 1000 / (20 * 8e9));
  // One link entry for the cable, named by its lower end (the HCA's GUID is the lower).
  const std::string link = labels + ",remote_node_guid=\"" +
                           guid_text(fabric().port(hca.remote_node, hca.remote_port).node_guid) +
                           "\",remote_port=\"" + std::to_string(hca.remote_port) + "\"";
  EXPECT_EQ(metric_value(scrape, "infiniband_link_health", link + ",state=\"failing\""), 1)
      << scrape;
  EXPECT_EQ(count(scrape, "infiniband_link_health{") % 3, 0u);
  // The default rules on link health raise on it.
  EXPECT_TRUE(d.wait_for("event=alert_raised rule=ber_above_spec severity=major node_guid=" +
                             guid_text(hca.node_guid) + " port=1",
                         10s))
      << d.log();
  EXPECT_TRUE(d.wait_for("event=alert_raised rule=health_failing severity=critical", 10s));
  const LintResult lint = promtool_lint(scrape);
  EXPECT_EQ(lint.status, 0) << lint.output;

  // ibpulseLinkHealthTable, in each end's node context (ifIndex = port number): the link is
  // failing at both ends, the switch's end itself is ok; the HCA's BER in units of 1e-18.
  const std::string entry = "1.3.6.1.4.1.8072.9999.9999.1.4.2.1";
  const auto row = [&](uint64_t guid, unsigned port) {
    std::string oids;
    for (unsigned column = 1; column <= 9; ++column)
      oids += fmt::format(" {}.{}.{}", entry, column, port);
    return parse_varbinds(snmp_tool(fmt::format("snmpget -v2c -c public@{} -On -Oq -t 2 -r 1 "
                                                "127.0.0.1:{}{}",
                                                guid_text(guid), d.snmp_port(), oids))
                              .out);
  };
  const auto at = [&](const std::map<std::string, std::string>& values, unsigned column,
                      unsigned port) {
    const auto it = values.find(fmt::format(".{}.{}.{}", entry, column, port));
    return it == values.end() ? std::string("(none)") : it->second;
  };
  const PortInfo& peer = fabric().port(hca.remote_node, hca.remote_port);
  const auto hca_row = row(hca.node_guid, 1);
  EXPECT_EQ(at(hca_row, 1, 1), "3") << "port state failing";
  EXPECT_EQ(at(hca_row, 2, 1), "3") << "link state failing";
  EXPECT_EQ(at(hca_row, 3, 1), "ber_above_spec,error_burst") << "1,000 errors are a burst too";
  EXPECT_GE(std::stod(at(hca_row, 4, 1)), 1000 / (20 * 8e9) * 1e18);
  EXPECT_EQ(at(hca_row, 5, 1), "(none)") << "no RS-FEC totals on ibsim";
  EXPECT_EQ(at(hca_row, 8, 1), guid_text(peer.node_guid));
  EXPECT_EQ(at(hca_row, 9, 1), std::to_string(hca.remote_port));
  const auto peer_row = row(peer.node_guid, hca.remote_port);
  EXPECT_EQ(at(peer_row, 1, hca.remote_port), "1") << "the switch's end receives no errors";
  EXPECT_EQ(at(peer_row, 2, hca.remote_port), "3") << "one link, one state";
  EXPECT_EQ(at(peer_row, 4, hca.remote_port), "0");
  EXPECT_EQ(at(peer_row, 8, hca.remote_port), guid_text(hca.node_guid));

  // /api/health: the failing link first, both ends named; the grid colours the switch's port.
  const auto api = nlohmann::json::parse(http_get(d.web_port(), "/api/health"));
  EXPECT_GE(api["summary"]["failing"].get<int>(), 1) << api.dump();
  const auto& worst = api["links"].at(0);
  EXPECT_EQ(worst["state"], "failing");
  EXPECT_EQ(worst["reasons"], nlohmann::json({"ber_above_spec", "error_burst"}));
  EXPECT_EQ(worst["a"]["node_guid"], guid_text(hca.node_guid));
  EXPECT_EQ(worst["a"]["node"], "Hca1");
  EXPECT_GE(worst["a"]["symbol_ber"].get<double>(), 1000 / (20 * 8e9));
  EXPECT_EQ(worst["b"]["node_guid"], guid_text(peer.node_guid));
  EXPECT_EQ(worst["b"]["port"], hca.remote_port);
  EXPECT_EQ(worst["b"]["state"], "ok");
  // The daemon filters by node name: only Hca2's link, though it is not among the worst.
  const auto hca2 = nlohmann::json::parse(http_get(d.web_port(), "/api/health?filter=%5EHca2%24"));
  ASSERT_EQ(hca2["links"].size(), 1u) << hca2.dump();
  EXPECT_EQ(hca2["links"][0]["a"]["node"], "Hca2");
  EXPECT_EQ(hca2["summary"]["links"], api["summary"]["links"]) << "the summary is the fabric's";
  const auto limited = nlohmann::json::parse(http_get(d.web_port(), "/api/health?links=2"));
  EXPECT_EQ(limited["links"].size(), 2u);
  const auto bad = nlohmann::json::parse(http_get(d.web_port(), "/api/health?filter=Hca%28"));
  EXPECT_NE(bad.value("error", std::string()).find("filter: "), std::string::npos) << bad.dump();
  const auto grid = nlohmann::json::parse(http_get(d.web_port(), "/api/health/grid"));
  bool coloured = false;
  for (const auto& sw : grid["switches"]) {
    if (sw["node_guid"] != guid_text(peer.node_guid)) continue;
    for (const auto& cell : sw["ports"]) {
      if (cell[0] == hca.remote_port) coloured = cell[1] == 2;  // failing, the link's state
    }
  }
  EXPECT_TRUE(coloured) << grid.dump();
}

// The per-speed spec and the UFM-style windows, as an operator sets them: a spec of 1e-6 for
// SDR links lets 1,000 errors in seconds pass (a burst still: degraded, not failing); a UFM
// window allowing 0.48 errors a minute on an 8 Gb/s link does not.
TEST(Health, PerSpeedSpecsAndUfmWindowsAreTheOperatorsToSet) {
  const PortInfo& hca = fabric().port("Hca3", 1);
  const std::string labels = "node_guid=\"" + guid_text(hca.node_guid) + "\",port=\"1\"";
  const auto judged = [&](const std::vector<std::string>& health_args) {
    std::vector<std::string> args = {
        "--web.listen-address",        "127.0.0.1:0", "--poll.counters-interval", "300ms",
        "--counters.publish-interval", "200ms",       "--state.save-interval",    "off"};
    args.insert(args.end(), health_args.begin(), health_args.end());
    Daemon d(fabric(), args);
    EXPECT_TRUE(d.wait_for("event=ready", 10s)) << d.log();
    EXPECT_TRUE(d.wait_for_sweeps(2)) << d.log();
    fabric().set("PerformanceSet \"Hca3\"[1] PortCounters.SymbolErrorCounter=1000");
    std::string scrape;
    // Judged once the errors are in the BER (it rises from 0 with the reading after them).
    EXPECT_TRUE(eventually(
        [&] {
          scrape = http_get(d.web_port(), "/metrics");
          return metric_value(scrape, "infiniband_port_symbol_ber", labels) > 0;
        },
        20s))
        << scrape;
    fabric().set("PerformanceSet \"Hca3\"[1] PortCounters.SymbolErrorCounter=0");
    return scrape;
  };
  std::string scrape = judged({"--health.ber-spec-by-speed", "SDR=1e-6,NDR=1e-12"});
  EXPECT_EQ(metric_value(scrape, "infiniband_port_health_reason_info",
                         labels + ",reason=\"ber_above_spec\""),
            -1)
      << scrape;
  EXPECT_EQ(metric_value(scrape, "infiniband_port_health", labels + ",state=\"degraded\""), 1);
  scrape = judged({"--health.ber-spec-by-speed", "SDR=1e-6", "--health.ber-method", "ufm",
                   "--health.ufm-windows", "SDR=1m:1e-12"});
  EXPECT_EQ(
      metric_value(scrape, "infiniband_port_health_reason_info", labels + ",reason=\"ufm_window\""),
      1)
      << scrape;
  EXPECT_EQ(metric_value(scrape, "infiniband_port_health", labels + ",state=\"failing\""), 1);
}

// A flapping link stays flapping across a restart (health.json beside the counters' state):
// its flaps happened before the new process's windows began.
TEST(Health, AFlappingLinkIsStillFlappingAfterARestart) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("ibpulse-health-restart-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const PortInfo& sw = fabric().port("Switch2", 2);
  const std::string labels = "node_guid=\"" + guid_text(sw.node_guid) + "\",port=\"2\"";
  const std::vector<std::string> args = {"--web.listen-address",
                                         "127.0.0.1:0",
                                         "--poll.counters-interval",
                                         "300ms",
                                         "--counters.publish-interval",
                                         "200ms",
                                         "--state.dir",
                                         dir.string(),
                                         "--state.save-interval",
                                         "1s"};
  std::string scrape;
  {
    Daemon d(fabric(), args);
    ASSERT_TRUE(d.wait_for("event=ready", 10s)) << d.log();
    ASSERT_TRUE(d.wait_for_sweeps(2)) << d.log();
    fabric().set("PerformanceSet \"Switch2\"[2] PortCounters.LinkDownedCounter=7");
    ASSERT_TRUE(eventually(
        [&] {
          scrape = http_get(d.web_port(), "/metrics");
          return metric_value(scrape, "infiniband_port_link_flaps", labels) == 7;
        },
        30s))
        << scrape;
    EXPECT_EQ(
        metric_value(scrape, "infiniband_port_health_reason_info", labels + ",reason=\"flapping\""),
        1);
    d.stop();
  }
  Daemon again(fabric(), args);
  ASSERT_TRUE(again.wait_for(
      "event=health_loaded path=\"" + (dir / "health.json").string() + "\" ports=", 10s))
      << again.log();
  ASSERT_TRUE(again.wait_for_sweeps(2)) << again.log();
  scrape = http_get(again.web_port(), "/metrics");
  fabric().set("PerformanceSet \"Switch2\"[2] PortCounters.LinkDownedCounter=0");
  EXPECT_EQ(metric_value(scrape, "infiniband_port_link_flaps", labels), 7) << scrape;
  EXPECT_EQ(metric_value(scrape, "infiniband_port_health", labels + ",state=\"failing\""), 1);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ibpulse::testing
