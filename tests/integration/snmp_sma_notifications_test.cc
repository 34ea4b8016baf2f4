// IB-SMA-MIB's notifications on the simulated fabric (the SMA test binary's: its main() and
// fabric are snmp_sma_test.cc's), received by a real snmptrapd.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "daemon_client.h"
#include "eventually.h"
#include "sim_fabric.h"
#include "sma_fabric.h"
#include "snmptrapd.h"

namespace ibpulse::testing {
namespace {

using namespace std::chrono_literals;

// IB-SMA-MIB's notifications for what the daemon sees on the fabric, with every varbind: 129 and
// 130 when LocalLinkIntegrityErrors and ExcessiveBufferOverrunErrors grow past the port's
// PortInfo thresholds (0 in ibsim: any growth), 128 when a switch port's link goes down; 130
// turned off by snmp.sma-notifications is neither sent nor counted.
std::vector<TrapNotification> with_trap(const std::vector<TrapNotification>& all,
                                        const std::string& trap_oid) {
  std::vector<TrapNotification> out;
  for (const auto& n : all)
    if (n.trap_oid == trap_oid) out.push_back(n);
  return out;
}

const std::string kSmaTrap = "1.3.6.1.3.117.3.2.0.";
const std::string kSmaLid = "1.3.6.1.3.117.3.1.1.14.0";
const std::string kSmaPortNum = "1.3.6.1.3.117.3.1.1.15.0";
const std::string kNotifGuid = "1.3.6.1.4.1.8072.9999.9999.1.3.1.0";
const std::string kNotifName = "1.3.6.1.4.1.8072.9999.9999.1.3.2.0";

TEST(SmaNotifications, ThresholdsAndLinkChangesBecomeIbSmaMibNotifications) {
  auto trapd = Snmptrapd::start();
  ASSERT_TRUE(trapd);
  Daemon d(fabric(), {"--snmp.trap-sink", trapd->address(), "--snmp.sma-notifications", "128,129",
                      "--state.save-interval", "off", "--poll.port-info-interval", "1s",
                      "--poll.counters-interval", "300ms", "--counters.publish-interval", "200ms",
                      "--discovery.interval", "1h", "--alerts.sma-window", "1h"});
  ASSERT_TRUE(d.wait_for("event=ready", 15s)) << d.log();
  ASSERT_TRUE(d.wait_for_sweeps(2)) << d.log();  // both counters read once: the windows' start
  const auto grow = [&](const std::string& node, unsigned port, const std::string& field,
                        uint64_t by) {
    const uint64_t now = fabric().perfquery(node, port, field);
    fabric().set(
        fmt::format("PerformanceSet \"{}\"[{}] PortCounters.{}={}", node, port, field, now + by));
  };
  // The notifications of one SMA trap, once one has come (the default threshold rules send
  // theirs too).
  const auto wait_trap = [&](int n) {
    std::vector<TrapNotification> got;
    for (auto t0 = std::chrono::steady_clock::now();
         got.empty() && std::chrono::steady_clock::now() - t0 < 15s;) {
      got = with_trap(trapd->wait_for(trapd->notifications().size() + 1, 200ms),
                      kSmaTrap + std::to_string(n));
    }
    return got;
  };
  grow("Hca3", 1, "LocalLinkIntegrityErrors", 2);
  grow("Switch2", 2, "ExcessiveBufferOverrunErrors", 3);  // 130: off
  const auto integrity = wait_trap(2);
  ASSERT_EQ(integrity.size(), 1u) << trapd->output() << d.log();
  const TrapNotification& n = integrity[0];
  ASSERT_EQ(n.varbinds.size(), 6u) << trapd->output();
  EXPECT_EQ(n.varbinds[0].oid, "1.3.6.1.2.1.1.3.0");
  EXPECT_EQ(n.varbinds[1].oid, "1.3.6.1.6.3.1.1.4.1.0");
  EXPECT_EQ(n.varbinds[2].oid, kSmaLid);
  EXPECT_EQ(n.value_of(kSmaLid), "Gauge32 " + std::to_string(fabric().lid("Hca3", 1)));
  EXPECT_EQ(n.value_of(kSmaPortNum), "Gauge32 1");
  EXPECT_EQ(n.value_of(kNotifGuid), "STRING " + guid_context("Hca3"));
  EXPECT_EQ(n.value_of(kNotifName), "STRING Hca3");

  // 128: Switch2's port to Hca4 goes down; the notification names the switch by its LID.
  ASSERT_EQ(fabric().sim("link-down", {"Hca4[1]"}).exit_code, 0);
  const auto changes = wait_trap(1);
  ASSERT_EQ(fabric().sim("link-up", {"Hca4[1]"}).exit_code, 0);
  ASSERT_FALSE(changes.empty()) << trapd->output() << d.log();
  const TrapNotification& c = changes[0];
  ASSERT_EQ(c.varbinds.size(), 5u) << trapd->output();
  EXPECT_EQ(c.value_of(kSmaLid), "Gauge32 " + std::to_string(fabric().lid("Switch2", 2)));
  EXPECT_EQ(c.value_of(kNotifGuid), "STRING " + guid_context("Switch2"));
  EXPECT_EQ(c.value_of(kNotifName), "STRING Switch2");

  const std::string metrics = http_get(d.web_port(), "/metrics");
  EXPECT_EQ(metric_value(metrics, "ibpulse_sma_notifications_total", "trap=\"129\""), 1);
  EXPECT_EQ(metric_value(metrics, "ibpulse_sma_notifications_total", "trap=\"130\""), 0);
  EXPECT_GE(metric_value(metrics, "ibpulse_sma_notifications_total", "trap=\"128\""), 1);
  EXPECT_TRUE(with_trap(trapd->notifications(), kSmaTrap + "3").empty()) << trapd->output();
  EXPECT_NE(d.log().find("event=sma_trap trap=130"), std::string::npos) << d.log();
  // The link back up before the other tests read the fabric.
  ASSERT_TRUE(eventually(
      [&] {
        const std::string pi = smp("portinfo", fabric().lid("Hca4", 1), "1");
        return smpquery_field(pi, "LinkState") == "Active";
      },
      30s));
}

// 130 with its varbinds: a switch port's ExcessiveBufferOverrunErrors grows past its PortInfo
// OverrunErrorThreshold; the notification names the switch by its LID and the port.
TEST(SmaNotifications, BufferOverrunsPastTheThresholdAre130) {
  auto trapd = Snmptrapd::start();
  ASSERT_TRUE(trapd);
  Daemon d(fabric(), {"--snmp.trap-sink", trapd->address(), "--snmp.sma-notifications", "130",
                      "--state.save-interval", "off", "--poll.counters-interval", "300ms",
                      "--counters.publish-interval", "200ms", "--discovery.interval", "1h"});
  ASSERT_TRUE(d.wait_for("event=ready", 15s)) << d.log();
  ASSERT_TRUE(d.wait_for_sweeps(2)) << d.log();
  const uint64_t now = fabric().perfquery("Switch1", 3, "ExcessiveBufferOverrunErrors");
  fabric().set(fmt::format(
      "PerformanceSet \"Switch1\"[3] PortCounters.ExcessiveBufferOverrunErrors={}", now + 4));
  std::vector<TrapNotification> overruns;
  for (auto t0 = std::chrono::steady_clock::now();
       overruns.empty() && std::chrono::steady_clock::now() - t0 < 15s;) {
    overruns = with_trap(trapd->wait_for(trapd->notifications().size() + 1, 200ms), kSmaTrap + "3");
  }
  ASSERT_EQ(overruns.size(), 1u) << trapd->output() << d.log();
  const TrapNotification& n = overruns[0];
  ASSERT_EQ(n.varbinds.size(), 6u) << trapd->output();
  EXPECT_EQ(n.varbinds[2].oid, kSmaLid);
  EXPECT_EQ(n.value_of(kSmaLid), "Gauge32 " + std::to_string(fabric().lid("Switch1", 3)));
  EXPECT_EQ(n.varbinds[3].oid, kSmaPortNum);
  EXPECT_EQ(n.value_of(kSmaPortNum), "Gauge32 3");
  EXPECT_EQ(n.value_of(kNotifGuid), "STRING " + guid_context("Switch1"));
  EXPECT_EQ(n.value_of(kNotifName), "STRING Switch1");
  EXPECT_NE(
      d.log().find("event=sma_trap trap=130 node_guid=" + guid_context("Switch1") + " port=3"),
      std::string::npos)
      << d.log();
}

}  // namespace
}  // namespace ibpulse::testing
