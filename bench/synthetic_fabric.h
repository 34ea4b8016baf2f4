#pragma once
// A synthetic fabric for the benchmarks: `ports` switch ports (36 per switch, named like leaf
// switches), every PortCounters and PortCountersExtended field read once with distinct values,
// converted into a snapshot the way the daemon makes one.
//
// Thread safety: a pure function.

#include <cstdint>
#include <memory>

#include "ibpulse/converters/snapshot.h"

namespace ibpulse::bench {

std::shared_ptr<const converters::FabricSnapshot> synthetic_snapshot(uint32_t ports);

}  // namespace ibpulse::bench
