// IBPULSE-MIB's collector scalars: exact OIDs, types and values, GETNEXT order and its end.
#include "ibpulse/exporters/snmp/status_scalars.h"

#include <gtest/gtest.h>

namespace ibpulse::exporters::snmp {
namespace {

Oid scalar(uint32_t n) {
  return {1, 3, 6, 1, 4, 1, 8072, 9999, 9999, 1, 1, n, 0};
}

TEST(StatusScalars, WalkGivesEveryScalarInOrderWithItsType) {
  CollectorStatus s;
  s.poller.nodes = 6;
  s.poller.ports = 24;
  s.poller.sweeps = 7;
  s.poller.last_sweep.seconds = 1.5;
  s.poller.last_sweep.lag_seconds = 5'000'000;  // in ms a Gauge32 saturates
  s.poller.mad.failed_for(collector::MadFailure::kTimeout) = 1;
  s.poller.mad.failed_for(collector::MadFailure::kStatus) = 2;
  s.converter.foreign_clears = 4;
  s.converter.restarted_ports = 1;
  s.snapshot_age_seconds = 0.25;
  std::vector<VarBind> walk;
  Oid at = {1, 3, 6, 1, 4, 1, 8072, 9999, 9999};
  VarBind vb;
  while (status_next(s, at, false, vb)) {
    walk.push_back(vb);
    at = vb.name;
  }
  ASSERT_EQ(walk.size(), 14u);
  for (uint32_t n = 1; n <= 14; ++n)
    EXPECT_EQ(walk[n - 1].name, scalar(n));
  EXPECT_EQ(walk[0].number, 6u);  // ibpulseFabricNodes
  EXPECT_EQ(walk[0].type, VarType::kGauge32);
  EXPECT_EQ(walk[1].number, 24u);
  EXPECT_EQ(walk[4].number, 7u);  // ibpulseSweeps
  EXPECT_EQ(walk[4].type, VarType::kCounter64);
  EXPECT_EQ(walk[5].number, 1500u);  // ibpulseLastSweepDuration, in ms
  EXPECT_EQ(walk[5].type, VarType::kGauge32);
  EXPECT_EQ(walk[6].number, 4294967295u);  // ibpulseLastSweepLag
  EXPECT_EQ(walk[10].number, 3u);          // ibpulseMadFailures: over every reason
  EXPECT_EQ(walk[10].type, VarType::kCounter64);
  EXPECT_EQ(walk[12].number, 5u);    // ibpulseDiscontinuities: clears and restarts
  EXPECT_EQ(walk[13].number, 250u);  // ibpulseSnapshotAge, in ms
}

TEST(StatusScalars, InclusiveAndPastTheEnd) {
  CollectorStatus s;
  VarBind vb;
  ASSERT_TRUE(status_next(s, scalar(3), true, vb));
  EXPECT_EQ(vb.name, scalar(3));
  ASSERT_TRUE(status_next(s, scalar(3), false, vb));
  EXPECT_EQ(vb.name, scalar(4));
  EXPECT_FALSE(status_next(s, scalar(14), false, vb));
  EXPECT_FALSE(status_next(s, Oid{1, 3, 6, 1, 4, 1, 8072, 9999, 9999, 2}, false, vb));
  ASSERT_TRUE(status_next(s, Oid{1, 3, 6, 1, 4, 1, 8072, 9999, 9999, 1, 1}, false, vb));
  EXPECT_EQ(vb.name, scalar(1));
}

}  // namespace
}  // namespace ibpulse::exporters::snmp
