#pragma once
// Durations as operators write them in the configuration: "500ms", "1s", "2.5s", "5m", "1h",
// plain seconds, or Prometheus's compound form ("1m30s", "1h5m", "2s500ms").
//
// Thread safety: pure functions.

#include <chrono>
#include <string>

#include "ibpulse/base/result.h"

namespace ibpulse {

// Whole milliseconds, at most a day; zero, negative and fractional-millisecond durations
// ("0.4ms", "1.5ms") are errors, never rounded.
Result<std::chrono::milliseconds> parse_duration(const std::string& text);
// The same, and at least `min` (a setting's smallest sensible value).
Result<std::chrono::milliseconds> parse_duration(const std::string& text,
                                                 std::chrono::milliseconds min);

// A short period such as a counter's tick: "4ns", "2.5us", "1ms", "0.5s"; whole nanoseconds
// from 1ns to 1s, others are errors (never rounded).
Result<std::chrono::nanoseconds> parse_short_duration(const std::string& text);
// The same in nanoseconds with their fractions ("2.5ns": a simulated clock's period), up to 1s.
Result<double> parse_short_period_ns(const std::string& text);

}  // namespace ibpulse
