#pragma once
// ibsim's `Dump` console command lists every node and port with its GUID, LID, link partner
// and state. The fabric tool reads it to wait for ports to become Active and to write the LID
// map, without attaching one more client to ibsim.
//
// Thread safety: pure functions.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ibpulse/sim/topology.h"

namespace ibpulse::sim {

struct DumpPort {
  std::string node;  // ibsim node id (also its NodeDescription)
  NodeType type = NodeType::kHca;
  uint64_t node_guid = 0;
  uint64_t port_guid = 0;
  unsigned port = 0;
  // The LID that addresses this port's PMA: the port's own LID on an HCA, the switch's
  // port-0 LID on a switch port (with PortSelect = port).
  unsigned lid = 0;
  std::string remote_node;  // empty when unconnected
  unsigned remote_port = 0;
  std::string state;       // Down, Init, Armed, Active
  std::string phys_state;  // Polling, LinkUp, ...
  std::string width;       // 4x
  std::string speed;       // 2.5G

  bool linked() const { return !remote_node.empty(); }
  bool active() const { return state == "Active"; }
};

// Ports in Dump order; switch port 0 is left out (it is no interface of its own).
Result<std::vector<DumpPort>> parse_dump(std::string_view dump);

// Looks a port up by node id and port number.
const DumpPort* find_port(const std::vector<DumpPort>& ports, std::string_view node, unsigned port);

}  // namespace ibpulse::sim
