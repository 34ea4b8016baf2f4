// The daemon's own metrics: exact values from a known status, totals that never go backwards
// (a counter a scrape saw must not shrink), and promtool's lint clean.
#include "ibpulse/exporters/prometheus/self_metrics.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "promtool_lint.h"

namespace ibpulse::exporters::prometheus {
namespace {

bool has_line(const std::string& text, const std::string& line) {
  return text.starts_with(line + "\n") || text.find("\n" + line + "\n") != std::string::npos;
}

DaemonStatus known_status() {
  DaemonStatus s;
  s.poller.sweeps = 7;
  s.poller.last_sweep.seconds = 11.5;
  s.poller.last_sweep.lag_seconds = 1.5;
  s.poller.last_sweep.stale = 2;
  s.poller.nodes = 6;
  s.poller.ports = 24;
  s.poller.discoveries = 3;
  s.poller.mad.sent = 1000;
  s.poller.mad.answered = 990;
  s.poller.mad.failed_for(collector::MadFailure::kTimeout) = 4;
  s.poller.mad.failed_for(collector::MadFailure::kUnreachable) = 5;
  s.poller.mad.failed_for(collector::MadFailure::kRedirect) = 6;
  s.poller.mad.failed_for(collector::MadFailure::kSendError) = 7;
  s.poller.ring_drops = 9;
  s.converter.foreign_clears = 2;
  s.converter.source_switches = 3;
  s.converter.lossy_intervals = 8;
  s.converter.own_clears = 12;
  s.saturated_counters = 4;
  s.snapshot_age_seconds = 0.25;
  RemoteWriteStatus rw;
  rw.url = "http://vm:8428/api/v1/write";
  rw.sent = 1200;
  rw.failed = 3;
  rw.dropped = 4;
  rw.retries = 6;
  rw.sent_bytes = 14000;
  rw.queue_samples = 250;
  rw.lag_seconds = 1.5;
  s.remote_write.push_back(rw);
  return s;
}

TEST(SelfMetrics, ExactValuesFromTheStatus) {
  SelfMetrics metrics("1.2.3");
  metrics.update(known_status());
  std::string out;
  metrics.append(out);
  EXPECT_TRUE(has_line(out, R"(ibpulse_build_info{version="1.2.3"} 1)")) << out;
  EXPECT_TRUE(has_line(out, "ibpulse_sweeps_total 7"));
  EXPECT_TRUE(has_line(out, "ibpulse_last_sweep_duration_seconds 11.5"));
  EXPECT_TRUE(has_line(out, "ibpulse_last_sweep_lag_seconds 1.5"));
  EXPECT_TRUE(has_line(out, "ibpulse_last_sweep_stale_ports 2"));
  EXPECT_TRUE(has_line(out, "ibpulse_fabric_ports 24"));
  EXPECT_TRUE(has_line(out, "ibpulse_discoveries_total 3"));
  EXPECT_TRUE(has_line(out, "ibpulse_mads_sent_total 1000"));
  EXPECT_TRUE(has_line(out, R"(ibpulse_mads_failed_total{reason="timeout"} 4)"));
  EXPECT_TRUE(has_line(out, R"(ibpulse_mads_failed_total{reason="unreachable"} 5)"));
  EXPECT_TRUE(has_line(out, R"(ibpulse_mads_failed_total{reason="status"} 0)"));
  EXPECT_TRUE(has_line(out, R"(ibpulse_mads_failed_total{reason="redirect"} 6)"));
  EXPECT_TRUE(has_line(out, R"(ibpulse_mads_failed_total{reason="send_error"} 7)"));
  EXPECT_TRUE(has_line(out, "ibpulse_ring_drops_total 9"));
  EXPECT_TRUE(has_line(out, "ibpulse_foreign_clears_total 2"));
  EXPECT_TRUE(has_line(out, "ibpulse_discontinuities_total 5"));
  EXPECT_TRUE(has_line(out, "ibpulse_saturations_total 8"));
  EXPECT_TRUE(has_line(out, "ibpulse_saturated_counters 4"));
  EXPECT_TRUE(has_line(out, "ibpulse_own_clears_total 12"));
  EXPECT_TRUE(has_line(out, "ibpulse_snapshot_age_seconds 0.25"));
  const std::string url = R"(url="http://vm:8428/api/v1/write")";
  EXPECT_TRUE(
      has_line(out, R"(ibpulse_remote_write_samples_total{result="sent",)" + url + "} 1200"));
  EXPECT_TRUE(
      has_line(out, R"(ibpulse_remote_write_samples_total{result="failed",)" + url + "} 3"));
  EXPECT_TRUE(
      has_line(out, R"(ibpulse_remote_write_samples_total{result="dropped",)" + url + "} 4"));
  EXPECT_TRUE(has_line(out, "ibpulse_remote_write_retries_total{" + url + "} 6"));
  EXPECT_TRUE(has_line(out, "ibpulse_remote_write_sent_bytes_total{" + url + "} 14000"));
  EXPECT_TRUE(has_line(out, "ibpulse_remote_write_queue_samples{" + url + "} 250"));
  EXPECT_TRUE(has_line(out, "ibpulse_remote_write_lag_seconds{" + url + "} 1.5"));
}

TEST(SelfMetrics, TotalsNeverGoBackwardsWhileLevelsFollow) {
  SelfMetrics metrics("x");
  metrics.update(known_status());
  DaemonStatus lower = known_status();
  lower.poller.sweeps = 5;
  lower.saturated_counters = 1;
  metrics.update(lower);
  std::string out;
  metrics.append(out);
  EXPECT_TRUE(has_line(out, "ibpulse_sweeps_total 7")) << out;
  EXPECT_TRUE(has_line(out, "ibpulse_saturated_counters 1"));
}

// Each statistic of the poller's and converter's table is a family of its kind.
TEST(SelfMetrics, EveryTableStatisticIsAFamilyOfItsKind) {
  SelfMetrics metrics("1.2.3");
  metrics.update(known_status());
  std::string out;
  metrics.append(out);
  size_t families = 0;
  for (const converters::PipelineStat& stat : converters::pipeline_stats()) {
    if (stat.metric.empty()) continue;
    const bool total = stat.kind == converters::StatKind::kTotal;
    EXPECT_TRUE(
        has_line(out, fmt::format("# TYPE {} {}", stat.metric, total ? "counter" : "gauge")))
        << stat.metric;
    EXPECT_TRUE(has_line(out, fmt::format("# HELP {} {}", stat.metric, stat.help))) << stat.metric;
    ++families;
  }
  EXPECT_EQ(families, 37u);
}

TEST(SelfMetrics, PromtoolLintsThemClean) {
  SelfMetrics metrics("1.2.3");
  metrics.update(known_status());
  std::string out;
  metrics.append(out);
  const testing::LintResult lint = testing::promtool_lint(out);
  EXPECT_EQ(lint.status, 0) << lint.output;
  EXPECT_EQ(lint.output, "");
}

TEST(SelfMetrics, LocalPortSeriesOnlyWithSeveralLocalPorts) {
  SelfMetrics one("x");
  one.update(known_status());
  std::string out;
  one.append(out);
  EXPECT_EQ(out.find("ibpulse_local_port"), std::string::npos) << "a one-port scrape is unchanged";

  DaemonStatus s = known_status();
  s.poller.local_ports = {{"mlx5_0", 1, true}, {"mlx5_1", 1, false}};
  s.poller.local_port_failovers = 2;
  SelfMetrics two("x");
  two.update(s);
  out.clear();
  two.append(out);
  EXPECT_TRUE(has_line(out, R"(ibpulse_local_port_up{ca="mlx5_0",port="1"} 1)")) << out;
  EXPECT_TRUE(has_line(out, R"(ibpulse_local_port_up{ca="mlx5_1",port="1"} 0)")) << out;
  EXPECT_TRUE(has_line(out, "ibpulse_local_port_failovers_total 2")) << out;
  const testing::LintResult lint = testing::promtool_lint(out);
  EXPECT_EQ(lint.status, 0) << lint.output;
}

// Subnet series come with a second subnet only, so a one-subnet scrape is unchanged.
TEST(SelfMetrics, SubnetSeriesOnlyWithSeveralSubnets) {
  DaemonStatus s = known_status();
  s.poller.subnets = {{0xfe80000000000000, "mlx5_0:1", 7, 14}};
  SelfMetrics one("x");
  one.update(s);
  std::string out;
  one.append(out);
  EXPECT_EQ(out.find("ibpulse_subnet"), std::string::npos) << out;
  EXPECT_EQ(out.find("ibpulse_duplicate"), std::string::npos);

  s.poller.subnets.push_back({0xfe80000000000000, "mlx5_1:1", 4, 9});
  s.poller.duplicate_ports = 1;
  s.converter.other_subnet_samples = 12;
  SelfMetrics two("x");
  two.update(s);
  out.clear();
  two.append(out);
  EXPECT_TRUE(has_line(
      out, R"(ibpulse_subnet_info{subnet="mlx5_0:1",subnet_prefix="0xfe80000000000000"} 1)"))
      << out;
  EXPECT_TRUE(has_line(out, R"(ibpulse_subnet_ports{subnet="mlx5_0:1"} 14)"));
  EXPECT_TRUE(has_line(out, R"(ibpulse_subnet_ports{subnet="mlx5_1:1"} 9)"));
  EXPECT_TRUE(has_line(out, "ibpulse_duplicate_ports 1"));
  EXPECT_TRUE(has_line(out, "ibpulse_duplicate_port_samples_total 12"));
  const testing::LintResult lint = testing::promtool_lint(out);
  EXPECT_EQ(lint.status, 0) << lint.output;
}

}  // namespace
}  // namespace ibpulse::exporters::prometheus
