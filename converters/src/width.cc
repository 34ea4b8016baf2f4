#include "ibpulse/converters/width.h"

#include "ibpulse/base/check.h"

namespace ibpulse::converters {

uint64_t counter_max(unsigned width) {
  IBPULSE_CHECK(width >= 1 && width <= 64, "a counter of {} bits", width);
  return width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
}

bool is_latched(uint64_t raw, unsigned width) {
  return raw >= counter_max(width);
}

double fill_ratio(uint64_t raw, unsigned width) {
  const uint64_t max = counter_max(width);
  if (raw >= max) return 1.0;
  return static_cast<double>(raw) / static_cast<double>(max);
}

}  // namespace ibpulse::converters
