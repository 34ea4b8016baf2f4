// The poller's discovery hand-off: a discovery's topology made its own (shard, skipped and
// missing nodes, the last run's cache, local ports sharing the subnet), then its reads planned.
#include <fmt/format.h>

#include "ibpulse/base/check.h"
#include "ibpulse/base/log_text.h"
#include "poller_state.h"

namespace ibpulse::collector {

using namespace poller_detail;  // NOLINT(google-build-using-namespace): this module's own
using namespace std::chrono_literals;

void Poller::State::follow_missing_limit() {
  missing.limit = std::max(1u, options.missing_limit);
  missing.min_span = options.rediscover * (missing.limit - 1);
}

void Poller::State::name_cache_file() {
  auto& d = options.discovery;
  if (d.cache_file.empty()) return;
  d.cache_file += fmt::format("-{}-{}.ibnd", d.ca.empty() ? "default" : d.ca, d.ca_port);
}

bool Poller::State::discover(Clock::time_point now) {
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
    next_discovery = std::min(next_discovery,
                              now + std::max<Clock::duration>(options.rediscover - fresh.cache_age,
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

size_t Poller::State::own(Topology& t) const {
  for (Port& p : t.ports)
    p.subnet = options.subnet;
  std::erase_if(t.ports,
                [&](const Port& p) { return options.skip_nodes.contains(p.key.node_guid); });
  return keep_shard_ports(t, options.shard);
}

Topology Poller::State::last_run_topology(const Topology& fresh) {
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

void Poller::State::commit_cache() const {
  if (options.discovery.cache_file.empty()) return;
  if (auto done = commit_discovery_cache(options.discovery.cache_file); !done)
    warn(fmt::format("event=discovery_cache_failed error=\"{}\"", log_text(done.error())));
}

size_t Poller::State::report_missing(const MissingNodes::Outcome& o) {
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

bool Poller::State::report_port_infos(const MissingNodes::Outcome& o) {
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
                  o.port_info_kept.size(), o.port_info_unknown.size(), guid_string(first.node_guid),
                  first.port));
  return true;
}

void Poller::State::adopt(Clock::time_point now) {
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
  if (reads_partition_tables()) partition_reads.plan(topology);
  sm_next_round = now;  // a new topology: its subnet managers now
  scheduler.update(topology, now);
  std::lock_guard lock(mutex);
  stats.ports = topology.ports.size();
  stats.nodes = topology.nodes.size();
  stats.owned_nodes = owned_nodes;
}

std::vector<SweepTarget> Poller::State::linked_targets() const {
  std::vector<SweepTarget> targets;
  for (const Port& p : topology.ports) {
    if (p.remote && p.lid != 0) targets.push_back({p.key, p.lid});
  }
  return targets;
}

void Poller::State::retry_capabilities(Clock::time_point now) {
  if (!capabilities.any_pending() || now < capabilities.next_retry()) return;
  drain(*engine, [this](const MadCompletion& c) { on_done(c); });
  if (capabilities.retry_due(*engine, linked_targets(), now,
                             [this](const std::string& text) { warn(text); }))
    rebuild_plans();
}

void Poller::State::report_cache(const Topology& t) const {
  const auto& file = options.discovery.cache_file;
  if (t.from_cache) {
    warn(
        fmt::format("event=discovery_cached file=\"{}\" nodes={} ports={} age_seconds={} "
                    "note=\"started from the cached topology; the next discovery comes when "
                    "it is discovery.interval old\"",
                    log_text(file.string()), t.nodes.size(), t.ports.size(), t.cache_age.count()));
  }
  if (!t.cache_error.empty())
    warn(fmt::format("event=discovery_cache_failed error=\"{}\"", log_text(t.cache_error)));
}

void Poller::State::report_link_changes(const Topology& next) {
  if (!events.port_changed) return;
  for (const Port& p : next.ports) {
    const Port* known = topology.find_port(p.key);
    if (!known || known->link.state == 0 || known->link == p.link) continue;
    ++local_port_changes;
    events.port_changed(p, known->link);
  }
}

void Poller::State::local_port_down(std::string_view why) {
  if (!options.split || !options.split->set_up(options.split_index, false)) return;
  warn(
      fmt::format("event=local_port_down ca={} port={} reason=\"{}\" note=\"its nodes go to "
                  "the other local ports until it is back\"",
                  options.discovery.ca, options.discovery.ca_port, log_text(why)));
  // Try again soon: a discovery through it that succeeds brings it back.
  next_discovery = std::min(next_discovery, backend.now() + options.local_port_retry);
}

void Poller::State::local_port_up() {
  if (!options.split->set_up(options.split_index, true)) return;
  warn(fmt::format("event=local_port_up ca={} port={} note=\"its nodes return to it\"",
                   options.discovery.ca, options.discovery.ca_port));
}

}  // namespace ibpulse::collector
