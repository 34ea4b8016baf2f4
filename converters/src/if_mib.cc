#include "ibpulse/converters/if_mib.h"

#include "ibpulse/collector/topology.h"

namespace ibpulse::converters {
namespace {

using schema::CounterId;
using schema::DerivedId;

// Per-lane data rate in Mb/s (pma-facts.md); FDR is 14.0625 Gb/s x 64/66.
uint64_t lane_megabits(const collector::LinkState& link) {
  switch (link.speed_ext_active) {
    case 1:
      return 13636;
    case 2:
      return 25000;
    case 4:
      return 50000;
    case 8:
      return 100000;
    case 16:
      return 200000;
    default:
      break;
  }
  switch (link.speed_active) {
    case 1:
      return 2000;
    case 2:
      return 4000;
    case 4:
      return 8000;
    default:
      return 0;
  }
}

}  // namespace

uint64_t link_lanes(uint8_t width) {
  return collector::width_lanes(width);
}

DerivedTotals if_mib_values(const CoreTotals& t, bool ietf_extended) {
  const auto c = [&](CounterId id) { return t[schema::index_of(id)]; };
  DerivedTotals d{};
  const auto set = [&](DerivedId id, uint64_t v) { d[static_cast<size_t>(id)] = v; };
  set(DerivedId::kIfInOctets, c(CounterId::kRcvData) + c(CounterId::kRcvPackets) * kPacketOverhead +
                                  c(CounterId::kRcvFlowPackets) * kSlpOctets);
  set(DerivedId::kIfOutOctets, c(CounterId::kXmitData) +
                                   c(CounterId::kXmitPackets) * kPacketOverhead +
                                   c(CounterId::kXmitFlowPackets) * kSlpOctets);
  // Discarded packets were counted by the sender's upper layer: the draft adds them to the
  // unicast output count. With the IETF counters, multicast is apart and never counted twice.
  const uint64_t out_dropped = c(CounterId::kXmitDiscards) + c(CounterId::kXmitConstraintErrors);
  if (ietf_extended) {
    set(DerivedId::kIfInUcastPkts, c(CounterId::kUnicastRcvPackets));
    set(DerivedId::kIfInMulticastPkts, c(CounterId::kMulticastRcvPackets));
    set(DerivedId::kIfOutUcastPkts, c(CounterId::kUnicastXmitPackets) + out_dropped);
    set(DerivedId::kIfOutMulticastPkts, c(CounterId::kMulticastXmitPackets));
  } else {
    set(DerivedId::kIfInUcastPkts, c(CounterId::kRcvPackets));
    set(DerivedId::kIfOutUcastPkts, c(CounterId::kXmitPackets) + out_dropped);
  }
  set(DerivedId::kIfInDiscards, c(CounterId::kRcvConstraintErrors) + c(CounterId::kVl15Dropped));
  set(DerivedId::kIfOutDiscards, out_dropped);
  set(DerivedId::kIfInErrors, c(CounterId::kRcvRemotePhysicalErrors) + c(CounterId::kRcvErrors));
  return d;
}

uint64_t link_bits_per_second(const collector::LinkState& link) {
  return link_lanes(link.width_active) * lane_megabits(link) * 1000000;
}

}  // namespace ibpulse::converters
