#pragma once
// The collector's I/O loop: discovery on an interval, the scheduler's due items turned into
// PMA reads through the MAD engine, decoded raw samples pushed into a lock-free SPSC ring for
// the converters. A full ring drops and counts; it never blocks the engine.
//
// Thread safety: run() owns the engine and everything else and runs on one thread; stats()
// and request_* may be called from any thread.

#include <atomic>
#include <boost/lockfree/spsc_queue.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <set>

#include "ibpulse/collector/clear.h"
#include "ibpulse/collector/discovery.h"
#include "ibpulse/collector/ext_speeds_layout.h"
#include "ibpulse/collector/intervals.h"
#include "ibpulse/collector/local_split.h"
#include "ibpulse/collector/mad_engine.h"
#include "ibpulse/collector/partitions.h"
#include "ibpulse/collector/pma.h"
#include "ibpulse/collector/sampler.h"
#include "ibpulse/collector/shard.h"
#include "ibpulse/collector/sweep.h"

namespace ibpulse::collector {

using SampleRing = boost::lockfree::spsc_queue<RawSample>;

// PortSamples on chosen ports (per-VL traffic), repeated every `every`.
struct SamplingOptions {
  std::vector<PortKey> ports;
  std::vector<uint16_t> selects;  // CounterSelect codes, at most 15
  uint32_t interval = 1000000;    // ticks
  std::chrono::milliseconds every{10000};
  bool take_over = false;
};

struct PollerOptions {
  DiscoveryOptions discovery;
  MadEngineOptions mad;
  Intervals intervals;
  std::chrono::milliseconds rediscover{std::chrono::minutes(5)};
  std::set<uint64_t> skip_nodes;         // never polled
  std::set<uint64_t> no_extended_nodes;  // PortCounters only (32-bit), ignoring the extended ones
  // How PortExtendedSpeedsCounters' layout is found (ext_speeds_layout.h); legacy and rsfec
  // also read it on every linked port, whatever its speed.
  ExtSpeedsLayoutMode ext_speeds_layout = ExtSpeedsLayoutMode::kAuto;
  SamplingOptions sampling;
  // Ask each node's PortSamplesControl once for its Tick, the period of its PortXmitWait tick
  // (tick_asks.h); off when the period is configured (congestion.xmit-wait-tick).
  bool ask_xmit_wait_tick = true;
  // Read every port's P_Key table after each discovery (partitions.h), for the
  // PollerEvents::partitions_read receiver.
  bool partition_tables = true;
  // The nodes this collector polls when several share the fabric; the others' ports are left
  // out of the topology it hands on (peers of its own ports aside). Read at start only.
  ShardSpec shard{};
  // Several local ports on one subnet (local_split.h): the split they share and this poller's
  // index in it. None: the only poller, polling every node. Read at start only.
  std::shared_ptr<LocalPortSplit> split;
  size_t split_index = 0;
  // This poller's subnet among the daemon's (subnets.h): stamped on every port it discovers.
  uint8_t subnet = 0;
  // How often a local port that went down tries a discovery through it to come back.
  std::chrono::milliseconds local_port_retry{std::chrono::seconds(10)};
  // Discoveries in a row that must miss a node before its ports stop being polled
  // (missing_nodes.h); 1: at once.
  unsigned missing_limit = 3;
};

struct SweepSummary {
  uint64_t number = 0;
  size_t ports = 0;
  size_t stale = 0;  // ports whose counters could not be read this sweep, after every retry
  double seconds = 0;
  // How much longer than poll.counters-interval the sweep took (reads are spread over the
  // interval): about 0 while the fabric keeps up, growing when it cannot.
  double lag_seconds = 0;
};

struct PollerStats {
  uint64_t sweeps = 0;
  SweepSummary last_sweep;
  uint64_t samples = 0;
  uint64_t ring_drops = 0;
  uint64_t late_reads = 0;  // reads that came due before the previous ones completed
  uint64_t discoveries = 0;
  uint64_t discovery_failures = 0;
  // Nodes the last discovery missed whose ports are still polled (missing_nodes.h), and those
  // dropped after discovery.missing-limit discoveries in a row missed them.
  size_t missing_nodes = 0;
  uint64_t nodes_gone = 0;
  // Linked ports the last discovery read no PortInfo of (lost SMPs): polled by their last LIDs
  // when an earlier discovery read one, else not polled until a discovery does.
  size_t ports_without_port_info = 0;
  uint64_t port_info_reads = 0;
  uint64_t port_info_failures = 0;  // unanswered or refused PortInfo SMPs (ports down, M_Key)
  uint64_t port_changes = 0;
  // PKeyTable SMPs answered and failed (partitions.h): a table with a failed block is read
  // again at the next discovery.
  uint64_t partition_reads = 0, partition_read_failures = 0;
  uint64_t sm_info_reads = 0, sm_info_failures = 0;  // SMInfo of the ports that say IsSM
  uint64_t clears_sent = 0;  // Sets clearing counters, as the converter asked
  // Nodes' PortSamplesControl asks for their tick (tick_asks.h), by outcome. They are not
  // reads: their failures (every ibsim node's) are not in mad.failed.
  uint64_t tick_asks_answered = 0, tick_asks_failed = 0;
  size_t ports = 0;
  size_t nodes = 0;
  size_t owned_nodes = 0;  // the nodes this shard polls (all of them unsharded)
  ShardSpec shard{};
  MadStats mad;
  // Several local ports only (PollerGroup fills them): each port's state and the times one
  // went down and handed its nodes to the others.
  struct LocalPortState {
    std::string ca;
    int port = 0;
    bool up = true;
  };
  std::vector<LocalPortState> local_ports;
  uint64_t local_port_failovers = 0;
  // SubnetSet fills them: each subnet polled (its name and what its last discovery found),
  // and the ports found in two subnets at the last merge (subnets.h).
  struct SubnetState {
    uint64_t prefix = 0;
    std::string local_port;
    size_t nodes = 0, ports = 0;
  };
  std::vector<SubnetState> subnets;
  size_t duplicate_ports = 0;
};

// What the poller talks to. A member left empty is the real thing (the daemon leaves them all
// empty): MadEngine::open, collector::discover (libibnetdisc), steady_clock and sleeping.
// Unit tests pass a FakeMadEngine (collector/testing), a fixed Topology and a virtual clock,
// so they run without a fabric and without waiting. Called on run()'s thread only.
struct PollerBackend {
  using Clock = std::chrono::steady_clock;
  std::function<Result<std::unique_ptr<MadEngine>>(const std::string& ca, int port,
                                                   const MadEngineOptions& options)>
      open_engine;
  std::function<Result<Topology>(const DiscoveryOptions& options)> discover;
  std::function<Clock::time_point()> now;
  // Called when nothing is in flight and nothing is due for `duration`.
  std::function<void(Clock::duration duration)> sleep;
  // The longest one loop turn waits (0: no limit). A driver stepping several pollers on one
  // thread (tests, on one virtual clock) sets it so that none runs ahead of the others.
  std::chrono::milliseconds turn_limit{0};
};

// Events the daemon logs.
struct PollerEvents {
  std::function<void(const Topology&, const TopologyChanges&)> discovered;
  std::function<void(const SweepSummary&)> sweep_done;
  std::function<void(const std::string&)> warning;
  // A sample finished (whatever its outcome); its counters also went into the ring.
  std::function<void(PortKey, const SampleResult&, const SampleRequest&)> sampled;
  // A PortInfo read between discoveries found the port's link state, width or speed changed.
  std::function<void(const Port& now, const LinkState& before)> port_changed;
  // A PortInfo read between discoveries found the rest of the port's PortInfo (Port::sma:
  // thresholds, capability mask, SM LID, ...) changed while its link did not.
  std::function<void(const Port& now)> port_refreshed;
  // P_Key tables read (partitions.h), sorted by port, in batches. Left empty: none are read.
  std::function<void(std::vector<PortPartitions>)> partitions_read;
  // The subnet managers of the fabric: the SMInfo of every port whose PortInfo says IsSM, read
  // after each discovery and every poll.port-info-interval (one round: the ports that
  // answered), by the subnet's leading local port only. Left empty: none is read.
  std::function<void(uint8_t subnet, std::vector<SubnetManagerInfo>)> subnet_managers_read;
};

class Poller {
 public:
  // `clears`: where the converter asks for counters to be cleared (none: never cleared).
  Poller(PollerOptions options, SampleRing& ring, PollerEvents events, ClearRing* clears = nullptr,
         PollerBackend backend = {});
  ~Poller();

  // Opens the engine and runs until `stop` is set. Fails only when it cannot start.
  Status run(const std::atomic<bool>& stop);
  // run() in pieces, for a driver that steps several pollers on one thread (tests): start()
  // opens the engine and discovers, step() is one loop turn, finish() drains what is in flight.
  Status start();
  void step();
  void finish();

  PollerStats stats() const;
  // Takes effect at the next loop turn: new intervals, skip lists (not the MAD window).
  void reconfigure(const PollerOptions& options);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace ibpulse::collector
