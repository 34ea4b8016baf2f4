#include "ibpulse/collector/subnets.h"

#include <fmt/format.h>

#include <algorithm>

namespace ibpulse::collector {

SubnetSet::SubnetSet(const PollerOptions& options, std::vector<std::vector<LocalPort>> subnets,
                     std::vector<Topology::Subnet> names, std::vector<SampleRing*> rings,
                     PollerEvents events, std::vector<ClearRing*> clears, PollerBackend backend)
    : events_(std::move(events)), names_(std::move(names)) {
  if (subnets.empty()) subnets.emplace_back();
  names_.resize(subnets.size());
  if (subnets.size() > 1) {
    // libibnetdisc runs one discovery at a time per process, whichever subnet it is for.
    discovery_mutex_ = std::make_shared<std::mutex>();
    auto discover = backend.discover;
    if (!discover) discover = [](const DiscoveryOptions& o) { return collector::discover(o); };
    backend.discover = [m = discovery_mutex_, discover](const DiscoveryOptions& o) {
      std::lock_guard lock(*m);
      return discover(o);
    };
  }
  parts_.resize(subnets.size());
  sizes_.resize(subnets.size());
  round_.resize(subnets.size());
  size_t first_ring = 0;
  for (size_t i = 0; i < subnets.size(); ++i) {
    PollerOptions mine = options;
    mine.subnet = static_cast<uint8_t>(i);
    const size_t count = std::max<size_t>(1, subnets[i].size());
    std::vector<SampleRing*> own_rings(rings.begin() + static_cast<ptrdiff_t>(first_ring),
                                       rings.begin() + static_cast<ptrdiff_t>(first_ring + count));
    std::vector<ClearRing*> own_clears;
    if (!clears.empty()) {
      own_clears.assign(clears.begin() + static_cast<ptrdiff_t>(first_ring),
                        clears.begin() + static_cast<ptrdiff_t>(first_ring + count));
    }
    first_ring += count;
    PollerEvents ev = events_;
    ev.discovered = [this, i](const Topology& t, const TopologyChanges& c) { discovered(i, t, c); };
    ev.sweep_done = [this, i](const SweepSummary& s) { sweep_done(i, s); };
    groups_.push_back(std::make_unique<PollerGroup>(std::move(mine), std::move(subnets[i]),
                                                    std::move(own_rings), std::move(ev),
                                                    std::move(own_clears), backend));
  }
}

SubnetSet::~SubnetSet() = default;

void SubnetSet::discovered(size_t index, const Topology& topology, const TopologyChanges& changes) {
  std::lock_guard lock(mutex_);
  names_[index].prefix = topology.subnet_prefix;
  sizes_[index] = {topology.nodes.size(), topology.ports.size()};
  if (groups_.size() == 1) {
    // Nothing to merge: the subnet's topology named, and no copy kept (70,000 ports are a few
    // MB each).
    Topology named = topology;
    named.subnets = names_;
    if (events_.discovered) events_.discovered(named, changes);
    return;
  }
  const bool first_of_subnet = !parts_[index];
  parts_[index] = SubnetPart{topology, static_cast<uint8_t>(index)};
  std::vector<const SubnetPart*> parts;
  for (const auto& p : parts_)
    if (p) parts.push_back(&*p);
  SubnetDuplicates duplicates;
  Topology merged = merge_subnets(parts, names_, duplicates);
  duplicate_ports_ = duplicates.found.size();
  for (const auto& d : duplicates.found)
    if (reported_.emplace(d.key, d.port_guid).second) warn_duplicate(d);  // once each
  TopologyChanges merged_changes = diff(merged_, merged);
  // A subnet's first discovery is new as a whole, as the daemon's first one is: say so the
  // same way (every node added) rather than one node_added line per node of a new fabric.
  if (first_of_subnet) {
    merged_changes = TopologyChanges{};
    for (const Node& n : merged.nodes)
      merged_changes.nodes_added.push_back(n.guid);
  }
  merged_ = std::move(merged);
  if (events_.discovered) events_.discovered(merged_, merged_changes);
}

void SubnetSet::warn_duplicate(const SubnetDuplicates::Duplicate& d) const {
  if (!events_.warning) return;
  events_.warning(
      fmt::format("event=duplicate_port node_guid={} port={} port_guid={} subnet={} "
                  "other_subnet={} same={} note=\"seen in two subnets: the first subnet's port "
                  "is kept\"",
                  guid_string(d.key.node_guid), d.key.port, guid_string(d.port_guid),
                  names_[d.first_subnet].local_port, names_[d.other_subnet].local_port,
                  d.same_key ? "node_port" : "port_guid"));
}

void SubnetSet::sweep_done(size_t index, const SweepSummary& summary) {
  if (groups_.size() == 1) {
    if (events_.sweep_done) events_.sweep_done(summary);
    return;
  }
  SweepSummary whole;
  {
    std::lock_guard lock(mutex_);
    round_[index] = summary;
    // Every subnet, one still starting too: the first round, the daemon's `ready`, covers every
    // subnet. (A subnet whose first discovery fails stops the start, as with one subnet.)
    for (const auto& part : round_)
      if (!part) return;
    whole = sum_round(round_);
    whole.number = ++sweeps_;
    last_sweep_ = whole;
  }
  if (events_.sweep_done) events_.sweep_done(whole);
}

Status SubnetSet::start() {
  for (auto& g : groups_)
    if (auto s = g->start(); !s) return s;
  return Ok{};
}

void SubnetSet::step() {
  for (auto& g : groups_)
    g->step();
}

void SubnetSet::finish() {
  for (auto& g : groups_)
    g->finish();
}

Status SubnetSet::run(const std::atomic<bool>& stop) {
  if (groups_.size() == 1) return groups_[0]->run(stop);
  return run_together(
      groups_.size(), [this](size_t i, const std::atomic<bool>& s) { return groups_[i]->run(s); },
      stop);
}

PollerStats SubnetSet::stats() const {
  PollerStats out = groups_[0]->stats();
  for (size_t i = 1; i < groups_.size(); ++i) {
    const PollerStats s = groups_[i]->stats();
    add_poller_stats(out, s);
    out.local_ports.insert(out.local_ports.end(), s.local_ports.begin(), s.local_ports.end());
    out.local_port_failovers += s.local_port_failovers;
  }
  std::lock_guard lock(mutex_);
  if (groups_.size() > 1) {
    out.sweeps = sweeps_;
    out.last_sweep = last_sweep_;
    // A node cabled to several rails is one node, and a port in two subnets one port.
    if (!merged_.nodes.empty()) {
      out.nodes = merged_.nodes.size();
      out.ports = merged_.ports.size();
    }
  }
  for (size_t i = 0; i < names_.size(); ++i) {
    out.subnets.push_back(
        {names_[i].prefix, names_[i].local_port, sizes_[i].first, sizes_[i].second});
  }
  out.duplicate_ports = duplicate_ports_;
  return out;
}

void SubnetSet::reconfigure(const PollerOptions& options) {
  for (auto& g : groups_)
    g->reconfigure(options);  // each keeps its own subnet, local ports, split and shard
}

}  // namespace ibpulse::collector
