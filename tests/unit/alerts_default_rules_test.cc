// Default rules that no other test drives: fec_uncorrectable_blocks (any uncorrectable FEC
// block is major) and high_utilisation (over 90% for five minutes, info), each with the event
// it must produce and the cases that must stay quiet.
#include <gtest/gtest.h>

#include "alert_fabric.h"

namespace ibpulse::exporters::alerts {
namespace {

TEST(DefaultRules, OneUncorrectableFecBlockRaisesAMajorAlertOnItsPort) {
  FabricClock f;
  ThresholdEngine e(only("fec_uncorrectable_blocks"), {});
  f.fec_uncorrectable[{kSwitch, 1}] = 7;  // counted before we started: no increase
  EXPECT_TRUE(step(e, f, 0).empty());
  EXPECT_TRUE(step(e, f, 1).empty());
  f.fec_uncorrectable[{kSwitch, 1}] = 8;
  const auto d = step(e, f, 2);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].event.kind, EventKind::kRaised);
  EXPECT_EQ(d[0].event.rule, "fec_uncorrectable_blocks");
  EXPECT_EQ(d[0].event.severity, Severity::kMajor);
  EXPECT_EQ(d[0].event.port, (collector::PortKey{kSwitch, 1}));
  EXPECT_NEAR(d[0].event.value, 1, 1e-9);
  // Quiet for the hysteresis (5 min) clears it, not before.
  std::vector<double> cleared_at;
  for (double t = 3; t <= 400; t += 1) {
    for (const auto& later : step(e, f, t)) {
      EXPECT_EQ(later.event.kind, EventKind::kCleared);
      cleared_at.push_back(t);
    }
  }
  ASSERT_EQ(cleared_at.size(), 1u);
  EXPECT_GE(cleared_at[0], 2 + 300);
}

TEST(DefaultRules, APortWithoutFecCountersNeverRaisesTheFecRule) {
  FabricClock f;
  ThresholdEngine e(only("fec_uncorrectable_blocks"), {});
  f.symbol_errors[{kSwitch, 1}] = 0;
  step(e, f, 0);
  f.symbol_errors[{kSwitch, 1}] = 1000;  // another counter moving
  EXPECT_TRUE(step(e, f, 1).empty());
}

TEST(DefaultRules, HighUtilisationWaitsFiveMinutesAboveNinetyPercent) {
  FabricClock f;
  ThresholdEngine e(only("high_utilisation"), {});
  f.utilisation[{kHca, 1}] = 0.89f;  // below: never raised
  f.utilisation[{kSwitch, 1}] = 0.95f;
  std::vector<double> raised_at;
  for (double t = 0; t <= 400; t += 5) {
    for (const auto& d : step(e, f, t)) {
      ASSERT_EQ(d.event.kind, EventKind::kRaised) << t;
      EXPECT_EQ(d.event.port, (collector::PortKey{kSwitch, 1}));
      EXPECT_EQ(d.event.severity, Severity::kInfo);
      EXPECT_NEAR(d.event.value, 95, 1e-3);
      raised_at.push_back(t);
    }
  }
  EXPECT_EQ(raised_at, std::vector<double>{300});
}

}  // namespace
}  // namespace ibpulse::exporters::alerts
