// How the poller finds each port's PortExtendedSpeedsCounters layout (ext_speeds_layout.h):
// the fake fabric answers PortInfoExtended (SMP 0x33) and the RS-FEC layout, which ibsim
// cannot; the samples say which layout each reading was decoded with.
#include <gtest/gtest.h>

#include "poller_harness.h"

namespace ibpulse::collector {
namespace {

using namespace std::chrono_literals;
using schema::Attribute;
using schema::Layout;

constexpr uint64_t kFecCorrected = 777;      // PortFECCorrectedSymbolCtr on every port
const PortKey kSwitchPort1{kSwitchGuid, 1};  // kHca1's peer

size_t counter_index(std::string_view name) {
  const auto table = schema::counter_table();
  for (size_t i = 0; i < table.size(); ++i) {
    if (table[i].name == name && table[i].label.empty()) return i;
  }
  ADD_FAILURE() << name;
  return 0;
}

// What perfquery's checks see on every node of the harness's fabric.
struct Case {
  std::string name;
  uint16_t pma_mask = 0x1200 | 0x4000;  // ClassPortInfo, IsPMRSFECCountersSupported on
  uint32_t port_info_mask = 0xc048;     // 0x8000: CapabilityMask2 valid
  uint16_t port_info_mask2 = 0x32;      // 0x0002: PortInfoExtended supported
  uint32_t pie_mask = 1;                // IsFECModeSupported
  uint16_t fec_mode = 2;
  Layout expected = Layout::kRsFec;
  bool asks = true;  // PortInfoExtended is asked (once per port)
};

void set_up_hdr(PollerHarness& h, const Case& c) {
  h.options.intervals.port_info = 1s;
  h.fabric.smp_agent = true;
  for (const uint64_t guid : {kSwitchGuid, kHca1.node_guid, kHca2.node_guid, kHca3.node_guid}) {
    testing::FakeNode& n = h.fabric.node(guid);
    n.capability_mask = c.pma_mask;
    n.port_info_capability_mask = c.port_info_mask;
    n.port_info_capability_mask2 = c.port_info_mask2;
    n.port_info_ext_capability_mask = c.pie_mask;
    n.fec_mode_active = c.fec_mode;
    n.speed_ext_active = 4;  // HDR
    n.pesc_layout = c.expected;
  }
  for (const PortKey p : {kHca1, kSwitchPort1})
    h.fabric.set(p, counter_index("fec_corrected_symbols"), kFecCorrected);
}

// Every reading of `port`'s extended speeds counters, decoded in `layout`; at least one. In
// the RS-FEC layout kHca1 and its peer read kFecCorrected where the older layout has nothing.
void expect_read_in(const PollerHarness& h, PortKey port, Layout layout, const std::string& why) {
  const auto read = h.of(port, Attribute::kPortExtendedSpeedsCounters);
  ASSERT_FALSE(read.empty()) << why;
  for (const RawSample& s : read) {
    ASSERT_EQ(s.failure, MadFailure::kNone) << why;
    EXPECT_EQ(s.layout, layout) << why;
    if (layout != Layout::kRsFec || !(port == kHca1 || port == kSwitchPort1)) continue;
    const auto fields = schema::fields_of(s.attribute, s.layout);
    EXPECT_EQ(s.values[fields.size() - 1], kFecCorrected) << why << ": PortFECCorrectedSymbolCtr";
  }
}

TEST(PollerLayout, AutoChoosesRsFecExactlyWhenPerfqueryWould) {
  std::vector<Case> cases;
  cases.push_back({"every check passes, RS-FEC"});
  cases.push_back({"Low-Latency RS-FEC", 0x5200, 0xc048, 0x32, 1, 3});
  cases.push_back({"RS-FEC2", 0x5200, 0xc048, 0x32, 1, 4});
  cases.push_back({"Fire-Code FEC", 0x5200, 0xc048, 0x32, 1, 1, Layout::kStandard});
  cases.push_back({"no FEC", 0x5200, 0xc048, 0x32, 1, 0, Layout::kStandard});
  cases.push_back({"FEC mode unsupported", 0x5200, 0xc048, 0x32, 0, 2, Layout::kStandard});
  cases.push_back(
      {"PMA without RS-FEC counters", 0x1200, 0xc048, 0x32, 1, 2, Layout::kStandard, false});
  cases.push_back({"no CapabilityMask2", 0x5200, 0x4048, 0x32, 1, 2, Layout::kStandard, false});
  cases.push_back({"no PortInfoExtended", 0x5200, 0xc048, 0x30, 1, 2, Layout::kStandard, false});
  for (const Case& c : cases) {
    PollerHarness h;
    set_up_hdr(h, c);
    ASSERT_TRUE(h.run(25).ok()) << c.name;
    // Read in the right layout from the first reading on: never before it was decided.
    expect_read_in(h, kHca1, c.expected, c.name);
    expect_read_in(h, kSwitchPort1, c.expected, c.name);
    for (const PortKey p : {kHca1, kSwitchPort1}) {
      EXPECT_EQ(h.fabric.smp_attempts(p, kPortInfoExtendedAttribute), c.asks ? 1u : 0u) << c.name;
    }
    for (const std::string& w : h.warnings)
      EXPECT_EQ(w.find("ext_speeds_layout_fallback"), std::string::npos) << c.name << ": " << w;
  }
}

// ibsim: ClassPortInfo 0x1200/0x1300 and PortInfo CapabilityMask2 0x30. Nothing is asked.
TEST(PollerLayout, IbsimLikePortsGetTheOlderLayoutWithoutAnySmp0x33) {
  PollerHarness h;
  h.options.intervals.port_info = 1s;
  h.fabric.smp_agent = true;
  for (const uint64_t guid : {kSwitchGuid, kHca1.node_guid, kHca2.node_guid, kHca3.node_guid})
    h.fabric.node(guid).speed_ext_active = 4;
  ASSERT_TRUE(h.run(25).ok());
  expect_read_in(h, kHca1, Layout::kStandard, "ibsim-like");
  for (const PortKey p : {kHca1, kHca2, kHca3, kSwitchPort1})
    EXPECT_EQ(h.fabric.smp_attempts(p, kPortInfoExtendedAttribute), 0u);
  EXPECT_GT(h.fabric.smp_attempts(kHca1, 0x15), 0u) << "PortInfo itself is refreshed";
}

TEST(PollerLayout, AnUnansweredPortInfoExtendedFallsBackToTheOlderLayout) {
  for (const bool refused : {false, true}) {
    PollerHarness h;
    set_up_hdr(h, Case{"unanswered", 0x5200, 0xc048, 0x32, 1, 2, Layout::kStandard});
    if (refused) {
      h.fabric.node(kHca1.node_guid).smp_status[kPortInfoExtendedAttribute] = 0x000C;
    } else {
      h.fabric.node(kHca1.node_guid).smp_lost.insert(kPortInfoExtendedAttribute);
    }
    h.fabric.node(kSwitchGuid).pesc_layout = Layout::kRsFec;
    ASSERT_TRUE(h.run(40).ok());
    expect_read_in(h, kHca1, Layout::kStandard, refused ? "refused" : "unanswered");
    expect_read_in(h, kSwitchPort1, Layout::kRsFec, "its peer answered");
    const uint64_t attempts_per_ask = 1 + h.options.mad.retries;
    EXPECT_EQ(h.fabric.smp_attempts(kHca1, kPortInfoExtendedAttribute),
              refused ? 1u : ExtSpeedsLayouts::kMaxAsks * attempts_per_ask);
    size_t warned = 0;
    for (const std::string& w : h.warnings) {
      if (w.find("event=ext_speeds_layout_fallback node_guid=0x0000000000000201 reason=\"" +
                 std::string(refused ? "PortInfoExtended refused"
                                     : "PortInfoExtended unanswered")) != std::string::npos)
        ++warned;
    }
    EXPECT_EQ(warned, 1u) << (refused ? "refused" : "unanswered");
  }
}

TEST(PollerLayout, TheLayoutIsAskedAgainWhenTheLinkComesBackUp) {
  PollerHarness h;
  set_up_hdr(h, Case{"relink"});
  h.on_sweep = [&](const SweepSummary& s) {
    if (s.number == 8) h.fabric.set_link_up(kHca1, false);
    if (s.number == 16) h.fabric.set_link_up(kHca1, true);
  };
  ASSERT_TRUE(h.run(30).ok());
  EXPECT_EQ(h.fabric.smp_attempts(kHca1, kPortInfoExtendedAttribute), 2u);
  EXPECT_EQ(h.fabric.smp_attempts(kHca2, kPortInfoExtendedAttribute), 1u) << "left alone";
  expect_read_in(h, kHca1, Layout::kRsFec, "relink");
}

TEST(PollerLayout, WithoutSmpsAutoMeansTheOlderLayoutAndOneWarning) {
  for (const bool interval_off : {false, true}) {
    PollerHarness h;
    set_up_hdr(h, Case{"no SMPs"});
    h.fabric.smp_agent = interval_off;  // on, but never used; off: the class cannot be had
    if (interval_off) h.options.intervals.port_info = 0ms;
    for (const uint64_t guid : {kSwitchGuid, kHca1.node_guid, kHca2.node_guid, kHca3.node_guid})
      h.fabric.node(guid).pesc_layout = Layout::kStandard;
    ASSERT_TRUE(h.run(25).ok());
    expect_read_in(h, kHca1, Layout::kStandard, "no SMPs");
    EXPECT_EQ(h.fabric.smp_attempts(kHca1, kPortInfoExtendedAttribute), 0u);
    size_t warned = 0;
    for (const std::string& w : h.warnings) {
      if (w.starts_with("event=ext_speeds_layout_fallback reason=\"SMPs are off")) ++warned;
    }
    EXPECT_EQ(warned, 1u) << (interval_off ? "poll.port-info-interval off" : "no SMP class");
  }
}

// collect.ext-speeds-layout set: every linked port is read in that layout, whatever its
// speed (ibsim's links are SDR), and nothing is asked.
TEST(PollerLayout, ASetLayoutAsksNothingAndReadsEveryLinkedPort) {
  for (const auto mode : {ExtSpeedsLayoutMode::kRsFec, ExtSpeedsLayoutMode::kLegacy}) {
    PollerHarness h;
    set_up_hdr(h, Case{"set"});
    h.options.ext_speeds_layout = mode;
    const Layout layout = mode == ExtSpeedsLayoutMode::kRsFec ? Layout::kRsFec : Layout::kStandard;
    for (const uint64_t guid : {kSwitchGuid, kHca1.node_guid, kHca2.node_guid, kHca3.node_guid}) {
      h.fabric.node(guid).speed_ext_active = 0;  // SDR
      h.fabric.node(guid).pesc_layout = layout;
    }
    ASSERT_TRUE(h.run(25).ok());
    for (const PortKey p : {kHca1, kHca2, kHca3, kSwitchPort1}) {
      expect_read_in(h, p, layout, "set");
      EXPECT_EQ(h.fabric.smp_attempts(p, kPortInfoExtendedAttribute), 0u);
    }
    EXPECT_TRUE(h.of(kSwitchIdle, Attribute::kPortExtendedSpeedsCounters).empty())
        << "a port without a cable is not read";
  }
}

// MADs per port per sweep with every detail attribute on, for an HDR port of a modern PMA
// (docs/collector.md, "Extended speeds"): PortCountersExtended every sweep (1 s), the seven
// detail attributes and PortExtendedSpeedsCounters every poll.details-interval (10 s), PortInfo
// every poll.port-info-interval (10 s), PortInfoExtended once.
TEST(PollerLayout, MadsPerPortPerSweepWithDetailsOn) {
  PollerHarness h;
  set_up_hdr(h, Case{"modern HDR"});
  h.options.intervals.port_info = 10s;
  for (const uint64_t guid : {kSwitchGuid, kHca1.node_guid, kHca2.node_guid, kHca3.node_guid}) {
    h.fabric.node(guid).capability_mask = 0x9200 | 0x4000;  // + 64-bit error counters: 1 MAD
    h.fabric.node(guid).capability_mask2 = 0x2;
  }
  constexpr size_t kSweeps = 100;
  ASSERT_TRUE(h.run(kSweeps).ok());
  const auto pma = [&](Attribute a) { return h.fabric.attempts(kHca1, a); };
  EXPECT_EQ(pma(Attribute::kPortCounters), 0u);
  const uint64_t counters = pma(Attribute::kPortCountersExtended);
  uint64_t details = 0;
  for (const Attribute a : kDetailAttributes)
    details += pma(a);
  const uint64_t speeds = pma(Attribute::kPortExtendedSpeedsCounters);
  const uint64_t port_info = h.fabric.smp_attempts(kHca1, 0x15);
  const uint64_t pie = h.fabric.smp_attempts(kHca1, kPortInfoExtendedAttribute);
  // 100 sweeps of 1 s: 100 reads of the counters group, 10 of each detail attribute.
  EXPECT_NEAR(static_cast<double>(counters), kSweeps, 2);
  EXPECT_NEAR(static_cast<double>(details), 7.0 * kSweeps / 10, 7);
  EXPECT_NEAR(static_cast<double>(speeds), kSweeps / 10.0, 1);
  EXPECT_NEAR(static_cast<double>(port_info), kSweeps / 10.0, 1);
  EXPECT_EQ(pie, 1u);
  const double per_sweep =
      static_cast<double>(counters + details + speeds + port_info + pie) / kSweeps;
  EXPECT_NEAR(per_sweep, 1.0 + 0.8 + 0.1, 0.1) << "MADs per port per sweep";
}

}  // namespace
}  // namespace ibpulse::collector
