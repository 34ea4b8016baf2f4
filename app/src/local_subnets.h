#pragma once
// fabric.ports resolved against this host's ports and grouped by subnet: what the daemon's
// SubnetSet is built from.
//
// Thread safety: call on one thread at start (it runs discoveries).

#include <vector>

#include "daemon_config.h"
#include "ibpulse/base/result.h"
#include "ibpulse/collector/local_ports.h"
#include "ibpulse/collector/topology.h"

namespace ibpulse::cli {

struct LocalSubnets {
  // Each subnet's local ports, in the order fabric.ports gives; one empty group when
  // fabric.ports is not set (the one fabric.ca/fabric.ca-port port).
  std::vector<std::vector<collector::LocalPort>> ports;
  std::vector<collector::Topology::Subnet> names;  // per subnet: its first local port
  size_t port_count() const;
};

Result<LocalSubnets> choose_local_subnets(const DaemonConfig& config);

}  // namespace ibpulse::cli
