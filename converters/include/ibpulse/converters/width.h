#pragma once
// Width arithmetic for InfiniBand counters. PMA counters are 2 to 64 bits wide and do not wrap:
// they latch at all ones. The accumulators that turn raw readings into monotonic 64-bit
// counters are built on these helpers.
//
// Thread safety: pure functions.

#include <cstdint>

namespace ibpulse::converters {

// All ones for a counter of `width` bits (1..64).
uint64_t counter_max(unsigned width);

// A raw reading at all ones has latched: it stopped counting and lost whatever came after.
bool is_latched(uint64_t raw, unsigned width);

// The fraction of the range a raw reading has used (0.0 .. 1.0).
double fill_ratio(uint64_t raw, unsigned width);

}  // namespace ibpulse::converters
