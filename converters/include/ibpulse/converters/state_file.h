#pragma once
// Saving and loading the converter's state, so a restart loses no counts and renumbers no
// interface: every port's accumulators (totals, last raw readings, sources, latch flags), its
// event counts, and the ifIndex table.
//
// The file is binary, little-endian, versioned and checksummed (docs/converters.md, "State
// file"); it is written to a temporary name, fsynced and renamed, so a crash leaves the old
// file or the new one, never half of one. A file that cannot be trusted (damaged, a newer
// format, another fabric) is never used: the caller sets it aside. The counters are saved
// under their names, so a file from another ibpulse version restores every counter both
// versions have.
//
// Thread safety: encode_state and apply_state run on the converter's thread; the file
// functions may run on any thread.

#include <cstdint>
#include <filesystem>
#include <string>

#include "ibpulse/base/result.h"
#include "ibpulse/converters/converter.h"

namespace ibpulse::converters {

// Everything a state file holds, encoded; `subnet_prefix` names the fabric it came from.
std::string encode_state(const Converter& converter, uint64_t subnet_prefix);

struct LoadedState {
  size_t ports = 0;               // port states restored
  size_t ports_in_topology = 0;   // of them, ports the current discovery found
  size_t if_indexes = 0;          // ifIndex numbers restored
  size_t if_indexes_dropped = 0;  // duplicate or out-of-range numbers ignored
  int64_t saved_unix_seconds = 0;
  // Counters the file holds that this version does not have (another ibpulse version): they
  // are dropped; counters this version added start from their first reading.
  size_t counters_unknown = 0;
  // Not empty: why the counters could not be restored (only the ifIndex numbers were).
  std::string counters_refused;
};

// Decodes `bytes` and, if it can be trusted for `topology`, restores it into `converter`
// (before its first sample and its first topology). An error says why it cannot be trusted;
// the converter is then untouched. A file is from another fabric when its subnet prefix
// differs, or when none of its ports is in the topology. A version-1 file (no counter names)
// from another counter schema restores the ifIndex numbers only (LoadedState::counters_refused
// says so).
Result<LoadedState> apply_state(const std::string& bytes, const collector::Topology& topology,
                                Converter& converter);

// Reads a whole file. An absent file is an empty optional-like result: `found` false.
struct FileContents {
  bool found = false;
  std::string bytes;
};
Result<FileContents> read_whole_file(const std::filesystem::path& path);

// Renames a file that cannot be trusted to `<path>.rejected-<unix seconds>` (kept for a
// human to look at, never read again); returns the new name.
Result<std::filesystem::path> set_aside(const std::filesystem::path& path);

}  // namespace ibpulse::converters
