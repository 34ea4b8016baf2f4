#pragma once
// The subnet managers of a fabric: one `opensm -o` (LIDs) and one resident `opensm -s 0` per
// part, each attached at its part's node (SIM_HOST) with its own cache and logs.

#include <chrono>
#include <functional>
#include <string_view>

#include "ibpulse/base/result.h"
#include "ibpulse/sim/fabric.h"

namespace ibpulse::sim {

using TimeLeftFn = std::function<std::chrono::milliseconds()>;

// Assigns LIDs in every part (`opensm -o`, one part at a time), then, when `resident`, starts
// each part's resident opensm, saving the state after each so `down` finds a half-started one.
Status start_subnets(FabricState& state, bool resident, const TimeLeftFn& left,
                     const ProgressFn& progress);

}  // namespace ibpulse::sim
