#pragma once
// A synthetic fabric for the benchmarks: `ports` switch ports (36 per switch, named like leaf
// switches), every PortCounters and PortCountersExtended field read once with distinct values,
// converted into a snapshot the way the daemon makes one.
//
// Thread safety: pure functions.

#include <cstdint>
#include <memory>
#include <vector>

#include "ibpulse/collector/pma.h"
#include "ibpulse/collector/topology.h"
#include "ibpulse/converters/snapshot.h"

namespace ibpulse::bench {

std::shared_ptr<const converters::FabricSnapshot> synthetic_snapshot(uint32_t ports);

// The pieces of synthetic_snapshot(), for benchmarks that run the converter themselves: the
// topology, and one PortCounters and one PortCountersExtended sample per port (the traffic
// counters, data, packets and XmitWait, `bump` higher than with bump 0: a later sweep moves
// them as a busy fabric does; error counters stay at 0, as on a healthy one).
std::shared_ptr<const collector::Topology> synthetic_topology(uint32_t ports);
// `details`: also the attributes the daemon's read plan adds (error details, flow control,
// per-VL and per-lane counters).
std::vector<collector::RawSample> synthetic_samples(const collector::Topology& topology,
                                                    uint64_t bump = 0, bool details = false);

}  // namespace ibpulse::bench
