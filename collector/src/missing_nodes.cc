#include "ibpulse/collector/missing_nodes.h"

#include <algorithm>
#include <optional>

namespace ibpulse::collector {
namespace {

template <typename T, typename Less>
void merge_sorted(std::vector<T>& into, std::vector<T> more, Less less) {
  if (more.empty()) return;
  const auto middle = static_cast<std::ptrdiff_t>(into.size());
  into.insert(into.end(), std::make_move_iterator(more.begin()),
              std::make_move_iterator(more.end()));
  std::inplace_merge(into.begin(), into.begin() + middle, into.end(), less);
}

// A node found without its NodeDescription (that SMP was lost; libibnetdisc leaves it empty)
// keeps the one an earlier discovery read: its name, and every ifName and label made of it,
// would otherwise flap to the GUID and back with the link's losses.
void keep_descriptions(Topology& fresh, const Topology& previous) {
  for (Node& n : fresh.nodes) {
    if (!n.description.empty()) continue;
    const Node* before = previous.find_node(n.guid);
    if (before == nullptr || before->description.empty()) continue;
    n.description = before->description;
    if (n.name.empty()) n.name = before->name;
  }
}

// A port's PortInfo from an earlier discovery, on a port this one found without it.
void keep_port_info(Port& p, const Port& before) {
  p.link = before.link;
  if (p.port_guid == 0) p.port_guid = before.port_guid;
  if (!p.remote) p.remote = before.remote;
  if (p.lid != 0) return;  // a switch port: its LID is port 0's, which was read
  p.lid = before.lid;
  p.lmc = before.lmc;
  p.capability_mask = before.capability_mask;
  p.capability_mask2 = before.capability_mask2;
  p.subnet_prefix = before.subnet_prefix;
}

// Linked ports whose PortInfo this discovery did not read (state 0: every port libibnetdisc
// reads has a state, Down at least) keep the one `previous` read, so they stay polled by their
// last LIDs (stale if unanswered). A port whose peer this discovery read Down has no link to
// keep: a dual-port HCA's second port goes unreached when its link goes down.
void keep_port_infos(Topology& fresh, const Topology& previous, MissingNodes::Outcome& out) {
  for (Port& p : fresh.ports) {
    if (p.link.state != 0) continue;
    const Port* before = previous.find_port(p.key);
    const std::optional<PortKey> link = p.remote ? p.remote
                                        : before ? before->remote
                                                 : std::nullopt;
    if (!link) continue;
    const Port* peer = fresh.find_port_or_peer(*link);
    if (peer != nullptr && peer->down()) continue;
    if (before == nullptr || before->link.state == 0 || before->lid == 0) {
      if (p.remote) out.port_info_unknown.push_back(p.key);
      continue;
    }
    keep_port_info(p, *before);
    out.port_info_kept.push_back(p.key);
  }
  // A CA's LID is its first linked port's, a switch's its port 0's: lost with that PortInfo.
  for (Node& n : fresh.nodes) {
    const Node* before = n.lid == 0 ? previous.find_node(n.guid) : nullptr;
    if (before == nullptr) continue;
    const bool kept = std::any_of(out.port_info_kept.begin(), out.port_info_kept.end(),
                                  [&](PortKey k) { return k.node_guid == n.guid; });
    if (kept) n.lid = before->lid;
  }
}

// Every link of the node (from `its_ports` on, as `previous` had them) ends at a port this
// discovery found Down: the node was cut off, not missed through lost SMPs (a Down port
// passes none), so there is nothing to keep polling. A peer not found is no such evidence.
bool cut_off(uint64_t guid, std::vector<Port>::const_iterator its_ports, const Topology& previous,
             const Topology& fresh) {
  bool linked = false;
  for (auto p = its_ports; p != previous.ports.end() && p->key.node_guid == guid; ++p) {
    if (!p->remote) continue;
    const Port* peer = fresh.find_port(*p->remote);
    if (peer == nullptr || !peer->down()) return false;
    linked = true;
  }
  return linked;
}

}  // namespace

MissingNodes::Outcome MissingNodes::carry_over(Topology& fresh, const Topology& previous,
                                               Clock::time_point now) {
  Outcome out;
  std::vector<Node> nodes;
  for (const Node& n : previous.nodes) {
    if (fresh.find_node(n.guid) != nullptr) continue;
    // A node with none of its ports in the previous topology (another shard's, or skipped) is
    // not this poller's to keep.
    const auto first =
        std::lower_bound(previous.ports.begin(), previous.ports.end(), PortKey{n.guid, 0},
                         [](const Port& p, PortKey k) { return p.key < k; });
    if (first == previous.ports.end() || first->key.node_guid != n.guid) continue;
    if (cut_off(n.guid, first, previous, fresh)) {
      out.cut_off.push_back(n.guid);
      misses.erase(n.guid);
      continue;
    }
    Misses& missed = misses.try_emplace(n.guid, Misses{0, now}).first->second;
    ++missed.count;
    if (missed.count >= limit && now - missed.first >= min_span) {
      out.gone.push_back(n.guid);
      misses.erase(n.guid);
      continue;
    }
    out.kept.push_back(n.guid);
    nodes.push_back(n);
  }
  // Found again: its count starts over.
  for (auto it = misses.begin(); it != misses.end();) {
    it = fresh.find_node(it->first) != nullptr ? misses.erase(it) : std::next(it);
  }
  keep_descriptions(fresh, previous);
  keep_port_infos(fresh, previous, out);
  std::vector<Port> ports;
  for (const Port& p : previous.ports) {
    if (std::binary_search(out.kept.begin(), out.kept.end(), p.key.node_guid)) ports.push_back(p);
  }
  // The peers' ends of their links: discovery found no node there, so it left them without a
  // peer, and they would drop out of the sweeps with it.
  for (Port& p : fresh.ports) {
    if (p.remote) continue;
    const Port* before = previous.find_port(p.key);
    if (before != nullptr && before->remote &&
        std::binary_search(out.kept.begin(), out.kept.end(), before->remote->node_guid)) {
      p.remote = before->remote;
    }
  }
  merge_sorted(fresh.nodes, std::move(nodes),
               [](const Node& a, const Node& b) { return a.guid < b.guid; });
  merge_sorted(fresh.ports, std::move(ports),
               [](const Port& a, const Port& b) { return a.key < b.key; });
  return out;
}

}  // namespace ibpulse::collector
