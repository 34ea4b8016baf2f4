// The subnet manager's traps on the simulated fabric: the daemon subscribes (InformInfo Sets to
// opensm's SA), opensm forwards the trap 128 an ibsim switch issues when a link goes down, and
// the test tools' sm_report stands in for the SM with the traps ibsim cannot make (131,
// 256, 257, 259, and a trap IB-SMA-MIB has no notification for). A real snmptrapd receives the
// notifications.
//
// ibsim hands a Report only to the client holding the SM role at its node: the daemon runs
// with SIM_SET_ISSM=1 at Hca3 (the fabric's opensm is at Switch1).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "daemon_client.h"
#include "eventually.h"
#include "sim_fabric.h"
#include "snmptrapd.h"

namespace ibpulse::testing {
namespace {

using namespace std::chrono_literals;

SimFabric& fabric() {
  return SimFabricEnvironment::fabric();
}

const std::string kSmaTrap = "1.3.6.1.3.117.3.2.0.";
std::string sma_object(unsigned column) {
  return fmt::format("1.3.6.1.3.117.3.1.1.{}.0", column);
}
const std::string kNotifGuid = "1.3.6.1.4.1.8072.9999.9999.1.3.1.0";
const std::string kNotifName = "1.3.6.1.4.1.8072.9999.9999.1.3.2.0";

// The daemon that takes the SM's Reports, with its own snmptrapd.
struct Subscriber {
  std::unique_ptr<Snmptrapd> trapd = Snmptrapd::start();
  std::unique_ptr<Daemon> daemon;

  explicit Subscriber(std::vector<std::string> more = {}) {
    std::vector<std::string> args = {"--snmp.trap-sink",         trapd->address(),
                                     "--state.save-interval",    "off",
                                     "--discovery.interval",     "1h",
                                     "--poll.counters-interval", "500ms"};
    args.insert(args.end(), more.begin(), more.end());
    daemon = std::make_unique<Daemon>(fabric(), args, "Hca3", sim::EnvVars{{"SIM_SET_ISSM", "1"}});
  }
  double metric(const std::string& name, const std::string& labels = "") const {
    return metric_value(http_get(daemon->web_port(), "/metrics"), name, labels);
  }
  // Waits until the SA acknowledged `sets` more InformInfo Sets than `before`.
  bool subscribed(double before = 0, double sets = 10) const {
    return eventually([&] { return metric("ibpulse_sm_subscriptions_total") >= before + sets; },
                      30s);
  }
  // The notifications of one IB-SMA-MIB notification number, once one has come.
  std::vector<TrapNotification> wait_trap(unsigned n) const {
    std::vector<TrapNotification> got;
    eventually(
        [&] {
          got.clear();
          for (const auto& t : trapd->wait_for(trapd->notifications().size() + 1, 200ms))
            if (t.trap_oid == kSmaTrap + std::to_string(n)) got.push_back(t);
          return !got.empty();
        },
        20s);
    return got;
  }
};

// `sm_report --to <Hca3's LID> args...` from Hca1: exit status 0 once the daemon answered.
int report(const std::vector<std::string>& args) {
  std::vector<std::string> command = {SM_REPORT, "--to", std::to_string(fabric().lid("Hca3", 1))};
  command.insert(command.end(), args.begin(), args.end());
  const auto run = fabric().exec(command, "Hca1");
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  return run.exit_code;
}

// The log's trap 128s the subnet manager forwarded (the daemon sends its own too).
size_t forwarded_128s(const std::string& log) {
  size_t n = 0;
  for (size_t at = 0; (at = log.find("event=sma_trap trap=128 ", at)) != std::string::npos; ++at) {
    const std::string line = log.substr(at, log.find('\n', at) - at);
    n += line.find(" source=sm ") != std::string::npos;
  }
  return n;
}

TEST(SmTraps, TheSubnetManagersLinkTrapBecomesIbSmaPortLinkStateChange) {
  Subscriber s;
  ASSERT_TRUE(s.trapd);
  ASSERT_TRUE(s.daemon->wait_for("event=ready", 15s)) << s.daemon->log();
  ASSERT_TRUE(s.subscribed()) << s.daemon->log();
  ASSERT_EQ(fabric().sim("link-down", {"Hca4[1]"}).exit_code, 0);
  const bool seen =
      s.daemon->wait_for("source=sm issuer_lid=" + std::to_string(fabric().lid("Switch2", 1)), 20s);
  ASSERT_EQ(fabric().sim("link-up", {"Hca4[1]"}).exit_code, 0);
  ASSERT_TRUE(seen) << s.daemon->log();
  const auto changes = s.wait_trap(1);
  ASSERT_FALSE(changes.empty()) << s.trapd->output();
  EXPECT_EQ(changes[0].value_of(sma_object(14)),
            "Gauge32 " + std::to_string(fabric().lid("Switch2", 1)));
  EXPECT_EQ(changes[0].value_of(kNotifName), "STRING Switch2")
      << s.trapd->output() << s.daemon->log();
  EXPECT_GE(s.metric("ibpulse_sm_reports_total"), 1);
  EXPECT_EQ(s.metric("ibpulse_sm_subscription_failures_total"), 0);
}

TEST(SmTraps, KeyViolationsTheSimulatorCannotMakeCarryEveryObject) {
  Subscriber s;
  ASSERT_TRUE(s.trapd);
  ASSERT_TRUE(s.daemon->wait_for("event=ready", 15s)) << s.daemon->log();
  ASSERT_TRUE(s.subscribed()) << s.daemon->log();
  const unsigned hca4 = fabric().lid("Hca4", 1);
  // A bad P_Key seen at Hca4 (the issuer), sent by LID 2 from QP 0x123456 on SL 3.
  ASSERT_EQ(report({"--trap",       "257",
                    "--issuer-lid", std::to_string(hca4),
                    "--lid",        "2",
                    "--lid2",       std::to_string(hca4),
                    "--key",        "0x8001",
                    "--sl",         "3",
                    "--qp1",        "0x123456",
                    "--qp2",        "0x42",
                    "--gid1",       "fe800000000000000000000000100004",
                    "--gid2",       "fe800000000000000000000000100009"}),
            0);
  const auto bad = s.wait_trap(8);
  ASSERT_EQ(bad.size(), 1u) << s.trapd->output() << s.daemon->log();
  const TrapNotification& b = bad[0];
  ASSERT_EQ(b.varbinds.size(), 12u) << s.trapd->output();
  EXPECT_EQ(b.varbinds[2].oid, sma_object(19));  // the OBJECTS order: the key first
  EXPECT_EQ(b.value_of(sma_object(19)), "Hex-STRING 00 00 00 00 00 00 80 01");
  EXPECT_EQ(b.value_of(sma_object(14)), "Gauge32 2");
  EXPECT_EQ(b.value_of(sma_object(24)),
            "Hex-STRING FE 80 00 00 00 00 00 00 00 00 00 00 00 10 00 04");
  EXPECT_EQ(b.value_of(sma_object(22)), "Gauge32 1193046");  // 0x123456
  EXPECT_EQ(b.value_of(sma_object(20)), "Gauge32 " + std::to_string(hca4));
  EXPECT_EQ(b.value_of(sma_object(25)),
            "Hex-STRING FE 80 00 00 00 00 00 00 00 00 00 00 00 10 00 09");
  EXPECT_EQ(b.value_of(sma_object(23)), "Gauge32 66");
  EXPECT_EQ(b.value_of(sma_object(21)), "Gauge32 3");
  EXPECT_EQ(b.value_of(kNotifGuid), "STRING " + guid_text(fabric().port("Hca4", 1).node_guid));
  EXPECT_EQ(b.value_of(kNotifName), "STRING Hca4");

  // Dropped at Switch2's port 2: the switch is named, its port, and which fields hold.
  const unsigned sw2 = fabric().lid("Switch2", 1);
  ASSERT_EQ(report({"--trap",       "259",  "--issuer-lid", std::to_string(sw2),
                    "--data-valid", "0xc5", "--lid",        std::to_string(hca4),
                    "--lid2",       "2",    "--key",        "0x7fff",
                    "--sl",         "1",    "--qp1",        "7",
                    "--qp2",        "9",    "--switch-lid", std::to_string(sw2),
                    "--port",       "2"}),
            0);
  const auto at_switch = s.wait_trap(10);
  ASSERT_EQ(at_switch.size(), 1u) << s.trapd->output();
  const TrapNotification& w = at_switch[0];
  ASSERT_EQ(w.varbinds.size(), 15u) << s.trapd->output();
  EXPECT_EQ(w.value_of(sma_object(19)), "Hex-STRING 00 00 00 00 00 00 7F FF");
  EXPECT_EQ(w.value_of(sma_object(27)), "Gauge32 " + std::to_string(sw2));
  EXPECT_EQ(w.value_of(sma_object(15)), "Gauge32 2");
  EXPECT_EQ(w.value_of(sma_object(28)), "Hex-STRING A3");  // lidaddr1 pkey gidaddr1 gidaddr2
  EXPECT_EQ(w.value_of(kNotifName), "STRING Switch2");

  // A bad M_Key at Switch2 from LID 2: the key given, the method and attribute it tried.
  ASSERT_EQ(report({"--trap", "256", "--issuer-lid", std::to_string(sw2), "--lid", "2", "--method",
                    "2", "--attr-id", "0x15", "--attr-mod", "3", "--key", "0x0123456789abcdef"}),
            0);
  const auto bad_key = s.wait_trap(7);
  ASSERT_EQ(bad_key.size(), 1u) << s.trapd->output();
  const TrapNotification& k = bad_key[0];
  ASSERT_EQ(k.varbinds.size(), 9u) << s.trapd->output();
  EXPECT_EQ(k.value_of(sma_object(14)), "Gauge32 2");
  EXPECT_EQ(k.value_of(sma_object(19)), "Hex-STRING 01 23 45 67 89 AB CD EF");
  EXPECT_EQ(k.value_of(sma_object(16)), "Gauge32 2");
  EXPECT_EQ(k.value_of(sma_object(17)), "Gauge32 21");
  EXPECT_EQ(k.value_of(sma_object(18)), "Gauge32 3");
  EXPECT_EQ(k.value_of(kNotifName), "STRING Switch2");

  // Switch2's port 3 flow control watchdog: the switch's LID and the port.
  ASSERT_EQ(report({"--trap", "131", "--lid", std::to_string(sw2), "--port", "3"}), 0);
  const auto watchdog = s.wait_trap(4);
  ASSERT_EQ(watchdog.size(), 1u) << s.trapd->output();
  ASSERT_EQ(watchdog[0].varbinds.size(), 6u) << s.trapd->output();
  EXPECT_EQ(watchdog[0].value_of(sma_object(14)), "Gauge32 " + std::to_string(sw2));
  EXPECT_EQ(watchdog[0].value_of(sma_object(15)), "Gauge32 3");
  EXPECT_EQ(watchdog[0].value_of(kNotifName), "STRING Switch2");

  // A trap IB-SMA-MIB does not translate (64, GID in service): answered, counted, not sent.
  ASSERT_EQ(report({"--trap", "64"}), 0);
  ASSERT_TRUE(
      eventually([&] { return s.metric("ibpulse_sm_reports_untranslatable_total") == 1; }, 10s))
      << s.daemon->log();
  EXPECT_EQ(s.metric("ibpulse_sm_reports_total"), 5);
  EXPECT_EQ(s.metric("ibpulse_sma_notifications_total", "trap=\"257\""), 1);
  EXPECT_EQ(s.metric("ibpulse_sma_notifications_total", "trap=\"259\""), 1);
  EXPECT_NE(s.daemon->log().find("event=sm_report_untranslatable"), std::string::npos);
}

// opensm keeps subscriptions in memory: restarted (`sim lid` restarts it), it has none until
// the daemon's refresh sends them again, and then forwards the next link trap.
TEST(SmTraps, ARestartedSubnetManagerIsSubscribedAgain) {
  Subscriber s({"--sm.subscription-refresh", "1s"});
  ASSERT_TRUE(s.trapd);
  ASSERT_TRUE(s.daemon->wait_for("event=ready", 15s)) << s.daemon->log();
  ASSERT_TRUE(s.subscribed()) << s.daemon->log();
  static unsigned next_lid = 40;  // another LID at each repetition
  const auto restarted = fabric().sim("lid", {"Hca2[1]", std::to_string(++next_lid)});
  ASSERT_EQ(restarted.exit_code, 0) << restarted.err;
  ASSERT_TRUE(s.subscribed(s.metric("ibpulse_sm_subscriptions_total"))) << s.daemon->log();
  const size_t before = forwarded_128s(s.daemon->log());
  ASSERT_EQ(fabric().sim("link-down", {"Hca4[1]"}).exit_code, 0);
  const bool seen = eventually([&] { return forwarded_128s(s.daemon->log()) > before; }, 20s);
  ASSERT_EQ(fabric().sim("link-up", {"Hca4[1]"}).exit_code, 0);
  EXPECT_TRUE(seen) << s.daemon->log();
}

}  // namespace
}  // namespace ibpulse::testing

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new ibpulse::testing::SimFabricEnvironment());
  return RUN_ALL_TESTS();
}
