// A real SNMP manager reads ibpulse: Prometheus' snmp_exporter (Debian's, on a loopback port,
// with the project's if_mib module, tools/snmp_exporter/snmp.yml) scrapes the agent, and its
// ifHCOutOctets for a port equals ibpulse's own Prometheus value for that port.
//
// Switch2 port 1 holds still (snmp_test.cc says why: Hca2 unpolled, no PortInfo reads or
// rediscovery), so both readers see the same total. Values stay below 2^53, where
// snmp_exporter wraps Counter64 by default.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <regex>

#include "daemon_client.h"
#include "ibpulse/sim/process.h"
#include "sim_fabric.h"

namespace ibpulse::testing {
namespace {

using namespace std::chrono_literals;

SimFabric& fabric() {
  return SimFabricEnvironment::fabric();
}

// The value of the one sample line of `text` that matches `pattern` (a regex up to the value).
std::string sample_value(const std::string& text, const std::string& pattern) {
  std::smatch m;
  if (!std::regex_search(text, m, std::regex("\n" + pattern + " ([0-9.e+]+)\n"))) return "";
  return m[1];
}

struct SnmpExporter {
  sim::ProcessRef process;
  uint16_t port = free_loopback_port(SOCK_STREAM);
  std::filesystem::path log = std::filesystem::temp_directory_path() /
                              ("ibpulse-snmp-exporter-" + std::to_string(::getpid()) + ".log");
  SnmpExporter() {
    sim::SpawnSpec spec;
    spec.argv = {"prometheus-snmp-exporter",
                 "--config.file=" IBPULSE_SOURCE_DIR "/tools/snmp_exporter/snmp.yml",
                 "--web.listen-address=127.0.0.1:" + std::to_string(port), "--log.level=warn"};
    spec.stderr_path = log;
    spec.stdout_path = log;
    auto started = sim::spawn_detached(spec);
    if (started) process = *started;
  }
  ~SnmpExporter() {
    if (process.pid != 0) sim::terminate(process, 3s);
    std::filesystem::remove(log);
  }
  std::string scrape(uint16_t agent_port) const {
    const std::string url = "http://127.0.0.1:" + std::to_string(port) +
                            "/snmp?module=if_mib&target=127.0.0.1:" + std::to_string(agent_port);
    for (int i = 0; i < 50; ++i) {  // until it listens and answers
      std::string body = http_get_url(url);
      if (!body.starts_with("ERROR") && !body.starts_with("HTTP ")) return body;
      std::this_thread::sleep_for(100ms);
    }
    return "ERROR no answer; log: " + read_text_file(log);
  }
};

TEST(SnmpManager, SnmpExporterSeesTheSameCountersAsTheMetricsEndpoint) {
  const std::string hca2 = guid_text(fabric().port("Hca2", 1).node_guid);
  Daemon d(fabric(),
           {"--snmp.community", "public", "--poll.skip-nodes", hca2, "--poll.port-info-interval",
            "off", "--discovery.interval", "1h", "--poll.counters-interval", "300ms",
            "--counters.publish-interval", "200ms", "--state.save-interval", "off"});
  ASSERT_TRUE(d.wait_for("event=ready", 10s)) << d.log();
  fabric().set("PerformanceSet \"Switch2\"[1] PortCountersExtended.PortXmitData=2500000000");
  fabric().set("PerformanceSet \"Switch2\"[1] PortCountersExtended.PortXmitPkts=1000");
  ASSERT_TRUE(d.wait_for_sweeps(3)) << d.log();  // a sweep and a publish after the values were set

  SnmpExporter exporter;
  ASSERT_NE(exporter.process.pid, 0) << "prometheus-snmp-exporter did not start";
  const std::string via_snmp = exporter.scrape(d.snmp_port());
  const std::string via_metrics = http_get(d.web_port(), "/metrics");
  const std::string snmp_value = sample_value(
      via_snmp, R"(ifHCOutOctets\{ifAlias="to Hca2/1",ifIndex="[0-9]+",ifName="Switch2/1"\})");
  const std::string own_value = sample_value(
      via_metrics, "infiniband_port_if_out_octets_total\\{node_guid=\"" +
                       guid_text(fabric().port("Switch2", 1).node_guid) + "\",port=\"1\"\\}");
  EXPECT_EQ(own_value, "10000004000") << via_metrics.substr(0, 2000);  // x 4 each, exact
  // snmp_exporter writes large values in Go's float notation: compare as numbers.
  ASSERT_FALSE(snmp_value.empty()) << via_snmp.substr(0, 3000);
  EXPECT_EQ(std::stod(snmp_value), 10000004000.0) << snmp_value;
  EXPECT_NE(sample_value(via_snmp, "sysUpTime"), "");
  d.stop();
  fabric().set("PerformanceSet \"Switch2\"[1] PortCountersExtended.PortXmitData=0");
  fabric().set("PerformanceSet \"Switch2\"[1] PortCountersExtended.PortXmitPkts=0");
}

}  // namespace
}  // namespace ibpulse::testing
