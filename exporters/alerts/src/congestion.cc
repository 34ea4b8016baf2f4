#include "ibpulse/exporters/alerts/congestion.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ibpulse::exporters::alerts {
namespace {

using converters::FabricSnapshot;
constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

// One classification pass: ports are indexes into the snapshot's ports (sorted by key, so a
// node's ports are contiguous).
class Pass {
 public:
  Pass(const FabricSnapshot& s, const CongestionOptions& o) : s_(s), o_(o) {
    waiting_.assign(s.ports.size(), 0);
  }

  Congestion run() {
    Congestion out;
    out.roles.assign(s_.ports.size(), CongestionRole::kNone);
    mark_waiting(out.roles);
    // A victim whose peer has nowhere to pass its wait on is a stuck receiver's port: a root.
    for (const uint32_t v : victims_) {
      if (!has_waiting_egress(v)) {
        out.roles[v] = CongestionRole::kRoot;
        stuck_.push_back(v);
      }
    }
    std::sort(stuck_.begin(), stuck_.end());
    std::vector<uint32_t> root_ports;
    for (uint32_t i = 0; i < s_.ports.size(); ++i) {
      if (out.roles[i] == CongestionRole::kRoot) root_ports.push_back(i);
    }
    for (const uint32_t r : root_ports) {
      out.roots.push_back(
          {s_.ports[r].key, 0, std::binary_search(stuck_.begin(), stuck_.end(), r)});
    }
    std::vector<uint32_t> stamp(s_.ports.size(), kNone);
    for (const uint32_t v : victims_) {
      if (out.roles[v] != CongestionRole::kVictim) continue;
      CongestionVictim victim{s_.ports[v].key, {}};
      for (const uint32_t r : trace(v, out.roles, stamp)) {
        const auto at = std::lower_bound(root_ports.begin(), root_ports.end(), r);
        victim.roots.push_back(static_cast<uint32_t>(at - root_ports.begin()));
      }
      std::sort(victim.roots.begin(), victim.roots.end());
      for (const uint32_t r : victim.roots)
        ++out.roots[r].victims;
      out.victims.push_back(std::move(victim));
    }
    return out;
  }

 private:
  void mark_waiting(std::vector<CongestionRole>& roles) {
    for (uint32_t i = 0; i < s_.ports.size(); ++i) {
      const converters::PortSnapshot& p = s_.ports[i];
      if (!std::isfinite(p.xmit_wait_ratio) || p.xmit_wait_ratio < o_.wait_ratio) continue;
      waiting_[i] = 1;
      if (p.utilisation_out >= o_.root_utilization) {
        roles[i] = CongestionRole::kRoot;
      } else if (p.utilisation_out < o_.victim_utilization) {
        roles[i] = CongestionRole::kVictim;
        victims_.push_back(i);
      }
    }
  }

  // The snapshot index of port `i`'s peer; kNone without a link (or one not in the snapshot).
  uint32_t peer_of(uint32_t i) const {
    if (!s_.topology) return kNone;
    const collector::Port* tp = s_.topology->find_port(s_.ports[i].key);
    if (tp == nullptr || !tp->remote) return kNone;
    const auto it = std::lower_bound(
        s_.ports.begin(), s_.ports.end(), *tp->remote,
        [](const converters::PortSnapshot& p, collector::PortKey k) { return p.key < k; });
    return it != s_.ports.end() && it->key == *tp->remote
               ? static_cast<uint32_t>(it - s_.ports.begin())
               : kNone;
  }

  // Calls f(j) for each waiting port j of the node at the far end of port i's link, other than
  // the link's own far end.
  template <typename F>
  void for_waiting_downstream(uint32_t i, F&& f) const {
    const uint32_t peer = peer_of(i);
    if (peer == kNone) return;
    const uint64_t node = s_.ports[peer].key.node_guid;
    uint32_t j = peer;
    while (j > 0 && s_.ports[j - 1].key.node_guid == node)
      --j;
    for (; j < s_.ports.size() && s_.ports[j].key.node_guid == node; ++j) {
      if (j != peer && waiting_[j] != 0) f(j);
    }
  }

  bool has_waiting_egress(uint32_t i) const {
    bool any = false;
    for_waiting_downstream(i, [&](uint32_t) { any = true; });
    return any;
  }

  // The roots victim `v`'s waiting traces to: breadth first over waiting ports downstream, at
  // most max_depth links away, each port once.
  std::vector<uint32_t> trace(uint32_t v, const std::vector<CongestionRole>& roles,
                              std::vector<uint32_t>& stamp) const {
    std::vector<uint32_t> roots;
    std::vector<uint32_t> level = {v};
    stamp[v] = v;
    for (unsigned depth = 0; depth < o_.max_depth && !level.empty(); ++depth) {
      std::vector<uint32_t> next;
      for (const uint32_t at : level) {
        for_waiting_downstream(at, [&](uint32_t j) {
          if (stamp[j] == v) return;
          stamp[j] = v;
          if (roles[j] == CongestionRole::kRoot) {
            roots.push_back(j);
          } else {
            next.push_back(j);
          }
        });
      }
      level = std::move(next);
    }
    return roots;
  }

  const FabricSnapshot& s_;
  const CongestionOptions& o_;
  std::vector<uint8_t> waiting_;
  std::vector<uint32_t> victims_;  // ascending
  std::vector<uint32_t> stuck_;
};

}  // namespace

Congestion classify_congestion(const FabricSnapshot& snapshot, const CongestionOptions& options) {
  return Pass(snapshot, options).run();
}

}  // namespace ibpulse::exporters::alerts
