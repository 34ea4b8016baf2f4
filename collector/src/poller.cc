#include "ibpulse/collector/poller.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "ibpulse/base/check.h"
#include "ibpulse/base/log_text.h"
#include "ibpulse/base/thread_name.h"
#include "ibpulse/collector/missing_nodes.h"
#include "node_capabilities.h"
#include "port_info.h"
#include "read_plan.h"
#include "sampling_driver.h"
#include "slot_pool.h"
#include "sweep_accounting.h"
#include "tick_asks.h"

namespace ibpulse::collector {
namespace {

using Clock = std::chrono::steady_clock;
using schema::Attribute;
using namespace std::chrono_literals;

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

PollerBackend with_defaults(PollerBackend b) {
  if (!b.open_engine) b.open_engine = &MadEngine::open;
  if (!b.discover) b.discover = [](const DiscoveryOptions& o) { return collector::discover(o); };
  if (!b.now) b.now = [] { return Clock::now(); };
  if (!b.sleep) b.sleep = [](Clock::duration d) { std::this_thread::sleep_for(d); };
  return b;
}

// A scheduler item whose reads are in flight; done when the last one completed.
struct ItemState {
  Scheduler::Item item;
  unsigned pending = 0;
};

}  // namespace

struct Poller::State {
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
  std::map<std::pair<PortKey, Attribute>, uint64_t> pending_clears;  // -> fields
  uint64_t local_clears_sent = 0;

  SlotPool<Context, uint64_t> contexts;  // what each MAD in flight is for: its cookie

  SweepAccounting sweeps;  // the counters sweep in progress

  State(PollerOptions o, SampleRing& r, PollerEvents e, PollerBackend b)
      : options(std::move(o)),
        ring(r),
        events(std::move(e)),
        backend(with_defaults(std::move(b))),
        scheduler(options.intervals) {
    // A whole 64-port switch in a row at the default limit of 16 (kNodeRunLimits).
    scheduler.set_node_run(kNodeRunLimits * options.mad.per_node);
    name_cache_file();
    follow_missing_limit();
  }

  // A missing node is dropped after discovery.missing-limit discoveries in a row, spanning
  // at least as many intervals less one (missing_nodes.h).
  void follow_missing_limit() {
    missing.limit = std::max(1u, options.missing_limit);
    missing.min_span = options.rediscover * (missing.limit - 1);
  }

  // The discovery cache is per local port: `cache_file` names a stem, `-CA-PORT.ibnd` follows.
  void name_cache_file() {
    auto& d = options.discovery;
    if (d.cache_file.empty()) return;
    d.cache_file += fmt::format("-{}-{}.ibnd", d.ca.empty() ? "default" : d.ca, d.ca_port);
  }

  void warn(const std::string& text) const {
    if (events.warning) events.warning(text);
  }

  uint64_t new_context(const Context& c) { return contexts.add(c); }

  bool discover(Clock::time_point now) {
    DiscoveryOptions how = options.discovery;
    if (last_discovery != Clock::time_point{}) how.cache_max_age = {};  // a cache: at start only
    auto found = backend.discover(how);
    // Shards discover the whole fabric each: after the first discovery, shard k of N runs
    // (k-1)/N of an interval later than shard 1, so their SMP load on the fabric is spread.
    const auto stagger = last_discovery == Clock::time_point{} && options.shard.sharded()
                             ? options.rediscover * (options.shard.index - 1) / options.shard.count
                             : std::chrono::milliseconds(0);
    last_discovery = now;
    next_discovery = now + options.rediscover + stagger;
    if (!found) {
      {
        std::lock_guard lock(mutex);
        ++stats.discovery_failures;
      }
      warn(fmt::format("event=discovery_failed error=\"{}\"", log_text(found.error())));
      local_port_down("discovery failed");
      // A local port that is down tries again soon, not at the next rediscovery.
      if (options.split && !options.split->up(options.split_index))
        next_discovery = std::min(next_discovery, now + options.local_port_retry);
      return false;
    }
    Topology fresh = std::move(*found);
    report_cache(fresh);
    // A cached topology is trusted no longer than a discovered one: the next discovery comes
    // when the cache is a discovery interval old, as if the last run had gone on.
    if (fresh.from_cache)
      next_discovery = std::min(
          next_discovery, now + std::max<Clock::duration>(options.rediscover - fresh.cache_age,
                                                          Clock::duration::zero()));
    shard_nodes = own(fresh);
    const Topology last_run = last_run_topology(fresh);
    const MissingNodes::Outcome outcome =
        missing.carry_over(fresh, last_run.nodes.empty() ? whole : last_run, now);
    shard_nodes += report_missing(outcome);
    const bool port_infos_lost = report_port_infos(outcome);
    if (!fresh.from_cache && outcome.kept.empty() && !port_infos_lost) commit_cache();
    if (options.split) local_port_up();
    const TopologyChanges changes = diff(whole, fresh);
    for (const PortKey& k : changes.links_up)
      layouts.forget(k);
    // Kept until the next discovery: without the slack of its growth and of the shard's and
    // skipped nodes' ports (5 MB of 11.5 MB on a 70,000-port fabric).
    fresh.ports.shrink_to_fit();
    fresh.nodes.shrink_to_fit();
    whole = std::move(fresh);
    // Capabilities are cached until rediscovery; LID changes are followed at once.
    capabilities_refresh = true;
    pm_key_warned.clear();
    adopt(now);
    {
      std::lock_guard lock(mutex);
      ++stats.discoveries;
    }
    // With several local ports the converter wants the subnet's topology once: the leader's.
    if (events.discovered && (!options.split || options.split->leader() == options.split_index))
      events.discovered(whole, changes);
    return true;
  }

  // Subnet, skipped nodes and shard applied to a discovered topology; returns the shard's nodes.
  size_t own(Topology& t) const {
    for (Port& p : t.ports)
      p.subnet = options.subnet;
    std::erase_if(t.ports,
                  [&](const Port& p) { return options.skip_nodes.contains(p.key.node_guid); });
    return keep_shard_ports(t, options.shard);
  }

  // At the first discovery of a run, what the last run polled: its cached topology (written
  // only by discoveries that missed no node it knew). Without it a node this discovery misses
  // (lost SMPs) would not be polled until a later one finds it, and its series would vanish;
  // with it the node is missing as in a running daemon. Trusted as long as a running daemon
  // would keep a missing node: discovery.missing-limit discovery intervals.
  Topology last_run_topology(const Topology& fresh) {
    if (last_run_consulted || fresh.from_cache || options.discovery.cache_file.empty()) return {};
    last_run_consulted = true;
    const auto max_age = std::chrono::duration_cast<std::chrono::seconds>(
        options.rediscover * std::max(1u, missing.limit));
    auto cached = load_cached_topology(options.discovery, max_age);
    if (!cached) {
      warn(fmt::format("event=discovery_cache_failed error=\"{}\"", log_text(cached.error())));
      return {};
    }
    own(*cached);
    return std::move(*cached);
  }

  void commit_cache() const {
    if (options.discovery.cache_file.empty()) return;
    if (auto done = commit_discovery_cache(options.discovery.cache_file); !done)
      warn(fmt::format("event=discovery_cache_failed error=\"{}\"", log_text(done.error())));
  }

  // Logs and counts the nodes this discovery missed; returns how many are still polled.
  size_t report_missing(const MissingNodes::Outcome& o) {
    for (const uint64_t guid : o.kept) {
      warn(
          fmt::format("event=node_missing node_guid={} misses={} limit={} note=\"not found by this "
                      "discovery (lost SMPs?): its ports are still polled by their last LIDs until "
                      "discovery.missing-limit discoveries in a row miss it\"",
                      guid_string(guid), missing.misses[guid].count, missing.limit));
    }
    for (const uint64_t guid : o.gone) {
      warn(
          fmt::format("event=node_gone node_guid={} note=\"missed by {} discoveries in a row: "
                      "its ports are no longer polled\"",
                      guid_string(guid), missing.limit));
    }
    for (const uint64_t guid : o.cut_off) {
      warn(fmt::format(
          "event=node_gone node_guid={} note=\"not found by this discovery, and every link of "
          "it Down at the other end: its ports are no longer polled\"",
          guid_string(guid)));
    }
    std::lock_guard lock(mutex);
    stats.missing_nodes = o.kept.size();
    stats.nodes_gone += o.gone.size() + o.cut_off.size();
    return o.kept.size();
  }

  // Logs and counts the linked ports this discovery found without their PortInfo; asks for an
  // early rediscovery when one had no earlier PortInfo to keep (it is not polled until a
  // discovery reads it). True when there were any.
  bool report_port_infos(const MissingNodes::Outcome& o) {
    const size_t lost = o.port_info_kept.size() + o.port_info_unknown.size();
    {
      std::lock_guard lock(mutex);
      stats.ports_without_port_info = lost;
      if (!o.port_info_unknown.empty()) {  // kept ones are polled: the usual interval will do
        rediscover_requested = true;
        pending_work.store(true);
      }
    }
    if (lost == 0) return false;
    const PortKey first =
        o.port_info_kept.empty() ? o.port_info_unknown.front() : o.port_info_kept.front();
    warn(
        fmt::format("event=port_info_missing kept={} unknown={} first={}[{}] note=\"linked ports "
                    "this discovery read no PortInfo of (lost SMPs?): kept ones are polled by "
                    "their last LIDs, unknown ones not until a discovery reads them\"",
                    o.port_info_kept.size(), o.port_info_unknown.size(),
                    guid_string(first.node_guid), first.port));
    return true;
  }

  // Takes this poller's nodes from `whole` (after a discovery, or when a local port sharing
  // the subnet went down or came back) and plans their reads.
  void adopt(Clock::time_point now) {
    Topology mine = whole;
    size_t owned_nodes = shard_nodes;
    if (options.split) {
      split_generation = options.split->generation();
      keep_local_port_nodes(mine, *options.split, options.split_index);
      owned_nodes = 0;
      for (const Node& n : mine.nodes) {
        owned_nodes +=
            options.shard.owns(n.guid) && options.split->owner(n.guid) == options.split_index;
      }
    }
    unsupported.clear();
    sweeps.abandon();  // a sweep in progress counted the old ports: start afresh
    report_link_changes(mine);
    topology = std::move(mine);
    node_index.clear();
    for (const Node& n : topology.nodes)
      node_index.emplace(n.guid, static_cast<uint32_t>(node_index.size()));
    const std::vector<SweepTarget> targets = linked_targets();
    capabilities.set_retry_interval(std::max<Clock::duration>(options.intervals.counters, 1s));
    capabilities.ask(*engine, targets, std::exchange(capabilities_refresh, false), now,
                     [this](const std::string& text) { warn(text); });
    for (const SweepTarget& t : targets) {
      const PmaCapabilities* caps = capabilities.find(t.key.node_guid);
      if (caps == nullptr || !caps->pm_key()) continue;
      if (!pm_key_warned.insert(t.key.node_guid).second) continue;
      warn(
          fmt::format("event=pm_key_required node_guid={} note=\"PM_Key is not supported yet; "
                      "this node's counters may be refused\"",
                      guid_string(t.key.node_guid)));
    }
    rebuild_plans();
    if (options.ask_xmit_wait_tick) ticks.plan(topology, now);
    scheduler.update(topology, now);
    std::lock_guard lock(mutex);
    stats.ports = topology.ports.size();
    stats.nodes = topology.nodes.size();
    stats.owned_nodes = owned_nodes;
  }

  std::vector<SweepTarget> linked_targets() const {
    std::vector<SweepTarget> targets;
    for (const Port& p : topology.ports) {
      if (p.remote && p.lid != 0) targets.push_back({p.key, p.lid});
    }
    return targets;
  }

  // Nodes whose ClassPortInfo went unanswered are asked again (node_capabilities.h); the
  // engine is drained first: the answers are taken apart from the reads'.
  void retry_capabilities(Clock::time_point now) {
    if (!capabilities.any_pending() || now < capabilities.next_retry()) return;
    drain(*engine, [this](const MadCompletion& c) { on_done(c); });
    if (capabilities.retry_due(*engine, linked_targets(), now,
                               [this](const std::string& text) { warn(text); }))
      rebuild_plans();
  }

  void report_cache(const Topology& t) const {
    const auto& file = options.discovery.cache_file;
    if (t.from_cache) {
      warn(fmt::format(
          "event=discovery_cached file=\"{}\" nodes={} ports={} age_seconds={} "
          "note=\"started from the cached topology; the next discovery comes when "
          "it is discovery.interval old\"",
          log_text(file.string()), t.nodes.size(), t.ports.size(), t.cache_age.count()));
    }
    if (!t.cache_error.empty())
      warn(fmt::format("event=discovery_cache_failed error=\"{}\"", log_text(t.cache_error)));
  }

  // A port whose link changed since this poller last read its PortInfo, seen first by a
  // discovery (a link that went down and came back between two refreshes), is reported as a
  // refresh would have, or the change would be lost.
  void report_link_changes(const Topology& next) {
    if (!events.port_changed) return;
    for (const Port& p : next.ports) {
      const Port* known = topology.find_port(p.key);
      if (!known || known->link.state == 0 || known->link == p.link) continue;
      ++local_port_changes;
      events.port_changed(p, known->link);
    }
  }

  // A local port sharing the subnet: its MADs or discovery fail as if it were unplugged.
  void local_port_down(std::string_view why) {
    if (!options.split || !options.split->set_up(options.split_index, false)) return;
    warn(
        fmt::format("event=local_port_down ca={} port={} reason=\"{}\" note=\"its nodes go to "
                    "the other local ports until it is back\"",
                    options.discovery.ca, options.discovery.ca_port, log_text(why)));
    // Try again soon: a discovery through it that succeeds brings it back.
    next_discovery = std::min(next_discovery, backend.now() + options.local_port_retry);
  }

  void local_port_up() {
    if (!options.split->set_up(options.split_index, true)) return;
    warn(fmt::format("event=local_port_up ca={} port={} note=\"its nodes return to it\"",
                     options.discovery.ca, options.discovery.ca_port));
  }

  // After a discovery, and when a node turned out not to support an attribute.
  void rebuild_plans() {
    if (layouts.mode() != options.ext_speeds_layout)
      layouts = ExtSpeedsLayouts(options.ext_speeds_layout);
    plans.assign(topology.ports.size(), PortPlan{});
    for (size_t i = 0; i < topology.ports.size(); ++i)
      plans[i] = plan_for(topology.ports[i]);
    // A clear waits for a read of its attribute: drop those no plan reads any more.
    std::erase_if(pending_clears,
                  [&](const auto& entry) { return !reads(entry.first.first, entry.first.second); });
  }

  PortPlan plan_for(const Port& port) {
    const uint64_t guid = port.key.node_guid;
    const auto found = node_index.find(guid);
    const uint32_t node = found != node_index.end() ? found->second : 0;
    if (capabilities.pending(guid)) return awaiting_capabilities(node);
    const auto off = unsupported.find(guid);
    const PmaCapabilities* caps = capabilities.find(guid);
    PortPlan plan = plan_port(port, node, caps, off != unsupported.end() ? &off->second : nullptr,
                              options.no_extended_nodes.contains(guid),
                              layouts.mode() != ExtSpeedsLayoutMode::kAuto);
    plan.narrow_fallback = capabilities.given_up(guid);
    if (plan.details.contains(Attribute::kPortExtendedSpeedsCounters))
      choose_layout(port, caps, plan);
    return plan;
  }

  // Where PortExtendedSpeedsCounters is read: its layout, or not yet (asked first).
  void choose_layout(const Port& port, const PmaCapabilities* caps, PortPlan& plan) {
    const LayoutDecision d = layouts.decide(caps, port, smps_available());
    if (d.layout) {
      plan.ext_speeds_layout = *d.layout;
      if (d.fallback) warn_layout_fallback(port.key.node_guid, d.reason);
      return;
    }
    plan.awaiting_layout = true;
    AttributeList details;
    for (const Attribute a : plan.details) {
      if (a != Attribute::kPortExtendedSpeedsCounters) details.add(a);
    }
    plan.details = details;
  }

  void warn_layout_fallback(uint64_t guid, std::string_view reason) {
    const bool every_node = !smps_available();
    if (!layout_fallback_warned.insert(every_node ? 0 : guid).second) return;
    warn(fmt::format(
        "event=ext_speeds_layout_fallback{} reason=\"{}\" note=\"PortExtendedSpeedsCounters is "
        "read in its pre-RS-FEC layout; set collect.ext-speeds-layout to choose\"",
        every_node ? std::string() : " node_guid=" + guid_string(guid), log_text(reason)));
  }

  void replan(size_t index) {
    if (index < topology.ports.size() && index < plans.size())
      plans[index] = plan_for(topology.ports[index]);
  }

  bool reads(PortKey key, Attribute attribute) const {
    const Port* port = topology.find_port(key);
    return port != nullptr &&
           plans[static_cast<size_t>(port - topology.ports.data())].reads(attribute);
  }

  uint32_t new_item(const Scheduler::Item& item) { return items.add(ItemState{item, 0}); }

  void enable_smp() {
    if (options.intervals.port_info.count() == 0) return;
    const auto s = engine->enable_smp(true);
    if (!s && !smp_warned) {
      smp_warned = true;
      warn(
          fmt::format("event=port_info_disabled error=\"{}\" note=\"port states are refreshed "
                      "by rediscovery only\"",
                      log_text(s.error())));
    }
    // Plans are made during discovery, while the SMP class is lent to it: they counted on
    // asking PortInfoExtended, which cannot be asked after all.
    if (!s != smp_unavailable) {
      smp_unavailable = !s;
      rebuild_plans();
    }
  }

  // SMPs can be sent between discoveries (the class is enabled then, or about to be).
  bool smps_available() const {
    return options.intervals.port_info.count() > 0 && !smp_unavailable;
  }

  void issue_port_info(const Scheduler::Item& item, const Port& port) {
    if (!engine->smp_enabled()) {
      item_done(item);
      return;
    }
    const uint32_t slot = new_item(item);
    items[slot].pending = 1;
    MadRequest r;
    r.lid = port.lid;
    r.node = plans[item.port_index].node;
    r.mgmt_class = MadClass::kSubnetLid;
    r.attribute = kPortInfoAttribute;
    r.modifier = item.port.port;
    r.m_key = options.discovery.m_key.value_or(0);
    // The attribute is unused for an SMP: the group tells on_done() what came back.
    r.cookie = new_context(
        Context{item.port, Attribute::kPortCounters, Group::kPortInfo, 0, slot, item.port_index});
    engine->submit(r);
    if (!plans[item.port_index].awaiting_layout) return;
    // PortInfoExtended rides along: its Context's attribute marks it.
    ++items[slot].pending;
    r.attribute = kPortInfoExtendedAttribute;
    r.cookie = new_context(Context{item.port, Attribute::kPortExtendedSpeedsCounters,
                                   Group::kPortInfo, 0, slot, item.port_index});
    engine->submit(r);
  }

  void port_info_extended_reply(const Context& ctx, const MadCompletion& c) {
    const bool decided = c.failure == MadFailure::kNone
                             ? layouts.answered(ctx.port, decode_port_info_extended(c.data))
                             : layouts.failed(ctx.port, c.failure == MadFailure::kStatus);
    if (decided && ctx.index < topology.ports.size() && topology.ports[ctx.index].key == ctx.port)
      replan(ctx.index);
  }

  void port_info_reply(const Context& ctx, const MadCompletion& c) {
    if (ctx.attribute == Attribute::kPortExtendedSpeedsCounters)
      return port_info_extended_reply(ctx, c);
    if (c.failure != MadFailure::kNone) {
      ++local_port_info_failures;  // a port whose link is down may be unreachable: no alarm
      return;
    }
    ++local_port_info_reads;
    if (ctx.index >= topology.ports.size()) return;
    Port& port = topology.ports[ctx.index];
    IBPULSE_CHECK(port.key == ctx.port, "a PortInfo reply for another port");
    const LinkState fresh = link_state_from_port_info(c.data.data());
    if (fresh == port.link) return;
    const LinkState before = port.link;
    port.link = fresh;
    ++local_port_changes;
    if (events.port_changed) events.port_changed(port, before);
    // A link that came up or went down changes peers and LIDs: let discovery look. One that
    // came up may run another FEC mode: its extended speeds layout is asked again.
    if (fresh.state == 4 && before.state != 4) layouts.forget(port.key);
    if ((fresh.state == 4) != (before.state == 4)) {  // 4: Active
      std::lock_guard lock(mutex);
      rediscover_requested = true;
      pending_work.store(true);
    }
  }

  void issue(const Scheduler::Item& item, Clock::time_point now) {
    // A stale index would read one port and credit another.
    IBPULSE_CHECK(
        item.port_index < topology.ports.size() && topology.ports[item.port_index].key == item.port,
        "a scheduled read whose port index went stale");
    const Port& port = topology.ports[item.port_index];
    if (item.group == Group::kPortInfo) return issue_port_info(item, port);
    uint64_t sweep = 0;
    if (item.group == Group::kCounters && counts_in_sweep(port))
      sweep = sweeps.count_read(topology, item.port_index, now);
    const PortPlan& plan = plans[item.port_index];
    if (plan.awaiting_capabilities) {
      // Not read until its node's ClassPortInfo answers: stale in this sweep.
      if (sweep != 0) {
        finish_sweep_item(
            Context{item.port, plan.primary, item.group, sweep, 0, item.port_index, 0, true},
            MadFailure::kTimeout);
      }
      item_done(item);
      return;
    }
    const AttributeList& attributes = plan.of(item.group);
    if (attributes.size == 0) {
      item_done(item);
      return;
    }
    const uint32_t slot = new_item(item);
    items[slot].pending = static_cast<unsigned>(attributes.size);
    for (Attribute attribute : attributes) {
      // Only the primary read carries the sweep accounting.
      const bool primary = attribute == plan.primary;
      const uint64_t id = new_context(Context{item.port, attribute, item.group, primary ? sweep : 0,
                                              slot, item.port_index, 0, primary});
      engine->submit(pma_get(attribute, port.lid, item.port.port, plan.node, id));
    }
  }

  // Issues due items while the engine holds fewer than max_backlog() unsent requests. A fabric
  // slower than the intervals has every item due at once: the rest wait in the scheduler, a
  // few bytes each, instead of as requests in the engine (at 70,000 ports a sweep's reads
  // queued whole took 260 MB there at 240 bytes a request, and their contexts 70 MB more).
  void issue_due(Clock::time_point now) {
    const size_t limit = max_backlog();
    while (engine->queued() < limit) {
      due_items.clear();
      scheduler.take_due(now, due_items, kItemsPerTake);
      for (const auto& item : due_items)
        issue(item, now);
      if (due_items.size() < kItemsPerTake) break;  // nothing more is due
    }
  }

  // Enough unsent requests that the window stays full whatever the per-node limit: a node's
  // items are often due together (a switch's ports), so the backlog must span many nodes.
  size_t max_backlog() const {
    return std::max<size_t>(kMinBacklog, size_t{kBacklogWindows} * engine->options().window);
  }

  void item_done(const Scheduler::Item& item) {
    if (scheduler.done(item, backend.now())) ++local_late;
  }

  void finish_sweep_item(const Context& c, MadFailure failure) {
    const auto ended =
        sweeps.completed(c.sweep, c.port, failure, backend.now(), options.intervals.counters);
    if (!ended) return;
    // Not one port answered, each read refused on the way out: the local port is the cause.
    if (ended->all_unreachable) local_port_down("a sweep found every port unreachable");
    {
      std::lock_guard lock(mutex);
      ++stats.sweeps;
      stats.last_sweep = ended->summary;
    }
    if (events.sweep_done) events.sweep_done(ended->summary);
  }

  void on_done(const MadCompletion& c) {
    const Context ctx = contexts.take(c.cookie);
    if (ctx.item == kSamplerItem) return sample_reply(ctx, c);
    if (ctx.item == kClearItem) return clear_reply(ctx, c);
    if (ctx.item == kTickItem) return tick_reply(ctx, c);
    if (--items[ctx.item].pending == 0) {
      items.free(ctx.item);
      item_done(items[ctx.item].item);
    }
    if (ctx.group == Group::kPortInfo) return port_info_reply(ctx, c);
    const RawSample s = to_sample(ctx, c);
    if (c.failure == MadFailure::kStatus && ctx.attribute != Attribute::kPortCounters) {
      if (unsupported[ctx.port.node_guid].insert(ctx.attribute).second) {
        rebuild_plans();
        auto info = schema::find_attribute(ctx.attribute);
        warn(
            fmt::format("event=attribute_unsupported node_guid={} attribute={} mad_status=0x{:04x}",
                        guid_string(ctx.port.node_guid), info ? info->name : "?", c.mad_status));
      }
    }
    if (c.failure == MadFailure::kUnreachable && ctx.primary) {
      std::lock_guard lock(mutex);
      rediscover_requested = true;  // a link may have gone: look again soon
      pending_work.store(true);
    }
    // Counted locally and published once per loop turn: no lock per MAD on the hot path.
    ++local_samples;
    if (!ring.push(s)) ++local_drops;
    if (!pending_clears.empty() && c.failure == MadFailure::kNone) clear_after_read(ctx);
    if (ctx.primary) finish_sweep_item(ctx, c.failure);
  }

  // Starts due samples and sends what the running ones need; returns when next to look.
  Clock::time_point drive_sampling(Clock::time_point now) {
    return sampling.drive(
        now, topology,
        [this](uint32_t index, PortKey port, MadRequest& request) {
          send_sample_mad(index, port, request);
        },
        [this](PortKey port, const SampleResult& result, const SampleRequest& request,
               Clock::time_point when) { sample_ended(port, result, request, when); });
  }

  RawSample to_sample(const Context& ctx, const MadCompletion& c) const {
    return annotated_sample(ctx.index < plans.size() ? &plans[ctx.index] : nullptr, ctx.port,
                            ctx.attribute, options.subnet, c, ctx.cleared);
  }

  // A clear goes out right after a read of the same attribute: the counts in between, which
  // the clear loses, are as few as the fabric allows (the converter reports the window).
  void clear_after_read(const Context& ctx) {
    const auto it = pending_clears.find({ctx.port, ctx.attribute});
    if (it == pending_clears.end() || ctx.index >= topology.ports.size()) return;
    const Port& port = topology.ports[ctx.index];
    Context set = ctx;
    set.item = kClearItem;
    set.primary = false;  // its answer is a baseline, not the port's reading
    set.cleared = it->second;
    pending_clears.erase(it);
    engine->submit(pma_clear(ctx.attribute, port.lid, port.key.port, plans[ctx.index].node,
                             set.cleared, new_context(set)));
    ++local_clears_sent;
  }

  // A Set's response is a sample too: the counters after the clear, flagged as such.
  void clear_reply(const Context& ctx, const MadCompletion& c) {
    const RawSample s = to_sample(ctx, c);
    ++local_samples;
    if (!ring.push(s)) ++local_drops;
  }

  void take_clear_requests() {
    if (clears == nullptr) return;
    ClearRequest r;
    while (clears->pop(r)) {
      // A clear of an attribute the port is not read through would wait forever.
      if (reads(r.port, r.attribute)) pending_clears[{r.port, r.attribute}] |= r.fields;
    }
  }

  // Nodes' PortSamplesControl, a few at a time (tick_asks.h), apart from the scheduled reads.
  void ask_ticks() {
    while (const auto ask = ticks.next()) {
      const uint32_t node = plans.size() > ask->port_index ? plans[ask->port_index].node : 0;
      engine->submit(
          pma_get(Attribute::kPortSamplesControl, ask->lid, ask->port.port, node,
                  new_context(Context{ask->port, Attribute::kPortSamplesControl, Group::kDetails, 0,
                                      kTickItem, static_cast<uint32_t>(ask->port_index)})));
    }
  }

  // The answer goes to the converter raw, as every reading does (RawSample: Tick in values[0]).
  void tick_reply(const Context& ctx, const MadCompletion& c) {
    if (c.failure != MadFailure::kNone) {
      ticks.failed(ctx.port.node_guid, c.failure == MadFailure::kStatus, c.received);
      ++tick_failures[static_cast<size_t>(c.failure)];
      return;
    }
    ticks.answered(ctx.port.node_guid);
    ++tick_answers;
    RawSample s;
    s.port = ctx.port;
    s.subnet = options.subnet;
    s.attribute = Attribute::kPortSamplesControl;
    s.received = c.received;
    s.values[0] = sample_control_tick(c.data);
    s.field_count = 1;
    s.advertised = 1;
    ++local_samples;
    if (!ring.push(s)) ++local_drops;
  }

  void send_sample_mad(uint32_t index, PortKey port, MadRequest& request) {
    const auto found = node_index.find(port.node_guid);
    request.node = found != node_index.end() ? found->second : 0;
    request.cookie = new_context(Context{port, static_cast<Attribute>(request.attribute),
                                         Group::kDetails, 0, kSamplerItem, index});
    engine->submit(request);
  }

  void sample_reply(const Context& ctx, const MadCompletion& c) {
    sampling.on_reply(
        ctx.index, c,
        [this](PortKey port, const SampleResult& result, const SampleRequest& request,
               Clock::time_point when) { sample_ended(port, result, request, when); });
  }

  void sample_ended(PortKey port, const SampleResult& result, const SampleRequest& request,
                    Clock::time_point now) {
    if (result.outcome == SampleOutcome::kDone) {
      ++local_samples;
      if (!ring.push(sample_reading(port, options.subnet, result, request, now))) ++local_drops;
    }
    if (events.sampled) events.sampled(port, result, request);
  }

  void publish() {
    std::lock_guard lock(mutex);
    stats.mad = engine->stats();
    // The engine counts every MAD; a tick ask's failure is not a read's (PollerStats).
    for (size_t i = 0; i < tick_failures.size(); ++i)
      stats.mad.failed[i] -= std::min(stats.mad.failed[i], tick_failures[i]);
    stats.tick_asks_answered = tick_answers;
    stats.tick_asks_failed = 0;
    for (const uint64_t n : tick_failures)
      stats.tick_asks_failed += n;
    stats.samples = local_samples;
    stats.clears_sent = local_clears_sent;
    stats.ring_drops = local_drops;
    stats.late_reads = local_late;
    stats.port_info_reads = local_port_info_reads;
    stats.port_info_failures = local_port_info_failures;
    stats.port_changes = local_port_changes;
  }

  void apply_pending(Clock::time_point now) {
    if (!pending_work.exchange(false)) return;  // the common case takes no lock
    std::optional<PollerOptions> next;
    bool rediscover = false;
    {
      std::lock_guard lock(mutex);
      next.swap(pending_options);
      rediscover = rediscover_requested;
      rediscover_requested = false;
    }
    if (next) {
      const auto mad = options.mad;      // the engine keeps its window until restart
      const auto shard = options.shard;  // and the shard its nodes (docs/scale-out.md)
      auto split = options.split;        // and the local ports theirs
      const std::string ca = options.discovery.ca;
      const int ca_port = options.discovery.ca_port;
      const size_t split_index = options.split_index;
      const uint8_t subnet = options.subnet;
      options = std::move(*next);
      options.subnet = subnet;
      options.mad = mad;
      options.shard = shard;
      options.split = std::move(split);
      options.split_index = split_index;
      options.discovery.ca = ca;  // the engine stays on its local port until restart
      options.discovery.ca_port = ca_port;
      name_cache_file();
      follow_missing_limit();
      scheduler.set_intervals(options.intervals);
      sampling.reset(options.sampling);
      rediscover = true;
    }
    // A requested rediscovery waits at least 5 s after the last one: a flapping link must not
    // turn the poller into a discovery loop.
    if (rediscover) next_discovery = std::min(next_discovery, std::max(now, last_discovery + 5s));
  }

  void step() {
    const auto done = [this](const MadCompletion& c) { on_done(c); };
    auto now = backend.now();
    apply_pending(now);
    if (now >= next_discovery) {
      drain(*engine, done);  // samples of the old topology land before it changes
      // libibnetdisc registers the SMP class on its own port: hand it over meanwhile.
      (void)engine->enable_smp(false);
      discover(now);
      enable_smp();
      now = backend.now();
    }
    // Another local port went down or came back: take or give back nodes without discovery.
    if (options.split && options.split->generation() != split_generation) {
      drain(*engine, done);
      adopt(now);
    }
    retry_capabilities(now);
    take_clear_requests();
    issue_due(now);
    ask_ticks();
    auto wake = std::min(next_discovery, now + 100ms);
    if (auto due = scheduler.next_due()) wake = std::min(wake, *due);
    if (!sampling.empty()) wake = std::min(wake, drive_sampling(now));
    auto wait = std::chrono::ceil<std::chrono::milliseconds>(
        wake - now);  // never 0 for a wait: no spinning
    if (backend.turn_limit.count() > 0) wait = std::min(wait, backend.turn_limit);
    if (engine->idle()) {
      if (wait.count() > 0) backend.sleep(wait);
    } else {
      engine->poll(std::max(wait, 0ms), done);
    }
    // Other threads read stats() now and then: publishing every 20 ms is fresh enough.
    if (now - last_publish > 20ms) {
      publish();
      last_publish = now;
    }
  }

  void finish() {
    drain(*engine, [this](const MadCompletion& c) { on_done(c); });
    publish();
  }
};

Poller::Poller(PollerOptions options, SampleRing& ring, PollerEvents events, ClearRing* clears,
               PollerBackend backend)
    : state_(std::make_unique<State>(std::move(options), ring, std::move(events),
                                     std::move(backend))) {
  state_->clears = clears;
  state_->stats.shard = state_->options.shard;
}

Poller::~Poller() = default;

Status Poller::start() {
  auto& s = *state_;
  auto engine =
      s.backend.open_engine(s.options.discovery.ca, s.options.discovery.ca_port, s.options.mad);
  if (!engine) return Error{engine.error()};
  s.engine = std::move(*engine);
  if (!s.discover(s.backend.now())) return Err("the first discovery failed; see the log");
  s.enable_smp();
  s.sampling.reset(s.options.sampling);
  return Ok{};
}

void Poller::step() {
  state_->step();
}

void Poller::finish() {
  state_->finish();
}

Status Poller::run(const std::atomic<bool>& stop) {
  name_this_thread("ibp-poller");
  if (auto started = start(); !started) return started;
  while (!stop.load())
    state_->step();
  finish();
  return Ok{};
}

PollerStats Poller::stats() const {
  std::lock_guard lock(state_->mutex);
  return state_->stats;
}

void Poller::reconfigure(const PollerOptions& options) {
  std::lock_guard lock(state_->mutex);
  state_->pending_options = options;
  state_->pending_work.store(true);
}

}  // namespace ibpulse::collector
