// The IB-IF-MIB draft's formulas (POH = 4, SLP = 8) on hand-computed values, and link rates.
#include "ibpulse/converters/if_mib.h"

#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>

namespace ibpulse::converters {
namespace {

using schema::CounterId;
using schema::DerivedId;

CoreTotals sample_totals() {
  CoreTotals t{};
  const auto set = [&](CounterId id, uint64_t v) { t[schema::index_of(id)] = v; };
  set(CounterId::kRcvData, 4000);  // octets (1000 words x 4)
  set(CounterId::kXmitData, 8000);
  set(CounterId::kRcvPackets, 10);
  set(CounterId::kXmitPackets, 20);
  set(CounterId::kRcvFlowPackets, 3);
  set(CounterId::kXmitFlowPackets, 5);
  set(CounterId::kUnicastRcvPackets, 7);
  set(CounterId::kMulticastRcvPackets, 3);
  set(CounterId::kUnicastXmitPackets, 15);
  set(CounterId::kMulticastXmitPackets, 5);
  set(CounterId::kXmitDiscards, 2);
  set(CounterId::kXmitConstraintErrors, 1);
  set(CounterId::kRcvConstraintErrors, 4);
  set(CounterId::kVl15Dropped, 6);
  set(CounterId::kRcvRemotePhysicalErrors, 11);
  set(CounterId::kRcvErrors, 13);
  return t;
}

uint64_t v(const DerivedTotals& d, DerivedId id) {
  return d[static_cast<size_t>(id)];
}

// The schema's help states a formula ("IF-MIB ifInErrors: PortRcvRemotePhysicalErrors +
// PortRcvErrors"); the converters compute it. The counters the prose names are the ones the
// formula reads (without the IETF counters, where the help's formulas apply), and its weights
// are the draft's POH and SLP.
TEST(IfMib, TheSchemasFormulaProseNamesTheCountersTheFormulaReads) {
  size_t formulas = 0;
  for (size_t d = 0; d < schema::kDerivedCount; ++d) {
    const auto id = static_cast<DerivedId>(d);
    const std::string help(schema::derived(id).help);
    const size_t colon = help.find(": ");
    if (colon == std::string::npos) continue;  // no formula in its help: one counter's copy
    ++formulas;
    std::set<std::string> named;
    std::istringstream terms(help.substr(colon + 2));
    for (std::string word; terms >> word;) {
      if (word == "+" || word == "x") continue;
      if (word == "4") {
        EXPECT_EQ(kPacketOverhead, 4u);
      } else if (word == "8") {
        EXPECT_EQ(kSlpOctets, 8u);
      } else {
        named.insert(word);
      }
    }
    std::set<std::string> read;
    const uint64_t components = if_mib_components(false, id);
    for (size_t c = 0; c < schema::kCoreCounterCount; ++c) {
      if ((components >> c & 1) != 0) read.insert(std::string(schema::counter_table()[c].field));
    }
    EXPECT_EQ(named, read) << help;
  }
  EXPECT_EQ(formulas, 5u);  // octets in and out, discards in and out, errors in
}

TEST(IfMib, OctetsAddPacketOverheadAndFlowControlPackets) {
  const auto d = if_mib_values(sample_totals(), true);
  EXPECT_EQ(v(d, DerivedId::kIfInOctets), 4000u + 10 * 4 + 3 * 8);   // 4064
  EXPECT_EQ(v(d, DerivedId::kIfOutOctets), 8000u + 20 * 4 + 5 * 8);  // 8120
}

TEST(IfMib, PacketsWithTheIetfCountersSplitUnicastAndMulticast) {
  const auto d = if_mib_values(sample_totals(), true);
  EXPECT_EQ(v(d, DerivedId::kIfInUcastPkts), 7u);
  EXPECT_EQ(v(d, DerivedId::kIfInMulticastPkts), 3u);
  EXPECT_EQ(v(d, DerivedId::kIfOutUcastPkts), 15u + 2 + 1);
  EXPECT_EQ(v(d, DerivedId::kIfOutMulticastPkts), 5u);
}

TEST(IfMib, PacketsWithoutTheIetfCountersAreAllUnicast) {
  const auto d = if_mib_values(sample_totals(), false);
  EXPECT_EQ(v(d, DerivedId::kIfInUcastPkts), 10u);
  EXPECT_EQ(v(d, DerivedId::kIfInMulticastPkts), 0u);
  EXPECT_EQ(v(d, DerivedId::kIfOutUcastPkts), 20u + 2 + 1);
  EXPECT_EQ(v(d, DerivedId::kIfOutMulticastPkts), 0u);
}

TEST(IfMib, DiscardsAndErrors) {
  const auto d = if_mib_values(sample_totals(), true);
  EXPECT_EQ(v(d, DerivedId::kIfInDiscards), 4u + 6);
  EXPECT_EQ(v(d, DerivedId::kIfOutDiscards), 2u + 1);
  EXPECT_EQ(v(d, DerivedId::kIfInErrors), 11u + 13);
}

TEST(IfMib, FlowControlPacketsMissingCountZero) {
  CoreTotals t = sample_totals();
  t[schema::index_of(CounterId::kRcvFlowPackets)] = 0;
  EXPECT_EQ(v(if_mib_values(t, true), DerivedId::kIfInOctets), 4040u);
}

TEST(LinkRate, LanesTimesLaneDataRate) {
  collector::LinkState l;
  l.width_active = 2;  // 4X
  l.speed_active = 1;  // SDR
  EXPECT_EQ(link_bits_per_second(l), 8'000'000'000u);
  l.speed_active = 4;  // QDR
  EXPECT_EQ(link_bits_per_second(l), 32'000'000'000u);
  l.speed_ext_active = 2;  // EDR wins over the base speed
  EXPECT_EQ(link_bits_per_second(l), 100'000'000'000u);
  l.width_active = 8;  // 12X
  l.speed_ext_active = 0;
  l.speed_active = 1;
  EXPECT_EQ(link_bits_per_second(l), 24'000'000'000u);
  l.width_active = 1;
  l.speed_ext_active = 4;  // 1X HDR
  EXPECT_EQ(link_bits_per_second(l), 50'000'000'000u);
  l.width_active = 0;
  EXPECT_EQ(link_bits_per_second(l), 0u);
}

}  // namespace
}  // namespace ibpulse::converters
