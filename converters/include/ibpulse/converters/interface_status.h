#pragma once
// The IF-MIB view of a port's state: ifOperStatus from PortInfo, ifMtu, ifPhysAddress, and
// ifLastChange; and ports that left discovery, reported notPresent for a grace period and
// then forgotten (their ifIndex stays reserved: if_index.h).
//
// Thread safety: none; the converter thread owns an InterfaceTable.

#include <chrono>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "ibpulse/collector/topology.h"
#include "ibpulse/converters/vl_traffic.h"

namespace ibpulse::converters {

// IF-MIB ifOperStatus values.
enum class OperStatus : uint8_t {
  kUp = 1,
  kDown = 2,
  kTesting = 3,
  kUnknown = 4,
  kDormant = 5,
  kNotPresent = 6,
  kLowerLayerDown = 7,
};
std::string_view to_string(OperStatus status);

// PortInfo -> ifOperStatus: Active -> up; Init/Armed with the physical link up -> dormant
// (the link trains but the subnet manager has not activated it); PhyTest -> testing;
// Down, Polling, Disabled, Sleep or any other training state -> down; never read -> unknown.
OperStatus oper_status(const collector::LinkState& link);

// NeighborMTU (1 = 256 ... 5 = 4096) in octets; 0 when not known.
uint32_t mtu_octets(uint8_t neighbor_mtu);

// ifPhysAddress is the base LID as two octets, big-endian; this gives the LID, or 0 when the
// address is empty: no LID yet, or a switch's external port (only port 0 has a LID).
uint16_t phys_address_lid(const collector::Port& port, bool on_switch);

class InterfaceTable {
 public:
  struct State {
    OperStatus status = OperStatus::kUnknown;
    std::chrono::steady_clock::time_point last_change{};  // epoch: unchanged since we started
    std::chrono::steady_clock::time_point gone_since{};   // epoch: in the topology
    uint32_t mtu = 0;                                     // ifMtu (octets; 0: not known)
    uint16_t phys_lid = 0;                                // ifPhysAddress as a LID (0: empty)
    bool remembered = false;  // known from the state file, not yet in a topology
  };

  // Follows a new topology at `now`: a changed status sets last_change; a port that left
  // becomes notPresent. Returns the ports gone for longer than `grace`: forget them.
  // by_topology_port()[i] is then the state of topology.ports[i] (snapshots read it in order).
  std::vector<collector::PortKey> update(const collector::Topology& topology,
                                         std::chrono::steady_clock::time_point now,
                                         std::chrono::steady_clock::duration grace);
  // Ports gone for longer than `grace` at `now` (between topologies).
  std::vector<collector::PortKey> expired(std::chrono::steady_clock::time_point now,
                                          std::chrono::steady_clock::duration grace);

  // Drops at once the gone ports `foreign(key)` is true for (another shard's ports: they did
  // not leave the fabric) and returns them: forget them.
  template <typename Pred>
  std::vector<collector::PortKey> drop_gone_if(Pred foreign) {
    std::vector<collector::PortKey> out;
    std::erase_if(gone_, [&](collector::PortKey key) {
      if (!foreign(key)) return false;
      states_.erase(key);
      out.push_back(key);
      return true;
    });
    return out;
  }

  std::span<const State> by_topology_port() const { return by_topology_port_; }
  // Ports gone from the topology and not yet expired, sorted.
  std::span<const collector::PortKey> gone() const { return gone_; }
  const State* find(collector::PortKey key) const;
  // A port known from elsewhere (the state file): absent from the next topology, it is
  // reported notPresent and expires like any port that left.
  void remember(collector::PortKey key) {
    states_.try_emplace(key).first->second.remembered = true;
  }

 private:
  std::unordered_map<collector::PortKey, State, PortKeyHash> states_;
  std::vector<State> by_topology_port_;
  std::vector<collector::PortKey> gone_;
  void list_gone();
};

}  // namespace ibpulse::converters
