#pragma once
// IF-MIB values from InfiniBand counters: the mapping of the IB-IF-MIB draft
// (draft-ietf-ipoib-ibif-mib-00, section 2.4) with POH = 4 and SLP = 8, and link rates.
//
// Thread safety: pure functions.

#include <array>
#include <cstdint>
#include <optional>

#include "ibpulse/collector/topology.h"
#include "ibpulse/converters/port_totals.h"
#include "ibpulse/schema/counters.h"

namespace ibpulse::converters {

inline constexpr uint64_t kPacketOverhead = 4;  // POH: octets per packet beyond its data
inline constexpr uint64_t kSlpOctets = 8;       // SLP: octets per flow control packet

using DerivedTotals = std::array<uint64_t, schema::kDerivedCount>;

// `totals` are scaled (data counters in octets). `ietf_extended`: the port has the IETF
// extended counters (ClassPortInfo CapabilityMask 0x200), so unicast and multicast packets are
// counted apart; otherwise every packet is unicast, as the draft says.
DerivedTotals if_mib_values(const CoreTotals& totals, bool ietf_extended);
// One of them: snapshots compute each when read instead of holding all nine per port.
uint64_t if_mib_value(const CoreTotals& totals, bool ietf_extended, schema::DerivedId id);
uint64_t if_mib_value(const PortTotals& totals, bool ietf_extended, schema::DerivedId id);
// The core counters (bit per schema index) an IF-MIB value is a sum of.
uint64_t if_mib_components(bool ietf_extended, schema::DerivedId id);

// Data rate of an active link in bits/s: lanes x lane data rate (after encoding); 0 when the
// width or speed is unknown.
uint64_t link_bits_per_second(const collector::LinkState& link);

// PortInfo LinkWidthActive (1 = 1X, 2 = 4X, 4 = 8X, 8 = 12X, 16 = 2X) in lanes; 0 when unknown.
uint64_t link_lanes(uint8_t width_active);

// RFC 2863's ifSpeed: bits/s, 4,294,967,295 when the rate does not fit its Gauge32.
uint32_t if_speed(uint64_t bits_per_second);
// RFC 2863's ifHighSpeed: units of 1,000,000 bits/s, rounded (n means n - 500,000 to
// n + 499,999 bits/s). Every IB rate is a whole number of Mb/s today.
uint32_t if_high_speed(uint64_t bits_per_second);

// The period of a PortXmitWait tick in ns, from PortSamplesControl's Tick: Tick + 1 symbol
// times, a symbol time being one byte on one lane at the link's data rate (4 ns at SDR). The
// spec's definition; NVIDIA documents its Quantum switches as counting per 8 bytes of the whole
// port instead (Tick 7), where this is the lane count too long (docs/congestion.md). Nothing
// when the link's speed is unknown.
std::optional<double> xmit_wait_tick_period_ns(uint8_t tick, const collector::LinkState& link);

}  // namespace ibpulse::converters
