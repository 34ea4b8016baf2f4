#include "ibpulse/collector/shard.h"

#include <algorithm>

namespace ibpulse::collector {
namespace {

uint64_t mix64(uint64_t z) {
  z ^= z >> 30;
  z *= 0xBF58476D1CE4E5B9ull;
  z ^= z >> 27;
  z *= 0x94D049BB133111EBull;
  z ^= z >> 31;
  return z;
}

// Whether shard a outranks shard b for a node: the higher weight, the lower index on a tie.
bool outranks(uint64_t weight_a, unsigned a, uint64_t weight_b, unsigned b) {
  return weight_a != weight_b ? weight_a > weight_b : a < b;
}

}  // namespace

uint64_t shard_weight(uint64_t node_guid, unsigned shard) {
  return mix64(node_guid + uint64_t{shard} * 0x9E3779B97F4A7C15ull);
}

std::vector<unsigned> shard_owners(uint64_t node_guid, unsigned count, unsigned replicas) {
  struct Ranked {
    uint64_t weight;
    unsigned shard;
  };
  std::vector<Ranked> all;
  all.reserve(count);
  for (unsigned k = 1; k <= count; ++k)
    all.push_back({shard_weight(node_guid, k), k});
  const size_t keep = std::min<size_t>(replicas, all.size());
  std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(keep), all.end(),
                    [](const Ranked& a, const Ranked& b) {
                      return outranks(a.weight, a.shard, b.weight, b.shard);
                    });
  std::vector<unsigned> out;
  for (size_t i = 0; i < keep; ++i)
    out.push_back(all[i].shard);
  return out;
}

bool ShardSpec::owns(uint64_t node_guid) const {
  if (count <= 1) return true;
  // This shard is an owner when fewer than `replicas` shards outrank it: no list, no sort
  // (this runs for every node at every discovery).
  const uint64_t mine = shard_weight(node_guid, index);
  unsigned above = 0;
  for (unsigned k = 1; k <= count && above < replicas; ++k) {
    if (k != index && outranks(shard_weight(node_guid, k), k, mine, index)) ++above;
  }
  return above < replicas;
}

size_t keep_shard_ports(Topology& topology, const ShardSpec& spec) {
  if (!spec.sharded()) return topology.nodes.size();
  std::vector<uint64_t> owned;  // sorted: nodes are
  for (const Node& n : topology.nodes)
    if (spec.owns(n.guid)) owned.push_back(n.guid);
  const auto is_owned = [&owned](uint64_t guid) {
    return std::binary_search(owned.begin(), owned.end(), guid);
  };
  std::vector<Port> own;
  std::vector<Port> peers;
  for (Port& p : topology.ports) {
    if (is_owned(p.key.node_guid)) {
      own.push_back(std::move(p));
    } else if (p.remote && is_owned(p.remote->node_guid)) {
      peers.push_back(std::move(p));
    }
  }
  topology.ports = std::move(own);  // both stay sorted by key: taken in order
  topology.peer_ports = std::move(peers);
  return owned.size();
}

Status validate(const ShardSpec& spec) {
  if (spec.count < 1) return Err("shard.count must be at least 1, got {}", spec.count);
  if (spec.index < 1 || spec.index > spec.count) {
    return Err("shard.index must be from 1 to shard.count ({}), got {}", spec.count, spec.index);
  }
  if (spec.replicas < 1 || spec.replicas > spec.count) {
    return Err("shard.replicas must be from 1 to shard.count ({}), got {}", spec.count,
               spec.replicas);
  }
  return Ok{};
}

}  // namespace ibpulse::collector
