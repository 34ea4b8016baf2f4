#include "tick_asks.h"

namespace ibpulse::collector {

void TickAsks::plan(const Topology& topology, Clock::time_point now) {
  // Ports are in key order: a node's are together, so its first linked one stands for it.
  uint64_t last = 0;
  for (size_t i = 0; i < topology.ports.size(); ++i) {
    const Port& p = topology.ports[i];
    if (!p.remote || p.lid == 0 || p.key.node_guid == last) continue;
    last = p.key.node_guid;
    auto [it, fresh] = nodes_.try_emplace(p.key.node_guid);
    Node& n = it->second;
    if (!fresh && n.stage == Stage::kAsking) {
      n.ask = Ask{p.key, p.lid, i};  // still to ask: through a port of this topology
      continue;
    }
    if (!fresh) {
      if (n.stage != Stage::kUnanswered || now - n.given_up < kRetryAfter) continue;
      n = Node{};
    }
    n.ask = Ask{p.key, p.lid, i};
    queue_.push_back(p.key.node_guid);
  }
}

std::optional<TickAsks::Ask> TickAsks::next() {
  if (in_flight_ >= kMaxInFlight || queue_.empty()) return std::nullopt;
  Node& n = nodes_[queue_.front()];
  queue_.pop_front();
  ++in_flight_;
  ++n.asks;
  return n.ask;
}

void TickAsks::answered(uint64_t node_guid) {
  if (in_flight_ > 0) --in_flight_;
  nodes_[node_guid].stage = Stage::kAnswered;
}

void TickAsks::failed(uint64_t node_guid, bool refused, Clock::time_point now) {
  if (in_flight_ > 0) --in_flight_;
  Node& n = nodes_[node_guid];
  if (refused) {
    n.stage = Stage::kRefused;
  } else if (n.asks >= kMaxAsks) {
    n.stage = Stage::kUnanswered;
    n.given_up = now;
  } else {
    queue_.push_back(node_guid);
  }
}

}  // namespace ibpulse::collector
