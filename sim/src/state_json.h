#pragma once
// JSON forms of the fabric's state files (state.json, ports.json).

#include <nlohmann/json.hpp>

#include "ibpulse/base/atomic_file.h"
#include "ibpulse/sim/dump.h"
#include "ibpulse/sim/fabric.h"

namespace ibpulse::sim {

nlohmann::json to_json(const FabricState& state);
Result<FabricState> state_from_json(const nlohmann::json& json);
nlohmann::json to_json(const std::vector<DumpPort>& ports);

// Writes state.json.
Status save_state(const FabricState& state);

}  // namespace ibpulse::sim
