#include "ibpulse/collector/poller_group.h"

#include <algorithm>
#include <thread>

namespace ibpulse::collector {

void add_mad_stats(MadStats& a, const MadStats& b) {
  a.sent += b.sent;
  a.answered += b.answered;
  a.retried += b.retried;
  a.attempt_timeouts += b.attempt_timeouts;
  a.attempt_unreachable += b.attempt_unreachable;
  a.stale_replies += b.stale_replies;
  a.malformed_replies += b.malformed_replies;
  for (size_t i = 0; i < a.failed.size(); ++i)
    a.failed[i] += b.failed[i];
}

void add_poller_stats(PollerStats& a, const PollerStats& b) {
  a.samples += b.samples;
  a.ring_drops += b.ring_drops;
  a.late_reads += b.late_reads;
  a.discoveries += b.discoveries;
  a.discovery_failures += b.discovery_failures;
  a.missing_nodes += b.missing_nodes;
  a.nodes_gone += b.nodes_gone;
  a.ports_without_port_info += b.ports_without_port_info;
  a.port_info_reads += b.port_info_reads;
  a.port_info_failures += b.port_info_failures;
  a.port_changes += b.port_changes;
  a.partition_reads += b.partition_reads;
  a.partition_read_failures += b.partition_read_failures;
  a.sm_info_reads += b.sm_info_reads;
  a.sm_info_failures += b.sm_info_failures;
  a.clears_sent += b.clears_sent;
  a.tick_asks_answered += b.tick_asks_answered;
  a.tick_asks_failed += b.tick_asks_failed;
  a.ports += b.ports;
  a.nodes += b.nodes;
  a.owned_nodes += b.owned_nodes;
  add_mad_stats(a.mad, b.mad);
}

SweepSummary sum_round(std::vector<std::optional<SweepSummary>>& round) {
  SweepSummary whole;
  for (auto& part : round) {
    if (!part) continue;
    whole.ports += part->ports;
    whole.stale += part->stale;
    whole.seconds = std::max(whole.seconds, part->seconds);
    whole.lag_seconds = std::max(whole.lag_seconds, part->lag_seconds);
    part.reset();
  }
  return whole;
}

Status run_together(size_t count,
                    const std::function<Status(size_t, const std::atomic<bool>&)>& run,
                    const std::atomic<bool>& stop) {
  std::atomic<bool> stop_all{false};
  std::vector<Status> results(count, Status{Ok{}});
  std::vector<std::thread> threads;
  for (size_t i = 1; i < count; ++i) {
    threads.emplace_back([&, i] {
      results[i] = run(i, stop_all);
      if (!results[i]) stop_all.store(true);
    });
  }
  std::thread watcher([&] {
    while (!stop.load() && !stop_all.load())
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    stop_all.store(true);
  });
  results[0] = run(0, stop_all);
  stop_all.store(true);
  watcher.join();
  for (auto& t : threads)
    t.join();
  for (auto& r : results)
    if (!r) return r;
  return Ok{};
}

PollerGroup::PollerGroup(PollerOptions options, std::vector<LocalPort> ports,
                         std::vector<SampleRing*> rings, PollerEvents events,
                         std::vector<ClearRing*> clears, PollerBackend backend)
    : events_(std::move(events)), ports_(std::move(ports)) {
  if (ports_.size() <= 1) {
    if (ports_.size() == 1) {
      options.discovery.ca = ports_[0].ca;
      options.discovery.ca_port = ports_[0].port;
    }
    pollers_.push_back(std::make_unique<Poller>(std::move(options), *rings.at(0), events_,
                                                clears.empty() ? nullptr : clears.at(0),
                                                std::move(backend)));
    return;
  }
  split_ = std::make_shared<LocalPortSplit>(ports_.size());
  // libibnetdisc runs one discovery at a time per process.
  discovery_mutex_ = std::make_shared<std::mutex>();
  auto discover = backend.discover;
  if (!discover) discover = [](const DiscoveryOptions& o) { return collector::discover(o); };
  backend.discover = [m = discovery_mutex_, discover](const DiscoveryOptions& o) {
    std::lock_guard lock(*m);
    return discover(o);
  };
  round_.resize(ports_.size());
  for (size_t i = 0; i < ports_.size(); ++i) {
    PollerOptions mine = options;
    mine.discovery.ca = ports_[i].ca;
    mine.discovery.ca_port = ports_[i].port;
    mine.split = split_;
    mine.split_index = i;
    PollerEvents ev = events_;
    ev.sweep_done = [this, i](const SweepSummary& s) { sweep_done(i, s); };
    pollers_.push_back(std::make_unique<Poller>(std::move(mine), *rings.at(i), std::move(ev),
                                                clears.empty() ? nullptr : clears.at(i), backend));
  }
}

PollerGroup::~PollerGroup() = default;

void PollerGroup::sweep_done(size_t index, const SweepSummary& summary) {
  SweepSummary whole;
  {
    std::lock_guard lock(mutex_);
    round_[index] = summary;
    for (size_t i = 0; i < round_.size(); ++i)
      if (split_->up(i) && !round_[i]) return;  // a port that is up has not finished its part
    whole = sum_round(round_);
    whole.number = ++sweeps_;
    last_sweep_ = whole;
  }
  if (events_.sweep_done) events_.sweep_done(whole);
}

Status PollerGroup::start() {
  for (auto& p : pollers_)
    if (auto s = p->start(); !s) return s;
  return Ok{};
}

void PollerGroup::step() {
  for (auto& p : pollers_)
    p->step();
}

void PollerGroup::finish() {
  for (auto& p : pollers_)
    p->finish();
}

Status PollerGroup::run(const std::atomic<bool>& stop) {
  if (pollers_.size() == 1) return pollers_[0]->run(stop);
  return run_together(
      pollers_.size(), [this](size_t i, const std::atomic<bool>& s) { return pollers_[i]->run(s); },
      stop);
}

PollerStats PollerGroup::stats() const {
  PollerStats out = pollers_[0]->stats();
  if (pollers_.size() == 1) return out;
  for (size_t i = 1; i < pollers_.size(); ++i) {
    const PollerStats s = pollers_[i]->stats();
    const size_t nodes = std::max(out.nodes, s.nodes);  // each poller sees every node
    add_poller_stats(out, s);
    out.nodes = nodes;
  }
  {
    std::lock_guard lock(mutex_);
    out.sweeps = sweeps_;
    out.last_sweep = last_sweep_;
  }
  for (size_t i = 0; i < ports_.size(); ++i)
    out.local_ports.push_back({ports_[i].ca, ports_[i].port, split_->up(i)});
  out.local_port_failovers = split_->failovers();
  return out;
}

void PollerGroup::reconfigure(const PollerOptions& options) {
  for (auto& p : pollers_)
    p->reconfigure(options);  // each keeps its own local port, split and shard
}

}  // namespace ibpulse::collector
