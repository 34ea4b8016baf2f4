#pragma once
// Durations as operators write them in the configuration: "500ms", "1s", "2.5s", "5m", "1h",
// or plain seconds.
//
// Thread safety: pure functions.

#include <chrono>
#include <string>

#include "ibpulse/base/result.h"

namespace ibpulse {

// At most a day; zero and negative durations are errors.
Result<std::chrono::milliseconds> parse_duration(const std::string& text);

}  // namespace ibpulse
