#pragma once
// What the daemon would export for a port it had just started counting, from one set of its
// readings (`ibpulse query` shows the IF-MIB values of one read this way): a converter that
// never clears, fed them once. A first reading is each total as read, scaled (data words x 4),
// from the 64-bit PortCountersExtended copy where the port has one, as the poller marks it.
//
// Thread safety: a pure function.

#include <optional>
#include <span>

#include "ibpulse/collector/pma.h"
#include "ibpulse/converters/snapshot.h"

namespace ibpulse::converters {

// `key`'s port from `samples` (others are ignored); nullopt when its data counters could not
// be read.
std::optional<PortSnapshot> one_shot_port(std::span<const collector::RawSample> samples,
                                          collector::PortKey key);

}  // namespace ibpulse::converters
