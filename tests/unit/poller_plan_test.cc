// What the poller reads per PMA capability, and that reading less changes no exported total:
// the fake engine counts the MADs, the converter turns the samples into totals.
#include <gtest/gtest.h>

#include "ibpulse/converters/converter.h"
#include "poller_harness.h"

namespace ibpulse::collector {
namespace {

using namespace std::chrono_literals;
using schema::Attribute;
using schema::CounterId;

// CapabilityMask: 0x200 IsExtendedWidthSupported, 0x1000 PortXmitWait, 0x8000 QP1Dropped;
// CapabilityMask2 bit 1: the 64-bit error counters, PortXmitWait and QP1Dropped.
constexpr uint16_t kFullMask = 0x9200;
constexpr uint32_t kAdditionalExtended = 0x2;

void make_modern(PollerHarness& h, PortKey hca) {
  h.fabric.node(hca.node_guid).capability_mask = kFullMask;
  h.fabric.node(hca.node_guid).capability_mask2 = kAdditionalExtended;
}

void make_old(PollerHarness& h, PortKey hca) {
  h.fabric.node(hca.node_guid).capability_mask = kFullMask;  // 0x200, but no CapabilityMask2
}

std::shared_ptr<const converters::FabricSnapshot> convert(const PollerHarness& h) {
  converters::Converter c(converters::ConverterOptions{});
  c.set_topology(std::make_shared<const Topology>(h.fabric.topology()), h.clock.now());
  for (const RawSample& s : h.samples)
    (void)c.apply(s);
  return c.snapshot(h.clock.now());
}

// Every PortCounters quantity, with values past the narrow widths where the extended
// attribute carries them (the data counters) and small ones elsewhere.
void set_counters(PollerHarness& h, PortKey port, uint64_t step) {
  for (const schema::FieldSink& sink : schema::sinks_of(Attribute::kPortCounters)) {
    const auto id = static_cast<CounterId>(sink.counter);
    const bool data = id >= CounterId::kXmitData && id <= CounterId::kRcvPackets;
    h.fabric.add(port, id, data ? 3'000'000'000ull + sink.counter : 1 + step % 3);
  }
}

TEST(PollerPlan, MadsPerPortPerSweepFollowTheCapabilities) {
  PollerHarness h;
  make_modern(h, kHca1);
  make_old(h, kHca2);
  h.fabric.node(kHca3.node_guid).capability_mask = 0x9000;  // no extended counters at all
  for (PortKey p : {kHca1, kHca2, kHca3})
    h.fabric.set(p, CounterId::kSymbolError, 11);
  ASSERT_TRUE(h.run(10).ok());
  ASSERT_EQ(h.sweeps.size(), 10u);
  for (const SweepSummary& s : h.sweeps) {
    EXPECT_EQ(s.ports, kLinkedPorts) << "a port read through PortCountersExtended only counts";
    EXPECT_EQ(s.stale, 0u);
  }
  EXPECT_EQ(h.fabric.attempts(kHca1, Attribute::kPortCounters), 0u);
  EXPECT_EQ(h.fabric.attempts(kHca1, Attribute::kPortCountersExtended), 10u);
  EXPECT_EQ(h.fabric.attempts(kHca2, Attribute::kPortCounters), 10u);
  EXPECT_EQ(h.fabric.attempts(kHca2, Attribute::kPortCountersExtended), 10u);
  EXPECT_EQ(h.fabric.attempts(kHca3, Attribute::kPortCounters), 10u);
  EXPECT_EQ(h.fabric.attempts(kHca3, Attribute::kPortCountersExtended), 0u);
  const auto snapshot = convert(h);
  for (PortKey p : {kHca1, kHca2, kHca3}) {
    const converters::PortSnapshot* port = snapshot->find(p);
    ASSERT_NE(port, nullptr);
    for (const schema::FieldSink& sink : schema::sinks_of(Attribute::kPortCounters))
      EXPECT_TRUE(port->present >> sink.counter & 1) << p.node_guid << " counter " << sink.counter;
    EXPECT_EQ(port->total(CounterId::kSymbolError), 11u);
  }
}

TEST(PollerPlan, AModernPmaAndAnOldOneExportTheSameTotals) {
  const auto run = [](bool modern) {
    auto h = std::make_unique<PollerHarness>();
    for (PortKey p : {kHca1, kHca2, kHca3}) {
      if (modern)
        make_modern(*h, p);
      else
        make_old(*h, p);
      set_counters(*h, p, 0);
    }
    constexpr size_t kSweeps = 6;
    h->on_sweep = [&h = *h](const SweepSummary& s) {
      if (s.number == kSweeps) return;  // the totals then equal the model's values
      for (PortKey p : {kHca1, kHca2, kHca3})
        set_counters(h, p, s.number);
    };
    EXPECT_TRUE(h->run(kSweeps).ok());
    return h;
  };
  const auto modern = run(true);
  const auto old = run(false);
  EXPECT_LT(modern->stats.mad.sent, old->stats.mad.sent);
  const auto a = convert(*modern);
  const auto b = convert(*old);
  for (PortKey p : {kHca1, kHca2, kHca3}) {
    const converters::PortSnapshot* pa = a->find(p);
    const converters::PortSnapshot* pb = b->find(p);
    ASSERT_NE(pa, nullptr);
    ASSERT_NE(pb, nullptr);
    EXPECT_EQ(pa->present, pb->present);
    EXPECT_EQ(pa->totals, pb->totals);
    for (size_t d = 0; d < schema::kDerivedCount; ++d) {
      const auto id = static_cast<schema::DerivedId>(d);
      EXPECT_EQ(pa->value(id), pb->value(id)) << d;
    }
    for (const schema::FieldSink& sink : schema::sinks_of(Attribute::kPortCounters)) {
      const auto id = static_cast<CounterId>(sink.counter);
      const auto& field = schema::narrow_source(sink.counter);
      EXPECT_EQ(pa->total(id), modern->fabric.get(p, id) * field.scale) << field.name;
    }
    EXPECT_EQ(pa->source_switches + pa->foreign_clears + pa->lossy_intervals, 0u);
    EXPECT_EQ(pb->source_switches + pb->foreign_clears + pb->lossy_intervals, 0u);
  }
}

TEST(PollerPlan, NodesListedWithoutExtendedCountersReadPortCountersOnly) {
  PollerHarness h;
  make_modern(h, kHca1);
  h.options.no_extended_nodes = {kHca1.node_guid};
  ASSERT_TRUE(h.run(3).ok());
  EXPECT_EQ(h.fabric.attempts(kHca1, Attribute::kPortCounters), 3u);
  EXPECT_EQ(h.fabric.attempts(kHca1, Attribute::kPortCountersExtended), 0u);
}

TEST(PollerPlan, RefusedExtendedCountersFallBackToPortCounters) {
  PollerHarness h;
  make_modern(h, kHca1);
  h.fabric.node(kHca1.node_guid).status[0x1D] = testing::kStatusUnsupported;
  ASSERT_TRUE(h.run(4).ok());
  EXPECT_EQ(h.fabric.attempts(kHca1, Attribute::kPortCountersExtended), 1u);
  EXPECT_EQ(h.fabric.attempts(kHca1, Attribute::kPortCounters), 3u) << "from the next sweep on";
  EXPECT_EQ(h.sweeps[0].stale, 1u);
  EXPECT_EQ(h.sweeps[1].stale + h.sweeps[2].stale + h.sweeps[3].stale, 0u);
}

TEST(PollerPlan, AnUndeliveredExtendedReadAsksForRediscovery) {
  PollerHarness h;
  make_modern(h, kHca3);
  h.on_sweep = [&](const SweepSummary& s) {
    if (s.number == 2) h.fabric.node(kHca3.node_guid).unreachable = true;
  };
  ASSERT_TRUE(h.run(1000, 20s).ok());
  EXPECT_GT(h.failed(kHca3, Attribute::kPortCountersExtended), 0u);
  // Rediscovery is asked for at once and held to one per 5 s: 0 s, then every 5 s from 5 s.
  EXPECT_GE(h.discoveries, 4u);
}

TEST(PollerPlan, IdlePortsOfAModernPmaReadOnlyTheExtendedCounters) {
  PollerHarness h;
  make_modern(h, {kSwitchGuid, 0});
  ASSERT_TRUE(h.run(2).ok());
  EXPECT_EQ(h.fabric.attempts(kSwitchIdle, Attribute::kPortCounters), 0u);
  EXPECT_EQ(h.fabric.attempts(kSwitchIdle, Attribute::kPortCountersExtended), 1u);
}

TEST(PollerPlan, ClearsGoToTheAttributeThatHoldsTheNarrowCounter) {
  PollerHarness h;
  make_modern(h, kHca1);
  make_old(h, kHca2);
  for (PortKey p : {kHca1, kHca2})
    h.fabric.set(p, CounterId::kSymbolError, 50);
  ClearRing clears(16);
  h.clears = &clears;
  const uint64_t symbol_error = 1;  // field 0 of PortCounters
  clears.push(ClearRequest{kHca2, Attribute::kPortCounters, symbol_error});
  // The converter never asks this (every field is superseded): no PortCounters Set is sent.
  clears.push(ClearRequest{kHca1, Attribute::kPortCounters, symbol_error});
  ASSERT_TRUE(h.run(3).ok());
  EXPECT_EQ(h.stats.clears_sent, 1u);
  EXPECT_EQ(h.fabric.attempts(kHca1, Attribute::kPortCounters), 0u);
  EXPECT_EQ(h.fabric.attempts(kHca2, Attribute::kPortCounters), 4u) << "3 Gets and the Set";
  std::vector<uint64_t> narrow;
  std::vector<uint64_t> cleared;
  for (const RawSample& s : h.of(kHca2, Attribute::kPortCounters)) {
    narrow.push_back(s.values[0]);
    cleared.push_back(s.cleared);
  }
  EXPECT_EQ(narrow, (std::vector<uint64_t>{50, 0, 0, 0}));  // read, Set's answer, reads
  EXPECT_EQ(cleared, (std::vector<uint64_t>{0, symbol_error, 0, 0}));
  EXPECT_EQ(h.fabric.get(kHca2, CounterId::kSymbolError), 50u) << "only the narrow copy";
}

}  // namespace
}  // namespace ibpulse::collector
