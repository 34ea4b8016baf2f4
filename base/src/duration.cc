#include "ibpulse/base/duration.h"

#include <cmath>
#include <cstdlib>

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

}  // namespace ibpulse
