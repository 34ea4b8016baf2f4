// Threshold alerts in the daemon on the simulated fabric: rules from the config file (a bad one
// reported with its line and skipped), the default set, what the log and /metrics show while an
// alert is raised and after it cleared.
#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include "daemon_client.h"
#include "sim_fabric.h"

namespace ibpulse::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

SimFabric& fabric() {
  return SimFabricEnvironment::fabric();
}

std::filesystem::path write_config(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("ibpulse-alerts-" + std::to_string(getpid()) + "-" + name + ".yaml");
  std::ofstream(path) << text;
  return path;
}

std::string active_series(const std::string& node, unsigned port, const std::string& rule,
                          const std::string& severity) {
  return "ibpulse_alerts_active{node_guid=\"" + guid_text(fabric().port(node, port).node_guid) +
         "\",port=\"" + std::to_string(port) + "\",rule=\"" + rule + "\",severity=\"" + severity +
         "\"} 1";
}

TEST(Alerts, ABadRuleIsReportedWithItsLineAndTheOthersApply) {
  const auto config = write_config("rules",
                                   "alerts:\n"
                                   "  rules:\n"
                                   "    - name: typo\n"  // line 3
                                   "      counter: symbol_errorz\n"
                                   "      condition: increased\n"
                                   "    - name: rcv_burst\n"  // line 6
                                   "      counter: PortRcvErrors\n"
                                   "      condition: delta > 5\n"
                                   "      window: 6s\n"
                                   "      clear-after: 2s\n"
                                   "      severity: critical\n"
                                   "    - name: bad_regex\n"  // line 12
                                   "      counter: rcv_errors\n"
                                   "      condition: increased\n"
                                   "      scope: {name: \"([\"}\n");
  Daemon d(fabric(), {"--config", config.string(), "--state.save-interval", "off",
                      "--poll.counters-interval", "500ms", "--counters.publish-interval", "500ms"});
  ASSERT_TRUE(d.wait_for("event=ready", 10s)) << d.log();
  EXPECT_NE(d.log().find("event=alert_rule_invalid error=\"" + config.string() +
                         ":3: rule 'typo': unknown counter 'symbol_errorz'"),
            std::string::npos)
      << d.log();
  EXPECT_NE(d.log().find(config.string() + ":12: rule 'bad_regex': name: bad regular expression"),
            std::string::npos)
      << d.log();
  std::this_thread::sleep_for(1500ms);  // a base for the window before the errors
  fabric().set("PerformanceSet \"Hca2\"[1] PortCounters.PortRcvErrors=20");
  ASSERT_TRUE(d.wait_for("event=alert_raised rule=rcv_burst severity=critical node_guid=" +
                             guid_text(fabric().port("Hca2", 1).node_guid) + " port=1",
                         10s))
      << d.log();
  const std::string series = active_series("Hca2", 1, "rcv_burst", "critical");
  EXPECT_NE(http_get(d.web_port(), "/metrics").find(series), std::string::npos);
  EXPECT_NE(d.log().find("counter=rcv_errors delta=20.000 threshold=5.000 window_seconds=6"),
            std::string::npos)
      << d.log();
  // The errors leave the 6 s window, then 2 s of hysteresis.
  ASSERT_TRUE(d.wait_for("event=alert_cleared rule=rcv_burst", 15s)) << d.log();
  EXPECT_EQ(http_get(d.web_port(), "/metrics").find(series), std::string::npos);
  fabric().set("PerformanceSet \"Hca2\"[1] PortCounters.PortRcvErrors=0");
  const std::string log = d.stop();
  EXPECT_EQ(count(log, "event=alert_raised rule=rcv_burst"), 1u) << log;
  std::filesystem::remove(config);
}

TEST(Alerts, TheDefaultRulesReportASymbolErrorBurstWithinTenSeconds) {
  Daemon d(fabric(), {"--state.save-interval", "off"});  // the defaults: 1 s reads and snapshots
  ASSERT_TRUE(d.wait_for("event=ready", 10s)) << d.log();
  std::this_thread::sleep_for(3s);  // a history before the burst
  const auto burst = Clock::now();
  fabric().set("PerformanceSet \"Hca3\"[1] PortCounters.SymbolErrorCounter=400");
  const std::string raised =
      "event=alert_raised rule=symbol_error_burst severity=warning node_guid=" +
      guid_text(fabric().port("Hca3", 1).node_guid) + " port=1";
  ASSERT_TRUE(d.wait_for(raised, 10s)) << d.log();
  EXPECT_LT(Clock::now() - burst, 10s);
  EXPECT_NE(http_get(d.web_port(), "/metrics")
                .find(active_series("Hca3", 1, "symbol_error_burst", "warning")),
            std::string::npos);
  fabric().set("PerformanceSet \"Hca3\"[1] PortCounters.SymbolErrorCounter=0");
  const std::string log = d.stop();
  EXPECT_EQ(count(log, "event=alert_raised rule=symbol_error_burst"), 1u) << log;
}

}  // namespace
}  // namespace ibpulse::testing
