#include "ibpulse/collector/testing/fake_fabric.h"

#include "ibpulse/collector/pma.h"
#include "ibpulse/schema/fields.h"

namespace ibpulse::collector::testing {
namespace {

using schema::Attribute;

constexpr uint16_t kStatusInvalidField = 0x001C;

// Writes the low `width` bits of `value` at `bit_offset` (IBA bit order: the most significant
// bit of byte 0 first), the inverse of schema::extract_bits.
void put_bits(std::span<uint8_t> data, unsigned bit_offset, unsigned width, uint64_t value) {
  for (unsigned b = 0; b < width; ++b) {
    const unsigned pos = bit_offset + b;
    if (pos / 8 >= data.size()) return;
    const auto mask = static_cast<uint8_t>(0x80u >> (pos % 8));
    if ((value >> (width - 1 - b) & 1) != 0) {
      data[pos / 8] = static_cast<uint8_t>(data[pos / 8] | mask);
    } else {
      data[pos / 8] = static_cast<uint8_t>(data[pos / 8] & ~mask);
    }
  }
}

uint64_t all_ones(unsigned width) {
  return width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
}

// Whether a Set with `data` selects `field` for clearing (the layouts in the header comment).
bool selected(const schema::Field& field, std::span<const uint8_t> data) {
  using schema::extract_bits;
  uint64_t mask = 0;
  if (field.select == schema::SelectMask::kCounterSelect) {
    mask = field.attribute == Attribute::kPortExtendedSpeedsCounters ? extract_bits(data, 64, 64)
                                                                     : extract_bits(data, 16, 16);
  } else if (field.select == schema::SelectMask::kCounterSelect2) {
    mask = field.attribute == Attribute::kPortCounters ? extract_bits(data, 144, 8)
                                                       : extract_bits(data, 32, 32);
  }
  return (mask >> field.select_bit & 1) != 0;
}

}  // namespace

void FakeFabric::add_node(uint64_t guid, NodeKind kind, uint16_t lid, uint8_t ports) {
  ModelNode& n = nodes_[guid];
  n.kind = kind;
  n.lid = lid;
  for (uint8_t p = 1; p <= ports; ++p)
    n.ports[p].counters.assign(schema::counter_count(), 0);
  lids_[lid] = guid;
}

void FakeFabric::add_switch(uint64_t guid, uint16_t lid, uint8_t ports) {
  add_node(guid, NodeKind::kSwitch, lid, ports);
  nodes_[guid].behaviour.capability_mask = 0x1300;  // ibsim's switch: AllPortSelect too
}

void FakeFabric::add_hca(uint64_t guid, uint16_t lid, uint8_t port) {
  add_node(guid, NodeKind::kCa, lid, 0);
  nodes_[guid].ports[port].counters.assign(schema::counter_count(), 0);
}

void FakeFabric::link(PortKey a, PortKey b) {
  port(a).remote = b;
  port(b).remote = a;
}

FakeFabric::ModelPort& FakeFabric::port(PortKey key) {
  return nodes_.at(key.node_guid).ports.at(key.port);
}

const FakeFabric::ModelPort& FakeFabric::port(PortKey key) const {
  return nodes_.at(key.node_guid).ports.at(key.port);
}

void FakeFabric::set(PortKey key, schema::CounterId id, uint64_t value) {
  port(key).counters[schema::index_of(id)] = value;
}

void FakeFabric::set(PortKey key, size_t counter_index, uint64_t value) {
  port(key).counters.at(counter_index) = value;
}

void FakeFabric::set_link_up(PortKey key, bool up) {
  ModelPort& mp = port(key);
  mp.up = up;
  if (mp.remote) port(*mp.remote).up = up;
}

void FakeFabric::add(PortKey key, schema::CounterId id, uint64_t delta) {
  port(key).counters[schema::index_of(id)] += delta;
}

uint64_t FakeFabric::get(PortKey key, schema::CounterId id) const {
  return port(key).counters[schema::index_of(id)];
}

Topology FakeFabric::topology() const {
  Topology t;
  t.subnet_prefix = 0xfe80000000000000ull;
  for (const auto& [guid, n] : nodes_) {
    Node node;
    node.guid = guid;
    node.kind = n.kind;
    node.description = node.name = n.kind == NodeKind::kSwitch ? "fake switch" : "fake HCA";
    node.num_ports = static_cast<uint8_t>(n.ports.size());
    node.system_image_guid = guid;
    node.lid = n.lid;
    t.nodes.push_back(node);
    for (const auto& [number, mp] : n.ports) {
      Port p;
      p.key = {guid, number};
      p.port_guid = guid + number;
      p.lid = n.lid;
      p.remote = mp.remote;
      p.subnet_prefix = t.subnet_prefix;
      p.capability_mask = n.behaviour.port_info_capability_mask;
      p.capability_mask2 = n.behaviour.port_info_capability_mask2;
      p.link = link_of(n, mp);
      t.ports.push_back(p);
    }
  }
  return t;  // nodes_ is a map and ports within a node too: both come out sorted
}

uint64_t FakeFabric::node_at(uint16_t lid) const {
  const auto it = lids_.find(lid);
  return it == lids_.end() ? 0 : it->second;
}

uint64_t FakeFabric::smp_attempts(PortKey port, uint16_t attribute) const {
  const auto& a = wire(port.node_guid).smp_attempts;
  const auto it = a.find({port, attribute});
  return it == a.end() ? 0 : it->second;
}

uint64_t FakeFabric::attempts(PortKey port, schema::Attribute attribute) const {
  const auto& a = wire(port.node_guid).attempts;
  const auto it = a.find({port, static_cast<uint16_t>(attribute)});
  return it == a.end() ? 0 : it->second;
}

void FakeFabric::note_attempt(const MadRequest& request) {
  const uint64_t guid = node_at(request.lid);
  if (guid == 0) return;
  if (request.mgmt_class != MadClass::kPerformance) {
    const auto port = static_cast<uint8_t>(request.modifier);
    ++nodes_.at(guid).wire.smp_attempts[{PortKey{guid, port}, request.attribute}];
    return;
  }
  const auto port_select = request.attribute == static_cast<uint16_t>(Attribute::kClassPortInfo)
                               ? uint8_t{0}
                               : request.data[1];
  ++nodes_.at(guid).wire.attempts[{PortKey{guid, port_select}, request.attribute}];
}

uint16_t FakeFabric::answer(const MadRequest& request, std::array<uint8_t, kMadDataSize>& data) {
  ModelNode& n = nodes_.at(node_at(request.lid));
  if (request.mgmt_class != MadClass::kPerformance) return smp(n, request, data);
  if (const auto s = n.behaviour.status.find(request.attribute); s != n.behaviour.status.end())
    return s->second;
  data = request.data;  // PortSelect and the select masks come back as sent
  if (request.attribute == static_cast<uint16_t>(Attribute::kClassPortInfo)) {
    if (request.method != MadMethod::kGet) return kStatusUnsupported;
    data.fill(0);
    put_bits(data, 16, 16, n.behaviour.capability_mask);
    put_bits(data, 32, 27, n.behaviour.capability_mask2);
    return 0;
  }
  if (request.attribute == static_cast<uint16_t>(Attribute::kPortSamplesControl) &&
      request.method == MadMethod::kGet) {
    data.fill(0);
    data[1] = request.data[1];  // PortSelect
    data[2] = n.behaviour.sample_tick;
    return 0;
  }
  return counters(n, request, data);
}

uint16_t FakeFabric::counters(ModelNode& n, const MadRequest& request,
                              std::array<uint8_t, kMadDataSize>& data) {
  const auto attribute = static_cast<Attribute>(request.attribute);
  const auto layout = attribute == Attribute::kPortExtendedSpeedsCounters
                          ? n.behaviour.pesc_layout
                          : schema::Layout::kStandard;
  const auto fields = schema::fields_of(attribute, layout);
  const auto sinks = schema::sinks_of(attribute, layout);
  if (fields.empty()) return kStatusUnsupported;
  const auto found = n.ports.find(request.data[1]);
  if (found == n.ports.end()) return kStatusInvalidField;
  ModelPort& mp = found->second;
  PmaCapabilities caps;
  caps.capability_mask = n.behaviour.capability_mask;
  caps.capability_mask2 = n.behaviour.capability_mask2;
  for (size_t i = 0; i < fields.size(); ++i) {
    const uint64_t value = mp.counters[sinks[i].counter];
    uint64_t& base = mp.cleared_at[{request.attribute, i}];
    if (request.method == MadMethod::kSet && selected(fields[i], request.data)) base = value;
    const uint64_t read = value >= base ? value - base : value;
    const uint64_t encoded =
        supports(caps, fields[i]) ? std::min(read, all_ones(fields[i].width)) : 0;
    put_bits(data, fields[i].bit_offset, fields[i].width, encoded);
  }
  return 0;
}

}  // namespace ibpulse::collector::testing
