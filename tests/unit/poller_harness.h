#pragma once
// Runs the real Poller against a FakeFabric through a FakeMadEngine on a virtual clock: no
// simulator, no waiting. A small fabric: switch 0x100 (LID 1, 4 ports) linked on ports 1-3 to
// HCAs 0x201-0x203 (LIDs 2-4); switch port 4 has no cable (the idle group).
#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "ibpulse/collector/poller.h"
#include "ibpulse/collector/testing/fake_fabric.h"
#include "ibpulse/collector/testing/fake_mad_engine.h"
#include "ibpulse/collector/testing/virtual_clock.h"

namespace ibpulse::collector {

inline constexpr uint64_t kSwitchGuid = 0x100;
inline constexpr PortKey kHca1{0x201, 1}, kHca2{0x202, 1}, kHca3{0x203, 1};
inline constexpr PortKey kSwitchIdle{kSwitchGuid, 4};
inline constexpr size_t kLinkedPorts = 6;  // three HCA ports and their switch ports

struct PollerHarness {
  testing::VirtualClock clock;
  testing::FakeFabric fabric;
  PollerOptions options;
  SampleRing ring{1 << 16};
  uint64_t seed = 1;
  ClearRing* clears = nullptr;  // the converter's clear requests, if the test sends any
  // Filled by run().
  std::vector<SweepSummary> sweeps;
  std::vector<RawSample> samples;
  std::vector<std::string> warnings;
  unsigned discoveries = 0;
  PollerStats stats;
  // Called after each sweep (e.g. to move the model's counters).
  std::function<void(const SweepSummary&)> on_sweep;
  // Changes what a discovery reports (the model has no link states of its own to change).
  std::function<void(unsigned discovery, Topology&)> on_discover;
  // The port changes the poller reported: the port as it is now, and its link before.
  std::vector<std::pair<Port, LinkState>> port_changes;
  std::vector<Port> port_refreshes;  // PortInfo reads that changed Port::sma only
  // Take the P_Key tables the poller reads (without a taker it reads none).
  bool take_partitions = false;
  std::vector<PortPartitions> partition_tables;
  // Take the subnet managers' SMInfo rounds (without a taker none is read).
  bool take_subnet_managers = false;
  std::vector<std::vector<SubnetManagerInfo>> sm_rounds;

  PollerHarness() {
    fabric.add_switch(kSwitchGuid, 1, 4);
    uint16_t lid = 2;
    for (PortKey hca : {kHca1, kHca2, kHca3}) {
      fabric.add_hca(hca.node_guid, lid++);
      fabric.link(hca, PortKey{kSwitchGuid, static_cast<uint8_t>(lid - 2)});
    }
    options.intervals = Intervals{std::chrono::seconds(1), std::chrono::seconds(10),
                                  std::chrono::seconds(60), std::chrono::milliseconds(0)};
    options.rediscover = std::chrono::minutes(5);
  }

  // Runs the poller until `sweep_count` sweeps ended or `limit` of virtual time passed.
  Status run(size_t sweep_count, std::chrono::milliseconds limit = std::chrono::minutes(10)) {
    std::atomic<bool> stop{false};
    const auto deadline = clock.now() + limit;
    PollerBackend backend;
    backend.open_engine = [&](const std::string&, int, const MadEngineOptions& o) {
      return Result<std::unique_ptr<MadEngine>>(
          std::make_unique<testing::FakeMadEngine>(fabric, clock, o, seed));
    };
    backend.discover = [&](const DiscoveryOptions&) {
      Topology t = fabric.topology();
      if (on_discover)
        on_discover(++discoveries, t);
      else
        ++discoveries;
      return Result<Topology>(std::move(t));
    };
    backend.now = [&] {
      if (clock.now() >= deadline) stop.store(true);
      return clock.now();
    };
    backend.sleep = [&](std::chrono::steady_clock::duration d) { clock.advance(d); };
    PollerEvents events;
    events.sweep_done = [&](const SweepSummary& s) {
      sweeps.push_back(s);
      if (on_sweep) on_sweep(s);
      if (sweeps.size() >= sweep_count) stop.store(true);
    };
    events.warning = [&](const std::string& w) { warnings.push_back(w); };
    events.port_changed = [&](const Port& p, const LinkState& before) {
      port_changes.emplace_back(p, before);
    };
    events.port_refreshed = [&](const Port& p) { port_refreshes.push_back(p); };
    if (take_subnet_managers) {
      events.subnet_managers_read = [&](uint8_t, std::vector<SubnetManagerInfo> sms) {
        sm_rounds.push_back(std::move(sms));
      };
    }
    if (take_partitions) {
      events.partitions_read = [&](std::vector<PortPartitions> tables) {
        partition_tables.insert(partition_tables.end(), tables.begin(), tables.end());
      };
    }
    // The ring is drained on the poller's thread: it is this test's only consumer.
    events.discovered = [&](const Topology&, const TopologyChanges&) { drain_ring(); };
    Poller poller(options, ring, events, clears, std::move(backend));
    auto ran = poller.run(stop);
    drain_ring();
    stats = poller.stats();
    return ran;
  }

  void drain_ring() {
    RawSample s;
    while (ring.pop(s))
      samples.push_back(s);
  }

  // Samples of `port` and `attribute`, and those that failed.
  std::vector<RawSample> of(PortKey port, schema::Attribute attribute) const {
    std::vector<RawSample> out;
    for (const RawSample& s : samples) {
      if (s.port == port && s.attribute == attribute) out.push_back(s);
    }
    return out;
  }
  size_t failed(PortKey port, schema::Attribute attribute) const {
    size_t n = 0;
    for (const RawSample& s : of(port, attribute))
      n += s.failure != MadFailure::kNone;
    return n;
  }
};

}  // namespace ibpulse::collector
