// `ibpulse run` on the simulated fabric: ready after its first full sweep, clean stop, config
// errors that name file and line, loss handled with stale ports, a downed link followed.
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>
#include <thread>

#include "daemon_client.h"
#include "eventually.h"
#include "sim_fabric.h"

namespace ibpulse::testing {
namespace {

using namespace std::chrono_literals;

SimFabric& fabric() {
  return SimFabricEnvironment::fabric();
}

constexpr unsigned kSimMtu = 2048;  // ibsim's NeighborMTU (4), in octets

std::vector<double> sweep_seconds(const std::string& log) {
  std::vector<double> out;
  const std::regex re("event=(?:ready|sweep) .*sweep_seconds=([0-9.]+)");
  for (std::sregex_iterator it(log.begin(), log.end(), re), end; it != end; ++it) {
    out.push_back(std::stod((*it)[1]));
  }
  return out;
}

TEST(Daemon, ReadyAfterTheFirstSweepAndStopsCleanly) {
  const auto out = fabric().exec({IBPULSE_BINARY_FOR_TESTS, "run", "--exit-after-sweeps", "3",
                                  "--poll.counters-interval", "300ms", "--log.level", "debug"});
  EXPECT_EQ(out.exit_code, 0) << out.err;
  EXPECT_NE(out.err.find("event=mad_window_capped window=256 cap=64"), std::string::npos)
      << out.err;
  EXPECT_NE(out.err.find("event=discovered nodes=6 switches=2 ports=24 linked=12"),
            std::string::npos)
      << out.err;
  const auto ready = out.err.find("event=ready ports=12 stale=0");
  ASSERT_NE(ready, std::string::npos) << out.err;
  EXPECT_LT(out.err.find("event=discovered"), ready);
  EXPECT_EQ(count(out.err, "event=sweep sweep="), 2u) << out.err;
  EXPECT_NE(out.err.find("ring_drops=0"), std::string::npos);
  EXPECT_NE(out.err.find("failed_timeout=0 failed_unreachable=0"), std::string::npos) << out.err;
}

TEST(Daemon, SwitchPort0IsReadOnlyWhenAskedFor) {
  const std::vector<std::string> base = {
      IBPULSE_BINARY_FOR_TESTS,   "run",   "--exit-after-sweeps", "2",
      "--poll.counters-interval", "300ms", "--log.level",         "trace"};
  auto out = fabric().exec(base);
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_EQ(out.err.find(" port=0 attribute="), std::string::npos) << "port 0 is opt-in";
  auto with_port0 = base;
  with_port0.insert(with_port0.end(), {"--poll.switch-port0", "true"});
  out = fabric().exec(with_port0);
  ASSERT_EQ(out.exit_code, 0) << out.err;
  // Two switches: their port 0 counters (PortCounters and Extended) are read, without
  // counting as links: the sweep still waits for the 12 linked ports only.
  EXPECT_NE(out.err.find("event=ready ports=12 stale=0"), std::string::npos) << out.err;
  std::set<std::string> port0_nodes;
  for (size_t at = out.err.find(" port=0 attribute=PortCounters failure=none");
       at != std::string::npos;
       at = out.err.find(" port=0 attribute=PortCounters failure=none", at + 1)) {
    const auto guid = out.err.rfind("node_guid=", at);
    port0_nodes.insert(out.err.substr(guid + 10, 18));
  }
  EXPECT_EQ(port0_nodes.size(), 2u) << out.err;
}

TEST(Daemon, SigtermStopsIt) {
  Daemon d(fabric(), {"--poll.counters-interval", "200ms"});
  ASSERT_TRUE(d.wait_for("event=ready", 10s)) << d.log();
  d.signal(SIGTERM);
  ASSERT_TRUE(d.wait_for("event=stopped", 5s)) << d.log();
}

TEST(Daemon, ConfigErrorsNameFileLineAndKey) {
  const auto dir = std::filesystem::temp_directory_path();
  const auto file = dir / ("ibpulse-config-" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(file) << "mad:\n  window: 64\n  windw: 3\n";
  auto out = run_ibpulse({"run", "--config", file.string()});
  EXPECT_EQ(out.exit_code, 1);
  EXPECT_NE(out.err.find(file.string() + ":3: unknown key 'mad.windw'"), std::string::npos)
      << out.err;

  // Found by the config fuzz target: a rule (a map in a list) holding invalid UTF-8 once made
  // the daemon terminate. YAML is UTF-8; such text would reach labels and logs: refused.
  std::ofstream(file) << "alerts:\n  rules:\n    - name: x\xf7y\n";
  out = run_ibpulse({"run", "--config", file.string()});
  EXPECT_EQ(out.exit_code, 1) << out.err;
  EXPECT_NE(out.err.find(file.string() + ":2: alerts.rules: a value is not valid UTF-8 text"),
            std::string::npos)
      << out.err;

  std::ofstream(file) << "poll:\n  counters-interval: often\n";
  out = run_ibpulse({"run", "--config", file.string()});
  EXPECT_EQ(out.exit_code, 1);
  EXPECT_NE(out.err.find(":2: poll.counters-interval: expected a duration"), std::string::npos)
      << out.err;

  out = run_ibpulse({"run", "--mad.window", "0"});
  EXPECT_EQ(out.exit_code, 1);
  EXPECT_NE(out.err.find("--mad.window: expected a whole number from 1 to 4096"), std::string::npos)
      << out.err;

  // A flag overrides the file: the bad file value is never read.
  std::ofstream(file) << "mad:\n  retries: lots\n";
  out = run_ibpulse({"run", "--config", file.string(), "--mad.retries", "2", "--help"});
  EXPECT_EQ(out.exit_code, 0);
  std::filesystem::remove(file);
}

TEST(Daemon, LossyPortIsStaleButNeverDroppedAndSweepsKeepTime) {
  ASSERT_EQ(fabric().sim("error", {"Hca2[1]", "100", "--attribute", "PortCounters"}).exit_code, 0);
  const auto out = fabric().exec({IBPULSE_BINARY_FOR_TESTS, "run", "--exit-after-sweeps", "4",
                                  "--poll.counters-interval", "500ms", "--mad.timeout", "20ms",
                                  "--mad.retries", "2", "--discovery.interval", "1h"});
  ASSERT_EQ(fabric().sim("error", {"Hca2[1]", "0"}).exit_code, 0);
  EXPECT_EQ(out.exit_code, 0) << out.err;
  // Every sweep still covers all 12 ports, the unreadable one counted stale.
  EXPECT_NE(out.err.find("event=ready ports=12 stale=1"), std::string::npos) << out.err;
  EXPECT_EQ(count(out.err, "ports=12 stale=1"), 4u) << out.err;
  for (double s : sweep_seconds(out.err))
    EXPECT_LT(s, 0.75) << "a sweep overran its interval";
  EXPECT_GT(stopped_stat(out.err, "failed_unreachable"), 0u) << out.err;
}

TEST(Daemon, HalfTheMadsLostStillReadsEveryPortOverTenSweeps) {
  ASSERT_EQ(fabric().sim("error", {"Hca3[1]", "50", "--attribute", "PortCounters"}).exit_code, 0);
  const auto out = fabric().exec({IBPULSE_BINARY_FOR_TESTS, "run", "--exit-after-sweeps", "10",
                                  "--poll.counters-interval", "200ms", "--mad.timeout", "20ms",
                                  "--discovery.interval", "1h", "--log.level", "debug"});
  ASSERT_EQ(fabric().sim("error", {"Hca3[1]", "0"}).exit_code, 0);
  EXPECT_EQ(out.exit_code, 0) << out.err;
  const auto sweeps = sweep_seconds(out.err);
  EXPECT_EQ(sweeps.size(), 10u) << out.err;
  for (double s : sweeps)
    EXPECT_LT(s, 0.3) << "a sweep overran its interval";
  // Stale at most in some sweeps; the lost MADs were retried.
  EXPECT_LT(count(out.err, "stale=1"), 10u);
  EXPECT_GT(stopped_stat(out.err, "mad_unreachable"), 0u) << out.err;
  EXPECT_GT(stopped_stat(out.err, "mad_retried"), 0u) << out.err;
}

// A node whose SMPs are all lost drops out of discovery; its ports stay polled (stale) until
// discovery.missing-limit discoveries in a row miss it, then they are dropped.
TEST(Daemon, ANodeDiscoveryLosesKeepsItsPortsUntilDiscoveriesAgree) {
  Daemon d(fabric(), {"--poll.counters-interval", "300ms", "--mad.timeout", "20ms", "--mad.retries",
                      "0", "--discovery.interval", "1s", "--discovery.timeout", "20ms",
                      "--discovery.retries", "0", "--discovery.missing-limit", "3", "--log.level",
                      "debug", "--state.save-interval", "off"});
  ASSERT_TRUE(d.wait_for("event=ready ports=12 stale=0", 15s)) << d.log();
  const std::string hca = guid_text(fabric().port("Hca2", 1).node_guid);
  ASSERT_EQ(fabric().sim("error", {"Hca2[1]", "100"}).exit_code, 0);  // SMPs and MADs alike
  const bool gone = d.wait_for("event=node_gone node_guid=" + hca, 30s);
  ASSERT_EQ(fabric().sim("error", {"Hca2[1]", "0"}).exit_code, 0);
  ASSERT_TRUE(gone) << d.log();
  ASSERT_TRUE(d.wait_for("event=node_missing node_guid=" + hca + " misses=2 limit=3", 1s));
  // Between the first miss and the drop, every sweep still covered all 12 ports, Hca2's stale.
  const std::string log = d.log();
  const size_t first_miss = log.find("event=node_missing node_guid=" + hca + " misses=1");
  const size_t dropped = log.find("event=node_gone node_guid=" + hca);
  ASSERT_NE(first_miss, std::string::npos) << log;
  const std::string kept = log.substr(first_miss, dropped - first_miss);
  const std::regex sweep("event=sweep sweep=[0-9]+ ports=([0-9]+) stale=([0-9]+)");
  size_t sweeps = 0;
  for (std::sregex_iterator it(kept.begin(), kept.end(), sweep), end; it != end; ++it, ++sweeps)
    EXPECT_EQ((*it)[1], "12") << it->str();
  EXPECT_GE(sweeps, 2u) << kept;
  EXPECT_NE(kept.find("ports=12 stale=1"), std::string::npos) << kept;
  // Found again by a later discovery once its SMPs are answered: whole sweeps again.
  EXPECT_TRUE(eventually(
      [&] { return d.log().find("ports=12 stale=0", dropped) != std::string::npos; }, 15s))
      << d.log();
}

// The MADs of `attribute` crossing `port` dropped while alive (ibsim's `Error`), and answered
// again when destroyed, a failed assertion included.
class LossyPort {
 public:
  LossyPort(std::string port, const std::string& attribute) : port_(std::move(port)) {
    ok_ = fabric().sim("error", {port_, "100", "--attribute", attribute}).exit_code == 0;
  }
  ~LossyPort() { fabric().sim("error", {port_, "0"}); }
  bool ok() const { return ok_; }

 private:
  std::string port_;
  bool ok_ = false;
};

// A discovery that finds a node but loses its port's PortInfo SMPs (0x15) gets the port with
// PortInfo all zeros, LID 0: it would no longer be polled, its series frozen while every sweep
// said stale=0. It keeps its last PortInfo instead, is still read, and is reported.
TEST(Daemon, APortWhosePortInfoADiscoveryLosesStaysPolled) {
  Daemon d(fabric(), {"--poll.counters-interval", "300ms", "--discovery.interval", "1s",
                      "--discovery.timeout", "20ms", "--discovery.retries", "0", "--log.level",
                      "debug", "--state.save-interval", "off"});
  ASSERT_TRUE(d.wait_for("event=ready ports=12 stale=0", 15s)) << d.log();
  const std::string hca = guid_text(fabric().port("Hca2", 1).node_guid);
  const std::string series = "node_guid=\"" + hca + "\",port=\"1\"";
  {
    LossyPort lossy("Hca2[1]", "0x15");  // PortInfo
    ASSERT_TRUE(lossy.ok());
    ASSERT_TRUE(d.wait_for("event=port_info_missing kept=1 unknown=0 first=" + hca + "[1]", 15s))
        << d.log();
    // Set after that discovery's topology was adopted: only a read by the kept LID shows it.
    fabric().set("PerformanceSet \"Hca2\"[1] PortCounters.SymbolErrorCounter=5");
    std::string metrics;
    EXPECT_TRUE(eventually(
        [&] {
          metrics = http_get(d.web_port(), "/metrics");
          return metric_value(metrics, "infiniband_port_symbol_error_total", series) == 5;
        },
        15s))
        << metrics;
    EXPECT_EQ(metric_value(metrics, "ibpulse_discovery_ports_without_port_info"), 1) << metrics;
    EXPECT_EQ(metric_value(metrics, "infiniband_port_state", series), 4) << "Active, as last read";
  }
  fabric().set("PerformanceSet \"Hca2\"[1] PortCounters.SymbolErrorCounter=0");
}

// The first discovery of a run without a cache has no earlier PortInfo to keep: the port is
// not polled (no LID), reported as unknown, and a discovery follows within 5 s rather than at
// the 5-minute discovery.interval, so the port is read soon after its SMPs get through.
TEST(Daemon, APortTheFirstDiscoveryReadsNoPortInfoOfIsLookedForAgainSoon) {
  const std::string hca = guid_text(fabric().port("Hca2", 1).node_guid);
  std::optional<Daemon> d;
  {
    LossyPort lossy("Hca2[1]", "0x15");  // PortInfo
    ASSERT_TRUE(lossy.ok());
    d.emplace(fabric(),
              std::vector<std::string>{"--poll.counters-interval", "300ms", "--discovery.timeout",
                                       "20ms", "--discovery.retries", "0", "--log.level", "debug",
                                       "--state.save-interval", "off"});
    ASSERT_TRUE(d->wait_for("event=port_info_missing kept=0 unknown=1 first=" + hca + "[1]", 15s))
        << d->log();
    ASSERT_TRUE(d->wait_for("event=ready ports=11 stale=0", 15s)) << d->log();
    EXPECT_EQ(metric_value(http_get(d->web_port(), "/metrics/self"),
                           "ibpulse_discovery_ports_without_port_info"),
              1);
  }
  EXPECT_TRUE(d->wait_for("ports=12 stale=0", 15s)) << d->log();
}

// After a restart there is no earlier discovery in the process: the topology the last run
// cached in state.dir stands in for it, so a node the first discovery misses keeps its ports
// (stale, with the totals the state file kept) instead of vanishing until a later discovery
// finds it. That cache is not replaced while a node is missing. Here the node's NodeInfo SMPs
// (0x11) are lost, so discovery cannot find it, and its PMA answers: its series go on from the
// saved total.
TEST(DaemonState, ANodeTheFirstDiscoveryAfterARestartMissesKeepsItsPorts) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("ibpulse-state-missing-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const std::string hca = guid_text(fabric().port("Hca2", 1).node_guid);
  fabric().set("PerformanceSet \"Hca2\"[1] PortCounters.SymbolErrorCounter=7");
  const std::vector<std::string> args = {"--poll.counters-interval",
                                         "300ms",
                                         "--mad.timeout",
                                         "20ms",
                                         "--mad.retries",
                                         "0",
                                         "--discovery.timeout",
                                         "20ms",
                                         "--discovery.retries",
                                         "0",
                                         "--state.dir",
                                         dir.string(),
                                         "--log.level",
                                         "debug"};
  {
    Daemon first(fabric(), args);
    ASSERT_TRUE(first.wait_for("event=ready ports=12 stale=0", 15s)) << first.log();
    first.stop();
  }
  std::filesystem::path cache;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".ibnd") cache = e.path();
  ASSERT_FALSE(cache.empty()) << "a run with state keeps its topology";
  const std::string cached = read_text_file(cache);

  LossyPort lossy("Hca2[1]", "0x11");  // NodeInfo
  ASSERT_TRUE(lossy.ok());
  Daemon second(fabric(), args);
  ASSERT_TRUE(second.wait_for("event=node_missing node_guid=" + hca + " misses=1 limit=3", 15s))
      << second.log();
  ASSERT_TRUE(second.wait_for("event=ready ports=12 stale=0", 15s)) << second.log();
  // The converter publishes on its own interval: wait for the first view holding the port.
  const std::string series = "node_guid=\"" + hca + "\",port=\"1\"";
  std::string metrics;
  EXPECT_TRUE(eventually(
      [&] {
        metrics = http_get(second.web_port(), "/metrics");
        return metric_value(metrics, "infiniband_port_symbol_error_total", series) >= 0;
      },
      15s))
      << metrics;
  EXPECT_EQ(metric_value(metrics, "ibpulse_discovery_missing_nodes"), 1) << metrics;
  EXPECT_EQ(metric_value(metrics, "infiniband_port_symbol_error_total", series), 7) << metrics;
  EXPECT_EQ(read_text_file(cache), cached) << "replaced by a discovery that missed a node";
  second.stop();
  fabric().set("PerformanceSet \"Hca2\"[1] PortCounters.SymbolErrorCounter=0");
  std::filesystem::remove_all(dir);
}

// Stops the fabric's ibsim (SIGSTOP) while alive and lets it run again when destroyed, a
// failed assertion included: the other tests of this binary share the fabric.
class PausedSimulator {
 public:
  PausedSimulator() {
    std::ifstream state(fabric().run_dir() / "state.json");
    pid_ = nlohmann::json::parse(state).at("ibsim").at("pid").get<pid_t>();
    if (kill(pid_, SIGSTOP) != 0) pid_ = 0;
  }
  ~PausedSimulator() {
    if (pid_ > 0) kill(pid_, SIGCONT);
  }
  bool paused() const { return pid_ > 0; }

 private:
  pid_t pid_ = 0;
};

// The real engine's timers: a stopped ibsim answers nothing (umad2sim waits for it without a
// timeout of its own), so every attempt ends by the engine's timeout; resumed, ibsim answers
// what it was sent, each answer late, to be dropped without touching the reads that replaced
// it. The simulator's loss (`sim error`) cannot show this: it hands lost MADs back at once as
// undelivered.
TEST(Daemon, UnansweredMadsTimeOutAndTheirLateAnswersAreDropped) {
  Daemon d(fabric(),
           {"--poll.counters-interval", "200ms", "--mad.timeout", "20ms", "--mad.retries", "1",
            "--discovery.interval", "1h", "--state.save-interval", "off", "--log.level", "debug"});
  ASSERT_TRUE(d.wait_for("event=ready ports=12 stale=0", 15s)) << d.log();
  const auto metrics = [&] { return http_get(d.web_port(), "/metrics"); };
  const auto failed = [](const std::string& m) {
    return metric_value(m, "ibpulse_mads_failed_total", "reason=\"timeout\"");
  };
  ASSERT_EQ(failed(metrics()), 0) << metrics();
  {
    PausedSimulator paused;
    ASSERT_TRUE(paused.paused());
    // One sweep's 12 reads given up on: each attempt timed out (20 ms, then 40 ms).
    ASSERT_TRUE(eventually([&] { return failed(metrics()) >= 12; }, 20s)) << metrics();
  }
  ASSERT_TRUE(eventually(
      [&] { return metric_value(metrics(), "ibpulse_mad_late_replies_total") > 0; }, 20s))
      << metrics();
  // Reading resumes: a whole sweep after the late answers, no port stale.
  const size_t sweeps = count(d.log(), "event=sweep sweep=");
  ASSERT_TRUE(eventually(
      [&] {
        const std::string log = d.log();
        const size_t last = log.rfind("event=sweep sweep=");
        return count(log, "event=sweep sweep=") > sweeps + 1 &&
               log.compare(log.find(" stale=", last), 9, " stale=0 ") == 0;
      },
      20s))
      << d.log();
  const std::string m = metrics();
  // Every failed read took two attempts; attempts also timed out for reads a retry saved.
  EXPECT_GE(metric_value(m, "ibpulse_mad_timeouts_total"), 2 * failed(m)) << m;
  // Each late answer was one of the attempts that timed out.
  EXPECT_LE(metric_value(m, "ibpulse_mad_late_replies_total"),
            metric_value(m, "ibpulse_mad_timeouts_total"))
      << m;
  const std::string log = d.stop();
  EXPECT_GT(stopped_stat(log, "mad_late_replies"), 0u) << log;
}

TEST(Daemon, ADownedLinkIsSeenAndStopsCostingReads) {
  Daemon d(fabric(),
           {"--poll.counters-interval", "300ms", "--log.level", "debug", "--mad.timeout", "20ms"});
  ASSERT_TRUE(d.wait_for("event=ready ports=12", 10s)) << d.log();
  ASSERT_EQ(fabric().sim("link-down", {"Hca1[1]"}).exit_code, 0);
  // Unreachable reads prompt a rediscovery, which sees the link gone at both ends.
  const auto down = [](const std::string& node) {
    return "event=link_down node_guid=" + guid_text(fabric().port(node, 1).node_guid) + " port=1";
  };
  EXPECT_TRUE(d.wait_for(down("Hca1"), 15s)) << d.log();
  EXPECT_TRUE(d.wait_for(down("Switch1"), 1s)) << d.log();
  // Sweeps then cover the 10 ports still linked.
  EXPECT_TRUE(d.wait_for("ports=10 stale=0", 5s)) << d.log();
  ASSERT_EQ(fabric().sim("link-up", {"Hca1[1]"}).exit_code, 0);
  d.signal(SIGTERM);
  EXPECT_TRUE(d.wait_for("event=stopped", 5s));
}

// Every discovery opens a umad port of its own and registers two SMP classes on it. umad2sim
// gave back one agent when the port closed and has 32 slots: the 16th discovery or so failed
// ("Cannot allocate memory") until `sim` preloaded its shim. Many discoveries, none failing.
TEST(Daemon, RediscoveriesKeepWorkingOnTheSimulator) {
  Daemon d(fabric(), {"--discovery.interval", "1s", "--state.save-interval", "off"});
  ASSERT_TRUE(d.wait_for("event=ready", 10s)) << d.log();
  EXPECT_TRUE(eventually([&] { return count(d.log(), "event=discovered ") >= 20; }, 90s))
      << d.log();
  EXPECT_EQ(count(d.log(), "event=discovery_failed"), 0u) << d.log();
}

TEST(Daemon, PortInfoReadsSeeALinkGoDownAndComeBackBetweenDiscoveries) {
  // Only PortInfo reads report port_state_changed (discovery reports link_down/link_up).
  Daemon d(fabric(),
           {"--poll.counters-interval", "2s", "--poll.idle-interval", "1h", "--discovery.interval",
            "1h", "--poll.port-info-interval", "200ms", "--mad.timeout", "20ms"});
  ASSERT_TRUE(d.wait_for("event=ready ports=12", 10s)) << d.log();
  const auto& hca = fabric().port("Hca2", 1);
  const auto& peer = fabric().port(hca.remote_node, hca.remote_port);
  const std::string changed = "event=port_state_changed node_guid=" + guid_text(peer.node_guid) +
                              " port=" + std::to_string(peer.port);
  ASSERT_EQ(fabric().sim("link-down", {"Hca2[1]"}).exit_code, 0);
  EXPECT_TRUE(d.wait_for(changed + " state_before=Active state=Down", 5s)) << d.log();
  ASSERT_EQ(fabric().sim("link-up", {"Hca2[1]"}).exit_code, 0);
  EXPECT_TRUE(d.wait_for(changed + " state_before=Down state=", 5s)) << d.log();
  d.signal(SIGTERM);
  EXPECT_TRUE(d.wait_for("event=stopped", 5s));
  EXPECT_EQ(d.log().find("event=port_info_disabled"), std::string::npos) << d.log();
}

TEST(Daemon, ALidChangeIsFollowed) {
  const unsigned old_lid = fabric().lid("Hca3", 1);
  Daemon d(fabric(), {"--poll.counters-interval", "200ms", "--discovery.interval", "1s",
                      "--log.level", "debug", "--mad.timeout", "20ms"});
  ASSERT_TRUE(d.wait_for("event=ready ports=12", 10s)) << d.log();
  ASSERT_EQ(fabric().sim("lid", {"Hca3[1]", "42"}).exit_code, 0);
  const std::string change =
      "event=lid_changed node_guid=" + guid_text(fabric().port("Hca3", 1).node_guid) +
      " port=1 lid_before=" + std::to_string(old_lid) + " lid_after=42";
  ASSERT_TRUE(d.wait_for(change, 10s)) << d.log();
  // Sweeps after the change read every port again, at its new LID.
  const auto from = d.log().find(change);
  ASSERT_TRUE(d.wait_for_sweeps(2)) << d.log();
  const std::string after = d.log().substr(from);
  EXPECT_NE(after.find("ports=12 stale=0"), std::string::npos) << after;
  EXPECT_EQ(fabric().sim("lid", {"Hca3[1]", std::to_string(old_lid)}).exit_code, 0);
}

namespace converters_on_the_fabric {

std::string total_line(const std::string& node, unsigned port, const std::string& counter) {
  return testing::total_line(fabric(), node, port, counter);
}

TEST(Daemon, ThresholdClearsExactlyTheCounterNearItsLatchAndLosesNothing) {
  // ibsim's PMA has no 64-bit error counters (CapabilityMask2 = 0): errors are 16/8-bit only.
  fabric().set("PerformanceSet \"Hca4\"[1] PortCounters.SymbolErrorCounter=60000");
  fabric().set("PerformanceSet \"Hca4\"[1] PortCounters.LinkDownedCounter=5");
  fabric().set("PerformanceSet \"Hca4\"[1] PortCounters.PortRcvErrors=100");
  Daemon d(fabric(), {"--poll.counters-interval", "300ms", "--counters.clear-policy", "threshold",
                      "--log.level", "trace", "--state.save-interval", "off"});
  const std::string cleared =
      "event=counters_cleared node_guid=" + guid_text(fabric().port("Hca4", 1).node_guid) +
      " port=1 attribute=PortCounters fields=SymbolErrorCounter ";
  ASSERT_TRUE(d.wait_for(cleared, 10s)) << d.log();
  // Exactly its CounterSelect bit: the other counters keep their values.
  EXPECT_EQ(fabric().perfquery("Hca4", 1, "SymbolErrorCounter"), 0u);
  EXPECT_EQ(fabric().perfquery("Hca4", 1, "LinkDownedCounter"), 5u);
  EXPECT_EQ(fabric().perfquery("Hca4", 1, "PortRcvErrors"), 100u);
  // Driven on past where the 16-bit counter would have latched: 60000 + 10000 = 70000.
  fabric().set("PerformanceSet \"Hca4\"[1] PortCounters.SymbolErrorCounter=10000");
  ASSERT_TRUE(d.wait_for_sweeps(2)) << d.log();
  d.signal(SIGTERM);
  ASSERT_TRUE(d.wait_for("event=stopped", 5s)) << d.log();
  const std::string log = d.log();
  EXPECT_EQ(total_in(log, total_line("Hca4", 1, "symbol_error")), 70000u) << log;
  EXPECT_EQ(total_in(log, total_line("Hca4", 1, "link_downed")), 5u);
  EXPECT_EQ(total_in(log, total_line("Hca4", 1, "rcv_errors")), 100u);
  EXPECT_EQ(count(log, "event=counters_cleared"), 1u) << log;
  EXPECT_NE(log.find("own_clears=1 own_clears_failed=0 foreign_clears=0"), std::string::npos);
  fabric().set("PerformanceSet \"Hca4\"[1] PortCounters.LinkDownedCounter=0");
  fabric().set("PerformanceSet \"Hca4\"[1] PortCounters.PortRcvErrors=0");
  fabric().set("PerformanceSet \"Hca4\"[1] PortCounters.SymbolErrorCounter=0");
}

TEST(Daemon, NeverPolicyLeavesLatchedCountersAloneAndSeesForeignClears) {
  fabric().set("PerformanceSet \"Hca3\"[1] PortCounters.SymbolErrorCounter=65535");
  // No state file: the run directory's, from another test, would carry its totals in.
  Daemon d(fabric(), {"--poll.counters-interval", "300ms", "--log.level", "trace",
                      "--state.save-interval", "off"});
  ASSERT_TRUE(d.wait_for("event=ready", 10s)) << d.log();
  ASSERT_TRUE(d.wait_for_sweeps(2)) << d.log();  // more readings of the latched counter
  EXPECT_EQ(fabric().perfquery("Hca3", 1, "SymbolErrorCounter"), 65535u) << "never cleared";
  // perfquery -R style: another tool clears it; what it counts afterwards adds on.
  fabric().set("PerformanceSet \"Hca3\"[1] PortCounters.SymbolErrorCounter=7");
  const std::string foreign =
      "event=foreign_clear node_guid=" + guid_text(fabric().port("Hca3", 1).node_guid) +
      " port=1 attribute=PortCounters";
  EXPECT_TRUE(d.wait_for(foreign, 5s)) << d.log();
  d.signal(SIGTERM);
  ASSERT_TRUE(d.wait_for("event=stopped", 5s)) << d.log();
  const std::string log = d.log();
  EXPECT_EQ(total_in(log, total_line("Hca3", 1, "symbol_error")), 65535u + 7) << log;
  EXPECT_EQ(log.find(total_line("Hca3", 1, "symbol_error") + "65542 saturated=true"),
            std::string::npos);
  EXPECT_EQ(log.find("event=counters_cleared"), std::string::npos);
  fabric().set("PerformanceSet \"Hca3\"[1] PortCounters.SymbolErrorCounter=0");
}

// Three readings below the previous one within the window: another manager clears counters
// routinely, and the operator is told so once per window.
TEST(Daemon, FrequentForeignClearsAreReported) {
  fabric().set("PerformanceSet \"Hca1\"[1] PortCounters.PortRcvErrors=40");
  Daemon d(fabric(), {"--poll.counters-interval", "200ms", "--counters.foreign-clear-window", "5s",
                      "--state.save-interval", "off", "--log.level", "trace"});
  ASSERT_TRUE(d.wait_for("event=ready", 10s)) << d.log();
  for (const char* value : {"30", "20", "10"}) {
    ASSERT_TRUE(d.wait_for_sweeps(2)) << d.log();  // each value read on its own
    fabric().set(std::string("PerformanceSet \"Hca1\"[1] PortCounters.PortRcvErrors=") + value);
  }
  ASSERT_TRUE(d.wait_for("event=frequent_foreign_clears clears=3 ports=1 ", 10s)) << d.log();
  d.signal(SIGTERM);
  ASSERT_TRUE(d.wait_for("event=stopped", 5s)) << d.log();
  const std::string log = d.log();
  EXPECT_EQ(count(log, "event=frequent_foreign_clears"), 1u) << log;
  // Each lower reading is a clear then counts up to it: 40 + 30 + 20 + 10.
  EXPECT_EQ(total_in(log, total_line("Hca1", 1, "rcv_errors")), 100u) << log;
  fabric().set("PerformanceSet \"Hca1\"[1] PortCounters.PortRcvErrors=0");
}

std::string status_line(const std::string& log, const std::string& node, unsigned port) {
  const std::string start =
      "event=port_status node_guid=" + guid_text(fabric().port(node, port).node_guid) +
      " port=" + std::to_string(port) + " ";
  const auto at = log.rfind(start);
  return at == std::string::npos ? "" : log.substr(at, log.find('\n', at) - at);
}

// IF-MIB interface state from discovery and PortInfo: Active ports are up with their MTU and
// LID; a port whose link went down is down; a port that vanished from discovery is notPresent
// for the grace period, then forgotten.
TEST(Daemon, InterfaceStatusFollowsDiscoveryAndVanishedPortsExpire) {
  const auto& hca = fabric().port("Hca1", 1);
  const auto& peer = fabric().port(hca.remote_node, hca.remote_port);
  const std::vector<std::string> args = {
      "--poll.counters-interval", "300ms", "--mad.timeout", "20ms", "--state.save-interval", "off",
      "--discovery.interval",     "1s",    "--log.level",   "trace"};
  std::string log;
  {
    Daemon d(fabric(), args);
    ASSERT_TRUE(d.wait_for("event=ready ports=12", 10s)) << d.log();
    ASSERT_EQ(fabric().sim("link-down", {"Hca1[1]"}).exit_code, 0);
    ASSERT_TRUE(d.wait_for("event=node_removed node_guid=" + guid_text(hca.node_guid), 15s))
        << d.log();
    ASSERT_TRUE(d.wait_for_sweeps(2)) << d.log();  // a snapshot after the rediscovery
    log = d.stop();
  }
  const std::string up = status_line(log, "Hca2", 1);
  EXPECT_NE(up.find("oper_status=up in_topology=true mtu=" + std::to_string(kSimMtu) +
                    " phys_lid=" + std::to_string(fabric().lid("Hca2", 1)) + " "),
            std::string::npos)
      << up;
  const std::string down = status_line(log, peer.node, peer.port);
  EXPECT_NE(down.find("oper_status=down in_topology=true"), std::string::npos) << log;
  EXPECT_NE(down.find(" phys_lid=0 "), std::string::npos) << down;  // a switch's external port
  EXPECT_EQ(down.find("last_change_ago_seconds=-1"), std::string::npos) << down;  // it changed
  const std::string gone = status_line(log, "Hca1", 1);
  EXPECT_NE(gone.find("oper_status=notPresent in_topology=false"), std::string::npos) << log;
  EXPECT_NE(log.find(total_line("Hca1", 1, "xmit_data_bytes")), std::string::npos);  // kept

  std::vector<std::string> short_grace = args;
  short_grace.insert(short_grace.end(), {"--counters.not-present-grace", "1s"});
  {
    Daemon d(fabric(), short_grace);
    ASSERT_TRUE(d.wait_for("event=ready ports=10", 10s)) << d.log();  // Hca1 is still down
    ASSERT_EQ(fabric().sim("link-up", {"Hca1[1]"}).exit_code, 0);
    ASSERT_TRUE(d.wait_for("event=node_added node_guid=" + guid_text(hca.node_guid), 15s))
        << d.log();
    ASSERT_EQ(fabric().sim("link-down", {"Hca1[1]"}).exit_code, 0);
    ASSERT_TRUE(d.wait_for("event=node_removed node_guid=" + guid_text(hca.node_guid), 15s))
        << d.log();
    // Past the grace period: its series leave /metrics.
    const std::string guid = "node_guid=\"" + guid_text(hca.node_guid) + "\"";
    EXPECT_TRUE(eventually(
        [&] { return http_get(d.web_port(), "/metrics").find(guid) == std::string::npos; }, 20s))
        << guid;
    log = d.stop();
  }
  EXPECT_EQ(status_line(log, "Hca1", 1), "") << log;  // forgotten: no row, no totals
  EXPECT_EQ(log.find(total_line("Hca1", 1, "xmit_data_bytes")), std::string::npos);
  EXPECT_NE(status_line(log, "Hca2", 1).find("oper_status=up"), std::string::npos);
  ASSERT_EQ(fabric().sim("link-up", {"Hca1[1]"}).exit_code, 0);
}

// The state file: totals continue across a restart, even when the hardware counter was
// cleared by someone else while the first daemon ran; on the simulator it lives in the
// fabric's run directory.
TEST(DaemonState, TotalsContinueAcrossARestart) {
  const auto state = fabric().run_dir() / "counters.state";
  std::filesystem::remove(state);  // an earlier run's (a repeat of this test) would continue
  fabric().set("PerformanceSet \"Hca2\"[1] PortCounters.SymbolErrorCounter=100");
  {
    Daemon d(fabric(), {"--poll.counters-interval", "300ms", "--log.level", "trace"});
    ASSERT_TRUE(d.wait_for("event=ready", 10s)) << d.log();  // 100 read in the first sweep
    const std::string read =
        "event=sample_read node_guid=" + guid_text(fabric().port("Hca2", 1).node_guid) +
        " port=1 attribute=PortCounters failure=none";
    const size_t before = count(d.log(), read);
    fabric().set("PerformanceSet \"Hca2\"[1] PortCounters.SymbolErrorCounter=20");  // foreign
    // Two reads after the clear: the first may have been in flight before it.
    ASSERT_TRUE(eventually([&] { return count(d.log(), read) >= before + 2; }, 10s)) << d.log();
    d.signal(SIGTERM);
    ASSERT_TRUE(d.wait_for("event=stopped", 5s)) << d.log();
    const std::string log = d.log();
    EXPECT_EQ(total_in(log, total_line("Hca2", 1, "symbol_error")), 120u) << log;
    EXPECT_NE(log.find("event=state_saved path=\"" + state.string() + "\""), std::string::npos)
        << log;
  }
  fabric().set("PerformanceSet \"Hca2\"[1] PortCounters.SymbolErrorCounter=25");  // while down
  const auto out = fabric().exec({IBPULSE_BINARY_FOR_TESTS, "run", "--exit-after-sweeps", "2",
                                  "--poll.counters-interval", "300ms", "--log.level", "trace"});
  EXPECT_EQ(out.exit_code, 0) << out.err;
  EXPECT_NE(out.err.find("event=state_loaded path=\"" + state.string() + "\""), std::string::npos)
      << out.err;
  // 100, then cleared to 20 (+20), then 25 (+5): no count lost, none counted twice.
  EXPECT_EQ(total_in(out.err, total_line("Hca2", 1, "symbol_error")), 125u) << out.err;
  fabric().set("PerformanceSet \"Hca2\"[1] PortCounters.SymbolErrorCounter=0");
}

TEST(DaemonState, ADamagedFileIsSetAsideAndNeverTrusted) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("ibpulse-state-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const std::vector<std::string> run = {
      IBPULSE_BINARY_FOR_TESTS, "run", "--exit-after-sweeps", "1", "--state.dir", dir.string()};
  ASSERT_EQ(fabric().exec(run).exit_code, 0);
  const auto state = dir / "counters.state";
  ASSERT_TRUE(std::filesystem::exists(state));
  {
    std::fstream f(state, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(40);
    f.write("damage", 6);
  }
  auto out = fabric().exec(run);
  EXPECT_EQ(out.exit_code, 0) << out.err;
  EXPECT_NE(out.err.find("event=state_rejected path=\"" + state.string() +
                         "\" reason=\"checksum mismatch: the file is damaged\""),
            std::string::npos)
      << out.err;
  size_t set_aside = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    set_aside += entry.path().filename().string().starts_with("counters.state.rejected-");
  }
  EXPECT_EQ(set_aside, 1u);
  out = fabric().exec(run);  // the file saved after the rejection is whole again
  EXPECT_NE(out.err.find("event=state_loaded"), std::string::npos) << out.err;
  std::filesystem::remove_all(dir);
}

TEST(DaemonState, ASecondDaemonOnTheSameDirectoryRunsWithoutAStateFile) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("ibpulse-state-shared-" + std::to_string(::getpid()));
  Daemon first(fabric(), {"--state.dir", dir.string()});
  ASSERT_TRUE(first.wait_for("event=ready", 10s)) << first.log();
  const auto out = fabric().exec(
      {IBPULSE_BINARY_FOR_TESTS, "run", "--exit-after-sweeps", "1", "--state.dir", dir.string()});
  EXPECT_EQ(out.exit_code, 0) << out.err;
  EXPECT_NE(out.err.find("event=state_off path=\"" + (dir / "counters.lock").string()),
            std::string::npos)
      << out.err;
  EXPECT_EQ(out.err.find("event=state_saved"), std::string::npos) << out.err;
  first.stop();
  std::filesystem::remove_all(dir);
}

// A daemon started again on `dir` for two sweeps: it loads the state, and Hca2[1]'s `counter`
// totals `expected`.
void expect_total_after_restart(const std::filesystem::path& dir, const std::string& counter,
                                uint64_t expected) {
  const auto out = fabric().exec({IBPULSE_BINARY_FOR_TESTS, "run", "--exit-after-sweeps", "2",
                                  "--poll.counters-interval", "300ms", "--state.dir", dir.string(),
                                  "--log.level", "trace"});
  EXPECT_EQ(out.exit_code, 0) << out.err;
  EXPECT_NE(out.err.find("event=state_loaded"), std::string::npos) << out.err;
  EXPECT_EQ(total_in(out.err, total_line("Hca2", 1, counter)), expected) << out.err;
}

// Our own clear erases what the hardware counted: the reading that asked for it is saved (and
// fsynced) before the clear goes out, so a SIGKILL right after the clear loses nothing, even
// with no periodic save due for an hour.
TEST(DaemonState, ASigkillRightAfterAnOwnClearLosesNoCount) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("ibpulse-state-clear-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  fabric().set("PerformanceSet \"Hca2\"[1] PortCounters.PortXmitDiscards=60000");  // of 65535
  {
    Daemon d(fabric(),
             {"--poll.counters-interval", "300ms", "--counters.clear-policy", "threshold",
              "--state.dir", dir.string(), "--state.save-interval", "1h", "--log.level", "debug"});
    const std::string cleared =
        "event=counters_cleared node_guid=" + guid_text(fabric().port("Hca2", 1).node_guid) +
        " port=1 attribute=PortCounters fields=PortXmitDiscards ";
    ASSERT_TRUE(d.wait_for(cleared, 15s)) << d.log();
    d.signal(SIGKILL);  // no save at stop, none due: only the one before the clear
  }
  EXPECT_EQ(fabric().perfquery("Hca2", 1, "PortXmitDiscards"), 0u) << "the clear went out";
  fabric().set("PerformanceSet \"Hca2\"[1] PortCounters.PortXmitDiscards=500");  // after it
  expect_total_after_restart(dir, "xmit_discards", 60500);
  fabric().set("PerformanceSet \"Hca2\"[1] PortCounters.PortXmitDiscards=0");
  std::filesystem::remove_all(dir);
}

// Another tool's clear moves the baseline below the saved reading: the state is saved soon
// after it, so a SIGKILL then loses nothing, with no periodic save due for an hour.
TEST(DaemonState, ASigkillAfterAForeignClearLosesNoCount) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("ibpulse-state-foreign-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  fabric().set("PerformanceSet \"Hca2\"[1] PortCounters.PortRcvErrors=100");
  {
    Daemon d(fabric(), {"--poll.counters-interval", "300ms", "--state.dir", dir.string(),
                        "--state.save-interval", "1h", "--log.level", "debug"});
    ASSERT_TRUE(d.wait_for("event=ready", 10s)) << d.log();
    fabric().set("PerformanceSet \"Hca2\"[1] PortCounters.PortRcvErrors=150");
    ASSERT_TRUE(d.wait_for_sweeps(2)) << d.log();                              // 150 read
    fabric().set("PerformanceSet \"Hca2\"[1] PortCounters.PortRcvErrors=20");  // cleared, +20
    const std::string foreign =
        "event=foreign_clear node_guid=" + guid_text(fabric().port("Hca2", 1).node_guid) +
        " port=1 attribute=PortCounters";
    ASSERT_TRUE(d.wait_for(foreign, 10s)) << d.log();
    ASSERT_TRUE(eventually(
        [&] {
          const std::string log = d.log();
          return log.find("event=state_saved", log.find(foreign)) != std::string::npos;
        },
        10s))
        << d.log();
    d.signal(SIGKILL);
  }
  fabric().set("PerformanceSet \"Hca2\"[1] PortCounters.PortRcvErrors=25");  // after it, +5
  expect_total_after_restart(dir, "rcv_errors", 175);
  fabric().set("PerformanceSet \"Hca2\"[1] PortCounters.PortRcvErrors=0");
  std::filesystem::remove_all(dir);
}

TEST(DaemonState, OffMeansNoFile) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("ibpulse-state-off-" + std::to_string(::getpid()));
  const auto out = fabric().exec({IBPULSE_BINARY_FOR_TESTS, "run", "--exit-after-sweeps", "1",
                                  "--state.dir", dir.string(), "--state.save-interval", "off"});
  EXPECT_EQ(out.exit_code, 0) << out.err;
  EXPECT_NE(out.err.find("event=state_off"), std::string::npos) << out.err;
  EXPECT_FALSE(std::filesystem::exists(dir));
}

}  // namespace converters_on_the_fabric
// discovery.cache-max-age: a run caches its discovery in state.dir, one file per local port; a
// restart within the age starts from that file, says so and reads every port; a damaged file
// is said so and the discovery goes on; off (the default) never starts from it, and writes it
// only where state is kept (it tells a restart which nodes to keep polling); an age past
// discovery.interval is refused.
TEST(DaemonState, ARestartStartsFromTheCachedTopology) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("ibpulse-cache-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::vector<std::string> run = {
      IBPULSE_BINARY_FOR_TESTS, "run", "--exit-after-sweeps", "1",  "--state.dir", dir.string(),
      "--web.listen-address",   "off", "--snmp.listen",       "off"};
  const auto caches = [&] {
    std::vector<std::filesystem::path> out;
    std::error_code none;
    for (const auto& e : std::filesystem::directory_iterator(dir, none))
      if (e.path().extension() == ".ibnd") out.push_back(e.path());
    return out;
  };
  auto stateless = run;
  stateless.insert(stateless.end(), {"--state.save-interval", "off"});
  const auto without = fabric().exec(stateless);
  ASSERT_EQ(without.exit_code, 0) << without.err;
  EXPECT_TRUE(caches().empty()) << "no state kept: no cache written";
  for (int start = 0; start < 2; ++start) {
    const auto with_state = fabric().exec(run);
    ASSERT_EQ(with_state.exit_code, 0) << with_state.err;
    EXPECT_EQ(caches().size(), 1u) << "written with the state";
    EXPECT_EQ(with_state.err.find("event=discovery_cached"), std::string::npos) << "off";
  }
  std::filesystem::remove_all(dir);

  // Trusted no longer than a discovery: an age past discovery.interval is refused.
  auto refused = run;
  refused.insert(refused.end(), {"--discovery.cache-max-age", "10m"});
  const auto too_old = fabric().exec(refused);
  EXPECT_EQ(too_old.exit_code, 1);
  EXPECT_NE(too_old.err.find("--discovery.cache-max-age (600 s) must not exceed "
                             "--discovery.interval (300 s)"),
            std::string::npos)
      << too_old.err;

  run.insert(run.end(), {"--discovery.cache-max-age", "5m"});
  const auto first = fabric().exec(run);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(first.err.find("event=discovery_cached"), std::string::npos) << first.err;
  ASSERT_EQ(caches().size(), 1u);
  const auto second = fabric().exec(run);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_NE(second.err.find("event=discovery_cached file=\"" + caches()[0].string() +
                            "\" nodes=6 ports=24"),
            std::string::npos)
      << second.err;
  EXPECT_NE(second.err.find("event=ready ports=12 stale=0"), std::string::npos) << second.err;

  std::ofstream(caches()[0], std::ios::trunc) << "not a cache";
  const auto damaged = fabric().exec(run);
  ASSERT_EQ(damaged.exit_code, 0) << damaged.err;
  EXPECT_NE(
      damaged.err.find("event=discovery_cache_failed error=\"cannot read " + caches()[0].string()),
      std::string::npos)
      << damaged.err;
  EXPECT_NE(damaged.err.find("event=ready ports=12 stale=0"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ibpulse::testing
