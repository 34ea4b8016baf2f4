#include "ibpulse/base/duration.h"

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
  return std::chrono::milliseconds(static_cast<int64_t>(v * factor));
}

}  // namespace ibpulse
