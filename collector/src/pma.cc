#include "ibpulse/collector/pma.h"

#include <array>
#include <vector>

#include "ibpulse/base/check.h"
#include "ibpulse/schema/counters.h"

namespace ibpulse::collector {

PmaCapabilities decode_class_port_info(std::span<const uint8_t> data) {
  using schema::extract_bits;
  PmaCapabilities c;
  c.capability_mask = static_cast<uint16_t>(extract_bits(data, 16, 16));
  c.capability_mask2 = static_cast<uint32_t>(extract_bits(data, 32, 27));
  c.resp_time_value = static_cast<uint8_t>(extract_bits(data, 59, 5));
  c.redirect_lid = static_cast<uint16_t>(extract_bits(data, 224, 16));
  return c;
}

bool supports(const PmaCapabilities& caps, const schema::Field& field) {
  switch (field.requires_capability) {
    case schema::Requires::kNothing:
      return true;
    case schema::Requires::kExtendedWidth:
      return caps.extended_width();
    case schema::Requires::kExtendedWidthFull:
      return caps.extended_width_full();
    case schema::Requires::kAdditionalExtended:
      return caps.additional_extended();
    case schema::Requires::kXmitWait:
      return caps.xmit_wait();
    case schema::Requires::kQp1Dropped:
      return caps.qp1_dropped();
  }
  return false;
}

uint8_t sample_control_tick(std::span<const uint8_t> data) {
  constexpr size_t kTickByte = 2;
  return data.size() > kTickByte ? data[kTickByte] : 0;
}

MadRequest pma_get(schema::Attribute attribute, uint16_t lid, uint8_t port, uint32_t node,
                   uint64_t cookie) {
  MadRequest r;
  r.lid = lid;
  r.node = node;
  r.method = MadMethod::kGet;
  r.attribute = static_cast<uint16_t>(attribute);
  r.cookie = cookie;
  if (attribute != schema::Attribute::kClassPortInfo) r.data[1] = port;  // PortSelect
  return r;
}

uint64_t advertised_fields(schema::Attribute attribute, const PmaCapabilities* caps,
                           schema::Layout layout) {
  const auto fields = schema::fields_of(attribute, layout);
  uint64_t mask = 0;
  for (size_t i = 0; i < fields.size(); ++i) {
    const bool ok = caps ? supports(*caps, fields[i])
                         : fields[i].requires_capability == schema::Requires::kNothing;
    if (ok) mask |= uint64_t{1} << i;
  }
  return mask;
}

uint64_t superseded_fields(uint64_t extended_advertised) {
  using schema::Attribute;
  // Per PortCountersExtended field: the PortCounters field it is the 64-bit copy of, as a bit.
  static const auto narrow_bit = [] {
    std::array<uint64_t, kMaxFieldsPerAttribute> bits{};
    const auto narrow = schema::sinks_of(Attribute::kPortCounters);
    const auto wide = schema::sinks_of(Attribute::kPortCountersExtended);
    for (size_t j = 0; j < wide.size(); ++j) {
      for (size_t i = 0; i < narrow.size() && wide[j].wide; ++i) {
        if (narrow[i].counter == wide[j].counter) bits[j] = uint64_t{1} << i;
      }
    }
    return bits;
  }();
  uint64_t mask = 0;
  for (size_t j = 0; j < narrow_bit.size(); ++j) {
    if (extended_advertised >> j & 1) mask |= narrow_bit[j];
  }
  return mask;
}

MadRequest pma_clear(schema::Attribute attribute, uint16_t lid, uint8_t port, uint32_t node,
                     uint64_t fields, uint64_t cookie) {
  MadRequest r = pma_get(attribute, lid, port, node, cookie);
  r.method = MadMethod::kSet;
  const auto all = schema::fields_of(attribute);
  std::vector<schema::Field> selected;
  for (size_t i = 0; i < all.size(); ++i) {
    if (fields >> i & 1) selected.push_back(all[i]);
  }
  const auto masks = schema::select_masks_for(selected);
  // CounterSelect: bytes 2-3 of every counter attribute (PortExtendedSpeedsCounters: 8 bytes
  // at 8). CounterSelect2: byte 18 of PortCounters, bytes 4-7 of PortCountersExtended.
  if (attribute == schema::Attribute::kPortExtendedSpeedsCounters) {
    for (unsigned b = 0; b < 8; ++b)
      r.data[8 + b] = static_cast<uint8_t>(masks.counter_select >> (56 - 8 * b));
  } else {
    r.data[2] = static_cast<uint8_t>(masks.counter_select >> 8);
    r.data[3] = static_cast<uint8_t>(masks.counter_select);
  }
  if (attribute == schema::Attribute::kPortCounters) {
    r.data[18] = static_cast<uint8_t>(masks.counter_select2);
  } else if (attribute == schema::Attribute::kPortCountersExtended) {
    for (unsigned b = 0; b < 4; ++b)
      r.data[4 + b] = static_cast<uint8_t>(masks.counter_select2 >> (24 - 8 * b));
  }
  return r;
}

void decode_fields(schema::Attribute attribute, schema::Layout layout,
                   std::span<const uint8_t> data, RawSample& sample) {
  const auto fields = schema::fields_of(attribute, layout);
  IBPULSE_CHECK(fields.size() <= kMaxFieldsPerAttribute, "{} fields", fields.size());
  sample.attribute = attribute;
  sample.layout = layout;
  sample.field_count = static_cast<uint8_t>(fields.size());
  for (size_t i = 0; i < fields.size(); ++i) {
    sample.values[i] = schema::extract_bits(data, fields[i].bit_offset, fields[i].width);
  }
}

}  // namespace ibpulse::collector
