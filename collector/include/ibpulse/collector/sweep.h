#pragma once
// One pass over a set of ports: ClassPortInfo once per node (cached), then the requested
// attributes of every port, pipelined through the MAD engine. Used by `ibpulse query` and as
// the unit of work the daemon's scheduler spreads over its intervals.
//
// Thread safety: runs on the engine's thread.

#include <functional>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include "ibpulse/collector/mad_engine.h"
#include "ibpulse/collector/pma.h"
#include "ibpulse/collector/topology.h"

namespace ibpulse::collector {

struct SweepTarget {
  PortKey key;
  uint16_t lid = 0;  // the LID that reaches the port's PMA
  // How PortExtendedSpeedsCounters is decoded: its layout is not in the answer itself
  // (ext_speeds_layout.h; `ibpulse query --ext-speeds-layout`).
  schema::Layout ext_speeds_layout = schema::Layout::kStandard;
};

// ClassPortInfo per node GUID; nullopt records a node whose PMA did not answer it.
using CapabilityCache = std::map<uint64_t, std::optional<PmaCapabilities>>;

struct SweepResult {
  std::vector<RawSample> samples;  // one per port and attribute read (failures included)
  size_t ports_failed = 0;         // ports with at least one failed read
  double seconds = 0;
};

using SweepProgress = std::function<void(size_t done, size_t total)>;

// Attributes a port's node does not advertise are not requested (PortCountersExtended without
// CapabilityMask 0x200/0x400); the caller sees them missing from the result.
SweepResult sweep(MadEngine& engine, std::span<const SweepTarget> targets,
                  std::span<const schema::Attribute> attributes, CapabilityCache& capabilities,
                  const SweepProgress& progress = {});

// Reads ClassPortInfo of every node of `targets` that `cache` does not know yet, or of every
// node when `refresh`. An answer replaces the node's entry and a refusal (MAD status) records
// nullopt; a node whose MADs were lost keeps what the cache held (nothing when it never
// answered) and is returned, to be asked again: taking a lost answer for "no capabilities"
// would read the port's narrow counters until the next discovery.
std::vector<uint64_t> read_capabilities(MadEngine& engine, std::span<const SweepTarget> targets,
                                        CapabilityCache& cache, bool refresh = false);

// Whether a node with `caps` is asked for `attribute` at all.
bool worth_reading(schema::Attribute attribute, const PmaCapabilities& caps);

}  // namespace ibpulse::collector
