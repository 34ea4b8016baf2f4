#include "ibpulse/collector/link_capability.h"

#include <algorithm>
#include <bit>

namespace ibpulse::collector {
namespace {

constexpr uint8_t kActive = 4;
// LinkSpeedExtEnabled 30 means "extended speeds disabled", not a set of speeds (IBA 14.2.5.6).
constexpr uint8_t kExtendedSpeedsDisabled = 30;

// The most lanes among the width bits of `mask`.
unsigned widest(unsigned mask) {
  unsigned lanes = 0;
  for (unsigned bit = 1; bit <= 16; bit <<= 1) {
    if (mask & bit) lanes = std::max(lanes, width_lanes(static_cast<uint8_t>(bit)));
  }
  return lanes;
}

// Classic speeds (1 SDR, 2 DDR, 4 QDR) rank 1..3; extended ones (1 FDR ... 16 XDR) rank 4..8.
unsigned classic_rank(unsigned mask) {
  return mask & 7 ? static_cast<unsigned>(std::bit_width(mask & 7u)) : 0;
}
unsigned extended_rank(unsigned mask) {
  return mask & 31 ? 3 + static_cast<unsigned>(std::bit_width(mask & 31u)) : 0;
}

unsigned extended_enabled(const LinkState& l) {
  return l.speed_ext_enabled == kExtendedSpeedsDisabled ? 0 : l.speed_ext_enabled;
}

}  // namespace

LinkCapability link_capability(const LinkState& port, const LinkState& peer) {
  LinkCapability c;
  if (port.state != kActive) return c;
  const unsigned widths =
      port.width_supported & port.width_enabled & peer.width_supported & peer.width_enabled;
  const unsigned speeds =
      port.speed_supported & port.speed_enabled & peer.speed_supported & peer.speed_enabled;
  const unsigned extended = port.speed_ext_supported & extended_enabled(port) &
                            peer.speed_ext_supported & extended_enabled(peer);
  c.active_lanes = width_lanes(port.width_active);
  c.active_speed = port.speed_ext_active ? extended_rank(port.speed_ext_active)
                                         : classic_rank(port.speed_active);
  if (c.active_lanes == 0 || c.active_speed == 0) return {};  // nothing we can judge
  c.expected_lanes = widest(widths);
  c.expected_speed = extended ? extended_rank(extended) : classic_rank(speeds);
  return c;
}

LinkCapability link_capability(const Topology& topology, const Port& port) {
  if (!port.remote) return {};
  const Port* peer = topology.find_port_or_peer(*port.remote);
  return peer ? link_capability(port.link, peer->link) : LinkCapability{};
}

}  // namespace ibpulse::collector
