#pragma once
// Switches tests and benchmarks flip on a running agent: not part of its interface. Private to
// the SNMP exporter; its tests and benchmarks add this directory to their include path.
//
// Thread safety: set_fast_path() may be called from any thread.

#include "ibpulse/exporters/snmp/agent.h"

namespace ibpulse::exporters::snmp {

struct SnmpAgentTesting {
  // The master agent answers the fabric's tables on a fast path, net-snmp's own request
  // processing the rest; off, net-snmp processes everything. The answers are the same (tests
  // compare them); the switch is for those comparisons and for benchmarks. On at start.
  static void set_fast_path(SnmpAgent& agent, bool on);
};

}  // namespace ibpulse::exporters::snmp
