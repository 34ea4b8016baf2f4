#include "port_info.h"

#include "smp_fields.h"

namespace ibpulse::collector {

LinkState link_state_from_port_info(const uint8_t* info) {
  LinkState s;
  s.state = smp::u8(info, IB_PORT_STATE_F);
  s.phys_state = smp::u8(info, IB_PORT_PHYS_STATE_F);
  s.width_active = smp::u8(info, IB_PORT_LINK_WIDTH_ACTIVE_F);
  s.width_supported = smp::u8(info, IB_PORT_LINK_WIDTH_SUPPORTED_F);
  s.width_enabled = smp::u8(info, IB_PORT_LINK_WIDTH_ENABLED_F);
  s.speed_active = smp::u8(info, IB_PORT_LINK_SPEED_ACTIVE_F);
  s.speed_supported = smp::u8(info, IB_PORT_LINK_SPEED_SUPPORTED_F);
  s.speed_enabled = smp::u8(info, IB_PORT_LINK_SPEED_ENABLED_F);
  s.speed_ext_active = smp::u8(info, IB_PORT_LINK_SPEED_EXT_ACTIVE_F);
  s.speed_ext_supported = smp::u8(info, IB_PORT_LINK_SPEED_EXT_SUPPORTED_F);
  s.speed_ext_enabled = smp::u8(info, IB_PORT_LINK_SPEED_EXT_ENABLED_F);
  s.mtu = smp::u8(info, IB_PORT_NEIGHBOR_MTU_F);
  return s;
}

LinkChange link_change(const LinkState& before, const LinkState& now) {
  constexpr uint8_t kActive = 4;
  LinkChange c;
  c.changed = !(now == before);
  c.ask_layout = now.state == kActive && before.state != kActive;
  c.rediscover = (now.state == kActive) != (before.state == kActive);
  return c;
}

}  // namespace ibpulse::collector
