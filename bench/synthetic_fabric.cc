#include "synthetic_fabric.h"

#include <fmt/format.h>

#include "ibpulse/converters/converter.h"

namespace ibpulse::bench {

using collector::RawSample;
using schema::Attribute;
using Clock = std::chrono::steady_clock;

namespace {

// Traffic counters (data, packets, XmitWait): what a busy, healthy fabric moves every sweep,
// with its traffic on VL 0 (the per-VL data, packets and wait of VL 0; the other VLs stay 0).
bool moves(uint16_t counter) {
  if (counter >= schema::index_of(schema::CounterId::kXmitData) &&
      counter <= schema::index_of(schema::CounterId::kMulticastRcvPackets)) {
    return true;
  }
  const schema::Counter& c = schema::counter_table()[counter];
  const bool traffic = c.attribute == Attribute::kPortVLOpPackets ||
                       c.attribute == Attribute::kPortVLOpData ||
                       c.attribute == Attribute::kPortVLXmitWaitCounters;
  return traffic && c.label == "vl" && c.label_value == 0;
}

}  // namespace

std::shared_ptr<const collector::Topology> synthetic_topology(uint32_t ports) {
  auto t = std::make_shared<collector::Topology>();
  t->subnet_prefix = 0xfe80000000000000ull;
  for (uint32_t p = 0; p < ports; ++p) {
    const collector::PortKey key{0x0002c90300000000ull + p / 36, static_cast<uint8_t>(1 + p % 36)};
    if (p % 36 == 0) {
      collector::Node& n = t->nodes.emplace_back();
      n.guid = key.node_guid;
      n.kind = collector::NodeKind::kSwitch;
      n.name = fmt::format("leaf{:05} rack {}", p / 36, p / 36 / 16);
    }
    collector::Port& port = t->ports.emplace_back();
    port.key = key;
    port.lid = static_cast<uint16_t>(1 + p / 36);
    port.link = {4, 5, 2, 2, 2, 0, 0, 0, 2, 2, 2, 5};
  }
  return t;
}

std::vector<RawSample> synthetic_samples(const collector::Topology& topology, uint64_t bump,
                                         bool details) {
  std::vector<Attribute> attributes{Attribute::kPortCounters, Attribute::kPortCountersExtended};
  // What the daemon's read plan adds to every port by default, the per-VL and per-lane counters
  // among them (extended speeds: on every port, as on an all-HDR fabric).
  if (details) {
    attributes.insert(attributes.end(), collector::kDetailAttributes.begin(),
                      collector::kDetailAttributes.end());
    attributes.push_back(Attribute::kPortExtendedSpeedsCounters);
  }
  std::vector<RawSample> samples;
  samples.reserve(topology.ports.size() * attributes.size());
  const uint64_t ext_all =
      (uint64_t{1} << schema::fields_of(Attribute::kPortCountersExtended).size()) - 1;
  uint64_t p = 0;
  for (const collector::Port& port : topology.ports) {
    for (Attribute a : attributes) {
      RawSample s;
      s.port = port.key;
      s.attribute = a;
      s.received = Clock::now();
      s.field_count = static_cast<uint8_t>(schema::fields_of(a).size());
      s.advertised = (uint64_t{1} << s.field_count) - 1;
      if (a == Attribute::kPortCounters) s.superseded = collector::superseded_fields(ext_all);
      const auto sinks = schema::sinks_of(a);
      // Error counters at 0, as on a healthy fabric (a snapshot keeps non-zero totals only).
      for (size_t i = 0; i < s.field_count; ++i)
        s.values[i] = moves(sinks[i].counter) ? 1000 + i * 7919 + p + bump : 0;
      samples.push_back(s);
    }
    ++p;
  }
  return samples;
}

std::shared_ptr<const converters::FabricSnapshot> synthetic_snapshot(uint32_t ports) {
  auto t = synthetic_topology(ports);
  converters::Converter converter({});
  converter.set_topology(t);
  for (const RawSample& s : synthetic_samples(*t))
    converter.apply(s);
  return converter.snapshot(Clock::now());
}

}  // namespace ibpulse::bench
