#include "ibpulse/collector/topology.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

namespace ibpulse::collector {

std::string_view to_string(NodeKind kind) {
  switch (kind) {
    case NodeKind::kCa:
      return "ca";
    case NodeKind::kSwitch:
      return "switch";
    case NodeKind::kRouter:
      return "router";
  }
  return "unknown";
}

const Node* Topology::find_node(uint64_t guid) const {
  auto it = std::lower_bound(nodes.begin(), nodes.end(), guid,
                             [](const Node& n, uint64_t g) { return n.guid < g; });
  return it != nodes.end() && it->guid == guid ? &*it : nullptr;
}

const Topology::Subnet* Topology::subnet_of(const Port& port) const {
  return port.subnet < subnets.size() ? &subnets[port.subnet] : nullptr;
}

uint64_t Topology::subnet_prefix_of(const Port& port) const {
  const Subnet* subnet = subnet_of(port);
  return port.subnet_prefix != 0 || subnet == nullptr ? port.subnet_prefix : subnet->prefix;
}

uint64_t Topology::node_subnet_prefix(uint64_t guid) const {
  auto it = std::lower_bound(ports.begin(), ports.end(), PortKey{guid, 0},
                             [](const Port& p, PortKey k) { return p.key < k; });
  for (; it != ports.end() && it->key.node_guid == guid; ++it) {
    const uint64_t prefix = subnet_prefix_of(*it);
    if (prefix != 0) return prefix;
  }
  return subnet_prefix;
}

const Port* Topology::find_port(PortKey key) const {
  auto it = std::lower_bound(ports.begin(), ports.end(), key,
                             [](const Port& p, PortKey k) { return p.key < k; });
  return it != ports.end() && it->key == key ? &*it : nullptr;
}

const Port* Topology::find_port_or_peer(PortKey key) const {
  if (const Port* own = find_port(key)) return own;
  auto it = std::lower_bound(peer_ports.begin(), peer_ports.end(), key,
                             [](const Port& p, PortKey k) { return p.key < k; });
  return it != peer_ports.end() && it->key == key ? &*it : nullptr;
}

size_t Topology::switch_count() const {
  return static_cast<size_t>(std::count_if(
      nodes.begin(), nodes.end(), [](const Node& n) { return n.kind == NodeKind::kSwitch; }));
}

bool TopologyChanges::empty() const {
  return nodes_added.empty() && nodes_removed.empty() && links_up.empty() && links_down.empty() &&
         lid_changes.empty();
}

TopologyChanges diff(const Topology& before, const Topology& after) {
  TopologyChanges c;
  for (const Node& n : after.nodes) {
    if (!before.find_node(n.guid)) c.nodes_added.push_back(n.guid);
  }
  for (const Node& n : before.nodes) {
    if (!after.find_node(n.guid)) c.nodes_removed.push_back(n.guid);
  }
  for (const Port& p : after.ports) {
    const Port* old = before.find_port(p.key);
    const bool had_peer = old != nullptr && old->remote.has_value();
    if (p.remote && !had_peer) c.links_up.push_back(p.key);
    if (old != nullptr && old->lid != p.lid && old->lid != 0 && p.lid != 0) {
      c.lid_changes.push_back({p.key, old->lid, p.lid});
    }
  }
  for (const Port& p : before.ports) {
    if (!p.remote) continue;
    const Port* now = after.find_port(p.key);
    if (now == nullptr || !now->remote) c.links_down.push_back(p.key);
  }
  return c;
}

unsigned width_lanes(uint8_t width) {
  switch (width) {
    case 1:
      return 1;
    case 2:
      return 4;
    case 4:
      return 8;
    case 8:
      return 12;
    case 16:
      return 2;
    default:
      return 0;
  }
}

std::string_view width_name(uint8_t width) {
  switch (width) {
    case 1:
      return "1X";
    case 2:
      return "4X";
    case 4:
      return "8X";
    case 8:
      return "12X";
    case 16:
      return "2X";
    default:
      return "?";
  }
}

std::string_view speed_name(const LinkState& link) {
  switch (link.speed_ext_active) {
    case 1:
      return "FDR";
    case 2:
      return "EDR";
    case 4:
      return "HDR";
    case 8:
      return "NDR";
    case 16:
      return "XDR";
    default:
      break;
  }
  switch (link.speed_active) {
    case 1:
      return "SDR";
    case 2:
      return "DDR";
    case 4:
      return "QDR";
    default:
      return "?";
  }
}

std::string_view state_name(uint8_t state) {
  static constexpr std::string_view kNames[] = {"?", "Down", "Init", "Armed", "Active"};
  return state < std::size(kNames) ? kNames[state] : "?";
}

std::string_view phys_state_name(uint8_t phys_state) {
  static constexpr std::string_view kNames[] = {
      "?", "Sleep", "Polling", "Disabled", "Training", "LinkUp", "LinkErrorRecovery", "PhyTest"};
  return phys_state < std::size(kNames) ? kNames[phys_state] : "?";
}

std::string guid_string(uint64_t guid) {
  return fmt::format("0x{:016x}", guid);
}

}  // namespace ibpulse::collector
