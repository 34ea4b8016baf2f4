#pragma once
// Poller::State: what one poller keeps between loop turns, and its jobs, each in its own file:
// discovery hand-off (poller_discovery.cc), scheduled reads (poller_reads.cc), the reads beside
// them (poller_side_reads.cc: PortInfo refresh, clears, ticks, samples) and the loop itself
// (poller.cc). The parts that need no poller have their own headers (read_plan.h,
// sampling_driver.h, sweep_accounting.h, tick_asks.h, slot_pool.h). Private to the collector.
//
// Thread safety: the poller's thread only, but for `mutex` and what it guards.

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "clear_queue.h"
#include "ibpulse/base/check.h"
#include "ibpulse/base/log_text.h"
#include "ibpulse/collector/missing_nodes.h"
#include "ibpulse/collector/poller.h"
#include "node_capabilities.h"
#include "partition_reads.h"
#include "port_info.h"
#include "read_plan.h"
#include "sampling_driver.h"
#include "slot_pool.h"
#include "sweep_accounting.h"
#include "tick_asks.h"

namespace ibpulse::collector::poller_detail {

using Clock = std::chrono::steady_clock;
using schema::Attribute;

// What one outstanding MAD was for.
struct Context {
  PortKey port;
  Attribute attribute;
  Group group;
  uint64_t sweep;        // the counters sweep it belongs to (0: none)
  uint32_t item;         // its scheduler item's slot, or kSamplerItem
  uint32_t index;        // sampler MAD: index into the sampled ports; others: the port's index
  uint64_t cleared = 0;  // kClearItem: the fields the Set clears
  bool primary = false;  // the port's primary read (PortPlan::primary)
};

constexpr uint32_t kSamplerItem = UINT32_MAX;
constexpr uint32_t kClearItem = UINT32_MAX - 1;  // a Set clearing counters the converter asked
constexpr uint32_t kTickItem = UINT32_MAX - 2;   // a node's PortSamplesControl (tick_asks.h)
// A block of a P_Key table (partition_reads.h); the Context's index is the block.
constexpr uint32_t kPartitionItem = UINT32_MAX - 3;
// The SMInfo of a port that says IsSM (sm_info_reads.cc); the Context's index is its place
// in the round's targets.
constexpr uint32_t kSmInfoItem = UINT32_MAX - 4;
// Finished P_Key tables go to the converter when none are left to read, or in batches of this
// many (or a second's worth) while a large fabric's are read.
constexpr size_t kPartitionBatch = 1024;
// Due items are taken this many at a time while the engine's backlog has room (issue_due),
// and the backlog is at least kMinBacklog requests: 32 windows of the simulator's 64, and
// small enough (150 KB of packed requests) to stay in the L2 cache. 16,384 (1.2 MB) spread
// the engine's and on_done's reads over L3 and cost 3% of the client core at 70,000 ports.
constexpr size_t kItemsPerTake = 64;
constexpr size_t kMinBacklog = 2048;
// Above the floor the backlog is this many windows, so it spans many nodes (max_backlog).
constexpr unsigned kBacklogWindows = 16;
// A node's ports are read in runs of this many times its limit in flight (scheduler.h): at two
// reads a port a run is 8 limits of requests, and the backlog then spans twice the
// window / per-node nodes the window needs.
constexpr unsigned kNodeRunLimits = kBacklogWindows / 4;

// The backend with every member set: the real things where the caller left one empty.
PollerBackend with_defaults(PollerBackend b);

// A scheduler item whose reads are in flight; done when the last one completed.
struct ItemState {
  Scheduler::Item item;
  unsigned pending = 0;
};

}  // namespace ibpulse::collector::poller_detail

namespace ibpulse::collector {

struct Poller::State {
  using Clock = poller_detail::Clock;
  using Attribute = schema::Attribute;
  using Context = poller_detail::Context;
  using ItemState = poller_detail::ItemState;

  PollerOptions options;
  SampleRing& ring;
  PollerEvents events;
  PollerBackend backend;     // every member set: the defaults filled in by the constructor
  mutable std::mutex mutex;  // guards stats, pending_options, rediscover_requested
  PollerStats stats;
  std::optional<PollerOptions> pending_options;
  bool rediscover_requested = false;

  std::unique_ptr<MadEngine> engine;
  Topology whole;          // the last discovery, shard applied: what the local ports share
  MissingNodes missing;    // nodes an earlier discovery found and the last ones did not
  Topology topology;       // the part this poller polls (all of `whole` with one local port)
  size_t shard_nodes = 0;  // of `whole`: the nodes this shard polls
  uint64_t split_generation = 0;
  std::set<uint64_t> pm_key_warned;
  NodeCapabilities capabilities;
  bool capabilities_refresh = false;                    // a discovery ran: ask every node again
  std::map<uint64_t, std::set<Attribute>> unsupported;  // per node, until rediscovery
  ExtSpeedsLayouts layouts;
  TickAsks ticks;
  uint64_t tick_answers = 0;
  std::array<uint64_t, std::tuple_size_v<decltype(MadStats::failed)>> tick_failures{};
  std::set<uint64_t> layout_fallback_warned;  // nodes (0: every node, SMPs off)
  std::map<uint64_t, uint32_t> node_index;
  std::vector<PortPlan> plans;             // per index of topology.ports
  std::vector<Scheduler::Item> due_items;  // reused every loop turn
  Scheduler scheduler{Intervals{}};
  Clock::time_point next_discovery{};
  Clock::time_point last_discovery{};
  bool last_run_consulted = false;  // the first discovery looked for the last run's topology

  SamplingDriver sampling;
  uint64_t local_samples = 0;
  uint64_t local_drops = 0;
  uint64_t local_late = 0;
  uint64_t local_port_info_reads = 0;
  uint64_t local_port_info_failures = 0;
  uint64_t local_port_changes = 0;
  bool smp_warned = false;
  bool smp_unavailable = false;  // enabling the SMP class failed
  Clock::time_point last_publish{};
  std::atomic<bool> pending_work{false};  // set with pending_options / rediscover_requested
  SlotPool<ItemState> items;

  ClearRing* clears = nullptr;  // requests from the converter, or none
  ClearQueue pending_clears;
  uint64_t local_clears_sent = 0;

  SlotPool<Context, uint64_t> contexts;  // what each MAD in flight is for: its cookie

  SweepAccounting sweeps;  // the counters sweep in progress

  PartitionReads partition_reads;
  // The subnet managers' SMInfo (sm_info_reads.cc): the round in flight, and when the next is.
  std::vector<SubnetManagerInfo> sm_round;  // the targets; info filled as they answer
  std::vector<char> sm_answered;
  size_t sm_pending = 0;
  Clock::time_point sm_next_round{};
  uint64_t local_sm_info_reads = 0, local_sm_info_failures = 0;
  std::vector<PortPartitions> partition_batch;  // finished, not yet handed over
  Clock::time_point partitions_handed{};

  State(PollerOptions o, SampleRing& r, PollerEvents e, PollerBackend b);

  uint64_t new_context(const Context& c) { return contexts.add(c); }

  uint32_t new_item(const Scheduler::Item& item) { return items.add(ItemState{item, 0}); }

  // A missing node is dropped after discovery.missing-limit discoveries in a row, spanning
  // at least as many intervals less one (missing_nodes.h).
  void follow_missing_limit();
  // The discovery cache is per local port: `cache_file` names a stem, `-CA-PORT.ibnd` follows.
  void name_cache_file();
  void warn(const std::string& text) const;
  bool discover(Clock::time_point now);
  // Subnet, skipped nodes and shard applied to a discovered topology; returns the shard's nodes.
  size_t own(Topology& t) const;
  // At the first discovery of a run, what the last run polled: its cached topology (written
  // only by discoveries that missed no node it knew). Without it a node this discovery misses
  // (lost SMPs) would not be polled until a later one finds it, and its series would vanish;
  // with it the node is missing as in a running daemon. Trusted as long as a running daemon
  // would keep a missing node: discovery.missing-limit discovery intervals.
  Topology last_run_topology(const Topology& fresh);
  void commit_cache() const;
  // Logs and counts the nodes this discovery missed; returns how many are still polled.
  size_t report_missing(const MissingNodes::Outcome& o);
  // Logs and counts the linked ports this discovery found without their PortInfo; asks for an
  // early rediscovery when one had no earlier PortInfo to keep (it is not polled until a
  // discovery reads it). True when there were any.
  bool report_port_infos(const MissingNodes::Outcome& o);
  // Takes this poller's nodes from `whole` (after a discovery, or when a local port sharing
  // the subnet went down or came back) and plans their reads.
  void adopt(Clock::time_point now);
  std::vector<SweepTarget> linked_targets() const;
  // Nodes whose ClassPortInfo went unanswered are asked again (node_capabilities.h); the
  // engine is drained first: the answers are taken apart from the reads'.
  void retry_capabilities(Clock::time_point now);
  void report_cache(const Topology& t) const;
  // A port whose link changed since this poller last read its PortInfo, seen first by a
  // discovery (a link that went down and came back between two refreshes), is reported as a
  // refresh would have, or the change would be lost.
  void report_link_changes(const Topology& next);
  // A local port sharing the subnet: its MADs or discovery fail as if it were unplugged.
  void local_port_down(std::string_view why);
  void local_port_up();
  // After a discovery, and when a node turned out not to support an attribute.
  void rebuild_plans();
  PortPlan plan_for(const Port& port);
  // Where PortExtendedSpeedsCounters is read: its layout, or not yet (asked first).
  void choose_layout(const Port& port, const PmaCapabilities* caps, PortPlan& plan);
  void warn_layout_fallback(uint64_t guid, std::string_view reason);
  void replan(size_t index);
  bool reads(PortKey key, Attribute attribute) const;
  void enable_smp();
  // SMPs can be sent between discoveries (the class is enabled then, or about to be).
  bool smps_available() const;
  void issue_port_info(const Scheduler::Item& item, const Port& port);
  void port_info_extended_reply(const Context& ctx, const MadCompletion& c);
  void port_info_reply(const Context& ctx, const MadCompletion& c);
  void issue(const Scheduler::Item& item, Clock::time_point now);
  // Issues due items while the engine holds fewer than max_backlog() unsent requests. A fabric
  // slower than the intervals has every item due at once: the rest wait in the scheduler, a
  // few bytes each, instead of as requests in the engine (at 70,000 ports a sweep's reads
  // queued whole took 260 MB there at 240 bytes a request, and their contexts 70 MB more).
  void issue_due(Clock::time_point now);
  // Enough unsent requests that the window stays full whatever the per-node limit: a node's
  // items are often due together (a switch's ports), so the backlog must span many nodes.
  size_t max_backlog() const;
  void item_done(const Scheduler::Item& item);
  void finish_sweep_item(const Context& c, MadFailure failure);
  void on_done(const MadCompletion& c);
  // Starts due samples and sends what the running ones need; returns when next to look.
  Clock::time_point drive_sampling(Clock::time_point now);
  RawSample to_sample(const Context& ctx, const MadCompletion& c) const;
  // A clear goes out right after a read of the same attribute: the counts in between, which
  // the clear loses, are as few as the fabric allows (the converter reports the window).
  void clear_after_read(const Context& ctx);
  // A Set's response is a sample too: the counters after the clear, flagged as such.
  void clear_reply(const Context& ctx, const MadCompletion& c);
  void take_clear_requests();
  // Nodes' PortSamplesControl, a few at a time (tick_asks.h), apart from the scheduled reads.
  void ask_ticks();
  // The answer goes to the converter raw, as every reading does (RawSample: Tick in values[0]).
  void tick_reply(const Context& ctx, const MadCompletion& c);
  bool reads_partition_tables() const;  // poll.partition-tables, and someone to hand them to
  // Sends the P_Key table reads partition_reads has room for, and hands finished tables on.
  void read_partitions(Clock::time_point now);
  void partition_reply(const Context& ctx, const MadCompletion& c);
  // A round of SMInfo reads when one is due (after a discovery, then every
  // poll.port-info-interval) and none is in flight; hands the answers on when it ends.
  void read_sm_info(Clock::time_point now);
  void sm_info_reply(const Context& ctx, const MadCompletion& c);
  void send_sample_mad(uint32_t index, PortKey port, MadRequest& request);
  void sample_reply(const Context& ctx, const MadCompletion& c);
  void sample_ended(PortKey port, const SampleResult& result, const SampleRequest& request,
                    Clock::time_point now);
  void publish();
  void apply_pending(Clock::time_point now);
  void step();
  void finish();
};

}  // namespace ibpulse::collector
