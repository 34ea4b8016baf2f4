#include "ibpulse/collector/local_ports.h"

#include <endian.h>
#include <infiniband/umad.h>

#include <algorithm>
#include <cstring>

namespace ibpulse::collector {
namespace {

std::string name(const LocalPort& p) {
  return p.ca + ":" + std::to_string(p.port);
}

constexpr unsigned kActive = 4;  // PortState

}  // namespace

Result<std::vector<LocalPortInfo>> list_local_ports() {
  if (umad_init() < 0) return Err("cannot initialise libibumad");
  char names[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN];
  const int count = umad_get_cas_names(names, UMAD_MAX_DEVICES);
  if (count < 0) return Err("cannot list the local HCAs (libibumad)");
  std::vector<LocalPortInfo> out;
  for (int i = 0; i < count; ++i) {
    umad_ca_t ca{};
    if (umad_get_ca(names[i], &ca) < 0) continue;
    // A switch's only local port is its management port 0; an HCA's ports are 1..numports.
    for (int p = 0; p <= ca.numports && p < UMAD_CA_MAX_PORTS; ++p) {
      const umad_port_t* port = ca.ports[p];
      if (port == nullptr) continue;
      LocalPortInfo info;
      info.port = LocalPort{ca.ca_name, port->portnum};
      info.active = port->state == kActive;
      // umad2sim leaves the link layer empty: only "Ethernet" rules a port out.
      info.infiniband = std::strcmp(port->link_layer, "Ethernet") != 0;
      info.port_guid = be64toh(port->port_guid);
      out.push_back(std::move(info));
    }
    umad_release_ca(&ca);
  }
  return out;
}

Result<LocalPort> local_port_in_use(const std::string& ca, int port) {
  if (umad_init() < 0) return Err("cannot initialise libibumad");
  umad_port_t found{};
  if (umad_get_port(ca.empty() ? nullptr : ca.c_str(), port, &found) < 0)
    return Err("no local port {}:{}", ca.empty() ? "(default)" : ca, port);
  LocalPort out{found.ca_name, found.portnum};
  umad_release_port(&found);
  return out;
}

Result<std::vector<LocalPortInfo>> resolve_local_ports(const std::vector<LocalPort>& wanted,
                                                       const std::vector<LocalPortInfo>& present) {
  std::vector<LocalPortInfo> out;
  if (wanted.empty()) {
    for (const LocalPortInfo& p : present)
      if (p.active && p.infiniband) out.push_back(p);
    if (out.empty()) return Err("fabric.ports all: this host has no active InfiniBand port");
    if (out.size() > LocalPortSplit::kMaxPorts) out.resize(LocalPortSplit::kMaxPorts);
    return out;
  }
  for (const LocalPort& w : wanted) {
    const auto it = std::find_if(present.begin(), present.end(),
                                 [&](const LocalPortInfo& p) { return p.port == w; });
    if (it == present.end()) {
      std::string known;
      for (const LocalPortInfo& p : present) {
        if (!known.empty()) known += ',';
        known += name(p.port);
      }
      return Err("fabric.ports: no local port {} (this host has: {})", name(w),
                 known.empty() ? "none" : known);
    }
    if (!it->infiniband) return Err("fabric.ports: local port {} is not InfiniBand", name(w));
    if (!it->active) return Err("fabric.ports: local port {} is not active", name(w));
    out.push_back(*it);
  }
  return out;
}

bool reaches(const Topology& topology, uint64_t port_guid) {
  const auto same = [port_guid](const Port& p) { return p.port_guid == port_guid; };
  return std::any_of(topology.ports.begin(), topology.ports.end(), same) ||
         std::any_of(topology.peer_ports.begin(), topology.peer_ports.end(), same);
}

Result<std::vector<std::vector<LocalPortInfo>>> group_by_subnet(
    const std::vector<LocalPortInfo>& ports, const DiscoverThrough& discover) {
  std::vector<std::vector<LocalPortInfo>> groups;
  std::vector<LocalPortInfo> left = ports;
  while (!left.empty()) {
    const LocalPortInfo first = left.front();
    auto topology = discover(first.port);
    if (!topology)
      return Err("discovery through {} failed: {}", name(first.port), topology.error());
    std::vector<LocalPortInfo> group{first};
    std::vector<LocalPortInfo> elsewhere;
    for (size_t i = 1; i < left.size(); ++i)
      (reaches(*topology, left[i].port_guid) ? group : elsewhere).push_back(left[i]);
    groups.push_back(std::move(group));
    left = std::move(elsewhere);
  }
  return groups;
}

}  // namespace ibpulse::collector
