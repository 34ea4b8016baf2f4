// merge_subnets(): several subnets' topologies as the one the converter and exporters read.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "ibpulse/collector/subnets.h"

namespace ibpulse::collector {
namespace {

bool by_key(const Port& a, const Port& b) {
  return a.key < b.key;
}

// Where a port GUID was first seen. Every port of a switch reports the switch's one port GUID,
// so a GUID is a duplicate only when another subnet reports it.
struct GuidOwner {
  uint8_t subnet = 0;
  PortKey key;
};

}  // namespace

Topology merge_subnets(const std::vector<const SubnetPart*>& parts,
                       const std::vector<Topology::Subnet>& names, SubnetDuplicates& duplicates) {
  Topology out;
  out.subnets = names;
  // The first subnet's prefix names the whole (state files are saved under it); until that
  // subnet has been discovered, the first discovered one's.
  if (!names.empty() && names.front().prefix != 0) {
    out.subnet_prefix = names.front().prefix;
  } else if (!parts.empty()) {
    out.subnet_prefix = parts.front()->topology.subnet_prefix;
  }
  std::unordered_map<PortKey, uint8_t, PortKeyHash> key_owner;
  std::unordered_map<uint64_t, GuidOwner> guid_owner;
  std::unordered_set<uint64_t> nodes_taken;
  std::unordered_set<PortKey, PortKeyHash> peers_taken;
  for (const SubnetPart* part : parts) {
    const Topology& t = part->topology;
    for (const Node& n : t.nodes) {
      if (nodes_taken.insert(n.guid).second) out.nodes.push_back(n);
    }
    for (const Port& p : t.ports) {
      const auto [owner, fresh] = key_owner.emplace(p.key, part->subnet);
      if (!fresh) {
        if (owner->second != part->subnet)
          duplicates.found.push_back({p.key, p.port_guid, owner->second, part->subnet, true});
        continue;
      }
      if (p.port_guid != 0) {
        const auto [first, new_guid] =
            guid_owner.emplace(p.port_guid, GuidOwner{part->subnet, p.key});
        if (!new_guid && first->second.subnet != part->subnet)
          duplicates.found.push_back(
              {p.key, p.port_guid, first->second.subnet, part->subnet, false});
      }
      out.ports.push_back(p);
    }
    for (const Port& p : t.peer_ports) {
      if (peers_taken.insert(p.key).second) out.peer_ports.push_back(p);
    }
  }
  std::sort(out.nodes.begin(), out.nodes.end(),
            [](const Node& a, const Node& b) { return a.guid < b.guid; });
  std::sort(out.ports.begin(), out.ports.end(), by_key);
  // A peer of one subnet's shard may be a polled port of another: it is not a peer then.
  std::erase_if(out.peer_ports, [&](const Port& p) { return key_owner.contains(p.key); });
  std::sort(out.peer_ports.begin(), out.peer_ports.end(), by_key);
  return out;
}

}  // namespace ibpulse::collector
