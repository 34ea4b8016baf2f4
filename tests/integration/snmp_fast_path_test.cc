// The SNMP agent's fast path (exporters/snmp/src/fast_path.h) answers exactly as net-snmp's own
// request processing does. One agent serves a fixed snapshot; net-snmp's tools send the same
// requests with the fast path on and then off, and the outputs must be identical: whole walks
// (which step past the end of every table), GETBULK with non-repeaters and with more
// repetitions than net-snmp grants, GETs of present and missing instances, a node's context
// over v2c and SNMPv3, unknown communities and contexts. The requests that should stay on the
// fast path must have done so, so a fast path that quietly handed everything back would fail.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "agent_testing.h"
#include "eventually.h"
#include "ibpulse/converters/snapshot.h"
#include "ibpulse/exporters/snmp/agent.h"
#include "snmp_client.h"
#include "synthetic_fabric.h"
#include "test_snapshot.h"

namespace ibpulse::exporters::snmp {
namespace {

using namespace std::chrono_literals;
using ibpulse::testing::snmp_tool;

const std::string kV2c = "-v2c -c public";
const std::string kV2cSwitch = "-v2c -c public@0x0002c90300000abc";
const std::string kV3 =
    "-v3 -u monitor -l authPriv -a SHA-256 -A auth-secret-1 -x AES -X priv-secret-1";

struct Case {
  std::string tool;
  std::string security;
  std::string oids;
  bool fast;  // whether the fast path should answer it (every request of it, for walks)
  // Seconds the tool waits for each response, without retries (a retry would be answered
  // twice): long enough for a loaded machine; short where the agent answers nothing.
  int timeout = 5;
};

// On the two-node fabric (test_snapshot.h): three ports, so a response of many varbinds runs
// through several subtrees and is net-snmp's.
const std::vector<Case>& small_fabric_cases() {
  static const std::vector<Case> all = {
      {"snmpbulkwalk -Cr50", kV2c, "1.3.6.1.2.1", false},
      {"snmpbulkwalk -Cr7", kV2c, "1.3.6.1.2.1", true},
      {"snmpbulkwalk -Cr1", kV2c, "1.3.6.1.3", true},
      {"snmpwalk", kV2c, "1.3.6.1.2.1", true},
      {"snmpwalk", kV2c, "1.3.6.1.3.117.2.1.2", true},  // ibIfVLTrafficTable
      {"snmpbulkwalk -Cr3", kV2cSwitch, "1.3.6.1.2.1.31.1.1", true},
      {"snmpbulkwalk -Cr50", kV2cSwitch, "1.3.6.1.2.1", false},
      {"snmpbulkwalk -Cr5", kV3, "1.3.6.1.2.1.31.1.1", true},
      {"snmpbulkwalk -Cr2", kV3 + " -n 0x0002c90300000abc", "1.3.6.1.3", true},
      // Two non-repeaters, two repeaters inside their columns.
      {"snmpbulkget -Cn2 -Cr2", kV2c,
       "1.3.6.1.2.1.1.1 1.3.6.1.2.1.2.1 1.3.6.1.2.1.31.1.1.1.6 1.3.6.1.3.117.2.1.1.1.2", true},
      // A repeater that runs out of ifXTable (three rows) into IB-IF-MIB.
      {"snmpbulkget -Cn0 -Cr4", kV2c, "1.3.6.1.2.1.31.1.1.1.19 1.3.6.1.2.1.31.1.1.1.1", false},
      {"snmpget", kV2c, "1.3.6.1.2.1.31.1.1.1.6.1 1.3.6.1.2.1.1.5.0 1.3.6.1.3.117.2.1.1.1.2.2",
       true},
      // ifHCInOctets.99 does not exist; the HCA never read its SymbolErrorCounter.
      {"snmpget", kV2c, "1.3.6.1.2.1.31.1.1.1.6.1 1.3.6.1.2.1.31.1.1.1.6.99", false},
      {"snmpget", kV2c, "1.3.6.1.3.117.2.1.1.1.2.1", false},
      {"snmpget", kV2c, "1.3.6.1.2.1.2.2.1.22.1", false},  // ifSpecific: not served
      {"snmpgetnext", kV2c, "1.3.6.1.2.1.30 1.3.6.1.2.1.31.1.1.1.1.3", false},
      {"snmpget", "-v2c -c public@0x00000000deadbeef", "1.3.6.1.2.1.1.5.0", false, 1},
      {"snmpget", kV3 + " -n 0x00000000deadbeef", "1.3.6.1.2.1.1.5.0", false, 1},
      {"snmpget", "-v2c -c private", "1.3.6.1.2.1.1.5.0", false, 1},
  };
  return all;
}

// On 200 switch ports: GETBULKs asking for more than net-snmp grants (100 varbinds).
const std::vector<Case>& large_fabric_cases() {
  static const std::vector<Case> all = {
      {"snmpbulkget -Cn0 -Cr200", kV2c, "1.3.6.1.2.1.31.1.1.1.1", true},
      {"snmpbulkget -Cn1 -Cr80", kV2c,
       "1.3.6.1.2.1.1.5 1.3.6.1.2.1.31.1.1.1.1 1.3.6.1.2.1.31.1.1.1.6", true},
      {"snmpbulkwalk -Cr50", kV2c, "1.3.6.1.2.1.31.1.1", true},
  };
  return all;
}

class FastPathTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::filesystem::create_directories(state_dir());
    AgentOptions options;
    options.listen = "127.0.0.1:0";
    options.communities = {"public"};
    options.state_dir = state_dir().string();
    SnmpUser user;
    user.name = "monitor";
    user.auth_password = "auth-secret-1";
    user.priv_password = "priv-secret-1";
    options.users = {user};
    options.system.name = "fabric-a";
    auto started = SnmpAgent::start(options, &store_);
    ASSERT_TRUE(started.ok()) << started.error();
    agent_ = std::move(*started);
  }
  static void TearDownTestSuite() {
    agent_.reset();
    std::filesystem::remove_all(state_dir());
  }
  static std::filesystem::path state_dir() {
    return std::filesystem::temp_directory_path() / fmt::format("ibpulse-fast-path-{}", getpid());
  }

  // The tool's output, sysUpTime (the only value that moves) masked.
  static std::string run(const Case& c) {
    const std::string command = fmt::format("{} {} -On -Oq -t {} -r 0 127.0.0.1:{} {}", c.tool,
                                            c.security, c.timeout, agent_->port(), c.oids);
    const std::string out = snmp_tool(command).out;
    static const std::regex uptime(R"(\.1\.3\.6\.1\.2\.1\.1\.3\.0 \S+)");
    return std::regex_replace(out, uptime, ".1.3.6.1.2.1.1.3.0 <sysUpTime>");
  }

  static uint64_t fast_requests() { return agent_->stats().fast_path_requests; }

  // Each test serves its own fabric, whatever ran before it: published, then waited for until
  // the agent's thread has built its view of it.
  static void serve(std::shared_ptr<const converters::FabricSnapshot> snapshot) {
    const uint64_t views = agent_->stats().views;
    store_.publish(std::move(snapshot));
    ASSERT_TRUE(ibpulse::testing::eventually([&] { return agent_->stats().views > views; }, 20s));
  }

  // Every case with the fast path on, then off: the same output, and the fast path used
  // where the case says (at least once) or not at all. The outputs, fast path on.
  static std::vector<std::string> compare(const std::vector<Case>& cases) {
    std::vector<std::string> fast_out;
    for (const Case& c : cases) {
      const uint64_t before = fast_requests();
      fast_out.push_back(run(c));
      const uint64_t answered = fast_requests() - before;
      EXPECT_EQ(answered > 0, c.fast)
          << answered << " requests on the fast path: " << c.tool << " " << c.oids;
    }
    SnmpAgentTesting::set_fast_path(*agent_, false);
    const uint64_t before = fast_requests();
    for (size_t i = 0; i < cases.size(); ++i) {
      const Case& c = cases[i];
      EXPECT_EQ(fast_out[i], run(c)) << c.tool << " " << c.security << " " << c.oids;
    }
    EXPECT_EQ(fast_requests(), before);
    SnmpAgentTesting::set_fast_path(*agent_, true);
    return fast_out;
  }

  static inline converters::SnapshotStore store_;
  static inline std::unique_ptr<SnmpAgent> agent_;
};

TEST_F(FastPathTest, AnswersEveryRequestAsNetSnmpWould) {
  ASSERT_TRUE(agent_);
  serve(converters::testing::small_fabric_snapshot(converters::Clock::now() - 1h));
  const std::vector<std::string> out = compare(small_fabric_cases());
  // What was compared is the fabric, not a row of errors.
  EXPECT_NE(out[1].find(".1.3.6.1.2.1.31.1.1.1.10.1 20000000004000"), std::string::npos) << out[1];
  EXPECT_NE(out[2].find(".1.3.6.1.3.117.2.1.1.1.2.2 65535"), std::string::npos) << out[2];
  EXPECT_NE(out[8].find(".1.3.6.1.3.117.2.1.1.1.2.7 65535"), std::string::npos) << out[8];
  EXPECT_EQ(std::count(out[9].begin(), out[9].end(), '\n'), 6) << out[9];
}

TEST_F(FastPathTest, GrantsAsManyRepetitionsAsNetSnmp) {
  ASSERT_TRUE(agent_);
  serve(bench::synthetic_snapshot(200));
  const std::vector<std::string> out = compare(large_fabric_cases());
  EXPECT_EQ(std::count(out[0].begin(), out[0].end(), '\n'), 100) << out[0];
  EXPECT_EQ(std::count(out[1].begin(), out[1].end(), '\n'), 101) << out[1];
  EXPECT_EQ(std::count(out[2].begin(), out[2].end(), '\n'), 200 * 19) << out[2];
}

// "[::]" listens on IPv6 and IPv4 (two net-snmp sessions, as net-snmp's IPv6 sockets are
// IPV6_V6ONLY): a manager on either gets the fabric, and through the fast path on both.
TEST(FastPathDualStack, AnswersIpv4AndIpv6OnTheFastPath) {
  const auto dir =
      std::filesystem::temp_directory_path() / fmt::format("ibpulse-fast-path-dual-{}", getpid());
  std::filesystem::create_directories(dir);
  converters::SnapshotStore store;
  store.publish(converters::testing::small_fabric_snapshot(converters::Clock::now() - 1h));
  AgentOptions options;
  options.listen = "[::]:0";
  options.communities = {"public"};
  options.state_dir = dir.string();
  options.system.name = "fabric-a";
  auto started = SnmpAgent::start(options, &store);
  ASSERT_TRUE(started.ok()) << started.error();
  SnmpAgent& agent = **started;
  const std::string port = std::to_string(agent.port());
  ASSERT_NE(port, "0");
  for (const std::string address : {"udp:127.0.0.1:", "udp6:[::1]:"}) {
    const std::string get = "snmpget -v2c -c public -On -Oq -t 5 -r 0 " + address + port +
                            " 1.3.6.1.2.1.31.1.1.1.6.1 1.3.6.1.2.1.1.5.0";
    // The agent builds its view of the snapshot on its own thread: the first answer may be
    // net-snmp's "no such instance", so ask until the view is there.
    std::string out;
    const bool served = ibpulse::testing::eventually(
        [&] { return (out = snmp_tool(get).out).find("fabric-a") != std::string::npos; }, 20s);
    ASSERT_TRUE(served) << address << ": " << out;
    const uint64_t before = agent.stats().fast_path_requests;
    out = snmp_tool(get).out;
    EXPECT_NE(out.find(".1.3.6.1.2.1.31.1.1.1.6.1 428"), std::string::npos)
        << address << ": " << out;
    EXPECT_EQ(agent.stats().fast_path_requests, before + 1) << address;
  }
  started->reset();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ibpulse::exporters::snmp
