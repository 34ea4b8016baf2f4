#include "ibpulse/converters/interface_status.h"

#include <algorithm>

namespace ibpulse::converters {
namespace {

// PortInfo encodings: PortState (1-4) and PortPhysicalState (5 LinkUp, 7 PhyTest).
constexpr uint8_t kStateDown = 1, kStateInit = 2, kStateArmed = 3, kStateActive = 4;
constexpr uint8_t kPhysLinkUp = 5, kPhysPhyTest = 7;

}  // namespace

std::string_view to_string(OperStatus status) {
  switch (status) {
    case OperStatus::kUp:
      return "up";
    case OperStatus::kDown:
      return "down";
    case OperStatus::kTesting:
      return "testing";
    case OperStatus::kUnknown:
      return "unknown";
    case OperStatus::kDormant:
      return "dormant";
    case OperStatus::kNotPresent:
      return "notPresent";
    case OperStatus::kLowerLayerDown:
      return "lowerLayerDown";
  }
  return "unknown";
}

OperStatus oper_status(const collector::LinkState& link) {
  if (link.phys_state == kPhysPhyTest) return OperStatus::kTesting;
  switch (link.state) {
    case kStateActive:
      return OperStatus::kUp;
    case kStateInit:
    case kStateArmed:
      return link.phys_state == kPhysLinkUp ? OperStatus::kDormant : OperStatus::kDown;
    case kStateDown:
      return OperStatus::kDown;
    default:
      return OperStatus::kUnknown;  // never read (0) or an encoding we do not know
  }
}

uint32_t mtu_octets(uint8_t neighbor_mtu) {
  return neighbor_mtu >= 1 && neighbor_mtu <= 5 ? 128u << neighbor_mtu : 0;
}

uint16_t phys_address_lid(const collector::Port& port, bool on_switch) {
  return on_switch && port.key.port != 0 ? 0 : port.lid;
}

std::vector<collector::PortKey> InterfaceTable::update(const collector::Topology& topology,
                                                       std::chrono::steady_clock::time_point now,
                                                       std::chrono::steady_clock::duration grace) {
  for (auto& [key, state] : states_) {
    if (state.gone_since == std::chrono::steady_clock::time_point{}) state.gone_since = now;
  }
  by_topology_port_.resize(topology.ports.size());
  for (size_t i = 0; i < topology.ports.size(); ++i) {
    const collector::Port& port = topology.ports[i];
    const OperStatus status = oper_status(port.link);
    const auto [it, added] = states_.try_emplace(port.key);
    State& s = it->second;
    // A new port's state was entered before we knew it: ifLastChange stays 0 (IF-MIB).
    if (!added && !s.remembered && s.status != status) s.last_change = now;
    s.remembered = false;
    s.status = status;
    s.gone_since = {};
    s.mtu = mtu_octets(port.link.mtu);
    const collector::Node* node = topology.find_node(port.key.node_guid);
    s.phys_lid = phys_address_lid(port, node && node->kind == collector::NodeKind::kSwitch);
    by_topology_port_[i] = s;
  }
  for (auto& [key, state] : states_) {
    if (state.gone_since != std::chrono::steady_clock::time_point{} &&
        state.status != OperStatus::kNotPresent) {
      state.status = OperStatus::kNotPresent;
      state.last_change = now;
      state.remembered = false;
    }
  }
  list_gone();
  return expired(now, grace);
}

void InterfaceTable::list_gone() {
  gone_.clear();
  for (const auto& [key, state] : states_) {
    if (state.gone_since != std::chrono::steady_clock::time_point{}) gone_.push_back(key);
  }
  std::sort(gone_.begin(), gone_.end());
}

std::vector<collector::PortKey> InterfaceTable::expired(std::chrono::steady_clock::time_point now,
                                                        std::chrono::steady_clock::duration grace) {
  // Only gone ports can expire: a look at those, not at the whole fabric (this runs often).
  std::vector<collector::PortKey> out;
  std::erase_if(gone_, [&](collector::PortKey key) {
    const auto it = states_.find(key);
    if (it == states_.end() || now - it->second.gone_since < grace) return false;
    states_.erase(it);
    out.push_back(key);
    return true;
  });
  return out;
}

const InterfaceTable::State* InterfaceTable::find(collector::PortKey key) const {
  const auto it = states_.find(key);
  return it == states_.end() ? nullptr : &it->second;
}

}  // namespace ibpulse::converters
