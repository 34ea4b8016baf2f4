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

Status check_same_subnet(const Topology& from_first, const std::vector<LocalPortInfo>& ports) {
  for (size_t i = 1; i < ports.size(); ++i) {
    const uint64_t guid = ports[i].port_guid;
    const auto reaches = [guid](const Port& p) { return p.port_guid == guid; };
    if (std::any_of(from_first.ports.begin(), from_first.ports.end(), reaches) ||
        std::any_of(from_first.peer_ports.begin(), from_first.peer_ports.end(), reaches))
      continue;
    return Err(
        "local ports {} and {} are on different subnets: run one daemon per subnet "
        "(fabric.ca/fabric.ca-port) until multi-subnet polling lands",
        name(ports[0].port), name(ports[i].port));
  }
  return Ok{};
}

}  // namespace ibpulse::collector
