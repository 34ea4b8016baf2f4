#include "ibpulse/sim/topology.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace ibpulse::sim {
namespace {

// ibsim's defaults (ibsim -h): its tables never shrink below these.
constexpr IbsimCapacity kIbsimDefaults{2048, 256, 13312, 30720};
constexpr unsigned kMaxNodePorts = 254;  // net-file header allows 1-255; fat trees need even

size_t add_node(Topology& t, NodeType type, std::string id, unsigned ports) {
  t.nodes.push_back(TopoNode{type, std::move(id), ports});
  return t.nodes.size() - 1;
}

// Hands out each switch's ports in order.
class PortAllocator {
 public:
  explicit PortAllocator(size_t nodes) : next_(nodes, 1) {}
  unsigned take(size_t node) { return next_[node]++; }

 private:
  std::vector<unsigned> next_;
};

void connect(Topology& t, PortAllocator& ports, size_t a, size_t b) {
  t.links.push_back(TopoLink{{a, ports.take(a)}, {b, ports.take(b)}});
}

// Spreads `uplinks_per_lower` uplinks of every lower switch over `upper` switches round-robin
// over the global uplink index, so each upper switch gets at most ceil(total / upper) links and
// every lower switch reaches min(uplinks, upper) distinct upper switches.
void connect_levels(Topology& t, PortAllocator& ports, const std::vector<size_t>& lower,
                    const std::vector<size_t>& upper, unsigned uplinks_per_lower,
                    size_t first_global = 0) {
  size_t g = first_global;
  for (size_t l : lower) {
    for (unsigned k = 0; k < uplinks_per_lower; ++k, ++g)
      connect(t, ports, l, upper[g % upper.size()]);
  }
}

std::vector<size_t> add_switches(Topology& t, std::string_view prefix, size_t count,
                                 unsigned radix) {
  std::vector<size_t> ids;
  for (size_t i = 1; i <= count; ++i) {
    ids.push_back(add_node(t, NodeType::kSwitch, fmt::format("{}{}", prefix, i), radix));
  }
  return ids;
}

void attach_hosts(Topology& t, PortAllocator& ports, const std::vector<size_t>& leaves,
                  size_t hosts, unsigned per_leaf) {
  for (size_t h = 0; h < hosts; ++h) {
    const size_t hca = add_node(t, NodeType::kHca, fmt::format("Hca{}", h + 1), 1);
    t.links.push_back(TopoLink{{leaves[h / per_leaf], ports.take(leaves[h / per_leaf])}, {hca, 1}});
  }
}

size_t ceil_div(size_t a, size_t b) {
  return (a + b - 1) / b;
}

Topology two_level(size_t hosts, unsigned radix) {
  const unsigned half = radix / 2;
  const size_t leaves = ceil_div(hosts, half);
  const size_t spines = ceil_div(leaves, 2);
  Topology t;
  const auto leaf = add_switches(t, "Leaf", leaves, radix);
  const auto spine = add_switches(t, "Spine", spines, radix);
  PortAllocator ports(leaves + spines + hosts);
  connect_levels(t, ports, leaf, spine, half);
  attach_hosts(t, ports, leaf, hosts, half);
  return t;
}

Topology three_level(size_t hosts, unsigned radix) {
  const unsigned half = radix / 2;
  const size_t leaves = ceil_div(hosts, half);
  const size_t pods = ceil_div(leaves, half);
  const size_t aggs = pods * half;
  const size_t cores = ceil_div(aggs * half, radix);
  Topology t;
  const auto leaf = add_switches(t, "Leaf", leaves, radix);
  const auto agg = add_switches(t, "Agg", aggs, radix);
  const auto core = add_switches(t, "Core", cores, radix);
  PortAllocator ports(leaves + aggs + cores + hosts);
  for (size_t p = 0; p < pods; ++p) {
    const auto first_leaf = leaf.begin() + static_cast<std::ptrdiff_t>(p * half);
    const auto last_leaf =
        leaf.begin() + static_cast<std::ptrdiff_t>(std::min(leaves, (p + 1) * half));
    const auto first_agg = agg.begin() + static_cast<std::ptrdiff_t>(p * half);
    connect_levels(t, ports, {first_leaf, last_leaf}, {first_agg, first_agg + half}, half);
  }
  connect_levels(t, ports, agg, core, half);
  attach_hosts(t, ports, leaf, hosts, half);
  return t;
}

// `rails` copies of `one` with node ids prefixed "R<k>-": disconnected parts (one subnet per
// rail, with HCAs of their own per rail), with distinct GUIDs as ibsim numbers every node.
Topology replicate_rails(const Topology& one, unsigned rails) {
  if (rails == 1) return one;
  Topology t;
  for (unsigned r = 1; r <= rails; ++r) {
    const size_t offset = t.nodes.size();
    for (const auto& n : one.nodes)
      t.nodes.push_back(TopoNode{n.type, fmt::format("R{}-{}", r, n.id), n.ports});
    for (const auto& l : one.links) {
      t.links.push_back(TopoLink{{l.a.node + offset, l.a.port}, {l.b.node + offset, l.b.port}});
    }
  }
  return t;
}

}  // namespace

size_t Topology::switch_count() const {
  return static_cast<size_t>(std::count_if(
      nodes.begin(), nodes.end(), [](const TopoNode& n) { return n.type == NodeType::kSwitch; }));
}

size_t Topology::hca_count() const {
  return nodes.size() - switch_count();
}

size_t Topology::physical_port_count() const {
  size_t ports = 0;
  for (const auto& n : nodes)
    ports += n.ports;
  return ports;
}

size_t Topology::lid_count() const {
  size_t lids = switch_count();
  for (const auto& l : links) {
    for (size_t node : {l.a.node, l.b.node}) {
      if (nodes[node].type == NodeType::kHca) ++lids;
    }
  }
  return lids;
}

std::string Topology::render() const {
  // Per node, its links sorted by local port, both directions listed as ibsim expects.
  std::vector<std::vector<std::pair<unsigned, Endpoint>>> by_node(nodes.size());
  for (const auto& l : links) {
    by_node[l.a.node].emplace_back(l.a.port, l.b);
    by_node[l.b.node].emplace_back(l.b.port, l.a);
  }
  std::string out = "# ibpulse simulated fabric (ibsim net file)\n";
  for (size_t i = 0; i < nodes.size(); ++i) {
    const auto& n = nodes[i];
    fmt::format_to(std::back_inserter(out), "\n{}\t{} \"{}\"\n",
                   n.type == NodeType::kSwitch ? "Switch" : "Hca", n.ports, n.id);
    auto& ports = by_node[i];
    std::sort(ports.begin(), ports.end(),
              [](const auto& x, const auto& y) { return x.first < y.first; });
    for (const auto& [port, remote] : ports) {
      fmt::format_to(std::back_inserter(out), "[{}]\t\"{}\"[{}]\n", port, nodes[remote.node].id,
                     remote.port);
    }
  }
  return out;
}

Topology default_topology() {
  Topology t;
  const size_t sw1 = add_node(t, NodeType::kSwitch, "Switch1", 8);
  const size_t sw2 = add_node(t, NodeType::kSwitch, "Switch2", 8);
  std::vector<size_t> hca;
  for (int i = 1; i <= 4; ++i)
    hca.push_back(add_node(t, NodeType::kHca, fmt::format("Hca{}", i), 2));
  t.links = {
      {{sw1, 1}, {hca[0], 1}}, {{sw1, 2}, {hca[2], 1}}, {{sw1, 3}, {sw2, 3}},
      {{sw1, 5}, {sw2, 5}},    {{sw2, 1}, {hca[1], 1}}, {{sw2, 2}, {hca[3], 1}},
  };
  return t;
}

Result<Topology> fat_tree(size_t hosts, unsigned radix, unsigned rails) {
  if (rails == 0) return Err("a fabric needs at least one rail");
  if (radix < 4 || radix > kMaxNodePorts || radix % 2 != 0) {
    return Err("radix {} is not supported: use an even number of switch ports from 4 to {}", radix,
               kMaxNodePorts);
  }
  if (hosts == 0) return Err("a fabric needs at least one host");
  const size_t half = radix / 2;
  const size_t two_level_max = radix * half;
  const size_t three_level_max = two_level_max * half;
  if (hosts > three_level_max) {
    return Err("{} hosts do not fit a three-level fat tree of {}-port switches (at most {})", hosts,
               radix, three_level_max);
  }
  Topology t = replicate_rails(
      hosts <= two_level_max ? two_level(hosts, radix) : three_level(hosts, radix), rails);
  if (auto status = check_capacity(t); !status) return Error{status.error()};
  return t;
}

Status check_capacity(const Topology& topology) {
  const size_t lids = topology.lid_count();
  if (lids > kMaxUnicastLids) {
    return Err("the fabric needs {} LIDs but a subnet has at most {} unicast LIDs", lids,
               kMaxUnicastLids);
  }
  for (const auto& n : topology.nodes) {
    if (n.ports == 0 || n.ports > 255) {
      return Err("node \"{}\" has {} ports; ibsim allows 1 to 255", n.id, n.ports);
    }
  }
  return Ok{};
}

IbsimCapacity ibsim_capacity(const Topology& topology) {
  const auto round_up = [](size_t n, size_t step) { return ceil_div(n, step) * step; };
  size_t ports = 0;
  for (const auto& n : topology.nodes)
    ports += n.ports + (n.type == NodeType::kSwitch ? 1 : 0);
  IbsimCapacity c;
  c.nodes = std::max(kIbsimDefaults.nodes, round_up(topology.nodes.size() + 1, 1024));
  c.switches = std::max(kIbsimDefaults.switches, round_up(topology.switch_count() + 1, 256));
  c.ports = std::max(kIbsimDefaults.ports, round_up(ports + 1, 1024));
  c.linear_cap = std::min<size_t>(
      kMaxUnicastLids + 1,
      std::max(kIbsimDefaults.linear_cap, round_up(topology.lid_count() + 2, 1024)));
  return c;
}

}  // namespace ibpulse::sim
