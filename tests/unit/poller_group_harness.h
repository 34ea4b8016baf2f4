#pragma once
// Runs a PollerGroup (one poller per local port, the nodes split between them) against one
// FakeFabric, each local port with its own FakeMadEngine, all on one virtual clock: the group
// is stepped on the test's thread, each turn at most 1 ms of virtual time, so that no poller
// runs ahead of the others. A fabric of two 13-port switches (0x100 LID 1, 0x101 LID 2) linked
// on their ports 13, each with HCAs on ports 1-12 (GUIDs 0x1001.., LIDs from 10).
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "ibpulse/collector/poller_group.h"
#include "ibpulse/collector/testing/fake_fabric.h"
#include "ibpulse/collector/testing/fake_mad_engine.h"
#include "ibpulse/collector/testing/virtual_clock.h"

namespace ibpulse::collector {

struct GroupHarness {
  static constexpr size_t kHcas = 24;
  static constexpr size_t kLinked = 2 * kHcas + 2;

  testing::VirtualClock clock;
  testing::FakeFabric fabric;
  PollerOptions options;
  std::vector<LocalPort> ports{{"mlx5_0", 1}, {"mlx5_1", 1}};
  std::vector<std::unique_ptr<SampleRing>> rings;
  std::map<std::string, testing::FakeMadEngine*> engines;  // by CA, while the group runs
  std::set<std::string> discovery_down;                    // CAs whose discovery fails
  std::vector<ClearRing*> clears;  // one per local port, if the test sends clear requests
  // Filled by run(): every sample with the ring (local port) it came through and the number of
  // full sweeps that had ended when it was drained.
  struct Taken {
    RawSample sample;
    size_t ring = 0;
    size_t after_sweeps = 0;
  };
  std::vector<Taken> samples;
  std::vector<SweepSummary> sweeps;
  std::vector<std::string> warnings;
  PollerStats stats;
  std::function<void(const SweepSummary&)> on_sweep;

  GroupHarness() {
    uint16_t lid = 10;
    for (uint64_t sw = 0; sw < 2; ++sw) {
      fabric.add_switch(0x100 + sw, static_cast<uint16_t>(1 + sw), 13);
      for (uint8_t p = 1; p <= 12; ++p) {
        const uint64_t guid = 0x1001 + sw * 12 + (p - 1u);
        fabric.add_hca(guid, lid++);
        fabric.link({guid, 1}, {0x100 + sw, p});
      }
    }
    fabric.link({0x100, 13}, {0x101, 13});
    options.intervals = Intervals{std::chrono::seconds(1), std::chrono::seconds(10),
                                  std::chrono::seconds(60), std::chrono::milliseconds(0)};
    options.rediscover = std::chrono::minutes(5);
  }

  std::vector<PortKey> linked_ports() const {
    std::vector<PortKey> out;
    for (const Port& p : fabric.topology().ports)
      if (p.remote && p.key.port != 0) out.push_back(p.key);
    return out;
  }

  Status run(size_t sweep_count, std::chrono::milliseconds limit = std::chrono::minutes(10)) {
    std::atomic<bool> stop{false};
    const auto deadline = clock.now() + limit;
    PollerBackend backend;
    backend.open_engine = [&](const std::string& ca, int, const MadEngineOptions& o) {
      auto engine = std::make_unique<testing::FakeMadEngine>(fabric, clock, o);
      engines[ca] = engine.get();
      return Result<std::unique_ptr<MadEngine>>(std::move(engine));
    };
    backend.discover = [&](const DiscoveryOptions& o) -> Result<Topology> {
      if (discovery_down.contains(o.ca)) return Err("{}: no SMP answered", o.ca);
      return fabric.topology();
    };
    backend.now = [&] {
      if (clock.now() >= deadline) stop.store(true);
      return clock.now();
    };
    backend.sleep = [&](std::chrono::steady_clock::duration d) { clock.advance(d); };
    backend.turn_limit = std::chrono::milliseconds(1);
    PollerEvents events;
    events.sweep_done = [&](const SweepSummary& s) {
      sweeps.push_back(s);
      if (on_sweep) on_sweep(s);
      if (sweeps.size() >= sweep_count) stop.store(true);
    };
    events.warning = [&](const std::string& w) { warnings.push_back(w); };
    rings.clear();
    std::vector<SampleRing*> raw;
    for (size_t i = 0; i < std::max<size_t>(ports.size(), 1); ++i) {
      rings.push_back(std::make_unique<SampleRing>(1 << 16));
      raw.push_back(rings.back().get());
    }
    PollerGroup group(options, ports, raw, events, clears, std::move(backend));
    auto started = group.start();
    if (!started) return started;
    while (!stop.load()) {
      group.step();
      drain();
    }
    group.finish();
    drain();
    stats = group.stats();
    engines.clear();
    return Ok{};
  }

  void drain() {
    RawSample s;
    for (size_t i = 0; i < rings.size(); ++i)
      while (rings[i]->pop(s))
        samples.push_back({s, i, sweeps.size()});
  }

  size_t count(const std::string& needle) const {
    size_t n = 0;
    for (const auto& w : warnings)
      n += w.find(needle) != std::string::npos;
    return n;
  }
};

}  // namespace ibpulse::collector
