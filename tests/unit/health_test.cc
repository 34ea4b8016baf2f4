// Link health from snapshots of the two-node fabric (test_fabric.h: an HCA port and switch port
// 7, 4X EDR, 100 Gb/s of data): BERs over covered time, flaps, bursts, one entry per link.
#include "ibpulse/exporters/alerts/health.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "ibpulse/converters/converter.h"
#include "ibpulse/exporters/alerts/engine.h"
#include "sample_builders.h"
#include "test_fabric.h"

namespace ibpulse::exporters::alerts {
namespace {

using collector::RawSample;
using converters::Clock;
using converters::testing::field;
using converters::testing::kHca;
using converters::testing::kSwitch;
using schema::Attribute;
using namespace std::chrono_literals;

const Clock::time_point t0 = Clock::time_point{} + 1h;

// PortCounters of `port` at `at` with `set` applied to its fields.
RawSample counters(collector::PortKey port, Clock::time_point at,
                   const std::function<void(RawSample&)>& set = {}) {
  RawSample s = converters::testing::sample(port, Attribute::kPortCounters, at);
  if (set) set(s);
  return s;
}

void put(RawSample& s, std::string_view name, uint64_t value) {
  s.values[field(Attribute::kPortCounters, name)] = value;
}

// Reads both ends every second for `seconds`, each reading from `reading(port, second)`, and
// evaluates each snapshot; returns the last health.
std::shared_ptr<const HealthSnapshot> run(
    HealthEngine& engine, int seconds,
    const std::function<void(collector::PortKey, int, RawSample&)>& reading) {
  converters::Converter c({});
  c.set_topology(converters::testing::two_node_fabric("leaf01"), t0);
  std::shared_ptr<const HealthSnapshot> last;
  for (int i = 0; i <= seconds; ++i) {
    const auto at = t0 + std::chrono::seconds(i);
    for (const auto port : {kHca, kSwitch}) {
      c.apply(counters(port, at, [&](RawSample& s) { reading(port, i, s); }));
    }
    last = engine.evaluate(*c.snapshot(at));
  }
  return last;
}

const PortHealth& of(const HealthSnapshot& h, collector::PortKey key) {
  for (const PortHealth& p : h.ports) {
    if (p.key == key) return p;
  }
  ADD_FAILURE() << "no port";
  return h.ports.front();
}

TEST(Health, ABerIsZeroWithCoveredTimeAndAbsentWithout) {
  HealthEngine engine;
  const auto h = run(engine, 5, [](collector::PortKey, int, RawSample&) {});
  EXPECT_EQ(of(*h, kHca).symbol_ber, 0.0f);
  EXPECT_EQ(of(*h, kHca).state, HealthState::kOk);
  EXPECT_TRUE(std::isnan(of(*h, kHca).effective_ber)) << "no RS-FEC totals read";
  HealthEngine fresh;
  const auto first = run(fresh, 0, [](collector::PortKey, int, RawSample&) {});
  EXPECT_TRUE(std::isnan(of(*first, kHca).symbol_ber)) << "one reading covers no time";
}

// 1,000 symbol errors in 10 s of a 100 Gb/s link (1e12 bits): 1e-9, far above 1e-12.
TEST(Health, ManySymbolErrorsAreABerAboveSpecOnOneLinkEntry) {
  HealthEngine engine;
  const auto h = run(engine, 10, [](collector::PortKey port, int i, RawSample& s) {
    if (port == kHca) put(s, "SymbolErrorCounter", static_cast<uint64_t>(i) * 100);
  });
  const PortHealth& hca = of(*h, kHca);
  EXPECT_NEAR(hca.symbol_ber, 1e-9, 1e-11);
  EXPECT_EQ(hca.reasons & kReasonBerAboveSpec, kReasonBerAboveSpec);
  EXPECT_EQ(hca.state, HealthState::kFailing);
  EXPECT_EQ(of(*h, kSwitch).state, HealthState::kOk);
  ASSERT_EQ(h->links.size(), 1u) << "a link is one entry, not one per end";
  EXPECT_EQ(h->links[0].a, kHca);
  EXPECT_EQ(h->links[0].b, kSwitch);
  EXPECT_EQ(h->links[0].state, HealthState::kFailing);
}

// A daemon's first snapshot comes before its first sweep: the ports' first values arrive after
// the BER window's first kept slot. Errors in the first minutes still count for the whole
// window, not for the one snapshot after them.
TEST(Health, ErrorsInAPortsFirstMinutesCountForTheWholeWindow) {
  HealthEngine engine;  // 10-minute BER window: a kept slot every 100 s
  // The daemon's very first snapshot comes before its topology (no port at all), the next ones
  // before its first sweep (every port, none read yet).
  (void)engine.evaluate(*converters::Converter({}).snapshot(t0 - 1s));
  converters::Converter c({});
  c.set_topology(converters::testing::two_node_fabric("leaf01"), t0);
  (void)engine.evaluate(*c.snapshot(t0));
  std::shared_ptr<const HealthSnapshot> h;
  for (int i = 1; i <= 40; ++i) {
    const auto at = t0 + std::chrono::seconds(i);
    c.apply(counters(kHca, at, [&](RawSample& s) {
      if (i >= 20) put(s, "SymbolErrorCounter", 500);
    }));
    h = engine.evaluate(*c.snapshot(at));
  }
  // 500 errors over the 39 s covered at 100 Gb/s, twenty snapshots after them.
  EXPECT_NEAR(of(*h, kHca).symbol_ber, 500 / (39 * 100e9), 1e-12);
  EXPECT_EQ(of(*h, kHca).state, HealthState::kFailing);
}

// One error in 10 s of a 100 Gb/s link proves nothing about a 1e-12 spec.
TEST(Health, OneErrorIsNotABerAboveSpec) {
  HealthEngine engine;
  const auto h = run(engine, 10, [](collector::PortKey port, int i, RawSample& s) {
    if (port == kHca && i >= 5) put(s, "SymbolErrorCounter", 1);
  });
  EXPECT_NEAR(of(*h, kHca).symbol_ber, 1e-12, 1e-14);
  EXPECT_EQ(of(*h, kHca).state, HealthState::kOk);
}

TEST(Health, FlapsAboveTheLimitAreFailing) {
  for (const uint64_t flaps : {5u, 6u}) {
    HealthEngine engine;  // limit 5 per minute
    const auto h = run(engine, 30, [&](collector::PortKey port, int i, RawSample& s) {
      if (port != kSwitch || i < 10) return;
      put(s, "LinkDownedCounter", flaps / 2);
      put(s, "LinkErrorRecoveryCounter", flaps - flaps / 2);
    });
    EXPECT_EQ(of(*h, kSwitch).link_flaps, flaps);
    EXPECT_EQ(of(*h, kSwitch).state, flaps > 5 ? HealthState::kFailing : HealthState::kOk);
  }
}

// 101 link integrity errors within the flap window: a burst, degraded (no BER counts them).
TEST(Health, AnErrorBurstMakesThePortAtLeastDegraded) {
  HealthEngine engine;
  const auto h = run(engine, 20, [](collector::PortKey port, int i, RawSample& s) {
    if (port == kHca && i >= 10) put(s, "LocalLinkIntegrityErrors", 101);
  });
  EXPECT_EQ(of(*h, kHca).reasons, kReasonErrorBurst);
  EXPECT_EQ(of(*h, kHca).state, HealthState::kDegraded);
  ASSERT_EQ(h->links.size(), 1u);
  EXPECT_EQ(h->links[0].state, HealthState::kDegraded);
}

// The flap window slides: a minute after the flaps, the port is ok again.
TEST(Health, AReasonClearsOnceItsWindowNoLongerHoldsTheErrors) {
  HealthEngine engine;
  const auto h = run(engine, 100, [](collector::PortKey port, int i, RawSample& s) {
    if (port == kSwitch && i >= 10) put(s, "LinkDownedCounter", 9);
  });
  EXPECT_EQ(of(*h, kSwitch).link_flaps, 0u);
  EXPECT_EQ(of(*h, kSwitch).state, HealthState::kOk);
}

// The default rules on link health raise on the health of the same snapshot and clear once
// the reason is gone for their clear time; a health of another snapshot judges nothing.
TEST(Health, DefaultRulesRaiseAndClearOnTheHealthReasons) {
  std::vector<Rule> rules;
  for (Rule& r : default_rules()) {
    if (r.kind == RuleKind::kHealth) rules.push_back(std::move(r));
  }
  ASSERT_EQ(rules.size(), 3u);
  ThresholdEngine engine(rules, {});
  converters::Converter c({});
  c.set_topology(converters::testing::two_node_fabric("leaf01"), t0);
  c.apply(counters(kHca, t0));
  c.apply(counters(kSwitch, t0));
  const auto wall = std::chrono::system_clock::now();
  std::vector<std::string> raised;
  std::vector<std::string> cleared;
  const auto step = [&](Clock::time_point at, uint16_t hca_reasons, bool matching = true) {
    auto s = c.snapshot(at);
    HealthSnapshot h;
    h.sequence = matching ? s->sequence : s->sequence + 1;
    for (const auto& p : s->ports) {
      PortHealth ph;
      ph.key = p.key;
      ph.reasons = p.key == kHca ? hca_reasons : 0;
      ph.symbol_ber = 3e-9f;
      ph.state = health_state_of(ph.reasons);
      h.ports.push_back(ph);
    }
    for (const Decision& d : engine.evaluate(*s, wall, &h)) {
      (d.event.kind == EventKind::kRaised ? raised : cleared).push_back(d.event.rule);
    }
  };
  step(t0 + 1s, kReasonBerAboveSpec, false);
  EXPECT_TRUE(raised.empty()) << "the health of another snapshot";
  step(t0 + 2s, kReasonBerAboveSpec);
  EXPECT_EQ(raised, (std::vector<std::string>{"ber_above_spec", "health_failing"}));
  step(t0 + 3s, kReasonFlapping);
  EXPECT_EQ(raised.back(), "link_flapping");
  step(t0 + 70s, 0);  // clear_after: one minute false
  step(t0 + 140s, 0);
  EXPECT_EQ(cleared.size(), 3u);
  ASSERT_EQ(engine.active().size(), 0u);
}

// A restart keeps what the windows held: the saved reasons until their own window has passed
// since the save, the saved flaps until the flap window has.
TEST(Health, SavedHealthHoldsAfterARestartUntilItsWindowsPass) {
  HealthSnapshot before;
  PortHealth p;
  p.key = kHca;
  p.reasons = kReasonBerAboveSpec | kReasonFlapping;
  p.link_flaps = 6;
  before.ports.push_back(p);
  PortHealth quiet;
  quiet.key = kSwitch;
  before.ports.push_back(quiet);
  const auto wall = std::chrono::system_clock::time_point(std::chrono::seconds(1'800'000'000));
  const auto saved = decode_health(encode_health(before, 1'800'000'000 - 10));  // 10 s ago
  ASSERT_TRUE(saved) << saved.error();
  ASSERT_EQ(saved->ports.size(), 1u) << "a quiet port is not saved";

  HealthEngine engine;
  engine.restore(*saved, wall, t0);
  converters::Converter c({});
  c.set_topology(converters::testing::two_node_fabric("leaf01"), t0);
  const auto at = [&](std::chrono::seconds after) {
    c.apply(counters(kHca, t0 + after));
    return engine.evaluate(*c.snapshot(t0 + after));
  };
  auto h = at(5s);
  EXPECT_EQ(of(*h, kHca).link_flaps, 6u);
  EXPECT_EQ(of(*h, kHca).reasons, kReasonBerAboveSpec | kReasonFlapping);
  EXPECT_EQ(of(*h, kHca).state, HealthState::kFailing);
  EXPECT_EQ(h->links.at(0).state, HealthState::kFailing);
  h = at(55s);  // the flap window (1 min) has passed since the save, 10 s before t0
  EXPECT_EQ(of(*h, kHca).link_flaps, 0u);
  EXPECT_EQ(of(*h, kHca).reasons, kReasonBerAboveSpec);
  h = at(595s);  // and the BER window (10 min)
  EXPECT_EQ(of(*h, kHca).state, HealthState::kOk);
}

TEST(Health, ADamagedHealthFileIsRefusedWithItsReason) {
  EXPECT_NE(decode_health("{").error().find("not JSON"), std::string::npos);
  EXPECT_NE(decode_health(R"({"version": 2})").error().find("version 2"), std::string::npos);
  EXPECT_NE(decode_health(R"({"version": 1, "saved_unix_seconds": 5, "ports": [{"node_guid":
      "0x10", "port": 1, "reasons": 4096, "link_flaps": 0}]})")
                .error()
                .find("damaged"),
            std::string::npos);
}

}  // namespace
}  // namespace ibpulse::exporters::alerts
