#pragma once
// The congestion scenarios of the traffic generator (--hot-spot, --stuck): which egress ports
// a congestion tree makes its root and its victims, and what share of their link they send.
//
// The model: every HCA port of the driven ports, except those of the target HCA, sends toward
// the target HCA port by the shortest path (breadth-first over the active links; an HCA never
// forwards). The switch port linked to the target port is the ROOT; every other egress port on
// those paths, the senders' own HCA ports included, is a VICTIM. Where several next hops are
// equally short, the lowest-numbered egress port of the switch wins: parallel links are not
// balanced as a subnet manager would, so one tree is predictable and easy to check.
//
// Thread safety: pure functions.

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "ibpulse/base/result.h"
#include "ibpulse/sim/dump.h"
#include "ibpulse/sim/traffic.h"
#include "pma_fields.h"

namespace ibpulse::sim {

enum class CongestionRole : uint8_t { kNone, kRoot, kVictim };

// "root", "victim", "" (the report's spelling).
std::string_view role_name(CongestionRole role);

struct CongestedPort {
  CongestionRole role = CongestionRole::kNone;
  double utilization = 0;  // share of the link's data rate the port transmits, when a role
};

// Checks the congestion settings of `options` (ratios, tick, one scenario at most).
Status check_congestion_options(const TrafficOptions& options);

// One entry per port of `ports` (the active linked ports being driven), in the same order;
// all kNone when `options` has no scenario.
Result<std::vector<CongestedPort>> plan_congestion(std::span<const DumpPort* const> ports,
                                                   const TrafficOptions& options);

// PortXmitWait ticks per second of a root or victim: wait_ratio of each second, in ticks.
double xmit_wait_per_second(const TrafficOptions& options);

// PortVLXmitWaitCounters, VL 0 only (where the model's traffic runs): 16 bits, so it latches
// within a millisecond of waiting at 4 ns ticks, as it would on hardware.
const PmaAttribute& vl_xmit_wait_attribute();

}  // namespace ibpulse::sim
