// One daemon polling two subnets (rails) through a SubnetSet, each rail a FakeFabric behind
// its own local port (mlx5_0:1 reaches rail A, mlx5_1:1 rail B), stepped on one virtual clock.
// Both rails use the same LIDs, as separate subnets do. HCA 0xC00 is cabled to both rails (its
// port 1 to A, port 2 to B): a node GUID in two subnets is normal.
#include "ibpulse/collector/subnets.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <mutex>
#include <set>

#include "ibpulse/collector/testing/fake_fabric.h"
#include "ibpulse/collector/testing/fake_mad_engine.h"
#include "ibpulse/collector/testing/virtual_clock.h"
#include "ibpulse/converters/converter.h"

namespace ibpulse::collector {
namespace {

using namespace std::chrono_literals;
using schema::Attribute;
using schema::CounterId;

constexpr uint64_t kMultiRail = 0xC00;

struct RailsHarness {
  testing::VirtualClock clock;
  testing::FakeFabric rail_a, rail_b;
  PollerOptions options;
  std::vector<std::unique_ptr<SampleRing>> rings;
  std::vector<std::pair<RawSample, size_t>> samples;  // with the ring it came through
  std::vector<SweepSummary> sweeps;
  std::vector<std::string> warnings;
  std::vector<Topology> discovered;
  PollerStats stats;
  bool rail_b_down = false;        // discovery through mlx5_1:1 fails
  std::vector<ClearRing*> clears;  // one per local port, if the test sends clear requests

  // A switch at LID 1 with HCAs `base`+1 and `base`+2 (LIDs 2, 3) on ports 1-2 and the
  // multi-rail HCA's port `multi_port` (LID 4) on port 3; port 4 has no cable.
  static void build(testing::FakeFabric& f, uint64_t base, uint8_t multi_port) {
    f.add_switch(base, 1, 4);
    for (uint8_t i = 1; i <= 2; ++i) {
      f.add_hca(base + i, static_cast<uint16_t>(1 + i));
      f.link({base + i, 1}, {base, i});
    }
    f.add_hca(kMultiRail, 4, multi_port);
    f.link({kMultiRail, multi_port}, {base, 3});
  }

  RailsHarness() {
    build(rail_a, 0xA00, 1);
    build(rail_b, 0xB00, 2);
    options.intervals = Intervals{1s, 10s, 60s, 0ms};
    options.rediscover = 5s;
  }

  testing::FakeFabric& rail_of(const std::string& ca) { return ca == "mlx5_0" ? rail_a : rail_b; }

  Status run(size_t sweep_count) {
    std::atomic<bool> stop{false};
    PollerBackend backend;
    backend.open_engine = [&](const std::string& ca, int, const MadEngineOptions& o) {
      return Result<std::unique_ptr<MadEngine>>(
          std::make_unique<testing::FakeMadEngine>(rail_of(ca), clock, o));
    };
    backend.discover = [&](const DiscoveryOptions& o) -> Result<Topology> {
      if (rail_b_down && o.ca == "mlx5_1") return Err("no SMP answered");
      return rail_of(o.ca).topology();
    };
    backend.now = [&] { return clock.now(); };
    backend.sleep = [&](std::chrono::steady_clock::duration d) { clock.advance(d); };
    backend.turn_limit = 1ms;
    PollerEvents events;
    events.sweep_done = [&](const SweepSummary& s) {
      sweeps.push_back(s);
      if (sweeps.size() >= sweep_count) stop.store(true);
    };
    events.warning = [&](const std::string& w) { warnings.push_back(w); };
    events.discovered = [&](const Topology& t, const TopologyChanges&) { discovered.push_back(t); };
    std::vector<SampleRing*> raw;
    for (size_t i = 0; i < 2; ++i) {
      rings.push_back(std::make_unique<SampleRing>(1 << 16));
      raw.push_back(rings.back().get());
    }
    SubnetSet set(options, {{{"mlx5_0", 1}}, {{"mlx5_1", 1}}}, {{0, "mlx5_0:1"}, {0, "mlx5_1:1"}},
                  raw, events, clears, std::move(backend));
    if (auto started = set.start(); !started) return started;
    for (auto deadline = clock.now() + 10min; !stop.load() && clock.now() < deadline;) {
      set.step();
      drain();
    }
    set.finish();
    drain();
    stats = set.stats();
    return Ok{};
  }

  void drain() {
    RawSample s;
    for (size_t i = 0; i < rings.size(); ++i)
      while (rings[i]->pop(s))
        samples.emplace_back(s, i);
  }

  size_t count(const std::string& needle) const {
    size_t n = 0;
    for (const auto& w : warnings)
      n += w.find(needle) != std::string::npos;
    return n;
  }
};

// counters.clear-policy threshold on two rails: each request reaches both subnets' pollers and
// the one whose rail has the port clears it.
TEST(SubnetSet, EachRailClearsItsOwnPorts) {
  RailsHarness h;
  ClearRings clears(2, 16);
  h.clears = clears.rings();
  const uint64_t symbol_error = 1;  // field 0 of PortCounters
  h.rail_a.set({0xA01, 1}, CounterId::kSymbolError, 50);
  h.rail_b.set({0xB01, 1}, CounterId::kSymbolError, 60);
  ASSERT_TRUE(clears.push(ClearRequest{{0xA01, 1}, Attribute::kPortCounters, symbol_error}));
  ASSERT_TRUE(clears.push(ClearRequest{{0xB01, 1}, Attribute::kPortCounters, symbol_error}));
  ASSERT_TRUE(h.run(3).ok());
  EXPECT_EQ(h.stats.clears_sent, 2u);
  std::map<uint64_t, size_t> cleared_through;  // node GUID -> ring
  for (const auto& [s, ring] : h.samples) {
    if (s.cleared == 0) continue;
    EXPECT_EQ(s.cleared, symbol_error);
    EXPECT_EQ(s.values[0], 0u);
    EXPECT_EQ(cleared_through.count(s.port.node_guid), 0u) << "cleared once";
    cleared_through[s.port.node_guid] = ring;
  }
  EXPECT_EQ(cleared_through, (std::map<uint64_t, size_t>{{0xA01, 0}, {0xB01, 1}}));
}

TEST(SubnetSet, EachRailIsPolledThroughItsOwnLocalPortAndTheTopologiesMerge) {
  RailsHarness h;
  ASSERT_TRUE(h.run(5).ok());
  ASSERT_EQ(h.sweeps.size(), 5u);
  EXPECT_EQ(h.sweeps[0].number, 1u);
  EXPECT_EQ(h.sweeps[0].ports, 12u);  // 6 linked ports per rail: one sweep covers both
  EXPECT_EQ(h.sweeps[0].stale, 0u);

  ASSERT_FALSE(h.discovered.empty());
  const Topology& t = h.discovered.back();
  ASSERT_EQ(t.ports.size(), 14u);  // 4 switch ports + 3 HCA ports per rail
  ASSERT_EQ(t.subnets.size(), 2u);
  EXPECT_EQ(t.subnets[0].local_port, "mlx5_0:1");
  EXPECT_EQ(t.subnets[1].local_port, "mlx5_1:1");
  EXPECT_EQ(t.subnets[1].prefix, 0xfe80000000000000u);
  EXPECT_EQ(t.nodes.size(), 7u);  // the multi-rail HCA once
  for (const Port& p : t.ports) {
    const uint64_t rail = p.key.node_guid == kMultiRail ? (p.key.port == 1 ? 0xA00 : 0xB00)
                                                        : (p.key.node_guid & ~0xFFull);
    EXPECT_EQ(p.subnet, rail == 0xA00 ? 0 : 1) << guid_string(p.key.node_guid);
  }
  EXPECT_EQ(h.count("event=duplicate_port"), 0u);
  EXPECT_EQ(h.stats.duplicate_ports, 0u);

  // Same LIDs on both rails, yet each rail's PMAs were asked for their own ports only, every
  // sample came through its rail's ring and says so.
  EXPECT_EQ(h.rail_a.attempts({kMultiRail, 1}, Attribute::kPortCounters), 5u);
  EXPECT_EQ(h.rail_b.attempts({kMultiRail, 2}, Attribute::kPortCounters), 5u);
  EXPECT_EQ(h.rail_a.attempts({kMultiRail, 2}, Attribute::kPortCounters), 0u);
  size_t per_ring[2] = {0, 0};
  for (const auto& [s, ring] : h.samples) {
    ++per_ring[ring];
    EXPECT_EQ(s.subnet, ring);
    const bool rail_b =
        s.port.node_guid == kMultiRail ? s.port.port == 2 : (s.port.node_guid & ~0xFFull) == 0xB00;
    EXPECT_EQ(ring, rail_b ? 1u : 0u) << guid_string(s.port.node_guid);
  }
  EXPECT_GT(per_ring[0], 0u);
  EXPECT_GT(per_ring[1], 0u);

  ASSERT_EQ(h.stats.subnets.size(), 2u);
  EXPECT_EQ(h.stats.subnets[1].local_port, "mlx5_1:1");
  EXPECT_EQ(h.stats.subnets[0].ports, 7u);
  EXPECT_EQ(h.stats.subnets[1].nodes, 4u);
  EXPECT_EQ(h.stats.ports, 14u);
  EXPECT_EQ(h.stats.nodes, 7u);  // the multi-rail HCA once
  EXPECT_EQ(h.stats.sweeps, 5u);
}

// A subnet whose first discovery fails stops the start, as a lone subnet's does (the daemon
// has grouped its local ports by discovering through each just before), and says why.
TEST(SubnetSet, ARailThatCannotBeDiscoveredStopsTheStart) {
  RailsHarness h;
  h.rail_b_down = true;
  EXPECT_FALSE(h.run(3).ok());
  EXPECT_EQ(h.count("event=discovery_failed error=\"no SMP answered\""), 1u);
}

// HCA 0xA01 port 1 on rail B too (a cloned GUID): the port is logged once, counted, and the
// converter keeps rail A's readings of it; rail B's are dropped and counted, never mixed in.
TEST(SubnetSet, APortInTwoSubnetsIsLoggedCountedAndNotMerged) {
  RailsHarness h;
  h.rail_b.add_hca(0xA01, 5);
  h.rail_b.link({0xA01, 1}, {0xB00, 4});
  h.rail_a.set({0xA01, 1}, CounterId::kSymbolError, 11);
  h.rail_b.set({0xA01, 1}, CounterId::kSymbolError, 99);
  ASSERT_TRUE(h.run(12).ok());  // past two rediscoveries
  EXPECT_GE(h.stats.discoveries, 4u);
  EXPECT_EQ(h.count("event=duplicate_port node_guid=0x0000000000000a01 port=1 "
                    "port_guid=0x0000000000000a02 subnet=mlx5_0:1 other_subnet=mlx5_1:1 "
                    "same=node_port"),
            1u);
  EXPECT_EQ(h.stats.duplicate_ports, 1u);
  EXPECT_EQ(h.stats.ports, 14u);  // the port in two subnets counts once
  const Topology& t = h.discovered.back();
  const Port* kept = t.find_port({0xA01, 1});
  ASSERT_NE(kept, nullptr);
  EXPECT_EQ(kept->subnet, 0u);
  EXPECT_EQ(t.ports.size(), 14u);  // 7 per rail: rail B's copy of 0xA01 is not an eighth

  converters::Converter c(converters::ConverterOptions{});
  c.set_topology(std::make_shared<const Topology>(t));
  size_t from_b = 0;
  for (const auto& [s, ring] : h.samples) {
    c.apply(s);
    from_b += s.port == PortKey{0xA01, 1} && ring == 1;
  }
  ASSERT_GT(from_b, 0u);
  EXPECT_EQ(c.stats().other_subnet_samples, from_b);
  EXPECT_EQ(c.state({0xA01, 1})->core[schema::index_of(CounterId::kSymbolError)].total, 11u);
}

// A port GUID both rails report under different keys is logged and counted too; both ports
// stay (they are different keys), neither is dropped.
TEST(SubnetSet, APortGuidInTwoSubnetsIsLoggedAndCounted) {
  SubnetPart a;
  SubnetPart b;
  Port p;
  p.key = {0x10, 1};
  p.port_guid = 0x77;
  a.topology.ports = {p};
  p.key = {0x20, 1};
  b.topology.ports = {p};
  b.subnet = 1;
  SubnetDuplicates d;
  const Topology t = merge_subnets({&a, &b}, {{0, "mlx5_0:1"}, {0, "mlx5_1:1"}}, d);
  EXPECT_EQ(t.ports.size(), 2u);
  ASSERT_EQ(d.found.size(), 1u);
  EXPECT_FALSE(d.found[0].same_key);
  EXPECT_EQ(d.found[0].key, (PortKey{0x20, 1}));
  EXPECT_EQ(d.found[0].first_subnet, 0u);
  EXPECT_EQ(d.found[0].other_subnet, 1u);
}

// The whole is named by the first subnet's prefix (state files are saved under it), even when
// another subnet finished its discovery first; until then by the first one discovered.
TEST(SubnetSet, TheFirstSubnetsPrefixNamesTheWhole) {
  SubnetPart b;
  b.subnet = 1;
  b.topology.subnet_prefix = 0xfec0000000000000;
  SubnetDuplicates d;
  EXPECT_EQ(
      merge_subnets({&b}, {{0, "mlx5_0:1"}, {0xfec0000000000000, "mlx5_1:1"}}, d).subnet_prefix,
      0xfec0000000000000u);
  EXPECT_EQ(merge_subnets({&b}, {{0xfe80000000000000, "mlx5_0:1"}, {0xfec0000000000000, "b"}}, d)
                .subnet_prefix,
            0xfe80000000000000u);
}

// The daemon's way: SubnetSet::run() with a thread per subnet (this one polls rail A, another
// rail B), each on its own virtual clock (an engine and its poller share one thread, so each
// rail's clock is used by one thread only). Samples, merged topology and the rounds of sweeps
// come out as when stepped on one thread; run under ThreadSanitizer too (docs/development.md).
thread_local testing::VirtualClock* t_rail_clock = nullptr;

TEST(SubnetSet, RunsEachSubnetOnItsOwnThread) {
  testing::FakeFabric rail_a;
  testing::FakeFabric rail_b;
  RailsHarness::build(rail_a, 0xA00, 1);
  RailsHarness::build(rail_b, 0xB00, 2);
  testing::VirtualClock clock_a;
  testing::VirtualClock clock_b;
  PollerOptions options;
  options.intervals = Intervals{1s, 10s, 60s, 0ms};
  PollerBackend backend;
  backend.open_engine = [&](const std::string& ca, int, const MadEngineOptions& o) {
    const bool a = ca == "mlx5_0";
    t_rail_clock = a ? &clock_a : &clock_b;  // on the poller's own thread
    return Result<std::unique_ptr<MadEngine>>(
        std::make_unique<testing::FakeMadEngine>(a ? rail_a : rail_b, *t_rail_clock, o));
  };
  backend.discover = [&](const DiscoveryOptions& o) -> Result<Topology> {
    return (o.ca == "mlx5_0" ? rail_a : rail_b).topology();
  };
  backend.now = [] { return t_rail_clock->now(); };
  backend.sleep = [](std::chrono::steady_clock::duration d) { t_rail_clock->advance(d); };
  std::atomic<bool> stop{false};
  std::atomic<size_t> rounds{0};
  std::mutex mutex;
  std::vector<Topology> discovered;
  PollerEvents events;
  events.sweep_done = [&](const SweepSummary& s) {
    EXPECT_EQ(s.ports, 12u);
    if (rounds.fetch_add(1) + 1 >= 5) stop.store(true);
  };
  events.discovered = [&](const Topology& t, const TopologyChanges&) {
    std::lock_guard lock(mutex);
    discovered.push_back(t);
  };
  SampleRing ring_a(1 << 16);
  SampleRing ring_b(1 << 16);
  SubnetSet set(options, {{{"mlx5_0", 1}}, {{"mlx5_1", 1}}}, {{0, "mlx5_0:1"}, {0, "mlx5_1:1"}},
                {&ring_a, &ring_b}, events, {}, std::move(backend));
  ASSERT_TRUE(set.run(stop).ok());
  EXPECT_GE(rounds.load(), 5u);
  ASSERT_FALSE(discovered.empty());
  EXPECT_EQ(discovered.back().ports.size(), 14u);
  std::set<PortKey> from_a;
  std::set<PortKey> from_b;
  RawSample s;
  while (ring_a.pop(s)) {
    EXPECT_EQ(s.subnet, 0u);
    from_a.insert(s.port);
  }
  while (ring_b.pop(s)) {
    EXPECT_EQ(s.subnet, 1u);
    from_b.insert(s.port);
  }
  EXPECT_EQ(from_a.size(), 7u);  // every port of rail A, idle switch port 4 too
  EXPECT_EQ(from_b.size(), 7u);
  EXPECT_TRUE(from_a.contains({kMultiRail, 1}) && from_b.contains({kMultiRail, 2}));
  EXPECT_EQ(set.stats().subnets.size(), 2u);
}

}  // namespace
}  // namespace ibpulse::collector
