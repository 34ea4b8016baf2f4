#pragma once
// One remote-write request body: a protobuf WriteRequest (one TimeSeries per sample), snappy
// block compressed, as protocol 1.0 says. Values are float64: integers are exact below 2^53.
//
// Thread safety: pure functions.

#include <cstdint>
#include <span>
#include <string>

#include "ibpulse/base/result.h"
#include "ibpulse/exporters/remote_write/series_text.h"

namespace ibpulse::exporters::remote_write {

// Prometheus' stale marker: a NaN with this bit pattern ends a series (value.StaleNaN).
inline constexpr uint64_t kStaleNaNBits = 0x7ff0000000000002ULL;
double stale_nan();
bool is_stale_marker(double value);

struct Sample {
  std::string series;  // `name{labels}` as /metrics writes it
  double value = 0;
  int64_t timestamp_ms = 0;  // Unix time of the reading
};

// The compressed body; an error only for a series whose text does not parse.
Result<std::string> encode_write_request(std::span<const Sample> samples,
                                         const Labels& external_labels);

}  // namespace ibpulse::exporters::remote_write
