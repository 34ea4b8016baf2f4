#include "ibpulse/base/duration.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <string_view>

namespace ibpulse {

Result<std::chrono::milliseconds> parse_duration(const std::string& text) {
  double factor = 1000;
  std::string number = text;
  if (text.ends_with("ms")) {
    factor = 1;
    number = text.substr(0, text.size() - 2);
  } else if (text.ends_with("s")) {
    number = text.substr(0, text.size() - 1);
  } else if (text.ends_with("m")) {
    factor = 60000;
    number = text.substr(0, text.size() - 1);
  } else if (text.ends_with("h")) {
    factor = 3600000;
    number = text.substr(0, text.size() - 1);
  }
  char* end = nullptr;
  const double v = std::strtod(number.c_str(), &end);
  if (number.empty() || *end != '\0' || !(v > 0) || v * factor > 86400e3) {
    return Err("expected a duration like 500ms, 1s, 5m or 1h (at most a day), got '{}'", text);
  }
  // Durations are whole milliseconds: a fraction of one would be rounded, and below 1 ms to 0
  // (a zero interval makes a loop spin). Refused rather than rounded silently.
  const double ms = v * factor;
  if (ms != std::floor(ms)) {
    return Err("'{}' is not a whole number of milliseconds: durations go down to 1ms", text);
  }
  return std::chrono::milliseconds(static_cast<int64_t>(ms));
}

Result<std::chrono::milliseconds> parse_duration(const std::string& text,
                                                 std::chrono::milliseconds min) {
  auto d = parse_duration(text);
  if (d && *d < min) return Err("'{}' is below the smallest allowed, {}ms", text, min.count());
  return d;
}

Result<std::chrono::nanoseconds> parse_short_duration(const std::string& text) {
  struct Unit {
    std::string_view suffix;
    double nanoseconds;
  };
  // "ms" and "ns" before "s": the longest suffix that matches.
  constexpr std::array<Unit, 4> kUnits = {{{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}}};
  const auto* const unit = std::find_if(kUnits.begin(), kUnits.end(),
                                        [&](const Unit& u) { return text.ends_with(u.suffix); });
  const std::string number =
      unit == kUnits.end() ? std::string() : text.substr(0, text.size() - unit->suffix.size());
  char* end = nullptr;
  const double v = std::strtod(number.c_str(), &end);
  if (number.empty() || *end != '\0' || !(v > 0)) {
    return Err("expected a duration like 4ns, 2.5us or 1ms, got '{}'", text);
  }
  const double ns = v * unit->nanoseconds;
  if (ns != std::floor(ns) || ns > 1e9) {
    return Err("'{}' is not a whole number of nanoseconds from 1ns to 1s", text);
  }
  return std::chrono::nanoseconds(static_cast<int64_t>(ns));
}

}  // namespace ibpulse
