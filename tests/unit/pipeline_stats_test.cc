// The poller's and converter's statistics table: names unique where they are shown, the
// conventions each place expects, and whole values as the SNMP scalars serve them.
#include "ibpulse/converters/pipeline_stats.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace ibpulse::converters {
namespace {

TEST(PipelineStats, EveryNameIsUniqueWhereItIsShown) {
  std::set<std::string_view> metrics;
  std::set<std::string_view> log_keys;
  for (const PipelineStat& stat : pipeline_stats()) {
    if (!stat.metric.empty()) {
      EXPECT_TRUE(metrics.insert(stat.metric).second) << stat.metric;
    }
    if (!stat.log_key.empty()) {
      EXPECT_TRUE(log_keys.insert(stat.log_key).second) << stat.log_key;
    }
  }
  EXPECT_EQ(metrics.size(), 37u);
  EXPECT_EQ(log_keys.size(), 28u);
  EXPECT_EQ(pipeline_snmp_scalars(), 14u);
}

// Prometheus' conventions: the prefix, `_total` on what only grows and on nothing else,
// `_seconds` on what is read in seconds.
TEST(PipelineStats, MetricNamesFollowPrometheusConventions) {
  for (const PipelineStat& stat : pipeline_stats()) {
    if (stat.metric.empty()) continue;
    const std::string name(stat.metric);
    EXPECT_TRUE(name.starts_with("ibpulse_")) << name;
    EXPECT_EQ(name.ends_with("_total"), stat.kind == StatKind::kTotal) << name;
    EXPECT_EQ(name.ends_with("_seconds"), stat.seconds != nullptr) << name;
  }
}

const PipelineStat& by_scalar(uint32_t n) {
  for (const PipelineStat& stat : pipeline_stats())
    if (stat.snmp_scalar == n) return stat;
  throw std::out_of_range("no scalar " + std::to_string(n));
}

TEST(PipelineStats, WholeValuesAreCountsMillisecondsAndSumsOverReasons) {
  PipelineStatus s;
  s.poller.sweeps = 7;
  s.poller.last_sweep.seconds = 2.0009;  // 2000.9 ms: truncated
  s.poller.mad.failed_for(collector::MadFailure::kTimeout) = 5;
  s.poller.mad.failed_for(collector::MadFailure::kSendError) = 6;
  s.converter.source_switches = 2;
  s.converter.restarted_ports = 3;
  EXPECT_EQ(whole_value(by_scalar(5), s), 7u);     // sweeps
  EXPECT_EQ(whole_value(by_scalar(6), s), 2000u);  // last sweep, ms
  EXPECT_EQ(whole_value(by_scalar(11), s), 11u);   // MAD failures, every reason
  EXPECT_EQ(whole_value(by_scalar(13), s), 5u);    // discontinuities
  EXPECT_EQ(by_scalar(6).kind, StatKind::kLevel);
  EXPECT_EQ(by_scalar(11).kind, StatKind::kTotal);
}

TEST(PipelineStats, TheSnapshotsFiguresComeFromTheSnapshot) {
  FabricSnapshot snapshot;
  snapshot.published = Clock::time_point(std::chrono::seconds(100));
  const PipelineStatus s =
      pipeline_status({}, {}, &snapshot, snapshot.published + std::chrono::milliseconds(1500));
  EXPECT_DOUBLE_EQ(s.snapshot_age_seconds, 1.5);
  EXPECT_EQ(whole_value(by_scalar(14), s), 1500u);
  const PipelineStatus none = pipeline_status({}, {}, nullptr, Clock::now());
  EXPECT_EQ(none.snapshot_age_seconds, 0);
}

}  // namespace
}  // namespace ibpulse::converters
