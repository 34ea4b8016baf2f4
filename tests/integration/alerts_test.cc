// Threshold alerts in the daemon on the simulated fabric: rules from the config file (a bad one
// reported with its line and skipped), the default set, what the log and /metrics show while an
// alert is raised and after it cleared.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <csignal>
#include <fstream>
#include <map>
#include <thread>

#include "daemon_client.h"
#include "eventually.h"
#include "sim_fabric.h"
#include "snmp_client.h"
#include "snmptrapd.h"

namespace ibpulse::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

SimFabric& fabric() {
  return SimFabricEnvironment::fabric();
}

std::filesystem::path write_config(const std::string& name, const std::string& text) {
  auto path = std::filesystem::temp_directory_path() /
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
  ASSERT_TRUE(d.wait_for_sweeps(2)) << d.log();  // a base for the window before the errors
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

TEST(Alerts, SighupAppliesANewRuleSet) {
  const std::string rule =
      "alerts:\n"
      "  default-rules: false\n"
      "  rules:\n"
      "    - {name: {}, counter: link_downed, condition: increased, "
      "window: 6s}\n";
  const auto with = [&](const std::string& name) {
    return rule.substr(0, rule.find("{}")) + name + rule.substr(rule.find("{}") + 2);
  };
  const auto config = write_config("hup", with("before_hup"));
  Daemon d(fabric(), {"--config", config.string(), "--state.save-interval", "off",
                      "--poll.counters-interval", "500ms", "--counters.publish-interval", "500ms"});
  ASSERT_TRUE(d.wait_for("event=ready", 10s)) << d.log();
  EXPECT_NE(d.log().find("event=alert_rules rules=1"), std::string::npos) << d.log();
  std::ofstream(config) << with("after_hup");
  d.signal(SIGHUP);
  ASSERT_TRUE(d.wait_for("event=reloaded", 10s)) << d.log();
  ASSERT_TRUE(d.wait_for_sweeps(2)) << d.log();  // a reading under the new rules
  fabric().set("PerformanceSet \"Hca4\"[1] PortCounters.LinkDownedCounter=2");
  ASSERT_TRUE(d.wait_for("event=alert_raised rule=after_hup", 10s)) << d.log();
  fabric().set("PerformanceSet \"Hca4\"[1] PortCounters.LinkDownedCounter=0");
  const std::string log = d.stop();
  EXPECT_EQ(count(log, "rule=before_hup"), 0u) << log;
  std::filesystem::remove(config);
}

TEST(Alerts, TheDefaultRulesReportASymbolErrorBurstWithinTenSeconds) {
  Daemon d(fabric(), {"--state.save-interval", "off"});  // the defaults: 1 s reads and snapshots
  ASSERT_TRUE(d.wait_for("event=ready", 10s)) << d.log();
  ASSERT_TRUE(d.wait_for_sweeps(3)) << d.log();  // a history before the burst
  const double burst = d.sweeps();
  fabric().set("PerformanceSet \"Hca3\"[1] PortCounters.SymbolErrorCounter=400");
  const std::string raised =
      "event=alert_raised rule=symbol_error_burst severity=warning node_guid=" +
      guid_text(fabric().port("Hca3", 1).node_guid) + " port=1";
  ASSERT_TRUE(d.wait_for(raised, 30s)) << d.log();
  // Counted in sweeps, not by the clock: the sweep under way, the one that reads the burst and
  // a snapshot after it. At the default 1 s reads that is well within the ten seconds.
  EXPECT_LE(d.sweeps() - burst, 4) << d.log();
  EXPECT_NE(http_get(d.web_port(), "/metrics")
                .find(active_series("Hca3", 1, "symbol_error_burst", "warning")),
            std::string::npos);
  // The alert self-metrics count what the log reports, raise for raise.
  std::string scrape;
  EXPECT_TRUE(eventually(
      [&] {
        const uint64_t raises = count(d.log(), "event=alert_raised ");
        const uint64_t clears = count(d.log(), "event=alert_cleared ");
        scrape = http_get(d.web_port(), "/metrics");
        return raises >= 1 &&
               scrape.find("\nibpulse_alerts_raised_total " + std::to_string(raises) + "\n") !=
                   std::string::npos &&
               scrape.find("\nibpulse_alerts_cleared_total " + std::to_string(clears) + "\n") !=
                   std::string::npos;
      },
      10s))
      << scrape.substr(scrape.find("ibpulse_alerts"), 600) << d.log();
  fabric().set("PerformanceSet \"Hca3\"[1] PortCounters.SymbolErrorCounter=0");
  const std::string log = d.stop();
  EXPECT_EQ(count(log, "event=alert_raised rule=symbol_error_burst"), 1u) << log;
}

// IBPULSE-MIB (netSnmpExperimental.9999) and IF-MIB objects as snmptrapd prints them.
const std::string kIbpulse = "1.3.6.1.4.1.8072.9999.9999";
const std::string kCrossed = kIbpulse + ".0.1", kCleared = kIbpulse + ".0.2";
const std::string kLinkDown = "1.3.6.1.6.3.1.1.5.3", kLinkUp = "1.3.6.1.6.3.1.1.5.4";

std::vector<TrapNotification> of_kind(const std::vector<TrapNotification>& all,
                                      const std::string& trap_oid) {
  std::vector<TrapNotification> out;
  for (const auto& n : all)
    if (n.trap_oid == trap_oid) out.push_back(n);
  return out;
}

// The SNMPv3 reader of the test that has no v2c community.
const char* const kReader =
    "-v3 -l authPriv -u reader -a SHA-256 -A reader-auth-1 -x AES -X reader-priv-1";

// The default-context ifIndex of ifName `name`, read from the daemon's agent ("" if none).
// The ifIndex of ifName `name`, once the agent serves its first snapshot (its own thread builds
// the view after event=ready).
std::string if_index_of(uint16_t port, const std::string& name,
                        const std::string& access = "-v2c -c public") {
  std::string out;
  std::string index;
  eventually(
      [&] {
        out = snmp_tool("snmpbulkwalk " + access + " -On -Oq -t 2 -r 1 127.0.0.1:" +
                        std::to_string(port) + " 1.3.6.1.2.1.31.1.1.1.1")
                  .out;
        for (const auto& [oid, value] : parse_varbinds(out)) {
          if (value == name) index = oid.substr(oid.rfind('.') + 1);
        }
        return !index.empty();
      },
      20s);
  if (index.empty()) ADD_FAILURE() << "no ifName " << name << " in: " << out;
  return index;
}

// The threshold notification's objects, in IBPULSE-MIB's order after sysUpTime and the trap OID.
void expect_threshold_varbinds(const TrapNotification& n, const std::string& if_index,
                               const std::string& value) {
  ASSERT_EQ(n.varbinds.size(), 13u) << n.security;
  const std::string o = kIbpulse + ".1.3.";
  const std::vector<std::pair<std::string, std::string>> want = {
      {"1.3.6.1.2.1.2.2.1.1." + if_index, "INTEGER " + if_index},
      {o + "1.0", "STRING " + guid_text(fabric().port("Hca3", 1).node_guid)},
      {o + "2.0", "STRING Hca3"},
      {o + "3.0", "Gauge32 1"},
      {o + "4.0", "STRING symbol_error_burst"},
      {o + "5.0", "STRING symbol_error"},
      {o + "6.0", "INTEGER 1"},  // delta
      {o + "7.0", "Counter64 " + value},
      {o + "8.0", "Counter64 10000"},  // 10 in thousandths
      {o + "9.0", "Gauge32 6"},
      {o + "10.0", "INTEGER 2"},  // warning
  };
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(n.varbinds[i + 2].oid, want[i].first) << n.security;
    EXPECT_EQ(n.varbinds[i + 2].type + " " + n.varbinds[i + 2].value, want[i].second)
        << want[i].first << " " << n.security;
  }
}

// Symbol errors on Hca3[1]: one ibpulseThresholdCrossed at a v2c trap sink and at a v3 inform
// sink, then one ibpulseThresholdCleared after the hysteresis; a dead inform sink listed first
// delays neither.
TEST(AlertNotifications, ASymbolErrorBurstIsRaisedOnceAtEverySinkAndClearedAfterTheHysteresis) {
  TrapdUser inform_user{"ibpulse-alerts",     "SHA", "alerts-auth-secret", "AES",
                        "alerts-priv-secret", ""};
  auto v2c = Snmptrapd::start();
  auto v3 = Snmptrapd::start({inform_user});
  ASSERT_TRUE(v2c && v3);
  const uint16_t dead = Snmptrapd::free_port();
  const auto v3_sink = [](const std::string& address) {
    return "{address: \"" + address +
           "\", type: v3-inform, user: ibpulse-alerts, auth-protocol: SHA, auth-password: "
           "alerts-auth-secret, priv-protocol: AES, priv-password: alerts-priv-secret, timeout: "
           "2s, retries: 2}";
  };
  const auto config =
      write_config("sinks",
                   "snmp:\n"
                   "  community: [public]\n"
                   "  trap-sinks:\n"
                   "    - " +
                       v3_sink("127.0.0.1:" + std::to_string(dead)) + "\n" + "    - {address: \"" +
                       v2c->address() + "\", type: v2c-trap, community: public}\n" + "    - " +
                       v3_sink(v3->address()) + "\n" +
                       "alerts:\n"
                       "  rules:\n"
                       "    - {name: symbol_error_burst, window: 6s, clear-after: 3s}\n"
                       // 400 errors also make the link's BER fail (docs/health.md): this
                       // test counts the symbol_error_burst notifications alone.
                       "    - {name: ber_above_spec, enabled: false}\n"
                       "    - {name: health_failing, enabled: false}\n");
  Daemon d(fabric(), {"--config", config.string(), "--snmp.listen", "127.0.0.1:0",
                      "--state.save-interval", "off"});
  ASSERT_TRUE(d.wait_for("event=ready", 10s)) << d.log();
  const std::string if_index = if_index_of(d.snmp_port(), "Hca3/1");
  ASSERT_FALSE(if_index.empty());
  ASSERT_TRUE(d.wait_for_sweeps(2)) << d.log();  // a history before the burst
  const double burst = d.sweeps();
  fabric().set("PerformanceSet \"Hca3\"[1] PortCounters.SymbolErrorCounter=400");
  auto at_v2c = v2c->wait_for(1, 30s);
  ASSERT_EQ(at_v2c.size(), 1u) << d.log() << v2c->output();
  // One counters read and one snapshot (1 s each by default), not the dead sink's 2 s x 3
  // tries: counted in sweeps, not by the clock.
  EXPECT_LE(d.sweeps() - burst, 4) << d.log();
  EXPECT_EQ(at_v2c[0].trap_oid, kCrossed);
  EXPECT_NE(at_v2c[0].security.find("SNMP v2c, community public"), std::string::npos)
      << at_v2c[0].security;
  expect_threshold_varbinds(at_v2c[0], if_index, "400000");
  auto at_v3 = v3->wait_for(1, 10s);
  ASSERT_EQ(at_v3.size(), 1u) << d.log() << v3->output();
  EXPECT_NE(at_v3[0].security.find("INFORM, SNMP v3, user ibpulse-alerts"), std::string::npos)
      << at_v3[0].security;
  expect_threshold_varbinds(at_v3[0], if_index, "400000");
  // The burst leaves the 6 s window, then 3 s of hysteresis: cleared, with the last delta (0).
  at_v2c = v2c->wait_for(2, 20s);
  at_v3 = v3->wait_for(2, 10s);
  fabric().set("PerformanceSet \"Hca3\"[1] PortCounters.SymbolErrorCounter=0");
  for (const auto* got : {&at_v2c, &at_v3}) {
    ASSERT_EQ(got->size(), 2u) << d.log();
    EXPECT_EQ(of_kind(*got, kCrossed).size(), 1u);
    ASSERT_EQ(of_kind(*got, kCleared).size(), 1u);
    expect_threshold_varbinds(of_kind(*got, kCleared)[0], if_index, "0");
  }
  ASSERT_TRUE(d.wait_for_sweeps(2)) << d.log();  // more snapshots evaluated
  EXPECT_EQ(v2c->notifications().size(), 2u);    // nothing more
  const std::string metrics = http_get(d.web_port(), "/metrics");
  EXPECT_NE(metrics.find("\nibpulse_notifications_sent_total 4\n"), std::string::npos)
      << metrics.substr(metrics.find("ibpulse_notif"), 400);
  d.stop();
  std::filesystem::remove(config);
}

// Unlink: IF-MIB linkDown for the switch port that lost its link, with its default-context
// ifIndex; relink: linkUp. Two more flaps within the hold-down add no link notifications. The
// --snmp.trap-sink sink sends v2c traps although v2c reads are off (only an SNMPv3 reader).
TEST(AlertNotifications, UnlinkAndRelinkSendLinkDownAndLinkUpAndFlapsDoNotStorm) {
  auto trapd = Snmptrapd::start();
  ASSERT_TRUE(trapd);
  Daemon d(fabric(),
           {"--snmp.trap-sink", trapd->address(), "--snmp.users",
            R"({"name":"reader","auth-password":"reader-auth-1","priv-password":"reader-priv-1"})",
            "--snmp.listen", "127.0.0.1:0", "--state.save-interval", "off",
            "--poll.port-info-interval", "1s"});
  ASSERT_TRUE(d.wait_for("event=ready", 10s)) << d.log();
  const PortInfo& hca = fabric().port("Hca1", 1);
  const std::string switch_port = hca.remote_node + "/" + std::to_string(hca.remote_port);
  const std::string if_index = if_index_of(d.snmp_port(), switch_port, kReader);
  ASSERT_FALSE(if_index.empty());
  ASSERT_EQ(fabric().sim("link-down", {"Hca1[1]"}).exit_code, 0);
  auto got = trapd->wait_for(1, 15s);
  const auto link_down = of_kind(got, kLinkDown);
  ASSERT_FALSE(link_down.empty()) << d.log() << trapd->output();
  const std::string index_oid = "1.3.6.1.2.1.2.2.1.1." + if_index;
  // The switch end's linkDown (the HCA end may follow: it leaves discovery).
  const auto is_switch_port = [&](const TrapNotification& n) {
    return n.find(index_oid) != nullptr;
  };
  ASSERT_TRUE(std::any_of(link_down.begin(), link_down.end(), is_switch_port)) << trapd->output();
  for (const auto& n : link_down) {
    if (!is_switch_port(n)) continue;
    EXPECT_EQ(n.value_of(index_oid), "INTEGER " + if_index);
    EXPECT_EQ(n.value_of("1.3.6.1.2.1.2.2.1.7." + if_index), "INTEGER 1");  // admin up
    EXPECT_EQ(n.value_of("1.3.6.1.2.1.2.2.1.8." + if_index), "INTEGER 2");  // oper down
  }
  ASSERT_EQ(fabric().sim("link-up", {"Hca1[1]"}).exit_code, 0);
  const auto up_seen = [&] {
    const auto ups = of_kind(trapd->notifications(), kLinkUp);
    return std::count_if(ups.begin(), ups.end(), is_switch_port);
  };
  for (auto t0 = Clock::now(); up_seen() == 0 && Clock::now() - t0 < 15s;)
    std::this_thread::sleep_for(100ms);
  ASSERT_EQ(up_seen(), 1) << d.log() << trapd->output();
  for (const auto& n : of_kind(trapd->notifications(), kLinkUp)) {
    if (is_switch_port(n)) {
      EXPECT_EQ(n.value_of("1.3.6.1.2.1.2.2.1.8." + if_index), "INTEGER 1");
    }
  }
  // Flapping: within the 60 s hold-down no more link notifications for that port. Each flap
  // waits until the daemon saw the port go down and come back to Active.
  const std::string state_changed =
      "event=port_state_changed node_guid=" +
      guid_text(fabric().port(hca.remote_node, hca.remote_port).node_guid) +
      " port=" + std::to_string(hca.remote_port) + " state_before=";
  const auto changes_to = [&](const std::string& state) {
    std::istringstream in(d.log());
    size_t n = 0;
    for (std::string line; std::getline(in, line);)
      n += line.find(state_changed) != std::string::npos &&
           line.find(" state=" + state + " ") != std::string::npos;
    return n;
  };
  const auto wait_changes_to = [&](const std::string& state, size_t n) {
    for (auto t0 = Clock::now(); changes_to(state) < n && Clock::now() - t0 < 15s;)
      std::this_thread::sleep_for(50ms);
    return changes_to(state) >= n;
  };
  ASSERT_TRUE(wait_changes_to("Active", 1)) << d.log();
  for (size_t flap = 1; flap <= 2; ++flap) {
    ASSERT_EQ(fabric().sim("link-down", {"Hca1[1]"}).exit_code, 0);
    ASSERT_TRUE(wait_changes_to("Down", 1 + flap)) << d.log();
    ASSERT_EQ(fabric().sim("link-up", {"Hca1[1]"}).exit_code, 0);
    ASSERT_TRUE(wait_changes_to("Active", 1 + flap)) << d.log();
  }
  // Storm control withheld at least one flap's down and up (a hold-down that let them through
  // would never get here; a flap shorter than the alert interval may not be seen at all): only
  // then is the count of what the sink received meaningful.
  const auto suppressed = [&] {
    const std::string metrics = http_get(d.web_port(), "/metrics");
    const std::string name = "\nibpulse_notifications_suppressed_total ";
    const size_t at = metrics.find(name);
    return at == std::string::npos ? 0 : std::stoull(metrics.substr(at + name.size()));
  };
  for (auto t0 = Clock::now(); suppressed() < 2 && Clock::now() - t0 < 15s;)
    std::this_thread::sleep_for(100ms);
  ASSERT_GE(suppressed(), 2u) << d.log();
  size_t switch_link_notifications = 0;
  for (const auto& n : trapd->notifications()) {
    switch_link_notifications +=
        (n.trap_oid == kLinkDown || n.trap_oid == kLinkUp) && is_switch_port(n);
  }
  EXPECT_EQ(switch_link_notifications, 2u) << trapd->output();
  const std::string log = d.stop();
  EXPECT_NE(log.find("event=alert_raised rule=port_down"), std::string::npos) << log;
}

}  // namespace
}  // namespace ibpulse::testing
