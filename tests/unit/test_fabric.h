#pragma once
// The small hand-built fabric the exporters' unit tests render and serve: an HCA port linked
// to switch port 7 (4X EDR, MTU 4096), and switch port 8 without a cable (Down, Polling, still
// reporting 4X SDR as ibsim's PortInfo does).
#include <memory>
#include <string>

#include "ibpulse/collector/topology.h"

namespace ibpulse::converters::testing {

inline const collector::PortKey kHca{0x0002c90300000001ull, 1};
inline const collector::PortKey kSwitch{0x0002c90300000abcull, 7};
inline const collector::PortKey kSwitchDown{0x0002c90300000abcull, 8};

inline std::shared_ptr<collector::Topology> two_node_fabric(const std::string& switch_name) {
  auto t = std::make_shared<collector::Topology>();
  t->subnet_prefix = 0xfe80000000000000ull;
  collector::Node hca;
  hca.guid = kHca.node_guid;
  hca.kind = collector::NodeKind::kCa;
  hca.name = "node01 HCA-1";
  hca.system_image_guid = 0x1111;
  collector::Node sw;
  sw.guid = kSwitch.node_guid;
  sw.kind = collector::NodeKind::kSwitch;
  sw.name = switch_name;
  t->nodes = {hca, sw};
  for (const auto& [key, remote] : {std::pair{kHca, kSwitch}, std::pair{kSwitch, kHca}}) {
    collector::Port p;
    p.key = key;
    p.remote = remote;
    p.lid = key == kHca ? 12 : 3;
    p.link.state = 4;
    p.link.phys_state = 5;
    p.link.width_active = 2;      // 4X
    p.link.speed_ext_active = 2;  // EDR: 100 Gb/s of data
    p.link.mtu = 5;
    t->ports.push_back(p);
  }
  collector::Port down;
  down.key = kSwitchDown;
  down.lid = 3;
  down.link.state = 1;
  down.link.phys_state = 2;
  down.link.width_active = 2;  // what PortInfo of a down port still says (ibsim's does)
  down.link.speed_active = 1;
  down.link.mtu = 5;
  t->ports.push_back(down);
  return t;
}

}  // namespace ibpulse::converters::testing
