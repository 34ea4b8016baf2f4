// `ibpulse demo`, the README's first command, run as a user runs it: it brings up its own
// fabric (own name, IBSIM_SOCKNAME and ports here), serves moving counters over /metrics and
// SNMP (v2c and its SNMPv3 user), has a local Prometheus scrape it, and after --duration stops
// everything it started.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "daemon_client.h"
#include "eventually.h"
#include "ibpulse/sim/process.h"
#include "snmp_client.h"

namespace ibpulse::testing {
namespace {

using namespace std::chrono_literals;

TEST(Demo, ServesMovingCountersOverMetricsSnmpAndPrometheusThenStopsEverything) {
  const std::string name = "demo" + std::to_string(::getpid());
  const uint16_t web = free_loopback_port(SOCK_STREAM);
  const uint16_t snmp = free_loopback_port(SOCK_DGRAM);
  const uint16_t prometheus = free_loopback_port(SOCK_STREAM);
  Result<sim::CommandOutput> ran = Err("not run");
  std::thread demo([&] {
    ran = sim::run_command({IBPULSE_BINARY_FOR_TESTS, "demo", "--name", name, "--duration", "40",
                            "--web.listen-address", "127.0.0.1:" + std::to_string(web),
                            "--snmp.listen", "127.0.0.1:" + std::to_string(snmp),
                            "--prometheus.listen", "127.0.0.1:" + std::to_string(prometheus)},
                           {{"IBSIM_SOCKNAME", "ibpulse-demo-test-" + std::to_string(::getpid())}},
                           120s);
  });

  // Transmitted bytes of Hca1's port grow between two scrapes: the generated traffic.
  const std::string hca1 = "node_guid=\"0x0000000000100000\",port=\"1\"";
  double first = -1;
  double later = -1;
  EXPECT_TRUE(eventually(
      [&] {
        const std::string scrape = http_get(web, "/metrics");
        const double v = metric_value(scrape, "infiniband_port_xmit_data_bytes_total", hca1);
        if (first <= 0) first = v;
        later = v;
        return first > 0 && later > first;
      },
      30s))
      << first << " " << later;

  const std::string target = " 127.0.0.1:" + std::to_string(snmp);
  const auto v2c = parse_varbinds(
      snmp_tool("snmpget -v2c -c public -On -Oq -t 2" + target + " 1.3.6.1.2.1.2.1.0").out);
  EXPECT_EQ(v2c.contains(".1.3.6.1.2.1.2.1.0") ? v2c.at(".1.3.6.1.2.1.2.1.0") : "", "24");
  const auto v3 = snmp_tool(
      "snmpbulkwalk -v3 -l authPriv -u demo -a SHA-256 -A demo-auth-pass -x AES -X demo-priv-pass "
      "-On -Oq -t 2" +
      target + " 1.3.6.1.2.1.31.1.1.1.10");  // ifHCOutOctets
  size_t moving = 0;
  for (const auto& [oid, value] : parse_varbinds(v3.out))
    moving += value != "0";
  EXPECT_GE(moving, 12u) << v3.out;  // every linked port sends

  // The demo's Prometheus scrapes the demo's ibpulse.
  const std::string up = "http://127.0.0.1:" + std::to_string(prometheus) + "/api/v1/query";
  EXPECT_TRUE(eventually(
      [&] {
        const auto answer =
            nlohmann::json::parse(http_get_url(up, {"query=up{job=\"ibpulse\"}"}), nullptr, false);
        return answer.is_object() && answer.value("status", "") == "success" &&
               !answer["data"]["result"].empty() && answer["data"]["result"][0]["value"][1] == "1";
      },
      30s));

  demo.join();
  ASSERT_TRUE(ran.ok()) << ran.error();
  EXPECT_EQ(ran->exit_code, 0) << ran->err;
  EXPECT_NE(ran->out.find("ibpulse polls every port above"), std::string::npos) << ran->out;
  EXPECT_NE(ran->err.find("fabric '" + name + "' stopped"), std::string::npos) << ran->err;
  EXPECT_EQ(http_get(web, "/metrics").rfind("ERROR", 0), 0u) << "the collector stopped";
}

}  // namespace
}  // namespace ibpulse::testing
