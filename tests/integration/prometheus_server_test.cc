// A real Prometheus server (Debian's `prometheus`, on a loopback port, its own data directory)
// scrapes the daemon on the simulated fabric: rate() over a port's transmit bytes matches what
// `ibpulse sim traffic` injected, and on a node read through its 32-bit PortCounters only,
// cleared by the daemon under `threshold`, resets() over the exported counter stays 0.
//
// The server is the harness's PrometheusServer (prometheus_server.h): a child of this process
// that dies with it, queried through its HTTP API.
#include "prometheus_server.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
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

std::string guid_of(const std::string& node) {
  return guid_text(fabric().port(node, 1).node_guid);
}

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string series(const std::string& metric, const std::string& node) {
  return metric + "{node_guid=\"" + guid_of(node) + "\",port=\"1\"}";
}

const nlohmann::json& port_report(const nlohmann::json& report, const std::string& node,
                                  unsigned port) {
  for (const auto& p : report.at("ports")) {
    if (p.at("node") == node && p.at("port") == port) return p;
  }
  throw std::runtime_error("no report for " + node);
}

// The daemon's arguments for these tests: polled and published twice a second, no state file.
std::vector<std::string> daemon_args(std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {
      "--web.listen-address",     "127.0.0.1:0", "--state.save-interval",       "off",
      "--poll.counters-interval", "500ms",       "--counters.publish-interval", "500ms"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

TEST(PrometheusServer, RateOfTransmitBytesMatchesTheInjectedRate) {
  Daemon d(fabric(), daemon_args());
  ASSERT_TRUE(d.wait_for("event=ready ports=12 stale=0", 15s)) << d.log();
  const uint16_t port = d.web_port();
  ASSERT_NE(port, 0) << d.log();
  PrometheusServer prom(port);
  ASSERT_TRUE(prom.wait_ready(30s)) << prom.log();
  const std::string xmit = series("infiniband_port_xmit_data_bytes_total", "Hca1");
  const std::string rcv = series("infiniband_port_rcv_data_bytes_total", "Hca1");
  // Scraped: the series exists in Prometheus before the traffic starts.
  ASSERT_GE(prom.wait_at_least("count_over_time(" + xmit + "[1m])", 2, 15s), 2) << prom.log();

  // 20% of 4X SDR (1 GB/s of data) each way on every link for 24 s. Ticks of 100 ms keep the
  // steps the counters move by (a tick's worth: ~22 MB at ~110 ms a tick) small against the
  // window the rate is taken over.
  const double start = unix_now();
  const auto traffic = fabric().sim(
      "traffic", {"--utilization", "0.2", "--duration", "24", "--tick-ms", "100", "--json"});
  const double end = unix_now();
  ASSERT_EQ(traffic.exit_code, 0) << traffic.err;
  ASSERT_GE(end - start, 24);
  const auto report = nlohmann::json::parse(traffic.out);
  const auto& hca = port_report(report, "Hca1", 1);
  const double seconds = report.at("seconds").get<double>();
  const double injected_xmit =
      static_cast<double>(hca.at("xmit_data_dwords").get<uint64_t>()) * 4 / seconds;
  const double injected_rcv =
      static_cast<double>(hca.at("rcv_data_dwords").get<uint64_t>()) * 4 / seconds;
  EXPECT_NEAR(injected_xmit, 2e8, 2e6) << traffic.out;

  // An 18 s window centred on the middle of the run, [start + ~3 s, end - ~3 s]: Prometheus
  // stamps a sample with its scrape time, and the value it scraped was read up to ~1.5 s
  // earlier (a 500 ms sweep, a 500 ms publication, the scrape's phase), so every sample in
  // the window holds a reading taken while the generator ran (it starts within ~0.5 s of
  // `start`). rate() is then the slope between the window's first and last samples
  // (extrapolating to the window's edges does not change it), and its error is the
  // difference between those two samples' reading delays, over ~17 s: a generator tick
  // (~0.1 s, 0.6%) when sweeps run on time, up to a late sweep and publication (~1 s, 6%)
  // on a loaded machine (hence the sim_heavy lock). The MADs on Hca1's link (the daemon's
  // reads and the generator's, 72 dwords per MAD each way: ~30 MADs/s, ~9 kB/s) are below
  // 0.01% of the 200 MB/s injected.
  const double at = (start + end) / 2 + 9;
  std::string error;
  const auto result = prom.query("rate(" + xmit + "[18s])", at, &error);
  ASSERT_TRUE(result.is_array() && result.size() == 1) << error << result.dump();
  const double measured_xmit = std::stod(result[0].at("value")[1].get<std::string>());
  const double measured_rcv = prom.value("rate(" + rcv + "[18s])", at);
  std::cout << "Hca1[1] xmit: measured " << measured_xmit << " B/s, injected " << injected_xmit
            << " B/s (" << (measured_xmit / injected_xmit - 1) * 100 << "%); rcv: measured "
            << measured_rcv << " B/s, injected " << injected_rcv << " B/s ("
            << (measured_rcv / injected_rcv - 1) * 100 << "%)\n";
  EXPECT_NEAR(measured_xmit, injected_xmit, injected_xmit * 0.05);
  EXPECT_NEAR(measured_rcv, injected_rcv, injected_rcv * 0.05);
}

void set(const std::string& node, const std::string& assignment) {
  fabric().set("PerformanceSet \"" + node + "\"[1] " + assignment);
}

TEST(PrometheusServer, ThirtyTwoBitOnlyNodeClearedUnderThresholdShowsNoResets) {
  constexpr uint64_t kFirst = 1000000;     // where the counter starts
  constexpr uint64_t kStart = 3435973837;  // 80% of the 32-bit range: above the 75% threshold
  constexpr uint64_t kMore = 2000000000;   // start + more: past where the counter would latch
  // Hca4 sees some 10 MADs a second here; 1000 of them is far more than the test's run.
  constexpr uint64_t kMadSlackBytes = 1000 * kMadDwords * 4;
  for (const char* f : {"PortXmitData", "PortRcvData", "PortXmitPkts", "PortRcvPkts"})
    set("Hca4", std::string("PortCounters.") + f + "=" + std::to_string(kFirst));
  Daemon d(fabric(), daemon_args({"--poll.no-extended-nodes", guid_of("Hca4"),
                                  "--counters.clear-policy", "threshold"}));
  ASSERT_TRUE(d.wait_for("event=ready ports=12 stale=0", 15s)) << d.log();
  const uint16_t port = d.web_port();
  ASSERT_NE(port, 0) << d.log();
  PrometheusServer prom(port);
  ASSERT_TRUE(prom.wait_ready(30s)) << prom.log();
  const std::string xmit = series("infiniband_port_xmit_data_bytes_total", "Hca4");
  // A few samples from before the clear.
  ASSERT_GE(prom.wait_at_least("count_over_time(" + xmit + "[1m])", 3, 15s), 3) << prom.log();

  // Past the threshold: the daemon clears exactly this counter, which restarts near 0.
  set("Hca4", "PortCounters.PortXmitData=" + std::to_string(kStart));
  ASSERT_TRUE(d.wait_for("event=counters_cleared node_guid=" + guid_of("Hca4") +
                             " port=1 attribute=PortCounters fields=PortXmitData ",
                         15s))
      << d.log();
  const uint64_t after_clear = fabric().perfquery("Hca4", 1, "PortXmitData");
  EXPECT_LT(after_clear * 4, kMadSlackBytes) << "the hardware counter was cleared";
  // Driven on, as traffic would (read, then current + more), below the threshold again.
  set("Hca4", "PortCounters.PortXmitData=" + std::to_string(after_clear + kMore));
  const double expected = static_cast<double>((kStart + kMore) * 4);
  ASSERT_GE(prom.wait_at_least(xmit, expected, 15s), expected - kMadSlackBytes);
  // Two more scrapes at the new value.
  const double scraped = prom.value("count_over_time(" + xmit + "[5m])");
  ASSERT_TRUE(eventually(
      [&] { return prom.value("count_over_time(" + xmit + "[5m])") >= scraped + 2; }, 30s));
  const double at = unix_now();

  std::string error;
  const auto resets = prom.query("resets(" + xmit + "[1m])", at, &error);
  ASSERT_TRUE(resets.is_array() && resets.size() == 1) << error << resets.dump();
  EXPECT_EQ(resets[0].at("value")[1].get<std::string>(), "0") << resets.dump();

  // What Prometheus holds: from the first reading, through the jump and the clear, to beyond
  // what 32 bits can hold, never stepping down.
  const auto samples = prom.query(xmit + "[1m]", at, &error);
  ASSERT_TRUE(samples.is_array() && samples.size() == 1) << error << samples.dump();
  const auto& values = samples[0].at("values");
  ASSERT_GE(values.size(), 6u) << values.dump();
  std::vector<double> v;
  for (const auto& s : values)
    v.push_back(std::stod(s[1].get<std::string>()));
  for (size_t i = 1; i < v.size(); ++i)
    EXPECT_GE(v[i], v[i - 1]) << "sample " << i << " of " << values.dump();
  EXPECT_GE(v.front(), static_cast<double>(kFirst * 4));
  EXPECT_LT(v.front(), static_cast<double>(kFirst * 4 + kMadSlackBytes)) << values.dump();
  EXPECT_GT(v.back(), static_cast<double>(kLatch32 * 4)) << "more than 32 bits hold";
  EXPECT_NEAR(v.back(), expected, static_cast<double>(kMadSlackBytes)) << values.dump();
  std::cout << "Hca4[1] xmit: " << v.size() << " samples from " << v.front() << " to " << v.back()
            << " B (expected " << expected << "), hardware after the clear " << after_clear
            << " dwords, now " << fabric().perfquery("Hca4", 1, "PortXmitData") << "\n";
  // The daemon's own count of its clears, through Prometheus too.
  EXPECT_EQ(prom.value("sum(ibpulse_own_clears_total)", at), 1) << d.log();
  // The hardware counter stays below where it stood before the clear, while the export went on.
  EXPECT_LT(fabric().perfquery("Hca4", 1, "PortXmitData"), kStart);
  d.stop();
  for (const char* f : {"PortXmitData", "PortRcvData", "PortXmitPkts", "PortRcvPkts"})
    set("Hca4", std::string("PortCounters.") + f + "=0");
}

}  // namespace
}  // namespace ibpulse::testing
