// `snmpbulkwalk -v2c -Cr50` of ifXTable from ibpulse's agent for a synthetic 70,000-port
// snapshot, against the same columns and rows served by net-snmp's own table_tdata helper
// (binary_array container) in the same agent, walked the same way. Prints varbinds, time
// (median of 3) and varbinds/s for both, and the ratio.
//
//   build/bench/snmp_bench [PORTS]
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

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
};

// One snmpbulkwalk; counts the varbinds it printed.
Walk walk(uint16_t port, const std::string& oid) {
  const std::string command = fmt::format(
      "MIBS= snmpbulkwalk -v2c -c public -Cr50 -On -Oq -t 10 -r 0 127.0.0.1:{} {}", port, oid);
  const auto start = Clock::now();
  FILE* pipe = ::popen(command.c_str(), "r");
  Walk w;
  char line[512];
  while (std::fgets(line, sizeof line, pipe) != nullptr)
    if (line[0] == '.') ++w.varbinds;
  ::pclose(pipe);
  w.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return w;
}

Walk median_walk(uint16_t port, const std::string& oid) {
  std::vector<Walk> runs;
  for (int i = 0; i < 3; ++i)
    runs.push_back(walk(port, oid));
  std::sort(runs.begin(), runs.end(),
            [](const Walk& a, const Walk& b) { return a.seconds < b.seconds; });
  return runs[1];
}

}  // namespace

int main(int argc, char** argv) {
  const uint32_t ports = argc > 1 ? static_cast<uint32_t>(std::stoul(argv[1])) : 70000;
  const auto snapshot = bench::synthetic_snapshot(ports);
  converters::SnapshotStore store;
  store.publish(snapshot);
  exporters::snmp::AgentOptions options;
  options.listen = "127.0.0.1:0";
  options.communities = {"public"};
  options.node_contexts = false;  // the fabric's table only, as the reference has
  options.on_agent_thread = [&snapshot] { bench::register_tdata_reference(*snapshot); };
  auto agent = exporters::snmp::SnmpAgent::start(options, &store);
  if (!agent.ok()) {
    fmt::print(stderr, "snmp_bench: {}\n", agent.error());
    return 1;
  }
  const uint16_t port = (*agent)->port();
  const Walk ours = median_walk(port, "1.3.6.1.2.1.31.1.1");
  const Walk tdata = median_walk(port, exporters::snmp::to_string(bench::reference_table()));
  const auto rate = [](const Walk& w) {
    return w.seconds > 0 ? static_cast<double>(w.varbinds) / w.seconds : 0.0;
  };
  fmt::print("{}-port snapshot, ifXTable, snmpbulkwalk -v2c -Cr50 over loopback (median of 3)\n",
             ports);
  fmt::print("{:<22} {:>10} {:>10} {:>14}\n", "", "varbinds", "seconds", "varbinds/s");
  fmt::print("{:<22} {:>10} {:>10.3f} {:>14.0f}\n", "ibpulse (sorted view)", ours.varbinds,
             ours.seconds, rate(ours));
  fmt::print("{:<22} {:>10} {:>10.3f} {:>14.0f}\n", "net-snmp table_tdata", tdata.varbinds,
             tdata.seconds, rate(tdata));
  fmt::print(
      "ratio: {:.2f}x the table_tdata reference (target >= 1.2x), {:.0f} varbinds/s "
      "(target >= 300k)\n",
      rate(tdata) > 0 ? rate(ours) / rate(tdata) : 0.0, rate(ours));
  if (ours.varbinds != tdata.varbinds) {
    fmt::print(stderr, "snmp_bench: the walks differ: {} and {} varbinds\n", ours.varbinds,
               tdata.varbinds);
    return 1;
  }
  return 0;
}
