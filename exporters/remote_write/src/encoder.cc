#include "ibpulse/exporters/remote_write/encoder.h"

#include <snappy.h>

#include <bit>

#include "proto/remote_write.pb.h"

namespace ibpulse::exporters::remote_write {

double stale_nan() {
  return std::bit_cast<double>(kStaleNaNBits);
}

bool is_stale_marker(double value) {
  return std::bit_cast<uint64_t>(value) == kStaleNaNBits;
}

Result<std::string> encode_write_request(std::span<const Sample> samples,
                                         const Labels& external_labels) {
  ibpulse::remote_write::prompb::WriteRequest request;
  request.mutable_timeseries()->Reserve(static_cast<int>(samples.size()));
  for (const Sample& s : samples) {
    auto labels = series_labels(s.series, external_labels);
    if (!labels) return Error{labels.error()};
    auto* ts = request.add_timeseries();
    for (auto& [name, value] : *labels) {
      auto* label = ts->add_labels();
      label->set_name(std::move(name));
      label->set_value(std::move(value));
    }
    auto* sample = ts->add_samples();
    sample->set_value(s.value);
    sample->set_timestamp(s.timestamp_ms);
  }
  std::string raw;
  if (!request.SerializeToString(&raw)) return Err("protobuf serialisation failed");
  std::string body;
  snappy::Compress(raw.data(), raw.size(), &body);
  return body;
}

}  // namespace ibpulse::exporters::remote_write
