// The converter on the simulated fabric, end to end through `ibpulse run`: data counters under
// `ibpulse sim traffic` equal what the generator injected, and a node read through 32-bit
// PortCounters only (poll.no-extended-nodes) latches (`never`) or is cleared by exactly its
// CounterSelect bit (`threshold`) without losing counts. The daemon's exported totals come from
// its `event=port_total` lines (--log.level trace, at stop).
//
// Clients (the daemon, the traffic generator, query, perfquery) attach at Switch1, the first
// node of the net file, and every MAD crossing a link adds 72 dwords and 1 packet to both
// ports of that link, each way (ibsim counts MADs as traffic): data and packet counters are
// compared within
// the MADs the test caused, counted, never with a guessed margin.
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <queue>
#include <regex>
#include <set>
#include <thread>

#include "daemon_client.h"
#include "sim_fabric.h"

namespace ibpulse::testing {
namespace {

using namespace std::chrono_literals;

SimFabric& fabric() {
  return SimFabricEnvironment::fabric();
}

// The daemon as these tests run it: tracing its totals, and with no state file, so every run
// starts from the raw readings whatever an earlier test's daemon counted.
class CountingDaemon : public Daemon {
 public:
  explicit CountingDaemon(std::vector<std::string> args)
      : Daemon(fabric(), with_defaults(std::move(args))) {}

 private:
  static std::vector<std::string> with_defaults(std::vector<std::string> args) {
    // No P_Key table reads: the tests count the daemon's MADs from its reads (those SMPs
    // would cross links too, uncounted).
    std::vector<std::string> all = {"--log.level",
                                    "trace",
                                    "--state.save-interval",
                                    "off",
                                    "--discovery.interval",
                                    "1h",
                                    "--poll.port-info-interval",
                                    "off",
                                    "--poll.partition-tables",
                                    "false"};
    all.insert(all.end(), args.begin(), args.end());
    return all;
  }
};

std::string guid_of(const std::string& node) {
  return guid_text(fabric().port(node, 1).node_guid);
}

std::string total_line(const std::string& node, unsigned port, const std::string& counter) {
  return testing::total_line(fabric(), node, port, counter);
}

// The daemon's reads of any port of `node` (every attribute, failed ones included).
uint64_t reads_of(const std::string& log, const std::string& node) {
  return count(log, "event=sample_read node_guid=" + guid_of(node) + " ");
}

// Active linked ports of `node` (what query --all and the traffic generator read).
uint64_t linked_ports(const std::string& node) {
  uint64_t n = 0;
  for (const auto& p : fabric().ports())
    n += p.node == node && !p.remote_node.empty() && p.state == "Active";
  return n;
}

// The nodes a MAD from Switch1 must reach across the link of `port`: those Switch1 cannot
// reach once every link between the two ends is removed (the fabric is a tree apart from
// parallel links between two switches, and a MAD crosses only one of those).
std::set<std::string> nodes_behind(const PortInfo& port) {
  const auto same_pair = [&](const PortInfo& q) {
    return (q.node == port.node && q.remote_node == port.remote_node) ||
           (q.node == port.remote_node && q.remote_node == port.node);
  };
  std::set<std::string> all;
  std::set<std::string> reached = {"Switch1"};
  std::queue<std::string> todo;
  todo.push("Switch1");
  while (!todo.empty()) {
    const std::string at = todo.front();
    todo.pop();
    for (const auto& q : fabric().ports()) {
      if (q.node != at || q.remote_node.empty() || same_pair(q)) continue;
      if (reached.insert(q.remote_node).second) todo.push(q.remote_node);
    }
  }
  for (const auto& q : fabric().ports()) {
    if (!reached.contains(q.node)) all.insert(q.node);
  }
  return all;
}

// --- data counters under traffic --------------------------------------------------------

struct Reading {
  uint64_t xmit_data = 0, rcv_data = 0, xmit_pkts = 0, rcv_pkts = 0;  // dwords, packets
};

// Every active port's PortCountersExtended, through one `query --all` sweep.
std::map<std::pair<std::string, unsigned>, Reading> read_all_extended() {
  const auto out = fabric().exec({IBPULSE_BINARY_FOR_TESTS, "query", "--all", "--json"});
  if (out.exit_code != 0) throw std::runtime_error("query --all failed: " + out.err);
  std::map<std::pair<std::string, unsigned>, Reading> readings;
  const auto all = nlohmann::json::parse(out.out);
  for (const auto& p : all.at("ports")) {
    const auto& x = p.at("PortCountersExtended");
    readings[{p.at("node").get<std::string>(), p.at("port").get<unsigned>()}] = {
        x.at("PortXmitData").get<uint64_t>(), x.at("PortRcvData").get<uint64_t>(),
        x.at("PortXmitPkts").get<uint64_t>(), x.at("PortRcvPkts").get<uint64_t>()};
  }
  return readings;
}

TEST(Counters, DataCountersUnderSimTrafficEqualTheInjectedTotals) {
  CountingDaemon d({"--poll.counters-interval", "500ms"});
  ASSERT_TRUE(d.wait_for("event=ready ports=12 stale=0", 15s)) << d.log();
  // The starting reading. ibsim's 64-bit counters never latch and nothing clears them, so the
  // daemon's total (its first reading, then deltas) is its last reading of the 64-bit copy.
  const auto start = read_all_extended();
  const auto traffic = fabric().sim(
      "traffic", {"--utilization", "0.05", "--duration", "3", "--tick-ms", "500", "--json"});
  ASSERT_EQ(traffic.exit_code, 0) << traffic.err;
  const auto report = nlohmann::json::parse(traffic.out);
  // Two more of the daemon's sweeps: its last reading comes after the generator's last write.
  ASSERT_TRUE(d.wait_for_sweeps(2)) << d.log();
  const std::string log = d.stop();
  EXPECT_EQ(stopped_stat(log, "lossy_intervals"), 0u) << log;
  EXPECT_EQ(stopped_stat(log, "foreign_clears"), 0u) << log;
  EXPECT_EQ(stopped_stat(log, "source_switches"), 0u) << log;
  const uint64_t ticks = report.at("ticks").get<uint64_t>();
  const uint64_t retried = stopped_stat(log, "mad_retried");
  ASSERT_EQ(report.at("ports").size(), 12u) << traffic.out;

  for (const auto& injected : report.at("ports")) {
    const std::string node = injected.at("node").get<std::string>();
    const unsigned port = injected.at("port").get<unsigned>();
    SCOPED_TRACE(node + "[" + std::to_string(port) + "]");
    ASSERT_TRUE(start.count({node, port}));
    const Reading& s = start.at({node, port});
    // What else moved these counters after the starting reading: the MADs addressed to a node
    // behind this port's link. Each crosses it at most once each way, adding at most 72
    // dwords and 1 packet to each of the four counters. They are: the daemon's reads of those
    // nodes (counted from its own sample_read lines, the whole run: a superset) plus a
    // ClassPortInfo per node, the starting `query --all` (4 attributes per port and a
    // ClassPortInfo per node), the generator's reads (PortCounters and PortCountersExtended
    // of every port, every tick), and any retry of the daemon's. The generator writes
    // current + delta after reading, which can only erase MAD increments, never injected
    // counts: so total >= start + injected, and the excess is at most those MADs.
    uint64_t mads = retried;
    for (const auto& n : nodes_behind(fabric().port(node, port)))
      mads += reads_of(log, n) + 1 + 4 * linked_ports(n) + 1 + 2 * ticks * linked_ports(n);
    const auto check = [&](const std::string& counter, uint64_t start_value, uint64_t injected_v,
                           uint64_t scale, uint64_t per_mad) {
      const uint64_t expected = (start_value + injected_v) * scale;
      const uint64_t total = total_in(log, total_line(node, port, counter));
      ASSERT_NE(total, UINT64_MAX) << "no total for " << counter << "\n" << log;
      EXPECT_GE(total, expected) << counter << ": counts lost";
      EXPECT_LE(total - expected, mads * per_mad * scale)
          << counter << ": more than " << mads << " MADs explain";
    };
    const uint64_t xmit_dwords = injected.at("xmit_data_dwords").get<uint64_t>();
    const uint64_t rcv_dwords = injected.at("rcv_data_dwords").get<uint64_t>();
    // 5% of 4X SDR (1 GB/s) for 3 s: some 37 million dwords each way.
    EXPECT_GT(xmit_dwords, 30000000u);
    EXPECT_GT(rcv_dwords, 30000000u);
    check("xmit_data_bytes", s.xmit_data, xmit_dwords, 4, kMadDwords);
    check("rcv_data_bytes", s.rcv_data, rcv_dwords, 4, kMadDwords);
    check("xmit_packets", s.xmit_pkts, injected.at("xmit_pkts").get<uint64_t>(), 1, 1);
    check("rcv_packets", s.rcv_pkts, injected.at("rcv_pkts").get<uint64_t>(), 1, 1);
  }
}

// --- a node read through 32-bit PortCounters only ---------------------------------------

void set(const std::string& node, const std::string& assignment) {
  fabric().set("PerformanceSet \"" + node + "\"[1] " + assignment);
}

TEST(Counters, ThirtyTwoBitOnlyNodeWithNeverPolicyLatchesAndCountsUpToTheLatch) {
  set("Hca3", "PortCounters.PortRcvData=" + std::to_string(kLatch32 - 50000));
  set("Hca3", "PortCounters.PortRcvPkts=" + std::to_string(kLatch32 - 1000));
  set("Hca3", "PortCounters.PortXmitData=1000");
  // The 64-bit copies hold something else: the daemon must not read them for this node.
  set("Hca3", "PortCountersExtended.PortRcvData=7");
  CountingDaemon d(
      {"--poll.counters-interval", "300ms", "--poll.no-extended-nodes", guid_of("Hca3")});
  ASSERT_TRUE(d.wait_for("event=ready ports=12 stale=0", 15s)) << d.log();
  ASSERT_TRUE(d.wait_for_sweeps(1)) << d.log();  // a reading below the latch
  // Driven past the latch: ibsim clamps at the field's width, as hardware latches.
  set("Hca3", "PortCounters.PortRcvData=" + std::to_string(kLatch32 + 2000000));
  set("Hca3", "PortCounters.PortRcvPkts=" + std::to_string(kLatch32 + 2000));
  ASSERT_TRUE(d.wait_for_sweeps(2)) << d.log();
  EXPECT_EQ(fabric().perfquery("Hca3", 1, "PortRcvData"), kLatch32) << "never cleared";
  const std::string log = d.stop();
  // Up to the latch: first reading + deltas = the latched value, scaled; marked saturated.
  EXPECT_NE(log.find(total_line("Hca3", 1, "rcv_data_bytes") + std::to_string(kLatch32 * 4) +
                     " saturated=true"),
            std::string::npos)
      << log;
  EXPECT_NE(
      log.find(total_line("Hca3", 1, "rcv_packets") + std::to_string(kLatch32) + " saturated=true"),
      std::string::npos)
      << log;
  // The counter that did not latch is not marked, and counts from PortCounters: 1000 dwords
  // plus the MADs this port sent since the daemon's first read, at most 72 dwords each: the
  // daemon's reads, a ClassPortInfo, the SMPs of the discoveries (a few each; how many
  // discoveries fit depends on the machine's load) and the test's perfquery (2 MADs).
  const uint64_t xmit = total_in(log, total_line("Hca3", 1, "xmit_data_bytes"));
  EXPECT_GE(xmit, 4000u);
  EXPECT_LE(xmit, 4000 + (reads_of(log, "Hca3") + 16) * kMadDwords * 4) << log;
  EXPECT_EQ(
      log.find(total_line("Hca3", 1, "xmit_data_bytes") + std::to_string(xmit) + " saturated=true"),
      std::string::npos);
  EXPECT_GT(stopped_stat(log, "lossy_intervals"), 0u) << log;
  EXPECT_EQ(stopped_stat(log, "source_switches"), 0u) << log;
  EXPECT_EQ(log.find("event=counters_cleared"), std::string::npos) << log;
  // 32-bit only: PortCounters read, PortCountersExtended never asked of this node.
  const std::string reads = "event=sample_read node_guid=" + guid_of("Hca3") + " port=1 ";
  EXPECT_GT(count(log, reads + "attribute=PortCounters "), 0u);
  EXPECT_EQ(count(log, reads + "attribute=PortCountersExtended "), 0u);
  for (const char* f : {"PortCounters.PortRcvData", "PortCounters.PortRcvPkts",
                        "PortCounters.PortXmitData", "PortCountersExtended.PortRcvData"})
    set("Hca3", std::string(f) + "=0");
}

TEST(Counters, ThirtyTwoBitOnlyNodeWithThresholdPolicyClearsExactlyItsDataCounter) {
  constexpr uint64_t kStart = 3435973837;  // 80% of the 32-bit range: above the 75% threshold
  constexpr uint64_t kMore = 2000000000;   // start + more: past where the counter would latch
  set("Hca4", "PortCounters.PortXmitData=" + std::to_string(kStart));
  set("Hca4", "PortCounters.PortRcvData=1000000");
  set("Hca4", "PortCounters.PortXmitPkts=2000000");
  set("Hca4", "PortCounters.PortRcvPkts=3000000");
  set("Hca4", "PortCounters.SymbolErrorCounter=5");
  set("Hca4", "PortCounters.PortRcvErrors=6");
  CountingDaemon d({"--poll.counters-interval", "300ms", "--poll.no-extended-nodes",
                    guid_of("Hca4"), "--counters.clear-policy", "threshold"});
  const std::string cleared = "event=counters_cleared node_guid=" + guid_of("Hca4") +
                              " port=1 attribute=PortCounters fields=PortXmitData ";
  ASSERT_TRUE(d.wait_for(cleared, 15s)) << d.log();
  // Exactly PortXmitData's CounterSelect bit: it restarted near 0 (MAD responses since), the
  // other data, packet and error counters kept their values (data and packets plus MADs).
  const std::string pq =
      fabric().exec({"perfquery", std::to_string(fabric().lid("Hca4", 1)), "1"}).out;
  const uint64_t mad_slack = 100 * kMadDwords;  // far more than this node saw in 2 s
  EXPECT_LT(perfquery_field(pq, "PortXmitData"), mad_slack) << pq;
  EXPECT_GE(perfquery_field(pq, "PortRcvData"), 1000000u) << pq;
  EXPECT_LT(perfquery_field(pq, "PortRcvData"), 1000000u + mad_slack) << pq;
  EXPECT_GE(perfquery_field(pq, "PortXmitPkts"), 2000000u) << pq;
  EXPECT_GE(perfquery_field(pq, "PortRcvPkts"), 3000000u) << pq;
  EXPECT_EQ(perfquery_field(pq, "SymbolErrorCounter"), 5u) << pq;
  EXPECT_EQ(perfquery_field(pq, "PortRcvErrors"), 6u) << pq;
  // Driven on, as traffic would (read, then current + more): below the threshold again.
  const uint64_t now = fabric().perfquery("Hca4", 1, "PortXmitData");
  set("Hca4", "PortCounters.PortXmitData=" + std::to_string(now + kMore));
  ASSERT_TRUE(d.wait_for_sweeps(2)) << d.log();
  const std::string log = d.stop();
  // Every count injected is exported: start + more, beyond the 32-bit range, give or take the
  // MADs addressed to Hca4 while the daemon ran (each adds at most 72 dwords to PortXmitData;
  // the same bound covers counts lost between the read and the clear and those our
  // read-then-set erased): the daemon's reads, its clear, a ClassPortInfo and the test's
  // three perfqueries (2 MADs each).
  const uint64_t total = total_in(log, total_line("Hca4", 1, "xmit_data_bytes"));
  const uint64_t expected = (kStart + kMore) * 4;
  const uint64_t mads = reads_of(log, "Hca4") + 1 + 1 + uint64_t{3} * 2;
  EXPECT_GT(total, kLatch32 * 4) << "more than a 32-bit counter can hold";
  EXPECT_LE(total > expected ? total - expected : expected - total, mads * kMadDwords * 4)
      << "total " << total << " expected " << expected << "\n"
      << log;
  EXPECT_EQ(total_in(log, total_line("Hca4", 1, "symbol_error")), 5u);
  EXPECT_EQ(total_in(log, total_line("Hca4", 1, "rcv_errors")), 6u);
  EXPECT_EQ(count(log, "event=counters_cleared"), 1u) << log;
  EXPECT_EQ(stopped_stat(log, "own_clears"), 1u) << log;
  EXPECT_EQ(stopped_stat(log, "own_clears_failed"), 0u) << log;
  EXPECT_EQ(stopped_stat(log, "foreign_clears"), 0u) << log;
  EXPECT_EQ(stopped_stat(log, "lossy_intervals"), 0u) << log;
  EXPECT_EQ(count(log, "event=sample_read node_guid=" + guid_of("Hca4") +
                           " port=1 attribute=PortCountersExtended "),
            0u);
  for (const char* f : {"PortXmitData", "PortRcvData", "PortXmitPkts", "PortRcvPkts",
                        "SymbolErrorCounter", "PortRcvErrors"})
    set("Hca4", std::string("PortCounters.") + f + "=0");
}

}  // namespace
}  // namespace ibpulse::testing
