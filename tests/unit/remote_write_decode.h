#pragma once
// Decodes a remote-write body the way a receiver does: snappy, then libprotobuf with the
// messages generated from exporters/remote_write/proto/remote_write.proto.
#include <snappy.h>

#include <string>

#include "proto/remote_write.pb.h"

namespace ibpulse::testing {

using WriteRequest = ibpulse::remote_write::prompb::WriteRequest;

inline bool decode_write_request(const std::string& body, WriteRequest& out) {
  std::string raw;
  if (!snappy::Uncompress(body.data(), body.size(), &raw)) return false;
  return out.ParseFromString(raw);
}

// The value of label `name` of `ts`, or "" without it.
inline std::string label_of(const ibpulse::remote_write::prompb::TimeSeries& ts,
                            const std::string& name) {
  for (const auto& l : ts.labels()) {
    if (l.name() == name) return l.value();
  }
  return "";
}

}  // namespace ibpulse::testing
