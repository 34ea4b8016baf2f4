#pragma once
// The state file's counter table: every counter is saved under its index in the schema that
// wrote the file, and the table written beside them names each index, so a file written by
// another ibpulse version (counters added, removed or reordered) restores every counter both
// versions know. A counter is known by its name, its label and label value, and the widths of
// its sources: a counter whose fields changed width cannot continue from its saved raw
// reading, so it starts fresh like a new one. Private to the state file's sources.

#include <cstdint>
#include <vector>

#include "state_codec.h"

namespace ibpulse::converters {

inline constexpr uint16_t kCounterGone = UINT16_MAX;

// From a file's counter indexes to this schema's: kCounterGone for a counter this version does
// not have (or has as another kind: a core counter of the file is restored into a core slot
// only, a per-VL/per-lane one into the extra counters only).
struct CounterMap {
  std::vector<uint16_t> core;   // file core index -> core index now
  std::vector<uint16_t> extra;  // file extra index -> extra index now
  size_t unknown = 0;           // counters of the file this schema does not have

  static CounterMap identity();
};

// Writes this schema's table.
void put_counter_table(state_codec::Writer& out);

// Reads a table written by put_counter_table; false if it does not parse.
bool read_counter_table(state_codec::Reader& in, size_t bytes, CounterMap& map);

// This schema's table, hashed: what version-1 files carry instead of the table. A version-1
// file restores its counters only when it was written with exactly this schema.
uint64_t counter_schema_fingerprint();

}  // namespace ibpulse::converters
