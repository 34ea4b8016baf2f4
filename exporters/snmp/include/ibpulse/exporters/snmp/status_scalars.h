#pragma once
// IBPULSE-MIB's collector status scalars (ibpulseCollector, ibpulseMIB.1.1.1-14): the fabric's
// size, sweeps and their duration and lag, stale ports, MADs, saturated counters,
// discontinuities and snapshot age, as the daemon reports them.
//
// Thread safety: pure functions of their arguments.

#include <chrono>
#include <cstdint>
#include <span>

#include "ibpulse/exporters/snmp/mib_view.h"

namespace ibpulse::exporters::snmp {

struct CollectorStatus {
  uint64_t nodes = 0, ports = 0;
  uint64_t discoveries = 0, discovery_failures = 0;
  uint64_t sweeps = 0;
  uint64_t last_sweep_ms = 0, last_sweep_lag_ms = 0, stale_ports = 0;
  uint64_t mads_sent = 0, mad_timeouts = 0, mad_failures = 0;
  uint64_t saturated_counters = 0, discontinuities = 0;
  uint64_t snapshot_age_ms = 0;
};

// ibpulseCollector's OID (ibpulseMIB.1.1).
const Oid& collector_status_oid();

// GETNEXT over the scalars (`inclusive`: the instance itself counts); false past the last.
bool status_next(const CollectorStatus& status, std::span<const uint32_t> oid, bool inclusive,
                 VarBind& out);

}  // namespace ibpulse::exporters::snmp
