#pragma once
// Whether a link trained below what both of its ends can do: a 4X link running at 1X, an EDR
// link at FDR. One of the most common physical faults of a fabric (a bad cable or a dirty
// connector drops lanes or speed), and invisible to counters: the link is up and error-free, just
// slower. Judged from both ends' PortInfo: the best width and speed that both support and enable.
//
// Thread safety: pure functions.

#include <cstdint>

#include "ibpulse/collector/topology.h"

namespace ibpulse::collector {

struct LinkCapability {
  unsigned active_lanes = 0, expected_lanes = 0;  // widths as lane counts (4X: 4)
  unsigned active_speed = 0, expected_speed = 0;  // speed ranks: SDR 1 ... QDR 3, FDR 4 ... XDR 8
  bool width_degraded() const { return active_lanes < expected_lanes; }
  bool speed_degraded() const { return active_speed < expected_speed; }
  bool degraded() const { return width_degraded() || speed_degraded(); }
};

// For an Active port and its peer's PortInfo; zeros (never degraded) when the link is not
// Active or either end reports nothing usable.
LinkCapability link_capability(const LinkState& port, const LinkState& peer);

// The same for a port of `topology`, looking its peer up; zeros without a known peer.
LinkCapability link_capability(const Topology& topology, const Port& port);

}  // namespace ibpulse::collector
