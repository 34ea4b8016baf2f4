#pragma once
// The poller's counters sweeps: a sweep starts with the first counters read after the last one
// ended, counts each linked port once (a port read again before the sweep ends counts in no
// new one), and ends when every one of those ports' primary reads completed, answered or not.
// Its summary says how many ports went stale (no answer after every retry) and how long it took
// against the counters interval; it also says whether every read came back undelivered, which
// blames the local port rather than the fabric.
//
// Thread safety: plain data; the poller's thread.

#include <chrono>
#include <cstdint>
#include <optional>
#include <set>
#include <vector>

#include "ibpulse/collector/mad_engine.h"
#include "ibpulse/collector/poller.h"
#include "ibpulse/collector/topology.h"

namespace ibpulse::collector {

// A linked physical port: what a counters sweep waits for. Switch port 0 is read when asked
// for but is no link of its own.
bool counts_in_sweep(const Port& p);

class SweepAccounting {
 public:
  using Clock = std::chrono::steady_clock;

  // A counters read of topology.ports[index] (a port counts_in_sweep()): the sweep it counts
  // in, 0 for none (the port counted in this sweep already). Starts a sweep if none runs.
  uint64_t count_read(const Topology& topology, size_t index, Clock::time_point now);

  struct Ended {
    SweepSummary summary;
    bool all_unreachable = false;  // every read came back undelivered
  };
  // The primary read of `port` in sweep `sweep` completed (`failure` kNone: answered). The
  // sweep's summary when this was its last read; nothing otherwise, or for a sweep no longer
  // running (0, or one a topology change abandoned).
  std::optional<Ended> completed(uint64_t sweep, PortKey port, MadFailure failure,
                                 Clock::time_point now, Clock::duration interval);

  // A topology change: the sweep in progress counted the old ports, the next read starts afresh.
  void abandon() { expected_ = 0; }

 private:
  uint64_t number_ = 0;  // of the sweep in progress or the last one
  size_t expected_ = 0;  // 0: none in progress
  size_t done_ = 0;
  size_t unreachable_ = 0;  // reads failed as if the local port were unplugged
  std::set<PortKey> stale_;
  Clock::time_point started_{};
  std::vector<uint64_t> mark_;  // per index of topology.ports: the last sweep it counted in
};

}  // namespace ibpulse::collector
