#pragma once
// One daemon polling through several local ports of one subnet: one Poller (I/O thread, MAD
// engine, window) per local port, each with its own sample ring, the subnet's nodes split
// between them by a shared LocalPortSplit (local_split.h), so their MAD rates add up. Each
// poller discovers through its own port (discoveries are serialised: one libibnetdisc at a
// time per process); the first local port that is up hands the subnet's topology on (one
// `discovered` event per discovery, not one per poller).
//
// A sweep is complete when every local port that is up finished its part: sweep_done gets one
// summary per such round (ports and stale summed, seconds the longest), numbered from 1, so
// the first one is the first full sweep of the fabric. Stats are summed over the pollers.
// With one local port this is a plain Poller: same events, same figures.
//
// Thread safety: run() (or start/step/finish) on one thread, which also runs the first
// poller; run() starts one more thread per further local port. stats() and reconfigure() may
// be called from any thread.

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "ibpulse/collector/poller.h"

namespace ibpulse::collector {

// Adds `b`'s counts to `a` (several pollers make one daemon's figures).
void add_mad_stats(MadStats& a, const MadStats& b);
// Adds `b`'s counts, ports and nodes polled to `a`: not sweeps, local ports or subnets.
void add_poller_stats(PollerStats& a, const PollerStats& b);

// One sweep made of parts (local ports, subnets): ports and stale summed, seconds and lag the
// longest; the parts are emptied for the next round. Numbered by the caller.
SweepSummary sum_round(std::vector<std::optional<SweepSummary>>& round);

// Runs `run(i, stop_all)` for i in [0, count): 0 on this thread, the others on threads of
// their own, until `stop` is set or one of them returns (one that cannot start stops the
// others). The first error, else Ok.
Status run_together(size_t count,
                    const std::function<Status(size_t, const std::atomic<bool>&)>& run,
                    const std::atomic<bool>& stop);

class PollerGroup {
 public:
  // `ports`: the local ports (none or one: options.discovery's port, a plain Poller). `rings`:
  // one per poller (ports.size(), at least 1). `clears`: one per poller as well, or none.
  PollerGroup(PollerOptions options, std::vector<LocalPort> ports, std::vector<SampleRing*> rings,
              PollerEvents events, std::vector<ClearRing*> clears = {}, PollerBackend backend = {});
  ~PollerGroup();

  Status run(const std::atomic<bool>& stop);
  // run() on one thread, stepping every poller in turn (tests on a virtual clock).
  Status start();
  void step();
  void finish();

  PollerStats stats() const;
  void reconfigure(const PollerOptions& options);
  size_t size() const { return pollers_.size(); }

 private:
  void sweep_done(size_t index, const SweepSummary& summary);

  PollerEvents events_;
  std::vector<LocalPort> ports_;
  std::shared_ptr<LocalPortSplit> split_;  // none with one local port
  std::vector<std::unique_ptr<Poller>> pollers_;
  std::shared_ptr<std::mutex> discovery_mutex_;
  mutable std::mutex mutex_;  // guards the round below and stats_
  std::vector<std::optional<SweepSummary>> round_;
  uint64_t sweeps_ = 0;
  SweepSummary last_sweep_;
};

}  // namespace ibpulse::collector
