#pragma once
// What the collector learns from its environment before it opens a port: whether it runs on
// ibsim's umad2sim (which deadlocks past ~300 MADs in flight and never times out a MAD) and
// the MAD window the simulated fabric asked for (`ibpulse sim up` exports it).
//
// Thread safety: pure functions of their arguments.

#include <cstdint>
#include <optional>
#include <string_view>

namespace ibpulse::collector {

// Variables `ibpulse sim up` prints for its clients.
inline constexpr std::string_view kSimMaxMadsEnv = "IBPULSE_SIM_MAX_MADS";

struct MadEnvironment {
  bool simulated = false;            // libumad2sim is preloaded
  std::optional<uint32_t> max_mads;  // window cap requested by the fabric, if any
};

// `ld_preload` and `max_mads` are the values of LD_PRELOAD and IBPULSE_SIM_MAX_MADS (empty
// when unset). An unparsable or zero cap is ignored rather than trusted.
MadEnvironment mad_environment(std::string_view ld_preload, std::string_view max_mads);

// Reads the variables from this process's environment.
MadEnvironment current_mad_environment();

// The MADs in flight to use for `wanted` in `env`: on the simulator at most the fabric's cap
// (64 when it names none), elsewhere `wanted`.
unsigned capped_window(unsigned wanted, const MadEnvironment& env);

}  // namespace ibpulse::collector
