#pragma once
// Nodes one discovery did not find although the one before did. libibnetdisc leaves out a node
// whose SMPs were lost (a flaky link dropping half of them was enough), and a port that simply
// vanished would stop being polled: its counters would stop instead of going stale. So a node
// missing from a discovery keeps its ports, polled by their last LIDs (stale when unanswered,
// reported as such), until `limit` discoveries in a row agree it is gone.
//
// Thread safety: plain data; the poller's thread.

#include <cstdint>
#include <map>
#include <vector>

#include "ibpulse/collector/topology.h"

namespace ibpulse::collector {

struct MissingNodes {
  unsigned limit = 3;  // discoveries in a row without a node before it is gone; 1: at once
  std::map<uint64_t, unsigned> misses;  // node GUID -> discoveries in a row that missed it

  struct Outcome {
    std::vector<uint64_t> kept;  // missing now, still polled
    std::vector<uint64_t> gone;  // missed `limit` times: dropped
  };
  // Puts back into `fresh` (in order) the nodes of `previous` it lacks, with their ports, while
  // they have missed fewer than `limit` discoveries; a node found again starts from 0.
  Outcome carry_over(Topology& fresh, const Topology& previous);
};

}  // namespace ibpulse::collector
