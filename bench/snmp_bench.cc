// `snmpbulkwalk -v2c -Cr50` of ifXTable from ibpulse's agent for a synthetic 70,000-port
// snapshot, against the same columns and rows served by net-snmp's own table_tdata helper
// (binary_array container) in the same agent, walked the same way. ibpulse's table is walked
// twice: on its fast path and through net-snmp's request processing (fast path off). Prints
// varbinds, time (median of 3), varbinds/s and the CPU seconds of agent and client for each,
// and the ratios.
//
//   build/bench/snmp_bench [PORTS]        a synthetic snapshot of PORTS switch ports (70,000)
//   ibpulse sim exec --name N -- build/bench/snmp_bench --fabric
//                                         the simulated fabric, read once (polling paused), a
//                                         context per node; bench/run_snmp_bench runs both
#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "agent_testing.h"
#include "fabric_snapshot.h"
#include "ibpulse/converters/snapshot.h"
#include "ibpulse/exporters/snmp/agent.h"
#include "synthetic_fabric.h"
#include "tdata_reference.h"

namespace {

using namespace ibpulse;
using Clock = std::chrono::steady_clock;

struct Walk {
  size_t varbinds = 0;
  double seconds = 0;
  double agent_cpu = 0;   // this process: the agent thread (the main thread waits on the pipe)
  double client_cpu = 0;  // snmpbulkwalk
};

double cpu_seconds(int who) {
  rusage usage{};
  ::getrusage(who, &usage);
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// One snmpbulkwalk, its output written to a file (the client prints every varbind, and
// nothing in this process reads a pipe meanwhile); the varbinds are counted afterwards.
Walk walk(uint16_t port, const std::string& community, const std::string& oid) {
  const std::filesystem::path out =
      std::filesystem::temp_directory_path() / fmt::format("ibpulse-snmp-bench-{}.out", getpid());
  const std::string command =
      fmt::format("MIBS= snmpbulkwalk -v2c -c {} -Cr50 -On -Oq -t 10 -r 0 127.0.0.1:{} {} > {}",
                  community, port, oid, out.string());
  const auto start = Clock::now();
  const double agent_start = cpu_seconds(RUSAGE_SELF);
  const double client_start = cpu_seconds(RUSAGE_CHILDREN);
  const int status = std::system(command.c_str());
  Walk w;
  w.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  w.agent_cpu = cpu_seconds(RUSAGE_SELF) - agent_start;
  w.client_cpu = cpu_seconds(RUSAGE_CHILDREN) - client_start;
  if (status != 0) fmt::print(stderr, "snmp_bench: `{}` failed ({})\n", command, status);
  std::ifstream in(out);
  for (std::string line; std::getline(in, line);)
    if (line.starts_with('.')) ++w.varbinds;
  std::filesystem::remove(out);
  return w;
}

Walk median_walk(uint16_t port, const std::string& community, const std::string& oid) {
  std::vector<Walk> runs;
  runs.reserve(3);
  for (int i = 0; i < 3; ++i)
    runs.push_back(walk(port, community, oid));
  std::sort(runs.begin(), runs.end(),
            [](const Walk& a, const Walk& b) { return a.seconds < b.seconds; });
  return runs[1];
}

double rate(const Walk& w) {
  return w.seconds > 0 ? static_cast<double>(w.varbinds) / w.seconds : 0.0;
}

void print_row(const char* name, const Walk& w) {
  fmt::print("{:<24} {:>10} {:>10.3f} {:>14.0f} {:>10.3f} {:>10.3f}\n", name, w.varbinds, w.seconds,
             rate(w), w.agent_cpu, w.client_cpu);
}

double ratio(const Walk& a, const Walk& b) {
  return rate(b) > 0 ? rate(a) / rate(b) : 0.0;
}

// The walks of one agent: ibpulse's ifXTable on the fast path and off it, the reference
// table; a node's context too when `node_context` is given. False when the walks disagree.
bool compare_walks(exporters::snmp::SnmpAgent& agent, const std::string& node_context) {
  const uint16_t port = agent.port();
  const std::string if_x_table = "1.3.6.1.2.1.31.1.1";
  const Walk ours = median_walk(port, "public", if_x_table);
  exporters::snmp::SnmpAgentTesting::set_fast_path(agent, false);
  const Walk ours_slow = median_walk(port, "public", if_x_table);
  exporters::snmp::SnmpAgentTesting::set_fast_path(agent, true);
  const Walk tdata =
      median_walk(port, "public", exporters::snmp::to_string(bench::reference_table()));
  fmt::print("{:<24} {:>10} {:>10} {:>14} {:>10} {:>10}\n", "", "varbinds", "seconds", "varbinds/s",
             "agent cpu", "client cpu");
  print_row("ibpulse (fast path)", ours);
  print_row("ibpulse (net-snmp path)", ours_slow);
  print_row("net-snmp table_tdata", tdata);
  if (!node_context.empty()) {
    print_row("ibpulse, a node context", median_walk(port, "public@" + node_context, if_x_table));
  }
  fmt::print(
      "ratio: {:.2f}x the table_tdata reference (target >= 1.2x), {:.0f} varbinds/s "
      "(target >= 300k); the fast path {:.2f}x net-snmp's request path over the same view\n",
      ratio(ours, tdata), rate(ours), ratio(ours, ours_slow));
  if (ours.varbinds != tdata.varbinds || ours_slow.varbinds != tdata.varbinds) {
    fmt::print(stderr, "snmp_bench: the walks differ: {}, {} and {} varbinds\n", ours.varbinds,
               ours_slow.varbinds, tdata.varbinds);
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "70000";
  const bool on_fabric = mode == "--fabric";
  std::shared_ptr<const converters::FabricSnapshot> snapshot;
  if (on_fabric) {
    auto read = bench::fabric_snapshot();
    if (!read.ok()) {
      fmt::print(stderr, "snmp_bench: {}\n", read.error());
      return 1;
    }
    snapshot = *read;
  } else {
    snapshot = bench::synthetic_snapshot(static_cast<uint32_t>(std::stoul(mode)));
  }
  converters::SnapshotStore store;
  store.publish(snapshot);
  exporters::snmp::AgentOptions options;
  options.listen = "127.0.0.1:0";
  options.communities = {"public"};
  // On the simulated fabric as the daemon runs: a context per node. The synthetic snapshot
  // has the fabric's table only, as the reference has.
  options.node_contexts = on_fabric;
  options.on_agent_thread = [&snapshot] { bench::register_tdata_reference(*snapshot); };
  auto agent = exporters::snmp::SnmpAgent::start(options, &store);
  if (!agent.ok()) {
    fmt::print(stderr, "snmp_bench: {}\n", agent.error());
    return 1;
  }
  std::string node_context;
  if (on_fabric) {  // the first switch's
    for (const auto& node : snapshot->topology->nodes)
      if (node.kind == collector::NodeKind::kSwitch && node_context.empty())
        node_context = fmt::format("0x{:016x}", node.guid);
  }
  while ((*agent)->stats().contexts == 0 && on_fabric)  // registered on the agent's thread
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  fmt::print("{}, ifXTable, snmpbulkwalk -v2c -Cr50 over loopback (median of 3)\n",
             on_fabric ? fmt::format("the simulated fabric: {} ports, {} node contexts",
                                     snapshot->ports.size(), (*agent)->stats().contexts)
                       : fmt::format("a synthetic {}-port snapshot", mode));
  return compare_walks(**agent, node_context) ? 0 : 1;
}
