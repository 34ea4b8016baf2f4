#pragma once
// The local HCA ports this host has (libibumad), and which of them `fabric.ports` names.
//
// Thread safety: list_local_ports() reads sysfs (or umad2sim's model) and may run on any
// thread; the others are pure functions.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ibpulse/base/result.h"
#include "ibpulse/collector/local_split.h"
#include "ibpulse/collector/topology.h"

namespace ibpulse::collector {

struct LocalPortInfo {
  LocalPort port;
  bool active = false;     // PortState Active
  bool infiniband = true;  // link layer InfiniBand (not Ethernet: RoCE ports are not ours)
  uint64_t port_guid = 0;  // host order
};

Result<std::vector<LocalPortInfo>> list_local_ports();

// The local port libibumad uses for `ca` and `port` ("" and 0: the first active one), as the
// poller opening them would.
Result<LocalPort> local_port_in_use(const std::string& ca, int port);

// The ports `wanted` names among `present`, in the order named; `wanted` empty ("all"): every
// active InfiniBand port. An unknown or inactive port is an error naming it.
Result<std::vector<LocalPortInfo>> resolve_local_ports(const std::vector<LocalPort>& wanted,
                                                       const std::vector<LocalPortInfo>& present);

// Subnet prefixes are not unique (sites leave every rail at fe80::): two local ports are on the
// same subnet when discovery through the first reaches the other's port GUID (as a polled
// port or a shard's peer).
bool reaches(const Topology& topology, uint64_t port_guid);

// `ports` grouped by subnet, in the order given: the first port's subnet first, each group in
// the order its ports were given. `discover` runs once per group, through its first port; a
// failure is an error naming that port.
using DiscoverThrough = std::function<Result<Topology>(const LocalPort&)>;
Result<std::vector<std::vector<LocalPortInfo>>> group_by_subnet(
    const std::vector<LocalPortInfo>& ports, const DiscoverThrough& discover);

}  // namespace ibpulse::collector
