// Prometheus remote write from the daemon on the simulated fabric into real receivers: a
// VictoriaMetrics server (every port's counters, a planted error count exact, a data counter
// equal to a /metrics value, an outage survived without losing what was queued) and a
// Prometheus server with its remote-write receiver (accepts every request: timestamps never go
// backwards; a port that leaves ends its series with a stale marker). A receiver answering 400
// is counted and not retried; bad configuration stops the daemon at start.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <thread>

#include "daemon_client.h"
#include "eventually.h"
#include "http_receiver.h"
#include "prometheus_server.h"
#include "remote_write_checks.h"
#include "sim_fabric.h"
#include "victoria_metrics.h"

namespace ibpulse::testing {
namespace {

using namespace std::chrono_literals;

SimFabric& fabric() {
  return SimFabricEnvironment::fabric();
}

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::vector<std::string> daemon_args(const std::string& url, std::vector<std::string> extra = {}) {
  extra.insert(extra.begin(), {"--remote-write.url", url});
  return remote_write_daemon_args(extra);
}

// (node_guid, port) of every series of `metric` in a /metrics text, with its value.
std::map<std::pair<std::string, std::string>, std::string> ports_in_metrics(
    const std::string& text, const std::string& metric) {
  std::map<std::pair<std::string, std::string>, std::string> out;
  const std::regex line("^" + metric + R"re(\{node_guid="([^"]+)",port="(\d+)"\} (\S+)$)re");
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    std::smatch m;
    if (std::regex_match(l, m, line)) out[{m[1], m[2]}] = m[3];
  }
  return out;
}

// The ports of `family` in the daemon's first /metrics that has any: event=ready comes with
// the first sweep's end, the snapshot holding it is published up to an interval later.
std::map<std::pair<std::string, std::string>, std::string> first_ports_in_metrics(
    const Daemon& d, const std::string& family) {
  std::map<std::pair<std::string, std::string>, std::string> out;
  eventually(
      [&] {
        out = ports_in_metrics(http_get(d.web_port(), "/metrics"), family);
        return !out.empty();
      },
      15s);
  return out;
}

std::set<std::pair<std::string, std::string>> ports_in(const nlohmann::json& result) {
  std::set<std::pair<std::string, std::string>> out;
  if (!result.is_array()) return out;
  for (const auto& s : result) {
    out.insert({s.at("metric").value("node_guid", ""), s.at("metric").value("port", "")});
  }
  return out;
}

std::string selector(const std::string& metric, const std::string& node, unsigned port = 1) {
  return port_selector(fabric(), metric, node, port);
}

TEST(RemoteWriteVictoriaMetrics, EveryPortArrivesAndValuesAreThoseOfMetrics) {
  VictoriaMetrics vm;
  ASSERT_TRUE(vm.wait_ready(30s)) << vm.log();
  fabric().set("PerformanceSet \"Hca2\"[1] PortCounters.SymbolErrorCounter=437");
  Daemon d(fabric(), daemon_args(vm.url("/api/v1/write")));
  ASSERT_TRUE(d.wait_for("event=ready", 15s)) << d.log();
  const std::string xmit = "infiniband_port_xmit_data_bytes_total";
  const auto in_metrics = first_ports_in_metrics(d, xmit);
  ASSERT_FALSE(in_metrics.empty());
  std::set<std::pair<std::string, std::string>> expected;
  for (const auto& [key, value] : in_metrics)
    expected.insert(key);
  EXPECT_TRUE(eventually([&] { return ports_in(vm.query(xmit)) == expected; }))
      << vm.query(xmit).dump();
  // The planted error count, exact.
  const std::string symbol = selector("infiniband_port_symbol_error_total", "Hca2");
  EXPECT_TRUE(eventually([&] {
    const auto r = vm.query(symbol);
    return r.is_array() && r.size() == 1 && r[0].at("value")[1] == "437";
  })) << vm.query(symbol).dump();
  // A data counter's value from a /metrics scrape is among the samples VictoriaMetrics got.
  // The writer skips a snapshot it had no time for (counted; likely on a loaded machine), so
  // the values of a few snapshots in a row are taken: it wrote one of them at least.
  const auto port_key = in_metrics.begin()->first;
  const auto scraped_value = [&] {
    const auto now = ports_in_metrics(http_get(d.web_port(), "/metrics"), xmit);
    const auto it = now.find(port_key);
    return it == now.end() ? -1.0 : std::stod(it->second);
  };
  std::set<double> scraped = {scraped_value()};
  for (int snapshots = 1; snapshots < 4; ++snapshots) {
    // The value moves with every sweep: the daemon's own MADs cross the port's link.
    EXPECT_TRUE(eventually([&] { return scraped.insert(scraped_value()).second; }));
  }
  const std::string match =
      xmit + "{node_guid=\"" + port_key.first + "\",port=\"" + port_key.second + "\"}";
  EXPECT_TRUE(eventually([&] {
    for (const auto& s : vm.export_series(match, unix_now() - 600, unix_now() + 60)) {
      for (const auto& v : s.at("values")) {
        if (scraped.contains(v.get<double>())) return true;
      }
    }
    return false;
  })) << nlohmann::json(scraped).dump();
  // The daemon's own series go out too: a collector that is only pushed is still seen.
  EXPECT_TRUE(eventually([&] {
    const auto r = vm.query("ibpulse_shard_info");
    return r.is_array() && r.size() == 1 && r[0].at("metric").value("index", "") == "1" &&
           r[0].at("metric").value("count", "") == "1" && r[0].at("value")[1] == "1";
  })) << vm.query("ibpulse_shard_info").dump();
  fabric().set("PerformanceSet \"Hca2\"[1] PortCounters.SymbolErrorCounter=0");
  const std::string metrics = http_get(d.web_port(), "/metrics");
  EXPECT_GT(samples_total(metrics, vm.url("/api/v1/write"), "sent"), 0);
  EXPECT_EQ(samples_total(metrics, vm.url("/api/v1/write"), "dropped"), 0);
  EXPECT_EQ(samples_total(metrics, vm.url("/api/v1/write"), "failed"), 0);
  // Every snapshot published is either written or counted skipped: several were written.
  const std::string url_label = "url=\"" + vm.url("/api/v1/write") + "\"";
  EXPECT_GE(metric_value(metrics, "ibpulse_remote_write_snapshots_total",
                         "result=\"written\"," + url_label),
            3)
      << metrics;
  EXPECT_GE(metric_value(metrics, "ibpulse_remote_write_snapshots_total",
                         "result=\"skipped\"," + url_label),
            0)
      << metrics;
  d.stop();
}

// The receiver goes away for 20 s: the samples queued meanwhile arrive once it is back, one per
// snapshot (every series is sent every snapshot: changed-only off).
TEST(RemoteWriteVictoriaMetrics, AnOutageLosesNothingThatWasQueued) {
  VictoriaMetrics vm;
  ASSERT_TRUE(vm.wait_ready(30s)) << vm.log();
  Daemon d(fabric(),
           daemon_args(vm.url("/api/v1/write"), {"--remote-write.changed-only", "false"}));
  ASSERT_TRUE(d.wait_for("event=ready", 15s)) << d.log();
  // A gauge: stamped with each snapshot's publish time, so one sample per snapshot.
  const std::string state = selector("infiniband_port_state", "Hca1");
  ASSERT_TRUE(eventually([&] { return !ports_in(vm.query(state)).empty(); })) << vm.log();
  vm.stop();
  const double down = unix_now();
  std::this_thread::sleep_for(20s);  // the outage itself, not a wait for an event
  const double up = unix_now();
  const std::string metrics = http_get(d.web_port(), "/metrics");
  EXPECT_EQ(metrics.find("ibpulse_remote_write_queue_samples{url=\"" + vm.url("/api/v1/write") +
                         "\"} 0\n"),
            std::string::npos);  // samples wait in the queue
  vm.start();
  ASSERT_TRUE(vm.wait_ready(30s)) << vm.log();
  // 16 s of the outage at 2 snapshots a second: at least 28 (a few late sweeps allowed).
  size_t in_window = 0;
  EXPECT_TRUE(eventually([&] {
    in_window = 0;
    for (const auto& s : vm.export_series(state, down + 2, up - 2))
      in_window += s.at("timestamps").size();
    return in_window >= 28;
  })) << in_window;
  EXPECT_EQ(samples_total(http_get(d.web_port(), "/metrics"), vm.url("/api/v1/write"), "dropped"),
            0);
  EXPECT_NE(d.log().find("event=remote_write_retry"), std::string::npos);
  // Each shard retried its request once per backoff while the receiver was down: at least once.
  EXPECT_GE(metric_value(http_get(d.web_port(), "/metrics"), "ibpulse_remote_write_retries_total",
                         "url=\"" + vm.url("/api/v1/write") + "\""),
            1);
  d.stop();
}

// Prometheus' receiver takes every request (a sample older than the series' last one would
// make it answer 400 for the whole request), and a port that leaves the fabric ends its series
// with a stale marker: the receiver has no value for it any more.
TEST(RemoteWritePrometheus, AcceptsEveryRequestAndSeesTheStaleMarkerOfAPortThatLeft) {
  PrometheusServer::Options options;
  options.remote_write_receiver = true;
  PrometheusServer prom(0, options);
  ASSERT_TRUE(prom.wait_ready(30s)) << prom.log();
  Daemon d(fabric(), daemon_args(prom.url("/api/v1/write"),
                                 {"--discovery.interval", "2s", "--counters.not-present-grace",
                                  "1s", "--poll.port-info-interval", "1s"}));
  ASSERT_TRUE(d.wait_for("event=ready", 15s)) << d.log();
  const std::string xmit = "infiniband_port_xmit_data_bytes_total";
  const auto in_metrics = first_ports_in_metrics(d, xmit);
  ASSERT_FALSE(in_metrics.empty());
  std::set<std::pair<std::string, std::string>> expected;
  for (const auto& [key, value] : in_metrics)
    expected.insert(key);
  EXPECT_TRUE(eventually([&] { return ports_in(prom.query(xmit)) == expected; }))
      << prom.query(xmit).dump();
  const std::string hca = selector(xmit, "Hca1");
  ASSERT_EQ(prom.count(hca), 1);
  ASSERT_EQ(fabric().sim("link-down", {"Hca1[1]"}).exit_code, 0);
  // Gone from discovery, forgotten after the grace: the stale marker ends the series.
  EXPECT_TRUE(eventually([&] { return prom.count(hca) == 0; })) << d.log();
  ASSERT_EQ(fabric().sim("link-up", {"Hca1[1]"}).exit_code, 0);
  EXPECT_TRUE(eventually([&] { return prom.count(hca) == 1; })) << d.log();
  const std::string metrics = http_get(d.web_port(), "/metrics");
  EXPECT_EQ(samples_total(metrics, prom.url("/api/v1/write"), "failed"), 0)
      << d.log() << prom.log();
  EXPECT_EQ(d.log().find("event=remote_write_rejected"), std::string::npos) << d.log();
  d.stop();
}

// A receiver that answers 400: logged, counted as failed, and each body sent once.
TEST(RemoteWrite, ClientErrorsAreLoggedCountedAndNotRetried) {
  HttpReceiver receiver([](size_t) { return 400; });
  Daemon d(fabric(), daemon_args(receiver.url()));
  ASSERT_TRUE(d.wait_for("event=remote_write_rejected", 30s)) << d.log();
  double failed = 0;
  ASSERT_TRUE(eventually([&] {
    failed = samples_total(http_get(d.web_port(), "/metrics"), receiver.url(), "failed");
    return failed > 0;
  }));
  EXPECT_EQ(samples_total(http_get(d.web_port(), "/metrics"), receiver.url(), "sent"), 0);
  d.stop();
  std::set<std::string> bodies;
  for (const auto& r : receiver.requests())
    EXPECT_TRUE(bodies.insert(r.body).second) << "a body was sent twice";
  EXPECT_NE(d.log().find("status=400"), std::string::npos);
}

TEST(RemoteWrite, BadConfigurationStopsTheDaemonAtStart) {
  const auto scheme = run_ibpulse({"run", "--remote-write.url", "ftp://127.0.0.1/x"});
  EXPECT_NE(scheme.exit_code, 0);
  EXPECT_NE(scheme.err.find("is not http:// or https://"), std::string::npos) << scheme.err;
  const auto key = run_ibpulse(
      {"run", "--remote-write.url", R"({"url": "http://127.0.0.1/x", "tennant": "a"})"});
  EXPECT_NE(key.exit_code, 0);
  EXPECT_NE(key.err.find("unknown key 'tennant'"), std::string::npos) << key.err;
  const auto file =
      run_ibpulse({"run", "--remote-write.url",
                   R"({"url": "http://127.0.0.1/x", "bearer-token-file": "/no/such"})"});
  EXPECT_NE(file.exit_code, 0);
  EXPECT_NE(file.err.find("bearer-token-file: cannot read '/no/such'"), std::string::npos)
      << file.err;
  // In the config file, a receiver is a YAML map; the error names the file, line and key.
  const auto config = std::filesystem::temp_directory_path() /
                      ("ibpulse-rw-" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(config) << "remote-write:\n"
                           "  url:\n"
                           "    - http://127.0.0.1:1/api/v1/write\n"
                           "    - url: http://127.0.0.1:2/api/v1/push\n"
                           "      headers: {X-Scope-OrgID: a}\n"
                           "      queue-sampels: 10\n";
  const auto yaml = run_ibpulse({"run", "--config", config.string()});
  std::filesystem::remove(config);
  EXPECT_NE(yaml.exit_code, 0);
  EXPECT_NE(yaml.err.find(":2: remote-write.url: receiver 2: unknown key 'queue-sampels'"),
            std::string::npos)
      << yaml.err;
}

}  // namespace
}  // namespace ibpulse::testing
