#pragma once
// Turns raw PMA readings of one counter into an exact, monotonic 64-bit total.
//
// IB counters are 2 to 64 bits wide and latch at all ones instead of wrapping; other managers
// may clear them; a port may move between its narrow (PortCounters) and its 64-bit
// (PortCountersExtended) copy. The rules, from the converters' contract (docs/converters.md):
// - the total starts at the first raw reading (scaled), then grows by deltas;
// - a reading at all ones of a narrow counter is latched: the delta up to the latch counts,
//   the interval is lossy (counts after the latch are gone) and the counter is saturated;
// - a reading below the previous one that we did not cause is a foreign clear: the counter
//   restarted from 0, so the delta is the new reading;
// - a change of source is a discontinuity: the new reading becomes the baseline, no jump;
// - after our own clear the Set's response is the new baseline: nothing is re-added.
//
// Thread safety: plain data; one converter thread owns each state.

#include <cstdint>

namespace ibpulse::converters {

enum class Source : uint8_t { kNone, kNarrow, kWide };

struct CounterState {
  uint64_t total = 0;     // scaled to the counter's unit
  uint64_t last_raw = 0;  // the previous reading, raw
  Source source = Source::kNone;
  bool saturated = false;  // the last narrow reading was at all ones
};

// A per-VL / per-lane counter's state. Each of them is a field of at most 32 bits with no
// 64-bit copy (the schema; converter_test checks it), so its last raw reading fits 32 bits:
// 16 bytes instead of CounterState's 24. There are 117 per port, held by the converter and by
// every snapshot version still read (memory_bench: 2.4 KB per copy and port before).
struct ExtraCounterState {
  uint64_t total = 0;
  uint32_t last_raw = 0;
  Source source = Source::kNone;
  bool saturated = false;

  CounterState widen() const { return {total, last_raw, source, saturated}; }
  // `s.last_raw` must fit 32 bits (a reading of a field of at most 32 bits).
  void assign(const CounterState& s) {
    total = s.total;
    last_raw = static_cast<uint32_t>(s.last_raw);
    source = s.source;
    saturated = s.saturated;
  }
  bool operator==(const ExtraCounterState&) const = default;
};
static_assert(sizeof(ExtraCounterState) == 16);

struct Reading {
  uint64_t raw = 0;
  uint8_t width = 64;  // bits
  uint8_t scale = 1;   // raw x scale = value in the counter's unit
  Source source = Source::kNarrow;
};

// What one reading did, for the converter's statistics and events.
struct Outcome {
  uint64_t delta = 0;  // added to the total, scaled
  bool first = false;
  bool lossy = false;          // latched: counts after the latch were lost
  bool foreign_clear = false;  // below the previous reading and not our clear
  bool source_switch = false;  // narrow <-> 64-bit: a discontinuity
};

// Inline: the converter calls it for every field of every sample.
inline Outcome accumulate(CounterState& state, const Reading& reading) {
  Outcome out;
  // A narrow counter at all ones has latched (width.h's is_latched, without the call).
  const bool at_latch = reading.width < 64 && reading.raw >= (uint64_t{1} << reading.width) - 1;
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

// Our own clear succeeded: `after` (from the Set's response) is the new baseline.
void rebase(CounterState& state, const Reading& after);

}  // namespace ibpulse::converters
