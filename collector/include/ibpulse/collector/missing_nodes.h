#pragma once
// Nodes one discovery did not find although the one before did. libibnetdisc leaves out a node
// whose SMPs were lost (a flaky link dropping half of them was enough), and a port that simply
// vanished would stop being polled: its counters would stop instead of going stale. So a node
// missing from a discovery keeps its ports, polled by their last LIDs (stale when unanswered,
// reported as such), until `limit` discoveries in a row agree it is gone, and at least
// `min_span` after the first of them: the poller rediscovers every 5 s while a port is
// unreachable, and a node behind a flaky link, missed by half of those, would be dropped
// within seconds by a count alone. A node whose every link this discovery found Down at the
// peer's end was cut off, not missed: it is dropped at once.
//
// A node found while its port's PortInfo SMP was lost is the same loss one step later:
// libibnetdisc keeps the port and its link with PortInfo all zeros (LID 0, state 0), and a
// port without a LID is not polled. Such a port keeps the PortInfo the earlier discovery read.
//
// Thread safety: plain data; the poller's thread.

#include <chrono>
#include <cstdint>
#include <map>
#include <vector>

#include "ibpulse/collector/topology.h"

namespace ibpulse::collector {

struct MissingNodes {
  using Clock = std::chrono::steady_clock;
  unsigned limit = 3;           // discoveries in a row without a node before it is gone; 1: at once
  Clock::duration min_span{0};  // from a node's first miss to its drop, at least
  struct Misses {
    unsigned count = 0;       // discoveries in a row that missed it
    Clock::time_point first;  // when the first of them ran
  };
  std::map<uint64_t, Misses> misses;  // by node GUID

  struct Outcome {
    std::vector<uint64_t> kept;     // missing now, still polled
    std::vector<uint64_t> gone;     // missed `limit` times: dropped
    std::vector<uint64_t> cut_off;  // every link of it Down at the peer: dropped at once
    // Linked ports of found nodes whose PortInfo this discovery did not read: kept with the
    // LID, link and addressing `previous` had, or, when `previous` never read it either (the
    // first discovery of a run without a cache), left as found: a CA port without a LID is
    // not polled until a discovery reads it (a switch port keeps its port 0's LID and is).
    std::vector<PortKey> port_info_kept;
    std::vector<PortKey> port_info_unknown;
  };
  // Puts back into `fresh` (in order) the nodes of `previous` it lacks, with their ports, while
  // they have missed fewer than `limit` discoveries; a node found again starts from 0. A node
  // found without its NodeDescription (lost SMP) keeps the one of `previous`, a port found
  // without its PortInfo the PortInfo of `previous` (unless its peer was found Down).
  Outcome carry_over(Topology& fresh, const Topology& previous, Clock::time_point now = {});
};

}  // namespace ibpulse::collector
