#pragma once
// The disconnected parts of a topology: separate subnets in one ibsim, such as the rails of a
// multi-rail cluster. A subnet manager only reaches the ports it can route to from the port it
// runs on, and a umad2sim client gets exactly one local port (the first port of the node named
// by SIM_HOST), so each part needs its own `opensm -o` and resident opensm attached at a node of
// that part. LIDs are per subnet: they overlap between parts, as on real rails.
//
// Thread safety: value types and pure functions.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ibpulse/base/result.h"
#include "ibpulse/sim/process.h"
#include "ibpulse/sim/topology.h"

namespace ibpulse::sim {

// The link-local prefix every subnet has unless its SM is told otherwise (most sites leave every
// rail at it).
inline constexpr uint64_t kDefaultSubnetPrefix = 0xfe80000000000000;
// ibsim serves at most 10 clients (a compile-time limit); opensm, pollers and agents all count.
inline constexpr unsigned kIbsimMaxClients = 10;

// One part of a running fabric, as its state file records it.
struct SubnetPart {
  std::string attach_node;  // SIM_HOST of the part's subnet managers: its first node in the file
  uint64_t subnet_prefix = kDefaultSubnetPrefix;
  size_t nodes = 0;
  size_t links = 0;
  std::optional<ProcessRef> subnet_manager;  // resident opensm, unless --no-sm
};

// The connected components of the topology's links, each as node indices in file order, ordered
// by their first node (so the first part holds the file's first linked node). A node without any
// link belongs to no part: there is nothing for a subnet manager to configure there.
std::vector<std::vector<size_t>> connected_parts(const Topology& topology);

// The parts of a topology, ready to be started: attachment node, size and subnet prefix.
// `prefixes` is empty (every part at fe80::), one prefix for every part, or one per part.
Result<std::vector<SubnetPart>> plan_parts(const Topology& topology,
                                           const std::vector<uint64_t>& prefixes, bool resident_sm);

// How many parts one ibsim can serve. Each part keeps a resident opensm, a client of ibsim for
// the fabric's life, and ibsim serves at most kIbsimMaxClients: one slot must stay free for tools
// and collectors. Without resident SMs the `opensm -o` runs go one at a time and the part count is
// not limited.
size_t max_parts(bool resident_sm);

// "0xfe80000000000000,0xfe80000000000001" (or decimal): the values of --subnet-prefix.
Result<std::vector<uint64_t>> parse_subnet_prefixes(std::string_view text);

// "0xfe80000000000000", as opensm prints prefixes.
std::string prefix_text(uint64_t prefix);

// The part (index) that contains `node`, by node id; nullopt when it is in none.
std::optional<size_t> part_of(const Topology& topology, std::string_view node);

}  // namespace ibpulse::sim
