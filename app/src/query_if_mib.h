#pragma once
// `ibpulse query`'s IF-MIB section: the derived values of the IB-IF-MIB draft (section 2.4)
// computed from one query's readings by the daemon's own converter, so query shows exactly
// what the daemon would export for a port it had just started counting.
//
// Thread safety: pure functions of their arguments.

#include <nlohmann/json.hpp>
#include <optional>
#include <span>

#include "ibpulse/collector/pma.h"
#include "ibpulse/collector/topology.h"
#include "ibpulse/converters/snapshot.h"

namespace ibpulse::cli {

struct QueryIfMib {
  converters::PortSnapshot port;      // totals (scaled), derived values, present, saturated
  std::optional<uint64_t> link_bits;  // lanes x lane data rate, when the link is known
};

// One port's readings as the daemon would count them (converters::one_shot_port), and its
// link's rate; nullopt when the data counters could not be read.
std::optional<QueryIfMib> if_mib_of(std::span<const collector::RawSample> samples,
                                    collector::PortKey key,
                                    const std::optional<collector::LinkState>& link);

// {"ifInOctets": ..., ..., "ifSpeed": ..., "ifHighSpeed": ...}, keyed by the draft's names.
nlohmann::json if_mib_json(const QueryIfMib& v);
// What the values include: {"flow_control_counted", "ietf_extended", "latched": [...]}.
nlohmann::json if_mib_inputs_json(const QueryIfMib& v);
void print_if_mib(const QueryIfMib& v);

}  // namespace ibpulse::cli
