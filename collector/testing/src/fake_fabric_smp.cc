// The FakeFabric's subnet management agent: PortInfo and PortInfoExtended, encoded with
// libibmad's own field tables (the poller decodes them with the same library).
#include <infiniband/mad.h>

#include "ibpulse/collector/testing/fake_fabric.h"

namespace ibpulse::collector::testing {
namespace {

constexpr uint16_t kPortInfo = 0x15;
constexpr uint16_t kPortInfoExtended = 0x33;

void put(std::array<uint8_t, kMadDataSize>& data, MAD_FIELDS field, uint32_t value) {
  mad_set_field(data.data(), 0, field, value);
}

}  // namespace

LinkState FakeFabric::link_of(const ModelNode& node, const ModelPort& port) {
  LinkState link;
  link.width_active = 2;  // 4X
  link.mtu = 5;
  if (port.remote && port.up) {
    link.state = 4;       // Active
    link.phys_state = 5;  // LinkUp
    link.speed_ext_active = node.behaviour.speed_ext_active;
  } else {
    link.state = 1;       // Down
    link.phys_state = 2;  // Polling
    link.speed_active = 1;
  }
  return link;
}

uint16_t FakeFabric::smp(const ModelNode& node, const MadRequest& request,
                         std::array<uint8_t, kMadDataSize>& data) {
  const auto& b = node.behaviour;
  if (const auto s = b.smp_status.find(request.attribute); s != b.smp_status.end()) {
    return s->second;
  }
  if (request.method != MadMethod::kGet) return kStatusUnsupported;
  const auto port = static_cast<uint8_t>(request.modifier);
  const bool management_port = port == 0 && node.kind == NodeKind::kSwitch;
  const auto found = node.ports.find(port);
  if (!management_port && found == node.ports.end()) return 0x001C;  // invalid attribute field
  data.fill(0);
  if (request.attribute == kPortInfo) {
    put(data, IB_PORT_CAPMASK_F, b.port_info_capability_mask);
    put(data, IB_PORT_CAPMASK2_F, b.port_info_capability_mask2);
    put(data, IB_PORT_SMLID_F, b.port_info_master_sm_lid);
    if (management_port) return 0;  // switch port 0: no link of its own
    const LinkState link = link_of(node, found->second);
    put(data, IB_PORT_STATE_F, link.state);
    put(data, IB_PORT_PHYS_STATE_F, link.phys_state);
    put(data, IB_PORT_LINK_WIDTH_ACTIVE_F, link.width_active);
    put(data, IB_PORT_LINK_SPEED_ACTIVE_F, link.speed_active);
    put(data, IB_PORT_LINK_SPEED_EXT_ACTIVE_F, link.speed_ext_active);
    put(data, IB_PORT_NEIGHBOR_MTU_F, link.mtu);
    return 0;
  }
  if (request.attribute == kPortInfoExtended) {
    put(data, IB_PORT_EXT_CAPMASK_F, b.port_info_ext_capability_mask);
    put(data, IB_PORT_EXT_FEC_MODE_ACTIVE_F, b.fec_mode_active);
    return 0;
  }
  return kStatusUnsupported;
}

}  // namespace ibpulse::collector::testing
