#include "ibpulse/converters/accumulator.h"

#include "ibpulse/converters/width.h"

namespace ibpulse::converters {

Outcome accumulate(CounterState& state, const Reading& reading) {
  Outcome out;
  const bool at_latch = reading.width < 64 && is_latched(reading.raw, reading.width);
  if (state.source != reading.source) {
    // First reading, or the other copy of the counter: its value says nothing about the
    // counts since our last reading, so it only sets the baseline (the total stays).
    out.first = state.source == Source::kNone;
    out.source_switch = !out.first;
    if (out.first) state.total = reading.raw * reading.scale;
    state.source = reading.source;
  } else if (reading.raw >= state.last_raw) {
    out.delta = (reading.raw - state.last_raw) * reading.scale;
    out.lossy = at_latch;
  } else {
    out.foreign_clear = true;  // cleared to 0 since, then counted up to raw
    out.delta = reading.raw * reading.scale;
    out.lossy = at_latch;
  }
  state.total += out.delta;
  state.last_raw = reading.raw;
  state.saturated = at_latch;
  return out;
}

void rebase(CounterState& state, const Reading& after) {
  state.last_raw = after.raw;
  state.source = after.source;
  state.saturated = after.width < 64 && is_latched(after.raw, after.width);
}

}  // namespace ibpulse::converters
