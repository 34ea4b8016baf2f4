#include "ibpulse/converters/if_index.h"

#include <algorithm>

namespace ibpulse::converters {

void IfIndexTable::assign(const collector::Topology& topology) {
  by_topology_port_.assign(topology.ports.size(), 0);
  for (size_t i = 0; i < topology.ports.size(); ++i) {
    // Switch port 0 (read only when poll.switch-port0 asks) is a management port, never an
    // interface: no number.
    if (topology.ports[i].key.port == 0) continue;
    const auto [it, added] = by_key_.try_emplace(topology.ports[i].key, 0);
    if (added) {
      // 2^31 - 1 distinct ports would be a fabric far beyond InfiniBand's LID space: a port
      // past it keeps 0 (not numbered) rather than a number already given to another port.
      if (highest_ < kMaxIfIndex) it->second = ++highest_;
    }
    by_topology_port_[i] = it->second;
  }
}

uint32_t IfIndexTable::find(collector::PortKey key) const {
  const auto it = by_key_.find(key);
  return it == by_key_.end() ? 0 : it->second;
}

size_t IfIndexTable::restore(std::vector<Entry> entries) {
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.if_index < b.if_index; });
  size_t dropped = 0;
  uint32_t previous = 0;
  for (const Entry& e : entries) {
    const bool number_taken = e.if_index == previous;
    previous = e.if_index;
    if (e.if_index == 0 || e.if_index > kMaxIfIndex || number_taken ||
        !by_key_.try_emplace(e.key, e.if_index).second) {
      ++dropped;
      continue;
    }
    highest_ = std::max(highest_, e.if_index);
  }
  return dropped;
}

std::vector<IfIndexTable::Entry> IfIndexTable::entries() const {
  std::vector<Entry> out;
  out.reserve(by_key_.size());
  for (const auto& [key, n] : by_key_)
    out.push_back(Entry{key, n});
  std::sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) { return a.key < b.key; });
  return out;
}

}  // namespace ibpulse::converters
