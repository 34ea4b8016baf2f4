#pragma once
// PortInfo (SMP attribute 0x15) decoded into the link state the topology keeps: shared by
// discovery (libibnetdisc's copy) and the poller's refreshes between discoveries.

#include <cstdint>

#include "ibpulse/collector/topology.h"

namespace ibpulse::collector {

inline constexpr uint16_t kPortInfoAttribute = 0x0015;

// `info`: the 64 bytes of PortInfo attribute data.
LinkState link_state_from_port_info(const uint8_t* info);

}  // namespace ibpulse::collector
