#pragma once
// The poller's and the converter's statistics, declared once. Each entry says what one figure
// is called where it is shown: its Prometheus name and help (the daemon's self-metrics), its
// key in the daemon's stop line (event=stopped), its IBPULSE-MIB scalar (ibpulseCollector.N),
// whether it only grows (a total: a Prometheus counter, an SNMP Counter64) or moves both ways
// (a level: a gauge, a Gauge32), and how it is read from the statistics. The self-metrics,
// the SNMP status scalars and the stop line all walk this table: a statistic added here shows
// everywhere it is named, and nowhere else needs a line for it.
//
// Thread safety: the table is immutable; the readers are pure functions of their argument.

#include <cstdint>
#include <span>
#include <string_view>

#include "ibpulse/collector/poller.h"
#include "ibpulse/converters/snapshot.h"

namespace ibpulse::converters {

// What the statistics are read from: the poller's and the converter's, and two figures of the
// snapshot the reader looked at (0 without one).
struct PipelineStatus {
  collector::PollerStats poller;
  ConverterStats converter;
  uint64_t saturated_counters = 0;  // narrow counters latched at all ones in that snapshot
  double snapshot_age_seconds = 0;  // since it was published
};

// The status with the snapshot's figures as of `now` (`snapshot` may be null).
PipelineStatus pipeline_status(collector::PollerStats poller, ConverterStats converter,
                               const FabricSnapshot* snapshot, Clock::time_point now);

enum class StatKind : uint8_t {
  kTotal,  // only grows
  kLevel,  // moves both ways
};

struct PipelineStat {
  std::string_view metric = {};  // its Prometheus name ("": not a metric)
  std::string_view help = {};    // the metric's help, and what the figure is
  StatKind kind = StatKind::kTotal;
  std::string_view log_key = {};  // its key in event=stopped ("": not in the stop line)
  uint32_t snmp_scalar = 0;       // ibpulseCollector.N (0: not served); seconds are served in ms
  // Exactly one reader. `by_reason` gives one value per MAD failure reason
  // (collector::kMadFailureReasons): label `reason` on the metric, keys `<log_key>_<reason>` in
  // the stop line, their sum as the SNMP scalar.
  uint64_t (*count)(const PipelineStatus&) = nullptr;
  double (*seconds)(const PipelineStatus&) = nullptr;
  uint64_t (*by_reason)(const PipelineStatus&, collector::MadFailure) = nullptr;
};

// In stop-line order (the stop line prints its entries in the table's order).
std::span<const PipelineStat> pipeline_stats();

// The highest ibpulseCollector.N in the table: the scalars are 1..N, each named once.
uint32_t pipeline_snmp_scalars();

// An entry's value as a whole number: a count, a seconds reader in milliseconds (truncated), or
// the sum over the reasons. What the SNMP scalars serve.
uint64_t whole_value(const PipelineStat& stat, const PipelineStatus& status);

}  // namespace ibpulse::converters
