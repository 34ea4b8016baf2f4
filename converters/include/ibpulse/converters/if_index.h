#pragma once
// Stable ifIndex numbers for fabric ports. IF-MIB managers key their history by ifIndex, so a
// port keeps its number for as long as the state file lives: across restarts (state_file.h),
// while it is gone from discovery and when it comes back. New ports get the next unused
// numbers, in key order; numbers are never reused.
//
// Thread safety: none; the converter thread owns the table.

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "ibpulse/collector/topology.h"

namespace ibpulse::converters {

class IfIndexTable {
 public:
  struct Entry {
    collector::PortKey key;
    uint32_t if_index = 0;
  };

  // Numbers every port of `topology` (new ones get fresh numbers) and remembers, per topology
  // port, its number: by_topology_port()[i] is the number of topology.ports[i].
  void assign(const collector::Topology& topology);
  std::span<const uint32_t> by_topology_port() const { return by_topology_port_; }

  uint32_t find(collector::PortKey key) const;  // 0: never numbered

  // Restores a saved table (before the first assign). Entries with a number out of range, or
  // a key or number already taken, are dropped (a damaged file must not make two ports share a
  // number); returns how many.
  size_t restore(std::vector<Entry> entries);

  std::vector<Entry> entries() const;  // sorted by key
  size_t size() const { return by_key_.size(); }

  // IF-MIB: ifIndex is 1..2147483647.
  static constexpr uint32_t kMaxIfIndex = 0x7FFFFFFF;

 private:
  std::unordered_map<collector::PortKey, uint32_t, collector::PortKeyHash> by_key_;
  std::vector<uint32_t> by_topology_port_;
  uint32_t highest_ = 0;
};

}  // namespace ibpulse::converters
