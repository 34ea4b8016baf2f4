#pragma once
// PMA reads on top of the MAD engine: building GETs, decoding ClassPortInfo and counter
// attributes with the schema. Samples stay raw (no unit scaling): the converters scale once.
//
// Thread safety: pure functions and value types.

#include <array>
#include <chrono>
#include <cstdint>
#include <span>

#include "ibpulse/collector/mad_engine.h"
#include "ibpulse/collector/topology.h"
#include "ibpulse/schema/fields.h"

namespace ibpulse::collector {

using schema::kMaxFieldsPerAttribute;             // a sample's room for fields
inline constexpr size_t kMaxSampleCounters = 15;  // CounterSelect0-14 of PortSamplesControl

// What a node's PMA says it supports (ClassPortInfo, read once per node per discovery).
struct PmaCapabilities {
  uint16_t capability_mask = 0;
  uint32_t capability_mask2 = 0;
  uint8_t resp_time_value = 0;
  uint16_t redirect_lid = 0;  // non-zero: the PMA wants to be reached elsewhere

  bool all_port_select() const { return capability_mask & 0x0100; }
  bool extended_width() const { return capability_mask & 0x0600; }
  bool extended_width_full() const { return capability_mask & 0x0200; }
  bool xmit_wait() const { return capability_mask & 0x1000; }
  bool qp1_dropped() const { return capability_mask & 0x8000; }
  bool pm_key() const { return capability_mask2 & 0x1; }
  bool additional_extended() const { return capability_mask2 & 0x2; }
  // IsPMRSFECCountersSupported: PortExtendedSpeedsCounters has its RS-FEC layout where the
  // port runs RS-FEC (read_plan.h says how the poller finds out).
  bool rs_fec_counters() const { return capability_mask & 0x4000; }
};

PmaCapabilities decode_class_port_info(std::span<const uint8_t> data);

// PortSamplesControl's Tick (byte 2): a node's PortXmitWait tick is Tick + 1 symbol times.
// The poller hands it on as a RawSample of PortSamplesControl with it in values[0].
uint8_t sample_control_tick(std::span<const uint8_t> data);

// Whether a port whose node has `caps` carries `field`.
bool supports(const PmaCapabilities& caps, const schema::Field& field);

// A GET of `attribute` for `port` (PortSelect), sent to `lid`.
MadRequest pma_get(schema::Attribute attribute, uint16_t lid, uint8_t port, uint32_t node,
                   uint64_t cookie);

// A SET of `attribute` for `port` that clears exactly the fields in `fields` (bit i: field i
// of schema::fields_of(attribute)) through CounterSelect / CounterSelect2. Its response
// carries the counters after the clear.
MadRequest pma_clear(schema::Attribute attribute, uint16_t lid, uint8_t port, uint32_t node,
                     uint64_t fields, uint64_t cookie);

// One attribute of one port, as read: raw field values in schema order.
struct RawSample {
  PortKey port;
  schema::Attribute attribute = schema::Attribute::kPortCounters;
  std::chrono::steady_clock::time_point received;
  MadFailure failure = MadFailure::kNone;
  uint16_t mad_status = 0;
  uint8_t field_count = 0;
  uint8_t subnet = 0;  // the subnet the read went through (Port::subnet)
  // A PortCounters sample read only because its node's ClassPortInfo went unanswered: the
  // node may have 64-bit copies, and a counter read from one keeps it as its source (the
  // converter holds such readings back instead of switching to the narrow copy and back).
  bool narrow_fallback = false;
  // The layout the attribute was decoded with: values[i] is field i of
  // schema::fields_of(attribute, layout).
  schema::Layout layout = schema::Layout::kStandard;
  std::array<uint64_t, kMaxFieldsPerAttribute> values{};
  // Bit i: the port's PMA advertises field i (ClassPortInfo), so values[i] means something.
  // A field it does not advertise reads as whatever the device leaves there, often 0.
  uint64_t advertised = 0;
  // Bit i: this port reads field i's 64-bit copy from PortCountersExtended, so this narrow
  // copy is not the counter's source (set on PortCounters samples only).
  uint64_t superseded = 0;
  // Bit i: field i was cleared by our Set; the sample is the Set's response, the value after
  // the clear (a new baseline, not a reading to add).
  uint64_t cleared = 0;
  // PortSamplesResult(Extended) samples only: the CounterSelect code of values[i] (sampler.h),
  // and how long the sample ran (from our Set's answer until it was seen done: an upper bound
  // of the time its counts cover).
  std::array<uint16_t, kMaxSampleCounters> selects{};
  std::chrono::steady_clock::duration sampled_for{};
};

// The optional attributes read at poll.details-interval on every port that answers them
// (error and discard details, flow control, per-VL counters); PortExtendedSpeedsCounters is
// added on ports whose link runs an extended speed.
inline constexpr std::array<schema::Attribute, 7> kDetailAttributes = {
    schema::Attribute::kPortRcvErrorDetails,
    schema::Attribute::kPortXmitDiscardDetails,
    schema::Attribute::kPortFlowCtlCounters,
    schema::Attribute::kPortVLXmitWaitCounters,
    schema::Attribute::kPortVLXmitFlowCtlUpdateErrors,
    schema::Attribute::kPortVLOpPackets,
    schema::Attribute::kPortVLOpData,
};

// The advertised-fields mask of one layout of `attribute` for a node with `caps` (null: not
// known, so only the fields that need no capability).
uint64_t advertised_fields(schema::Attribute attribute, const PmaCapabilities* caps,
                           schema::Layout layout = schema::Layout::kStandard);

// The PortCounters fields whose 64-bit copy is among `extended_advertised` (a
// PortCountersExtended advertised-fields mask): a port reading both gets RawSample::superseded.
uint64_t superseded_fields(uint64_t extended_advertised);

// Decodes every schema field of one layout of `attribute` from attribute data into `sample`.
void decode_fields(schema::Attribute attribute, schema::Layout layout,
                   std::span<const uint8_t> data, RawSample& sample);

}  // namespace ibpulse::collector
