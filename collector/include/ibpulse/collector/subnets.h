#pragma once
// One daemon polling several subnets (separate fabrics, e.g. the rails of a multi-rail
// cluster): one PollerGroup per subnet, each discovering and polling through its own local
// ports, their topologies merged into the one the converter and the exporters read.
//
// Subnet prefixes are not unique (most sites leave every rail at fe80::), so a subnet is named
// by its number here (the order fabric.ports gives) and by the local port that reaches it;
// every port carries its subnet's number (Port::subnet). LIDs are per subnet: nothing keys on
// a LID alone. A node GUID in several subnets is normal (a multi-port HCA cabled to several
// rails: each subnet sees other ports of it). A port seen in two subnets, by (node GUID, port)
// or by port GUID, is not: the first subnet's port is kept, the other is logged and counted
// (PollerStats::duplicate_ports), never merged silently.
//
// A sweep is complete when every subnet finished one (ports and stale summed, seconds the
// longest), so `ready` comes once every subnet was read once. A subnet whose first discovery
// fails stops the start (run() returns the error), as a lone subnet's does; later failures
// keep its last topology. With one subnet this is a plain PollerGroup: same events, same figures.
//
// Thread safety: run() on one thread, which starts one more per further subnet; stats() and
// reconfigure() from any thread. Events come from the subnets' poller threads.

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <vector>

#include "ibpulse/collector/poller_group.h"

namespace ibpulse::collector {

// A subnet's topology from its latest discovery, stamped with its number.
struct SubnetPart {
  Topology topology;
  uint8_t subnet = 0;
};

// What merging found wrong: the ports dropped (same key as an earlier subnet's) and those
// whose port GUID an earlier subnet also has, each named once.
struct SubnetDuplicates {
  struct Duplicate {
    PortKey key;
    uint64_t port_guid = 0;
    uint8_t first_subnet = 0, other_subnet = 0;
    bool same_key = false;  // (node GUID, port) seen twice; else only the port GUID
  };
  std::vector<Duplicate> found;
};

// The subnets' topologies as one: nodes and ports unioned (sorted), `subnets` from `names`,
// `subnet_prefix` the first part's. A port key already taken by an earlier part is dropped.
Topology merge_subnets(const std::vector<const SubnetPart*>& parts,
                       const std::vector<Topology::Subnet>& names, SubnetDuplicates& duplicates);

class SubnetSet {
 public:
  // `subnets`: each subnet's local ports, in order (one subnet with no port: options.discovery's
  // CA and port, a plain Poller). `names[i]`: subnet i's name (its first local port). `rings`:
  // one per local port, in the same order over all subnets; `clears` likewise, or none.
  SubnetSet(const PollerOptions& options, std::vector<std::vector<LocalPort>> subnets,
            std::vector<Topology::Subnet> names, std::vector<SampleRing*> rings,
            PollerEvents events, std::vector<ClearRing*> clears = {}, PollerBackend backend = {});
  ~SubnetSet();

  Status run(const std::atomic<bool>& stop);
  // run() on one thread, stepping every subnet in turn (tests on a virtual clock).
  Status start();
  void step();
  void finish();

  PollerStats stats() const;
  void reconfigure(const PollerOptions& options);
  size_t size() const { return groups_.size(); }

 private:
  void discovered(size_t index, const Topology& topology, const TopologyChanges& changes);
  void warn_duplicate(const SubnetDuplicates::Duplicate& duplicate) const;
  void sweep_done(size_t index, const SweepSummary& summary);

  PollerEvents events_;
  std::vector<Topology::Subnet> names_;
  std::vector<std::unique_ptr<PollerGroup>> groups_;
  std::shared_ptr<std::mutex> discovery_mutex_;
  mutable std::mutex mutex_;  // guards everything below
  // Several subnets only: each one's last topology and the merge of them.
  std::vector<std::optional<SubnetPart>> parts_;
  Topology merged_;
  std::vector<std::pair<size_t, size_t>> sizes_;     // per subnet: nodes, ports last discovered
  std::set<std::pair<PortKey, uint64_t>> reported_;  // duplicates already logged
  size_t duplicate_ports_ = 0;
  std::vector<std::optional<SweepSummary>> round_;
  uint64_t sweeps_ = 0;
  SweepSummary last_sweep_;
};

}  // namespace ibpulse::collector
