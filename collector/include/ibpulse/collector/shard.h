#pragma once
// Which collector polls which node when a fabric is split over several collector hosts
// ("shards"): rendezvous (highest random weight) hashing of node GUIDs. Every shard computes
// the same answer from the GUID alone, with no coordination, and going from N to N+1 shards
// moves only the nodes the new shard wins (about 1/(N+1) of them), none between old shards.
//
// The weight of shard k (1-based) for a node is mix64(node_guid + k * 0x9E3779B97F4A7C15)
// (wrapping 64-bit arithmetic), where mix64 is SplitMix64's finaliser:
//   z ^= z >> 30; z *= 0xBF58476D1CE4E5B9; z ^= z >> 27; z *= 0x94D049BB133111EB; z ^= z >> 31.
// A node's owners are the `replicas` shards of highest weight, ties to the lower index.
// docs/scale-out.md repeats this so other tools can compute the same owners.
//
// Thread safety: value types and pure functions.

#include <cstdint>
#include <string>
#include <vector>

#include "ibpulse/base/result.h"
#include "ibpulse/collector/topology.h"

namespace ibpulse::collector {

struct ShardSpec {
  unsigned index = 1;     // this collector, 1..count
  unsigned count = 1;     // collectors sharing the fabric
  unsigned replicas = 1;  // collectors polling each node, 1..count

  bool sharded() const { return count > 1; }
  // Whether this collector is one of the node's owners.
  bool owns(uint64_t node_guid) const;
};

// An error naming the key when index, count or replicas are out of range.
Status validate(const ShardSpec& spec);

// Shard k's weight for a node.
uint64_t shard_weight(uint64_t node_guid, unsigned shard);

// The node's owners, highest weight first: `replicas` indexes in 1..count.
std::vector<unsigned> shard_owners(uint64_t node_guid, unsigned count, unsigned replicas = 1);

// Keeps in `topology.ports` the ports of the nodes `spec` owns and moves the other nodes'
// ports that are linked to them into `topology.peer_ports`; the rest are dropped. Returns the
// number of nodes owned.
size_t keep_shard_ports(Topology& topology, const ShardSpec& spec);

}  // namespace ibpulse::collector
