#include "ibpulse/converters/if_mib.h"

#include <algorithm>
#include <cstdint>

#include "ibpulse/collector/topology.h"

namespace ibpulse::converters {
namespace {

using schema::CounterId;
using schema::DerivedId;

// Per-lane data rate in Mb/s after encoding: SDR 2.5, DDR 5, QDR 10 Gb/s with 8b/10b; FDR
// 14.0625 Gb/s and EDR 25.78125 Gb/s with 64b/66b; HDR, NDR and XDR 50, 100 and 200 Gb/s.
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

// T: CoreTotals or PortTotals, both read by counter index.
template <typename T>
uint64_t derived_value(const T& t, bool ietf_extended, DerivedId id) {
  const auto c = [&](CounterId counter) -> uint64_t { return t[schema::index_of(counter)]; };
  // Discarded packets were counted by the sender's upper layer: the draft adds them to the
  // unicast output count. With the IETF counters, multicast is apart and never counted twice.
  const auto out_dropped = [&] {
    return c(CounterId::kXmitDiscards) + c(CounterId::kXmitConstraintErrors);
  };
  switch (id) {
    case DerivedId::kIfInOctets:
      return c(CounterId::kRcvData) + c(CounterId::kRcvPackets) * kPacketOverhead +
             c(CounterId::kRcvFlowPackets) * kSlpOctets;
    case DerivedId::kIfOutOctets:
      return c(CounterId::kXmitData) + c(CounterId::kXmitPackets) * kPacketOverhead +
             c(CounterId::kXmitFlowPackets) * kSlpOctets;
    case DerivedId::kIfInUcastPkts:
      return c(ietf_extended ? CounterId::kUnicastRcvPackets : CounterId::kRcvPackets);
    case DerivedId::kIfInMulticastPkts:
      return ietf_extended ? c(CounterId::kMulticastRcvPackets) : 0;
    case DerivedId::kIfOutUcastPkts:
      return c(ietf_extended ? CounterId::kUnicastXmitPackets : CounterId::kXmitPackets) +
             out_dropped();
    case DerivedId::kIfOutMulticastPkts:
      return ietf_extended ? c(CounterId::kMulticastXmitPackets) : 0;
    case DerivedId::kIfInDiscards:
      return c(CounterId::kRcvConstraintErrors) + c(CounterId::kVl15Dropped);
    case DerivedId::kIfOutDiscards:
      return out_dropped();
    case DerivedId::kIfInErrors:
      return c(CounterId::kRcvRemotePhysicalErrors) + c(CounterId::kRcvErrors);
  }
  return 0;
}

uint64_t if_mib_value(const CoreTotals& totals, bool ietf_extended, DerivedId id) {
  return derived_value(totals, ietf_extended, id);
}

uint64_t if_mib_value(const PortTotals& totals, bool ietf_extended, DerivedId id) {
  return derived_value(totals, ietf_extended, id);
}

uint64_t if_mib_components(bool ietf_extended, DerivedId id) {
  // Every formula is a sum of counters with positive weights: a counter is one of its terms
  // when a total of 1 in it alone gives a value. Worked out from the formulas themselves, so
  // the two cannot disagree.
  static const auto table = [] {
    std::array<std::array<uint64_t, schema::kDerivedCount>, 2> t{};
    for (size_t c = 0; c < schema::kCoreCounterCount; ++c) {
      CoreTotals one{};
      one[c] = 1;
      for (const bool ietf : {false, true}) {
        for (size_t d = 0; d < schema::kDerivedCount; ++d) {
          if (derived_value(one, ietf, static_cast<DerivedId>(d)) != 0)
            t[ietf ? 1 : 0][d] |= uint64_t{1} << c;
        }
      }
    }
    return t;
  }();
  return table[ietf_extended ? 1 : 0][static_cast<size_t>(id)];
}

DerivedTotals if_mib_values(const CoreTotals& totals, bool ietf_extended) {
  DerivedTotals d{};
  for (size_t i = 0; i < d.size(); ++i)
    d[i] = if_mib_value(totals, ietf_extended, static_cast<DerivedId>(i));
  return d;
}

uint64_t link_bits_per_second(const collector::LinkState& link) {
  return link_lanes(link.width_active) * lane_megabits(link) * 1000000;
}

uint32_t if_speed(uint64_t bits_per_second) {
  return static_cast<uint32_t>(std::min<uint64_t>(bits_per_second, UINT32_MAX));
}

uint32_t if_high_speed(uint64_t bits_per_second) {
  return static_cast<uint32_t>(
      std::min<uint64_t>((bits_per_second + 500000) / 1000000, UINT32_MAX));
}

std::optional<double> xmit_wait_tick_period_ns(uint8_t tick, const collector::LinkState& link) {
  const uint64_t lane_megabits_per_second = lane_megabits(link);
  if (lane_megabits_per_second == 0) return std::nullopt;
  const double symbol_ns = 8.0 * 1000.0 / static_cast<double>(lane_megabits_per_second);
  return (tick + 1.0) * symbol_ns;
}

}  // namespace ibpulse::converters
