#pragma once
// Topologies for the simulated fabric, in ibsim's net-file format (an ibnetdiscover-like text:
// a node header `Switch 36 "Leaf1"` followed by one `[port] "remote"[rport]` line per link).
//
// Thread safety: value types and pure functions.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ibpulse/base/result.h"

namespace ibpulse::sim {

enum class NodeType { kSwitch, kHca };

struct TopoNode {
  NodeType type = NodeType::kHca;
  std::string id;      // ibsim node id, also its NodeDescription
  unsigned ports = 0;  // physical ports (a switch also has port 0)
};

struct Endpoint {
  size_t node = 0;  // index into Topology::nodes
  unsigned port = 0;
  friend bool operator==(const Endpoint&, const Endpoint&) = default;
};

struct TopoLink {
  Endpoint a;
  Endpoint b;
};

// ibsim's own capacity flags (-N -S -P -L), sized for a topology.
struct IbsimCapacity {
  size_t nodes = 0;
  size_t switches = 0;
  size_t ports = 0;       // a switch uses radix + 1
  size_t linear_cap = 0;  // LID space of the switches' forwarding tables
};

// The largest unicast LID; ibsim's linear forwarding tables hold at most 49152 entries.
inline constexpr size_t kMaxUnicastLids = 0xBFFF;

struct Topology {
  std::vector<TopoNode> nodes;  // the first node is where clients attach by default
  std::vector<TopoLink> links;

  size_t switch_count() const;
  size_t hca_count() const;
  size_t physical_port_count() const;  // every port but switch port 0
  size_t lid_count() const;            // one per switch + one per connected HCA port

  // The net file ibsim reads; parse_net(render()) gives back the same topology.
  std::string render() const;
};

// Exactly ibsim's net-examples/net.2sw2path4hca: Switch1, Switch2 (8 ports) and Hca1..Hca4
// (2 ports, port 1 connected), with two parallel paths between the switches.
Topology default_topology();

// A fat tree of `radix`-port switches with `hosts` one-port HCAs (Hca1..HcaN): two levels
// (Leaf*, Spine*) when radix^2/2 hosts fit, else three (Leaf*, Agg*, Core*; up to radix^3/4).
// With `rails` > 1, that many identical trees, not linked to each other, their node ids
// prefixed with the rail ("R1-Leaf1", "R2-Hca3"): one subnet per rail, each host having one
// HCA per rail, as on a multi-rail cluster.
Result<Topology> fat_tree(size_t hosts, unsigned radix, unsigned rails = 1);

// Reads a net file (ibsim's examples or `ibnetdiscover` output). Links must be symmetric.
Result<Topology> parse_net(std::string_view text);

// Refuses topologies beyond what ibsim and a subnet's LID space can hold.
Status check_capacity(const Topology& topology);

// ibsim flags with room for the topology (never below ibsim's defaults).
IbsimCapacity ibsim_capacity(const Topology& topology);

}  // namespace ibpulse::sim
