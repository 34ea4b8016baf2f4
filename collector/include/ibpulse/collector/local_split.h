#pragma once
// Several local HCA ports on one subnet share its PMA reads: one poller per local port, each
// node polled by exactly one of them. The owner of a node is chosen by the same rendezvous
// hashing as shards (shard.h), weighted over the local ports that are up (local port i has
// weight shard_weight(node_guid, i + 1)), so a local port that goes down hands exactly its own
// nodes to the others and takes them back, and no others, when it returns. With every local
// port down, each keeps the nodes it would own with all of them up (nothing is gained by
// moving nodes to a port that cannot reach them either).
//
// Thread safety: LocalPortSplit is shared by the pollers of one daemon: every member may be
// called from any thread (atomics). The functions are pure.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ibpulse/base/result.h"
#include "ibpulse/collector/topology.h"

namespace ibpulse::collector {

// A local port: `ca` as libibumad names it (mlx5_0) and its port number (1-based; 0 on a
// switch: its management port).
struct LocalPort {
  std::string ca;
  int port = 0;
  bool operator==(const LocalPort&) const = default;
};

// "mlx5_0:1,mlx5_1:1" (commas or list items); "all" gives an empty list (every active port).
Result<std::vector<LocalPort>> parse_local_ports(const std::vector<std::string>& items);

class LocalPortSplit {
 public:
  static constexpr size_t kMaxPorts = 8;  // umad: at most 8 fds per process

  explicit LocalPortSplit(size_t count);  // every port up

  size_t count() const { return count_; }
  bool up(size_t index) const { return (up_mask_.load() >> index & 1) != 0; }
  // Marks local port `index` up or down; returns whether that changed anything. Going down
  // counts a failover.
  bool set_up(size_t index, bool up);
  // Changes whenever the set of up ports does: pollers compare it to refilter their nodes.
  uint64_t generation() const { return generation_.load(); }
  uint64_t failovers() const { return failovers_.load(); }
  // The lowest index of a port that is up (0 when none is).
  size_t leader() const;

  // The local port (0-based index) that polls the node.
  size_t owner(uint64_t node_guid) const;

 private:
  size_t count_;
  std::atomic<uint32_t> up_mask_;
  std::atomic<uint64_t> generation_{1};
  std::atomic<uint64_t> failovers_{0};
};

// Keeps in `topology.ports` the ports of the nodes local port `index` polls; returns how many
// nodes that is. Nodes and peer ports stay: they name the peers of the kept ports.
size_t keep_local_port_nodes(Topology& topology, const LocalPortSplit& split, size_t index);

}  // namespace ibpulse::collector
