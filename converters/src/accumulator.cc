#include "ibpulse/converters/accumulator.h"

#include "ibpulse/converters/width.h"

namespace ibpulse::converters {

void rebase(CounterState& state, const Reading& after) {
  state.last_raw = after.raw;
  state.source = after.source;
  state.saturated = after.width < 64 && is_latched(after.raw, after.width);
}

}  // namespace ibpulse::converters
