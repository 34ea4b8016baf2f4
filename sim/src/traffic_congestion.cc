#include "traffic_congestion.h"

#include <infiniband/mad.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <map>
#include <optional>

#include "ibpulse/base/number.h"

namespace ibpulse::sim {
namespace {

constexpr std::array kVlXmitWaitFields = {
    PmaField{"PortVLXmitWaitCounters0", IB_PC_PORT_VL_XMIT_WAIT0_F, 16},
};
constexpr PmaAttribute kVlXmitWait{"PortVLXmitWaitCounters", IB_GSI_PORT_PORT_VL_XMIT_WAIT_COUNTERS,
                                   kVlXmitWaitFields};

struct Scenario {
  std::string_view what;  // for messages
  const PortSpec& where;
  double root_utilization;
};

std::optional<Scenario> scenario_of(const TrafficOptions& o) {
  if (o.hot_spot) return Scenario{"hot spot", *o.hot_spot, 1.0};
  if (o.stuck) return Scenario{"stuck receiver", *o.stuck, 0.0};
  return std::nullopt;
}

// The driven ports as a graph: by node and port number, and each one's link partner.
class PortGraph {
 public:
  explicit PortGraph(std::span<const DumpPort* const> ports) : ports_(ports) {
    for (size_t i = 0; i < ports.size(); ++i) {
      index_.emplace(Key{ports[i]->node, ports[i]->port}, i);
      by_node_[ports[i]->node].push_back(i);
    }
    // Ascending port numbers: the walk takes the first closer port, the documented tie-break.
    for (auto& [node, list] : by_node_) {
      std::sort(list.begin(), list.end(),
                [&](size_t a, size_t b) { return ports[a]->port < ports[b]->port; });
    }
  }

  const DumpPort& port(size_t i) const { return *ports_[i]; }
  std::string_view node(size_t i) const { return ports_[i]->node; }
  size_t size() const { return ports_.size(); }

  std::optional<size_t> peer(size_t i) const {
    auto it = index_.find(Key{ports_[i]->remote_node, ports_[i]->remote_port});
    return it == index_.end() ? std::nullopt : std::optional<size_t>(it->second);
  }

  std::span<const size_t> ports_of(std::string_view node) const {
    auto it = by_node_.find(node);
    return it == by_node_.end() ? std::span<const size_t>() : std::span<const size_t>(it->second);
  }

 private:
  using Key = std::pair<std::string_view, unsigned>;
  std::span<const DumpPort* const> ports_;
  std::map<Key, size_t> index_;
  std::map<std::string_view, std::vector<size_t>, std::less<>> by_node_;
};

// The ports of the node `spec` names, by node id or else by 0x node or port GUID, ascending.
std::vector<size_t> ports_named(const PortGraph& g, const PortSpec& spec) {
  const auto by_name = g.ports_of(spec.node);
  if (!by_name.empty()) return {by_name.begin(), by_name.end()};
  auto guid = parse_unsigned(spec.node, 1);
  if (!guid) return {};
  for (size_t i = 0; i < g.size(); ++i) {
    if (g.port(i).port_guid == *guid && g.port(i).type == NodeType::kHca) return {i};
  }
  for (size_t i = 0; i < g.size(); ++i) {
    if (g.port(i).node_guid == *guid)
      return {g.ports_of(g.node(i)).begin(), g.ports_of(g.node(i)).end()};
  }
  return {};
}

// The HCA port a scenario targets: the spec's port, or the node's lowest active linked one.
Result<size_t> find_target(const PortGraph& g, const Scenario& s) {
  auto candidates = ports_named(g, s.where);
  if (s.where.port != 0) {
    std::erase_if(candidates, [&](size_t i) { return g.port(i).port != s.where.port; });
  }
  if (candidates.empty()) {
    return Err(
        "{} {}: no active linked port of a node of that name or GUID among the ports "
        "driven",
        s.what, console_port(s.where));
  }
  const DumpPort& target = g.port(candidates.front());
  if (target.type != NodeType::kHca) {
    return Err("{} {}: {} is a switch; name an HCA (the model congests the port feeding it)",
               s.what, console_port(s.where), target.node);
  }
  return candidates.front();
}

// Hops from each switch to `root_node` over switch-to-switch links: an HCA never forwards.
// Empty when the root is no switch (an HCA linked back to back with the target).
std::map<std::string_view, unsigned> hops_to(const PortGraph& g, size_t root) {
  std::map<std::string_view, unsigned> hops;
  if (g.port(root).type != NodeType::kSwitch) return hops;
  hops.emplace(g.node(root), 0);
  std::deque<std::string_view> queue{g.node(root)};
  while (!queue.empty()) {
    const std::string_view at = queue.front();
    queue.pop_front();
    for (size_t i : g.ports_of(at)) {
      auto peer = g.peer(i);
      if (!peer || g.port(*peer).type != NodeType::kSwitch || hops.contains(g.node(*peer)))
        continue;
      hops.emplace(g.node(*peer), hops.at(at) + 1);
      queue.push_back(g.node(*peer));
    }
  }
  return hops;
}

// The egress ports from HCA port `sender` up to the root's switch, the sender's own first;
// empty when the sender cannot reach it.
std::vector<size_t> path_to_root(const PortGraph& g,
                                 const std::map<std::string_view, unsigned>& hops, size_t sender,
                                 size_t root) {
  const auto closer = [&](size_t i, unsigned than) {
    auto peer = g.peer(i);
    if (!peer) return false;
    auto h = hops.find(g.node(*peer));
    return h != hops.end() && h->second + 1 == than;
  };
  auto first = g.peer(sender);
  if (!first || !hops.contains(g.node(*first))) return {};
  std::vector<size_t> path{sender};
  for (std::string_view at = g.node(*first); at != g.node(root);) {
    const unsigned distance = hops.at(at);
    const auto ports = g.ports_of(at);
    const auto step =
        std::find_if(ports.begin(), ports.end(), [&](size_t i) { return closer(i, distance); });
    if (step == ports.end()) return {};  // cannot happen: a breadth-first distance has a parent
    path.push_back(*step);
    at = g.node(*g.peer(*step));
  }
  return path;
}

bool within_0_1(double v) {
  return v >= 0 && v <= 1;
}

}  // namespace

std::string_view role_name(CongestionRole role) {
  switch (role) {
    case CongestionRole::kRoot:
      return "root";
    case CongestionRole::kVictim:
      return "victim";
    case CongestionRole::kNone:
      break;
  }
  return "";
}

Status check_congestion_options(const TrafficOptions& o) {
  if (o.hot_spot && o.stuck) {
    return Err("one congestion scenario at a time: a hot spot or a stuck receiver, not both");
  }
  if (!within_0_1(o.wait_ratio))
    return Err("wait ratio must be between 0 and 1, got {}", o.wait_ratio);
  if (!within_0_1(o.victim_utilization)) {
    return Err("victim utilization must be between 0 and 1, got {}", o.victim_utilization);
  }
  if (!std::isfinite(o.xmit_wait_tick_ns) || o.xmit_wait_tick_ns <= 0) {
    return Err("the PortXmitWait tick must be a positive number of nanoseconds, got {}",
               o.xmit_wait_tick_ns);
  }
  return Ok{};
}

Result<std::vector<CongestedPort>> plan_congestion(std::span<const DumpPort* const> ports,
                                                   const TrafficOptions& options) {
  std::vector<CongestedPort> plan(ports.size());
  const auto scenario = scenario_of(options);
  if (!scenario) return plan;
  const PortGraph g(ports);
  auto target = find_target(g, *scenario);
  if (!target) return Error{target.error()};
  const auto root = g.peer(*target);
  if (!root) {
    return Err("{} {}: its link partner {}[{}] is not among the ports driven", scenario->what,
               console_port(scenario->where), g.port(*target).remote_node,
               g.port(*target).remote_port);
  }
  const auto hops = hops_to(g, *root);
  for (size_t i = 0; i < ports.size(); ++i) {
    if (ports[i]->type != NodeType::kHca || ports[i]->node == g.node(*target)) continue;
    for (size_t egress : path_to_root(g, hops, i, *root)) {
      plan[egress] = {CongestionRole::kVictim, options.victim_utilization};
    }
  }
  plan[*root] = {CongestionRole::kRoot, scenario->root_utilization};
  return plan;
}

double xmit_wait_per_second(const TrafficOptions& options) {
  return options.wait_ratio * 1e9 / options.xmit_wait_tick_ns;
}

const PmaAttribute& vl_xmit_wait_attribute() {
  return kVlXmitWait;
}

}  // namespace ibpulse::sim
