#pragma once
// One remote-write request body: a protobuf WriteRequest (one TimeSeries per sample), snappy
// block compressed, as protocol 1.0 says. Values are float64: integers are exact below 2^53.
//
// Thread safety: pure functions.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

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

// A request body built one sample at a time: the protobuf is written as samples come, and
// compressed once the request is complete, so a queued request holds ~12 bytes per sample
// (snappy) instead of the series' text.
class RequestBuilder {
 public:
  explicit RequestBuilder(Labels external_labels = {}) : external_(std::move(external_labels)) {}

  // Appends one TimeSeries; false (nothing appended) when the series' text does not parse.
  bool add(std::string_view series, double value, int64_t timestamp_ms);
  // Takes back the last add() (a sample the queue had no room for).
  void undo_last();

  size_t samples() const { return samples_; }
  size_t raw_bytes() const { return raw_.size(); }
  // The compressed body of the samples added since the last take; the builder starts afresh.
  std::string take();

 private:
  Labels external_;
  std::string raw_;
  size_t samples_ = 0, last_start_ = 0;
};

// A whole body at once (RequestBuilder for a list of samples); an error only for a series whose
// text does not parse.
Result<std::string> encode_write_request(std::span<const Sample> samples,
                                         const Labels& external_labels);

}  // namespace ibpulse::exporters::remote_write
