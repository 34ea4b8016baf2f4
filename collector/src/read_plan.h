#pragma once
// What the poller reads for one port, worked out when the topology or what a node supports
// changed, so the per-read path does no lookups.
//
// PortCounters (0x12) is read only for the fields PortCountersExtended (0x1D) does not give
// this port: a PMA with CapabilityMask 0x200 (IsExtendedWidthSupported) and CapabilityMask2
// bit 1 (IsAdditionalPortCountersExtendedSupported: the 64-bit error counters, PortXmitWait and
// QP1Dropped) has every PortCounters field in the extended attribute, so its ports cost one MAD
// per sweep instead of two. PMAs with 0x400 only, or without CapabilityMask2 bit 1 (ibsim's),
// still need PortCounters for the error counters.
//
// Thread safety: pure functions and value types.

#include <array>
#include <cstdint>
#include <set>

#include "ibpulse/collector/mad_engine.h"
#include "ibpulse/collector/pma.h"
#include "ibpulse/collector/topology.h"
#include "scheduler.h"

namespace ibpulse::collector {

// At most the seven detail attributes plus extended speeds: a fixed array, no allocation.
struct AttributeList {
  std::array<schema::Attribute, 10> items{};
  size_t size = 0;
  void add(schema::Attribute a) { items[size++] = a; }
  bool contains(schema::Attribute a) const;
  const schema::Attribute* begin() const { return items.data(); }
  const schema::Attribute* end() const { return items.data() + size; }
};

struct PortPlan {
  uint32_t node = 0;  // index of its node, for the engine's per-node limit
  AttributeList counters, details, idle;
  // The fields of PortCounters / PortCountersExtended its node's ClassPortInfo advertises.
  uint64_t counters_advertised = 0, extended_advertised = 0;
  uint64_t counters_superseded = 0;  // PortCounters fields read from PortCountersExtended
  // The read that stands for the port: a sweep counts the port done (or stale) when it
  // completes, and an undelivered one asks for a rediscovery. PortCounters where it is read,
  // else PortCountersExtended. The idle group reads only this one.
  schema::Attribute primary = schema::Attribute::kPortCounters;
  // Its node's ClassPortInfo has not answered yet: nothing is read (node_capabilities.h).
  bool awaiting_capabilities = false;
  // The layout its PortExtendedSpeedsCounters is decoded with (where it is read).
  schema::Layout ext_speeds_layout = schema::Layout::kStandard;
  // PortExtendedSpeedsCounters would be read, but its layout is still being asked for
  // (ext_speeds_layout.h): it is left out of `details` until then.
  bool awaiting_layout = false;
  // Its node's ClassPortInfo went unanswered and was given up on: PortCounters is read as a
  // fallback, in place of a 64-bit copy the node may well have (RawSample::narrow_fallback).
  bool narrow_fallback = false;

  const AttributeList& of(Group group) const;
  // Whether any group of the port reads `a`.
  bool reads(schema::Attribute a) const;
};

// `caps`: the node's ClassPortInfo (null: it did not answer); `unsupported`: attributes the
// node refused since the last discovery (null: none); `no_extended`: the operator said to
// ignore PortCountersExtended on this node. PortExtendedSpeedsCounters is read on ports whose
// link runs an extended speed (FDR and faster), or on every linked port with
// `ext_speeds_everywhere` (collect.ext-speeds-layout set by the operator).
PortPlan plan_port(const Port& port, uint32_t node, const PmaCapabilities* caps,
                   const std::set<schema::Attribute>* unsupported, bool no_extended,
                   bool ext_speeds_everywhere = false);

// The plan of a port whose node's capabilities are still being asked for: no reads.
PortPlan awaiting_capabilities(uint32_t node);

// One read of `attribute` on `port` as the converter takes it, annotated from the port's plan:
// the raw values decoded in the plan's layout, the fields its node advertises, the PortCounters
// fields the 64-bit copy supersedes, and whether PortCounters stands in for that copy
// (narrow_fallback). A failed read carries its failure only. `plan` null: no plan covers it
// (the standard layout, the fields the attribute always has). `cleared`: the fields a Set
// cleared, when this is its answer.
RawSample annotated_sample(const PortPlan* plan, PortKey port, schema::Attribute attribute,
                           uint8_t subnet, const MadCompletion& reply, uint64_t cleared = 0);

}  // namespace ibpulse::collector
