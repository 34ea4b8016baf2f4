#pragma once
// PortInfo (SMP attribute 0x15) decoded into the link state the topology keeps: shared by
// discovery (libibnetdisc's copy) and the poller's refreshes between discoveries.

#include <cstdint>

#include "ibpulse/collector/topology.h"

namespace ibpulse::collector {

inline constexpr uint16_t kPortInfoAttribute = 0x0015;

// `info`: the 64 bytes of PortInfo attribute data.
LinkState link_state_from_port_info(const uint8_t* info);

// What a PortInfo read between discoveries means for the poller, from the link state the
// topology had and the one read.
struct LinkChange {
  bool changed = false;  // state, width or speed: the port's link is replaced and reported
  // The link came up (Active) or went down: its peer and LIDs may have changed, so discovery
  // looks again soon.
  bool rediscover = false;
  // It came up: it may run another FEC mode, so its extended speeds layout is asked again.
  bool ask_layout = false;
};
LinkChange link_change(const LinkState& before, const LinkState& now);

}  // namespace ibpulse::collector
