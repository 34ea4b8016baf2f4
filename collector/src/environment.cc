#include "ibpulse/collector/environment.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <string>

namespace ibpulse::collector {

MadEnvironment mad_environment(std::string_view ld_preload, std::string_view max_mads) {
  MadEnvironment env;
  env.simulated = ld_preload.find("libumad2sim") != std::string_view::npos;
  uint32_t value = 0;
  const auto* end = max_mads.data() + max_mads.size();
  auto [ptr, ec] = std::from_chars(max_mads.data(), end, value);
  if (!max_mads.empty() && ec == std::errc() && ptr == end && value > 0) env.max_mads = value;
  return env;
}

MadEnvironment current_mad_environment() {
  const char* preload = std::getenv("LD_PRELOAD");
  const char* max_mads = std::getenv(std::string(kSimMaxMadsEnv).c_str());
  return mad_environment(preload ? preload : "", max_mads ? max_mads : "");
}

unsigned capped_window(unsigned wanted, const MadEnvironment& env) {
  if (!env.simulated) return wanted;
  return std::min<unsigned>(wanted, env.max_mads.value_or(64));
}

}  // namespace ibpulse::collector
