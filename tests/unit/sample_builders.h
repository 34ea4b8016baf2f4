#pragma once
// Hand-built raw samples for the converter's unit tests.
#include <gtest/gtest.h>

#include <memory>
#include <string_view>

#include "ibpulse/collector/pma.h"
#include "ibpulse/collector/topology.h"

namespace ibpulse::converters::testing {

// The index of `name` among `a`'s schema fields (a test failure when it has none).
inline size_t field(schema::Attribute a, std::string_view name) {
  const auto fields = schema::fields_of(a);
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == name) return i;
  }
  ADD_FAILURE() << "no field " << name;
  return 0;
}

// A topology of `port` alone, with no link: what a converter needs to report that one port.
inline std::shared_ptr<collector::Topology> one_port_topology(collector::PortKey port) {
  auto topology = std::make_shared<collector::Topology>();
  collector::Port p;
  p.key = port;
  topology->ports.push_back(p);
  return topology;
}

// A successful reading of `a` on `port`, every field advertised and 0.
inline collector::RawSample sample(collector::PortKey port, schema::Attribute a,
                                   std::chrono::steady_clock::time_point at) {
  collector::RawSample s;
  s.port = port;
  s.attribute = a;
  s.received = at;
  s.field_count = static_cast<uint8_t>(schema::fields_of(a).size());
  s.advertised = (uint64_t{1} << s.field_count) - 1;
  return s;
}

// A PortSamplesResultExtended reading of `port` at `at` + 1 s: RcvDataVL1 = 10 dwords and
// RcvPktVL1 = 2 over one second.
inline collector::RawSample vl1_sample(collector::PortKey port,
                                       std::chrono::steady_clock::time_point at) {
  collector::RawSample vl;
  vl.port = port;
  vl.attribute = schema::Attribute::kPortSamplesResultExtended;
  vl.received = at + std::chrono::seconds(1);
  vl.sampled_for = std::chrono::seconds(1);
  vl.field_count = 2;
  vl.advertised = 3;
  vl.selects[0] = 0x4102;  // RcvDataVL1
  vl.selects[1] = 0x4104;  // RcvPktVL1
  vl.values[0] = 10;
  vl.values[1] = 2;
  return vl;
}

}  // namespace ibpulse::converters::testing
