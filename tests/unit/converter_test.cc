// The converter on hand-built samples: source choice, advertised fields, threshold clears
// through the ring, own-clear baselines, foreign clears, snapshots.
#include "ibpulse/converters/converter.h"

#include <gtest/gtest.h>

#include <random>
#include <string_view>
#include <vector>

#include "ibpulse/collector/shard.h"
#include "sample_builders.h"

namespace ibpulse::converters {
namespace {

using collector::ClearRequest;
using collector::ClearRing;
using collector::ClearRings;
using collector::MadFailure;
using collector::PortKey;
using collector::RawSample;
using schema::Attribute;
using schema::CounterId;
using namespace std::chrono_literals;

const PortKey kPort{0x0002c90300000001ull, 1};
const Clock::time_point t0 = Clock::time_point{} + 1h;

using testing::field;

uint64_t bit(Attribute a, std::string_view name) {
  return uint64_t{1} << field(a, name);
}

RawSample sample(Attribute a, Clock::time_point at) {
  return testing::sample(kPort, a, at);
}

RawSample counters(Clock::time_point at, uint64_t symbol_errors, uint64_t xmit_data) {
  RawSample s = sample(Attribute::kPortCounters, at);
  s.values[field(Attribute::kPortCounters, "SymbolErrorCounter")] = symbol_errors;
  s.values[field(Attribute::kPortCounters, "PortXmitData")] = xmit_data;
  return s;
}

uint64_t total(const Converter& c, CounterId id) {
  return c.state(kPort)->core[schema::index_of(id)].total;
}

TEST(Converter, FirstReadingIsTheRawValueScaled) {
  Converter c({});
  c.apply(counters(t0, 7, 1000));
  EXPECT_EQ(total(c, CounterId::kSymbolError), 7u);
  EXPECT_EQ(total(c, CounterId::kXmitData), 4000u);
}

TEST(Converter, SupersededNarrowCopiesAreIgnored) {
  Converter c({});
  RawSample narrow = counters(t0, 0, 1000);
  RawSample wide = sample(Attribute::kPortCountersExtended, t0);
  narrow.superseded = collector::superseded_fields(wide.advertised);
  EXPECT_NE(narrow.superseded & bit(Attribute::kPortCounters, "PortXmitData"), 0u);
  EXPECT_NE(narrow.superseded & bit(Attribute::kPortCounters, "SymbolErrorCounter"), 0u);
  wide.values[field(Attribute::kPortCountersExtended, "PortXmitData")] = 5'000'000'000ull;
  c.apply(narrow);
  c.apply(wide);
  narrow.received = wide.received = t0 + 1s;
  narrow.values[field(Attribute::kPortCounters, "PortXmitData")] = 0xffffffff;  // latched
  wide.values[field(Attribute::kPortCountersExtended, "PortXmitData")] = 5'000'000'100ull;
  c.apply(narrow);
  c.apply(wide);
  EXPECT_EQ(total(c, CounterId::kXmitData), 20'000'000'400ull);
  EXPECT_EQ(c.stats().source_switches, 0u);
  EXPECT_EQ(c.stats().lossy_intervals, 0u);
  EXPECT_FLOAT_EQ(c.state(kPort)->rates[schema::index_of(CounterId::kXmitData)], 400.0f);
}

TEST(Converter, FieldsNotAdvertisedAreNotPresent) {
  Converter c({});
  RawSample s = counters(t0, 1, 1);
  s.advertised &= ~bit(Attribute::kPortCounters, "PortXmitWait");
  c.apply(s);
  const auto snap = c.snapshot(t0);
  ASSERT_EQ(snap->ports.size(), 1u);
  EXPECT_TRUE(snap->ports[0].has(CounterId::kSymbolError));
  EXPECT_FALSE(snap->ports[0].has(CounterId::kXmitWait));
  EXPECT_FALSE(snap->ports[0].in_topology);
}

// After a restart a port's counters come back one attribute at a time (on a lossy port its
// 64-bit copy a sweep or more after the narrow one): an IF-MIB sum shown before all its terms
// were read again would be missing one and go down, a counter reset to Prometheus (seen in the
// fault soak: ifHCInUcastPkts 4,213,922 -> 0 right after a SIGKILL).
TEST(Converter, AnIfMibValueWaitsAfterARestartForEveryCounterItSums) {
  RawSample narrow = counters(t0, 2, 0);
  RawSample wide = sample(Attribute::kPortCountersExtended, t0);
  narrow.superseded = collector::superseded_fields(wide.advertised);
  const size_t unicast = field(Attribute::kPortCountersExtended, "PortUnicastRcvPkts");
  wide.values[unicast] = 1000;
  Converter before({});
  before.apply(narrow);
  before.apply(wide);
  ASSERT_EQ(before.snapshot(t0)->find(kPort)->value(schema::DerivedId::kIfInUcastPkts), 1000u);

  Converter after({});
  after.restore_port(kPort, *before.state(kPort));
  after.set_topology(testing::one_port_topology(kPort), t0);
  narrow.received = wide.received = t0 + 1s;
  after.apply(narrow);
  const auto first_view = after.snapshot(t0 + 1s);  // holds the port snapshots
  const PortSnapshot* first = first_view->find(kPort);
  ASSERT_NE(first, nullptr);
  EXPECT_FALSE(first->value_ready(schema::DerivedId::kIfInUcastPkts));
  EXPECT_FALSE(first->value_ready(schema::DerivedId::kIfInOctets));
  wide.values[unicast] = 1010;
  after.apply(wide);
  const auto second_view = after.snapshot(t0 + 2s);
  const PortSnapshot* second = second_view->find(kPort);
  EXPECT_TRUE(second->value_ready(schema::DerivedId::kIfInUcastPkts));
  EXPECT_EQ(second->value(schema::DerivedId::kIfInUcastPkts), 1010u);
  // A port never restored has nothing to wait for.
  EXPECT_TRUE(before.snapshot(t0)->find(kPort)->value_ready(schema::DerivedId::kIfInOctets));
}

// PortCountersExtended of a PMA with CapabilityMask 0x200 only: the data and packet counters.
RawSample extended(Clock::time_point at, uint64_t xmit_data) {
  RawSample s = sample(Attribute::kPortCountersExtended, at);
  s.advertised = 0;
  for (const char* name : {"PortXmitData", "PortRcvData", "PortXmitPkts", "PortRcvPkts"})
    s.advertised |= bit(Attribute::kPortCountersExtended, name);
  s.values[field(Attribute::kPortCountersExtended, "PortXmitData")] = xmit_data;
  return s;
}

// The state a converter left after reading kPort's xmit data from the 64-bit copy (1000, then
// 1500 dwords) and its symbol errors from the narrow one.
Converter::PortState saved_wide_state() {
  Converter before({});
  RawSample narrow = counters(t0, 3, 0);
  narrow.superseded = collector::superseded_fields(extended(t0, 0).advertised);
  before.apply(narrow);
  before.apply(extended(t0, 1000));
  before.apply(extended(t0 + 1s, 1500));
  return *before.state(kPort);
}

// After a restart the poller may read a counter's other copy first (a lossy node's
// ClassPortInfo unanswered, so its narrow copy): taking it as a source switch would keep the
// saved total, older than the last exported one, a counter going down (seen in the fault soak:
// xmit data 7,974,840,652 -> 7,183,591,220 bytes 59 s after a SIGKILL). It waits for its own.
TEST(Converter, ARestoredCounterContinuesOnlyFromTheCopyItWasSavedFrom) {
  ConverterOptions options;
  options.restored_source_wait = 1min;
  Converter c(options);
  c.restore_port(kPort, saved_wide_state());
  c.set_topology(testing::one_port_topology(kPort), t0);
  c.apply(counters(t0 + 10s, 5, 77));  // the narrow copy: not this counter's source
  const auto held_view = c.snapshot(t0 + 10s);
  const PortSnapshot* held = held_view->find(kPort);
  ASSERT_NE(held, nullptr);
  EXPECT_FALSE(held->has(CounterId::kXmitData));
  EXPECT_TRUE(held->has(CounterId::kSymbolError)) << "saved from this copy: continues";
  EXPECT_EQ(held->total(CounterId::kSymbolError), 5u);
  EXPECT_EQ(c.stats().readings_held, 1u);
  EXPECT_EQ(c.stats().source_switches, 0u);

  c.apply(extended(t0 + 20s, 2100));  // its own copy: on from the saved reading
  EXPECT_EQ(total(c, CounterId::kXmitData), 2100u * 4);
  EXPECT_TRUE(c.snapshot(t0 + 20s)->find(kPort)->has(CounterId::kXmitData));
  c.apply(counters(t0 + 30s, 5, 99));  // read again: no longer waits, a switch as any other
  EXPECT_EQ(c.stats().readings_held, 1u);
  EXPECT_EQ(c.stats().source_switches, 4u) << "the data and packet counters";
  EXPECT_EQ(total(c, CounterId::kXmitData), 2100u * 4);
}

// A node whose 64-bit copy is not read any more (its PMA changed while we were down): the
// other copy is taken after the wait, as a source switch from the saved total.
TEST(Converter, ARestoredCounterTakesTheOtherCopyAfterTheWait) {
  ConverterOptions options;
  options.restored_source_wait = 1min;
  Converter c(options);
  c.restore_port(kPort, saved_wide_state());
  c.apply(counters(t0 + 10s, 5, 77));
  c.apply(counters(t0 + 69s, 5, 80));
  EXPECT_EQ(c.stats().readings_held, 2u);
  EXPECT_FALSE(c.state(kPort)->present >> schema::index_of(CounterId::kXmitData) & 1);
  c.apply(counters(t0 + 70s, 5, 90));
  EXPECT_EQ(c.stats().readings_held, 2u);
  EXPECT_EQ(c.stats().source_switches, 4u) << "the data and packet counters";
  EXPECT_EQ(total(c, CounterId::kXmitData), 1500u * 4) << "the saved total, then on from 90";
  c.apply(counters(t0 + 71s, 5, 95));
  EXPECT_EQ(total(c, CounterId::kXmitData), 1505u * 4);
}

// A narrow read that stands in for an unanswered ClassPortInfo (RawSample::narrow_fallback)
// does not move a counter off its 64-bit copy: once that is read again, nothing was lost.
TEST(Converter, ANarrowFallbackLeavesA64BitCounterOnItsCopy) {
  Converter c({});
  c.apply(extended(t0, 1000));
  RawSample fallback = counters(t0 + 1s, 2, 400);
  fallback.narrow_fallback = true;
  c.apply(fallback);
  EXPECT_EQ(total(c, CounterId::kXmitData), 1000u * 4);
  EXPECT_EQ(total(c, CounterId::kSymbolError), 2u) << "no 64-bit copy of its own: read";
  EXPECT_EQ(c.stats().readings_held, 1u);
  c.apply(extended(t0 + 2s, 1800));
  EXPECT_EQ(total(c, CounterId::kXmitData), 1800u * 4);
  EXPECT_EQ(c.stats().source_switches, 0u);

  // A counter never read from its 64-bit copy takes the fallback's reading.
  Converter fresh({});
  fresh.apply(fallback);
  EXPECT_EQ(total(fresh, CounterId::kXmitData), 400u * 4);
  EXPECT_EQ(fresh.stats().readings_held, 0u);
}

TEST(Converter, NeverPolicyAsksNoClear) {
  ClearRings rings(1, 16);
  ClearRing& ring = rings.ring(0);
  Converter c({}, &rings);
  c.apply(counters(t0, 65535, 0xffffffff));
  EXPECT_TRUE(ring.empty());
  EXPECT_TRUE(c.state(kPort)->core[schema::index_of(CounterId::kSymbolError)].saturated);
}

TEST(Converter, ThresholdClearsExactlyTheFieldsNearTheirLatch) {
  ClearRings rings(1, 16);
  ClearRing& ring = rings.ring(0);
  Converter c({ClearPolicy::kThreshold}, &rings);
  c.apply(counters(t0, 49151, 0x10));  // just below 75% of 65535
  EXPECT_TRUE(ring.empty());
  c.apply(counters(t0 + 1s, 50000, 0x20));
  ClearRequest r;
  ASSERT_TRUE(ring.pop(r));
  EXPECT_EQ(r.port, kPort);
  EXPECT_EQ(r.attribute, Attribute::kPortCounters);
  EXPECT_EQ(r.fields, bit(Attribute::kPortCounters, "SymbolErrorCounter"));
  c.apply(counters(t0 + 2s, 50001, 0x30));
  EXPECT_TRUE(ring.empty()) << "one clear in flight at a time";

  // The Set's response: the counters after the clear. Nothing is re-added.
  RawSample response = counters(t0 + 2100ms, 0, 0x31);
  response.cleared = r.fields;
  c.apply(response);
  EXPECT_EQ(total(c, CounterId::kSymbolError), 50001u);
  c.apply(counters(t0 + 3s, 25, 0x40));
  EXPECT_EQ(total(c, CounterId::kSymbolError), 50026u);
  EXPECT_EQ(total(c, CounterId::kXmitData), 0x40u * 4);
  EXPECT_EQ(c.stats().own_clears, 1u);
  EXPECT_EQ(c.stats().foreign_clears, 0u);
  EXPECT_GT(c.stats().clear_window_seconds, 0.0);
}

// hold_clears (the daemon's, with a state file): a clear waits in the converter until the
// caller saved the state and released it; a ring that refuses it drops it, counted, and the
// next reading asks again.
TEST(Converter, HeldClearsGoOutOnlyWhenReleased) {
  ClearRings rings(1, 1);
  ClearRing& ring = rings.ring(0);
  ConverterOptions options{ClearPolicy::kThreshold};
  options.hold_clears = true;
  Converter c(options, &rings);
  c.apply(counters(t0, 50000, 0x10));
  EXPECT_TRUE(ring.empty()) << "held until released";
  auto held = c.take_held_clears();
  ASSERT_EQ(held.size(), 1u);
  EXPECT_EQ(held[0].fields, bit(Attribute::kPortCounters, "SymbolErrorCounter"));
  EXPECT_TRUE(c.take_held_clears().empty()) << "taken once";
  EXPECT_EQ(c.stats().clear_requests, 1u);
  c.apply(counters(t0 + 1s, 50001, 0x20));
  EXPECT_TRUE(c.take_held_clears().empty()) << "one clear in flight at a time";

  ring.push(ClearRequest{});  // the ring is full: the release is dropped
  c.release_clears(held);
  EXPECT_EQ(c.stats().clear_requests_dropped, 1u);
  c.apply(counters(t0 + 2s, 50002, 0x30));
  held = c.take_held_clears();
  ASSERT_EQ(held.size(), 1u) << "asked again at the next reading";
  ClearRequest r;
  ASSERT_TRUE(ring.pop(r));  // the filler
  c.release_clears(held);
  ASSERT_TRUE(ring.pop(r));
  EXPECT_EQ(r.port, kPort);
  EXPECT_EQ(r.fields, bit(Attribute::kPortCounters, "SymbolErrorCounter"));
}

TEST(Converter, ThresholdClearsNarrowDataCountersWithoutA64BitCopy) {
  ClearRings rings(1, 16);
  ClearRing& ring = rings.ring(0);
  Converter c({ClearPolicy::kThreshold}, &rings);
  c.apply(counters(t0, 0, 0xd0000000));
  ClearRequest r;
  ASSERT_TRUE(ring.pop(r));
  EXPECT_EQ(r.fields, bit(Attribute::kPortCounters, "PortXmitData"));
  // With the 64-bit copy read, the narrow one is superseded: no clear.
  Converter wide({ClearPolicy::kThreshold}, &rings);
  RawSample s = counters(t0, 0, 0xd0000000);
  s.superseded = bit(Attribute::kPortCounters, "PortXmitData");
  wide.apply(s);
  EXPECT_TRUE(ring.empty());
}

TEST(Converter, ThresholdClearsFlowControlCounters) {
  ClearRings rings(1, 16);
  ClearRing& ring = rings.ring(0);
  Converter c({ClearPolicy::kThreshold}, &rings);
  RawSample s = sample(Attribute::kPortFlowCtlCounters, t0);
  s.values[field(Attribute::kPortFlowCtlCounters, "PortRcvFlowPkts")] = 0xf0000000;
  c.apply(s);
  ClearRequest r;
  ASSERT_TRUE(ring.pop(r));
  EXPECT_EQ(r.attribute, Attribute::kPortFlowCtlCounters);
  EXPECT_EQ(r.fields, bit(Attribute::kPortFlowCtlCounters, "PortRcvFlowPkts"));
}

TEST(Converter, AFailedClearKeepsTheOldBaseline) {
  ClearRings rings(1, 16);
  ClearRing& ring = rings.ring(0);
  Converter c({ClearPolicy::kThreshold}, &rings);
  c.apply(counters(t0, 50000, 0));
  ClearRequest r;
  ASSERT_TRUE(ring.pop(r));
  RawSample failed = sample(Attribute::kPortCounters, t0 + 1s);
  failed.failure = MadFailure::kTimeout;
  failed.cleared = r.fields;
  c.apply(failed);
  c.apply(counters(t0 + 2s, 50100, 0));
  EXPECT_EQ(total(c, CounterId::kSymbolError), 50100u);
  EXPECT_EQ(c.stats().own_clears_failed, 1u);
  ASSERT_TRUE(ring.pop(r)) << "asked again after the failure";
}

TEST(Converter, ForeignClearIsCountedAndMarksADiscontinuity) {
  Converter c({});
  c.apply(counters(t0, 100, 0));
  c.apply(counters(t0 + 1s, 30, 0));
  EXPECT_EQ(total(c, CounterId::kSymbolError), 130u);
  EXPECT_EQ(c.state(kPort)->foreign_clears, 1u);
  EXPECT_EQ(c.state(kPort)->discontinuity, t0 + 1s);
}

TEST(Converter, LowerExtendedReadingAfterOurClearIsOurs) {
  // Hardware that also clears the 64-bit copies when PortCounters is cleared.
  Converter c({});
  RawSample wide = sample(Attribute::kPortCountersExtended, t0);
  wide.values[field(Attribute::kPortCountersExtended, "PortXmitData")] = 1000;
  c.apply(wide);
  RawSample response = counters(t0 + 1s, 0, 0);
  response.cleared = bit(Attribute::kPortCounters, "SymbolErrorCounter");
  response.superseded = bit(Attribute::kPortCounters, "PortXmitData");
  c.apply(response);
  wide.received = t0 + 2s;
  wide.values[field(Attribute::kPortCountersExtended, "PortXmitData")] = 10;
  c.apply(wide);
  EXPECT_EQ(total(c, CounterId::kXmitData), 4000u) << "never re-add a raw value";
  EXPECT_EQ(c.stats().foreign_clears, 0u);
  wide.received = t0 + 3s;
  wide.values[field(Attribute::kPortCountersExtended, "PortXmitData")] = 5;
  c.apply(wide);
  EXPECT_EQ(c.stats().foreign_clears, 1u) << "only the first reading after our clear";
}

TEST(Converter, SnapshotsCarryDerivedValuesUtilisationAndSharedExtras) {
  auto topo = testing::one_port_topology(kPort);
  collector::LinkState& link = topo->ports[0].link;
  link.state = 4;
  link.width_active = 2;  // 4X
  link.speed_active = 1;  // SDR: 8 Gb/s
  Converter c({});
  c.set_topology(topo);
  c.apply(counters(t0, 0, 0));
  c.apply(counters(t0 + 1s, 0, 250'000'000));  // 1 GB in 1 s: 8 Gb/s
  RawSample vl = sample(Attribute::kPortVLXmitWaitCounters, t0);
  vl.values[3] = 77;
  c.apply(vl);
  const auto first = c.snapshot(t0 + 1s);
  const PortSnapshot* s = first->find(kPort);
  ASSERT_NE(s, nullptr);
  EXPECT_TRUE(s->in_topology);
  EXPECT_FLOAT_EQ(s->utilisation_out, 1.0f);
  EXPECT_EQ(s->value(schema::DerivedId::kIfOutOctets), 1'000'000'000u);
  ASSERT_TRUE(s->extra);
  const size_t vl3 = field(Attribute::kPortVLXmitWaitCounters, "PortVLXmitWait3");
  const size_t index =
      schema::sinks_of(Attribute::kPortVLXmitWaitCounters)[vl3].counter - schema::kCoreCounterCount;
  ASSERT_TRUE(s->extra->find(index));
  EXPECT_EQ(s->extra->find(index)->total, 77u);
  vl.received = t0 + 2s;
  vl.values[3] = 80;
  c.apply(vl);
  EXPECT_EQ(first->find(kPort)->extra->find(index)->total, 77u)
      << "published snapshots never change";
  EXPECT_EQ(c.snapshot(t0 + 2s)->find(kPort)->extra->find(index)->total, 80u);
}

// Ports answer a subset of the extra attributes (ibsim: no PortExtendedSpeedsCounters): only
// the attributes read take room, and adding one keeps the counters already there.
TEST(Converter, ExtraCountersTakeRoomOnlyForTheAttributesRead) {
  Converter c({});
  c.set_topology(testing::one_port_topology(kPort));
  const auto extra_index = [](Attribute a, const char* name) {
    return schema::sinks_of(a)[field(a, name)].counter - schema::kCoreCounterCount;
  };
  const size_t wait3 = extra_index(Attribute::kPortVLXmitWaitCounters, "PortVLXmitWait3");
  const size_t data2 = extra_index(Attribute::kPortVLOpData, "PortVLOpData2");
  RawSample wait = sample(Attribute::kPortVLXmitWaitCounters, t0);
  wait.values[field(Attribute::kPortVLXmitWaitCounters, "PortVLXmitWait3")] = 77;
  c.apply(wait);
  const auto first = c.snapshot(t0);
  const auto& one = *first->find(kPort)->extra;
  EXPECT_EQ(one.counters(), schema::fields_of(Attribute::kPortVLXmitWaitCounters).size());
  EXPECT_EQ(one.packed(), 1u) << "only PortVLXmitWait3 is not 0";
  EXPECT_FALSE(one.find(data2)) << "PortVLOpData was never read";
  EXPECT_FALSE(one.find(schema::extra_counter_count())) << "out of range";

  RawSample data = sample(Attribute::kPortVLOpData, t0);
  data.values[field(Attribute::kPortVLOpData, "PortVLOpData2")] = 5;
  c.apply(data);
  const auto second = c.snapshot(t0);
  const auto& two = *second->find(kPort)->extra;
  EXPECT_EQ(two.counters(), 2 * schema::fields_of(Attribute::kPortVLXmitWaitCounters).size());
  EXPECT_EQ(two.packed(), 2u);
  ASSERT_TRUE(two.find(wait3));
  EXPECT_EQ(two.find(wait3)->total, 77u);
  ASSERT_TRUE(two.find(data2));
  EXPECT_EQ(two.find(data2)->total, 5u * 4) << "PortVLOpData counts 32-bit words";
  EXPECT_FALSE(one.find(data2)) << "published snapshots never change";
  size_t read = 0;
  two.for_each([&](size_t i, const ExtraCounterState& e) {
    read += e.source != Source::kNone;
    EXPECT_EQ(e.total, i == wait3 ? 77u : i == data2 ? 20u : 0u) << i;
  });
  EXPECT_EQ(read, two.counters()) << "the counters read as 0 are read";
}

// A read that changes no per-VL / per-lane counter leaves the block the snapshots hold shared:
// on a healthy fabric most of them stay still, and a copy per port and read would double them.
TEST(Converter, UnchangedExtraCountersStaySharedWithSnapshots) {
  Converter c({});
  c.set_topology(testing::one_port_topology(kPort));
  const size_t vl3 = field(Attribute::kPortVLXmitWaitCounters, "PortVLXmitWait3");
  const size_t vl5 = field(Attribute::kPortVLXmitWaitCounters, "PortVLXmitWait5");
  RawSample vl = sample(Attribute::kPortVLXmitWaitCounters, t0 - 1s);
  vl.values[vl3] = 77;
  c.apply(vl);
  vl.received = t0;
  c.apply(vl);  // the first interval: its wait rates (0) are new
  const auto first = c.snapshot(t0);
  vl.received = t0 + 1s;
  c.apply(vl);  // the same values again
  const auto second = c.snapshot(t0 + 1s);
  ASSERT_TRUE(first->find(kPort)->extra);
  EXPECT_EQ(first->find(kPort)->extra, second->find(kPort)->extra) << "no copy for no change";

  vl.received = t0 + 2s;
  vl.values[vl5] = 1;
  c.apply(vl);
  const auto third = c.snapshot(t0 + 2s);
  const size_t index =
      schema::sinks_of(Attribute::kPortVLXmitWaitCounters)[vl5].counter - schema::kCoreCounterCount;
  EXPECT_NE(second->find(kPort)->extra, third->find(kPort)->extra);
  EXPECT_EQ(second->find(kPort)->extra->find(index)->total, 0u)
      << "published snapshots never change";
  EXPECT_EQ(third->find(kPort)->extra->find(index)->total, 1u);
}

// ExtraCounterState keeps a last raw reading in 32 bits: every per-VL / per-lane counter must
// be a field of at most 32 bits with no 64-bit copy.
TEST(Converter, ExtraCountersFitTheirCompactState) {
  for (size_t c = schema::kCoreCounterCount; c < schema::counter_count(); ++c) {
    EXPECT_LE(schema::narrow_source(c).width, 32) << c;
    EXPECT_FALSE(schema::wide_source(c).has_value()) << c;
  }
}

// States are kept in topology order: a new topology moves them, and nothing is lost or mixed up.
TEST(Converter, TopologyChangesKeepEachPortsState) {
  const PortKey a{0x10, 1};
  const PortKey b{0x10, 2};
  const PortKey c{0x20, 1};
  const auto topology = [](const std::vector<PortKey>& keys) {
    auto t = std::make_shared<collector::Topology>();
    for (PortKey k : keys)
      t->ports.emplace_back().key = k;
    return t;
  };
  const auto read = [](Converter& conv, PortKey key, Clock::time_point at, uint64_t xmit) {
    RawSample s = counters(at, 0, xmit);
    s.port = key;
    conv.apply(s);
  };
  Converter conv({});
  read(conv, b, t0, 10);
  read(conv, a, t0, 20);
  conv.set_topology(topology({b, c}));
  EXPECT_NE(conv.state(a), nullptr);
  EXPECT_EQ(conv.state(c), nullptr) << "in the topology but not read yet";
  auto snap = conv.snapshot(t0);
  ASSERT_EQ(snap->ports.size(), 3u);
  EXPECT_EQ(snap->ports[0].key, a);
  EXPECT_FALSE(snap->ports[0].in_topology);
  EXPECT_EQ(snap->ports[0].total(CounterId::kXmitData), 80u);
  EXPECT_EQ(snap->ports[1].key, b);
  EXPECT_TRUE(snap->ports[1].in_topology);
  EXPECT_EQ(snap->ports[1].total(CounterId::kXmitData), 40u);
  EXPECT_EQ(snap->ports[2].key, c);
  EXPECT_EQ(snap->ports[2].present, 0u);
  read(conv, c, t0, 30);
  read(conv, b, t0 + 1s, 11);
  conv.set_topology(topology({a, b, c}));  // a is back
  snap = conv.snapshot(t0 + 1s);
  ASSERT_EQ(snap->ports.size(), 3u);
  EXPECT_TRUE(snap->ports[0].in_topology);
  EXPECT_EQ(snap->find(a)->total(CounterId::kXmitData), 80u);
  EXPECT_EQ(snap->find(b)->total(CounterId::kXmitData), 44u);
  EXPECT_EQ(snap->find(c)->total(CounterId::kXmitData), 120u);
  conv.set_topology(topology({b}));
  snap = conv.snapshot(t0 + 2s);
  ASSERT_EQ(snap->ports.size(), 3u);
  EXPECT_FALSE(snap->find(a)->in_topology);
  EXPECT_FALSE(snap->find(c)->in_topology);
  EXPECT_EQ(snap->find(c)->total(CounterId::kXmitData), 120u);
  EXPECT_EQ(conv.state(b)->core[schema::index_of(CounterId::kXmitData)].total, 44u);
}

// apply_batch() is apply() on each sample in turn, whatever the batch holds: new ports, the
// same port twice, failures, our clears' responses.
TEST(Converter, ApplyBatchEqualsApplyOneByOne) {
  std::mt19937 random(3);
  std::vector<RawSample> all;
  for (int round = 0; round < 6; ++round) {
    for (uint8_t port = 1; port <= 40; ++port) {
      for (Attribute a : {Attribute::kPortCounters, Attribute::kPortCountersExtended}) {
        RawSample s = sample(a, t0 + std::chrono::seconds(round));
        s.port = {0x100u + port % 3, port};
        for (size_t f = 0; f < s.field_count; ++f)
          s.values[f] = random() % 1000 * static_cast<uint64_t>(round + 1);
        if (random() % 10 == 0) s.cleared = 1;
        if (random() % 20 == 0) s.failure = MadFailure::kTimeout;
        all.push_back(s);
      }
    }
  }
  std::shuffle(all.begin(), all.end(), random);
  Converter one({});
  Converter batched({});
  std::vector<ApplyEvents> events(all.size());
  for (size_t i = 0; i < all.size();) {
    const size_t n = std::min<size_t>(1 + random() % 50, all.size() - i);
    batched.apply_batch({all.data() + i, n}, events);
    for (size_t j = 0; j < n; ++j) {
      const ApplyEvents e = one.apply(all[i + j]);
      EXPECT_EQ(e.own_clear, events[j].own_clear);
      EXPECT_EQ(e.clear_failed, events[j].clear_failed);
      EXPECT_EQ(e.foreign_clear, events[j].foreign_clear);
    }
    i += n;
  }
  EXPECT_EQ(one.stats().samples, batched.stats().samples);
  EXPECT_EQ(one.stats().foreign_clears, batched.stats().foreign_clears);
  EXPECT_EQ(one.stats().own_clears, batched.stats().own_clears);
  const auto x = one.snapshot(t0);
  const auto y = batched.snapshot(t0);
  ASSERT_EQ(x->ports.size(), y->ports.size());
  for (size_t i = 0; i < x->ports.size(); ++i) {
    EXPECT_EQ(x->ports[i].key, y->ports[i].key);
    EXPECT_EQ(x->ports[i].totals, y->ports[i].totals);
    EXPECT_EQ(one.state(x->ports[i].key)->rates, batched.state(y->ports[i].key)->rates);
    EXPECT_EQ(x->ports[i].present, y->ports[i].present);
    EXPECT_EQ(x->ports[i].saturated, y->ports[i].saturated);
  }
}

TEST(Converter, VanishedPortsAreNotPresentThenForgottenButKeepTheirIfIndex) {
  const PortKey a{0x10, 1};
  const PortKey b{0x20, 1};
  const PortKey never_read{0x30, 1};
  const auto topology = [](const std::vector<PortKey>& keys) {
    auto t = std::make_shared<collector::Topology>();
    for (PortKey k : keys) {
      auto& p = t->ports.emplace_back();
      p.key = k;
      p.link.state = 4;  // Active
      p.link.phys_state = 5;
      p.link.mtu = 5;
      p.lid = static_cast<uint16_t>(k.node_guid);
    }
    return t;
  };
  ConverterOptions options;
  options.not_present_grace = 10min;
  Converter conv(options);
  conv.set_topology(topology({a, b, never_read}), t0);
  RawSample s = counters(t0, 3, 100);
  s.port = a;
  conv.apply(s);
  auto snap = conv.snapshot(t0);
  EXPECT_EQ(snap->find(a)->oper_status, OperStatus::kUp);
  EXPECT_EQ(snap->find(a)->mtu, 4096u);
  EXPECT_EQ(snap->find(a)->phys_lid, 0x10);
  EXPECT_EQ(snap->find(a)->last_change, Clock::time_point{});

  conv.set_topology(topology({b}), t0 + 1min);  // a and never_read leave
  snap = conv.snapshot(t0 + 1min);
  ASSERT_EQ(snap->ports.size(), 3u);
  EXPECT_EQ(snap->find(a)->oper_status, OperStatus::kNotPresent);
  EXPECT_EQ(snap->find(a)->last_change, t0 + 1min);
  EXPECT_EQ(snap->find(a)->total(CounterId::kXmitData), 400u);  // totals stay while present
  EXPECT_EQ(snap->find(never_read)->oper_status, OperStatus::kNotPresent);
  EXPECT_EQ(snap->find(never_read)->if_index, 3u);

  conv.expire(t0 + 10min);  // 9 minutes gone: not yet
  EXPECT_EQ(conv.snapshot(t0 + 10min)->ports.size(), 3u);
  conv.expire(t0 + 11min);
  snap = conv.snapshot(t0 + 11min);
  ASSERT_EQ(snap->ports.size(), 1u);
  EXPECT_EQ(snap->ports[0].key, b);
  EXPECT_EQ(conv.state(a), nullptr);

  // a comes back: a fresh start from its first reading, and its old ifIndex.
  conv.set_topology(topology({a, b}), t0 + 12min);
  s.received = t0 + 12min;
  s.values[field(Attribute::kPortCounters, "PortXmitData")] = 7;
  conv.apply(s);
  snap = conv.snapshot(t0 + 12min);
  EXPECT_EQ(snap->find(a)->total(CounterId::kXmitData), 28u);
  EXPECT_EQ(snap->find(a)->if_index, 1u);
  EXPECT_EQ(snap->find(a)->discontinuity, t0 + 12min);  // its counters restarted
  EXPECT_EQ(snap->find(a)->oper_status, OperStatus::kUp);
  EXPECT_EQ(conv.stats().restarted_ports, 1u);  // and that is counted, once
  EXPECT_EQ(conv.stats().discontinuities(), 1u);
}

TEST(Converter, AShardForgetsOtherShardsPortsAtOnceButReportsItsOwnAsNotPresent) {
  // Shard 1 of 2: two nodes it owns and one it does not.
  std::vector<uint64_t> mine;
  std::vector<uint64_t> theirs;
  for (uint64_t g = 0x100; mine.size() < 2 || theirs.empty(); ++g)
    (collector::shard_owners(g, 2).front() == 1 ? mine : theirs).push_back(g);
  const PortKey own{mine[0], 1};
  const PortKey own_gone{mine[1], 1};
  const PortKey foreign{theirs[0], 1};
  const auto topology = [](const std::vector<PortKey>& keys) {
    auto t = std::make_shared<collector::Topology>();
    for (PortKey k : keys) {
      auto& p = t->ports.emplace_back();
      p.key = k;
      p.link.state = 4;
    }
    return t;
  };
  ConverterOptions options;
  options.shard = {1, 2, 1};
  Converter conv(options);
  // A state file of an earlier layout in which this shard also polled `foreign`.
  conv.restore_port(foreign, Converter::PortState{});
  conv.restore_port(own_gone, Converter::PortState{});
  conv.set_topology(topology({own}), t0);
  const auto snap = conv.snapshot(t0);
  EXPECT_EQ(snap->find(foreign), nullptr) << "another shard's port is not this shard's to report";
  ASSERT_NE(snap->find(own_gone), nullptr) << "an own port that left the fabric stays a while";
  EXPECT_EQ(snap->find(own_gone)->oper_status, OperStatus::kNotPresent);
  EXPECT_EQ(conv.state(foreign), nullptr);
}

// A shard's totals of a port it takes up without saved state restart from its first reading
// (another shard may have exported the series before): marked and counted once. A port the
// state file brings back continues, and an unsharded converter marks no first reading.
TEST(Converter, APortAShardTakesUpWithoutStateIsOneCountedDiscontinuity) {
  std::vector<uint64_t> mine;
  for (uint64_t g = 0x100; mine.size() < 2; ++g)
    if (collector::shard_owners(g, 2).front() == 1) mine.push_back(g);
  const PortKey taken_up{mine[0], 1};
  const PortKey restored{mine[1], 1};
  auto t = std::make_shared<collector::Topology>();
  for (PortKey k : {taken_up, restored}) {
    auto& p = t->ports.emplace_back();
    p.key = k;
    p.link.state = 4;
  }
  ConverterOptions options;
  options.shard = {1, 2, 1};
  Converter conv(options);
  conv.restore_port(restored, Converter::PortState{});
  conv.set_topology(t, t0);
  for (PortKey k : {taken_up, restored}) {
    RawSample s = counters(t0 + 1s, 3, 100);
    s.port = k;
    conv.apply(s);
    s.received = t0 + 2s;
    conv.apply(s);  // a second reading is no new restart
  }
  EXPECT_EQ(conv.state(taken_up)->discontinuity, t0 + 1s);
  EXPECT_EQ(conv.state(restored)->discontinuity, Clock::time_point{});
  EXPECT_EQ(conv.stats().restarted_ports, 1u);

  Converter unsharded({});
  unsharded.set_topology(t, t0);
  RawSample s = counters(t0 + 1s, 3, 100);
  s.port = taken_up;
  unsharded.apply(s);
  EXPECT_EQ(unsharded.state(taken_up)->discontinuity, Clock::time_point{});
  EXPECT_EQ(unsharded.stats().restarted_ports, 0u);
}

}  // namespace
}  // namespace ibpulse::converters
