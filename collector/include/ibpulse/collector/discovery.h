#pragma once
// Fabric discovery through libibnetdisc, in-process (no ibnetdiscover subprocess), and the
// node-name map operators use to give nodes their host names.
//
// Thread safety: discover() is blocking and uses its own MAD port; run one at a time per
// process (umad2sim allows one SMP agent per process).

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "ibpulse/base/result.h"
#include "ibpulse/collector/topology.h"

namespace ibpulse::collector {

using NodeNameMap = std::map<uint64_t, std::string>;

// infiniband-diags' ib-node-name-map format: `0x<GUID> "name"` per line, `#` comments.
Result<NodeNameMap> parse_node_name_map(std::string_view text, std::string_view source);
Result<NodeNameMap> load_node_name_map(const std::filesystem::path& path);

struct DiscoveryOptions {
  std::string ca;          // local HCA (empty: the first one)
  int ca_port = 0;         // local port (0: the first active one)
  unsigned max_smps = 64;  // SMPs in flight; libibnetdisc's default of 2 is slow on big fabrics
  unsigned timeout_ms = 500;
  unsigned retries = 2;
  std::optional<uint64_t> m_key;  // for fabrics that protect SMPs with an M_Key
  bool switch_port0 = false;      // also list switch port 0, whose counters are opt-in
  NodeNameMap names;
  PartitionNames partition_names;  // handed on in every topology (Topology::partition_names)
  // A topology cache (libibnetdisc's ibnd_cache_fabric format). Every discovery writes it
  // beside `cache_file` as pending (pending_cache_file()); the poller makes it the cache
  // (commit_discovery_cache()) only when the discovery found every node it knew, so that the
  // cache always holds every node a restart must keep polling (missing_nodes.h). A cache
  // younger than cache_max_age (0: never) is loaded instead of discovering; the daemon sets
  // that per local port at start only (discovery.cache-max-age), so restarting N shards does
  // not cost N full discoveries; LIDs that changed since are followed as always (an
  // unreachable port asks for a rediscovery).
  std::filesystem::path cache_file;
  std::chrono::seconds cache_max_age{0};
};

// Where discover() writes the cache of its discovery until the poller commits it.
std::filesystem::path pending_cache_file(const std::filesystem::path& cache_file);
// Makes the pending cache the cache; no pending cache (none written) is no error.
Status commit_discovery_cache(const std::filesystem::path& cache_file);
// The cached topology when the cache is at most `max_age` old; an empty topology when there is
// none or it is older; an error when it cannot be read.
Result<Topology> load_cached_topology(const DiscoveryOptions& options,
                                      std::chrono::seconds max_age);

// A discovery through libibnetdisc. With `cache_file` set, the pending cache is written after
// it, and the cache read instead of it when young enough: Topology::from_cache and
// ::cache_error tell.
Result<Topology> discover(const DiscoveryOptions& options);

}  // namespace ibpulse::collector
