#include "ibpulse/exporters/prometheus/self_metrics.h"

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <vector>

#include "ibpulse/collector/topology.h"

namespace ibpulse::exporters::prometheus {

namespace pcpp = ::prometheus;

namespace {

pcpp::Family<pcpp::Counter>& counter_family(pcpp::Registry& registry, const std::string& name,
                                            const std::string& help) {
  return pcpp::BuildCounter().Name(name).Help(help).Register(registry);
}

pcpp::Family<pcpp::Gauge>& gauge_family(pcpp::Registry& registry, const std::string& name,
                                        const std::string& help) {
  return pcpp::BuildGauge().Name(name).Help(help).Register(registry);
}

// prometheus-cpp counters only move by increments: brought up to the daemon's total.
void bring_up(pcpp::Counter& c, uint64_t total) {
  const double target = static_cast<double>(total);
  if (target > c.Value()) c.Increment(target - c.Value());
}

}  // namespace

// The poller's and converter's statistics are families made from their table at each update.
// The rest (scrapes, HTTP, alerts, remote write, local ports, subnets) live in a registry:
// each series a gauge set from the daemon's cumulative statistics (prometheus-cpp counters
// only move by increments); the ones that only grow carry `counter` in their TYPE through a
// counter family whose value is brought up to the total.
struct SelfMetrics::Impl {
  pcpp::Registry registry;
  struct Total {
    pcpp::Counter* series;
    std::function<uint64_t(const DaemonStatus&)> read;
  };
  struct Level {
    pcpp::Gauge* series;
    double (*read)(const DaemonStatus&);
  };
  std::vector<Total> totals;
  std::vector<Level> levels;
  // The poller's and converter's statistics (converters/pipeline_stats.h), as families made
  // from each status; a total never shows less than an earlier scrape did (highest, per series
  // in the table's order).
  std::vector<pcpp::MetricFamily> pipeline;
  std::vector<double> highest;
  void pipeline_families(const converters::PipelineStatus& status);
  // One series per raised rule instance, added and removed as alerts come and go.
  pcpp::Family<pcpp::Gauge>* active_alerts = nullptr;
  std::map<pcpp::Labels, pcpp::Gauge*> active_series;
  // This collector's place among the shards: set once, from the first status.
  pcpp::Family<pcpp::Gauge>* shard_info = nullptr;
  bool shard_info_set = false;
  std::mutex mutex;  // update() brings counters up to totals and makes `pipeline` under it
  // Remote write, one set of series per receiver URL (added when a URL first appears).
  pcpp::Family<pcpp::Counter>* sma_notifications = nullptr;
  pcpp::Family<pcpp::Counter>* rw_samples = nullptr;
  pcpp::Family<pcpp::Gauge>* rw_queue = nullptr;
  pcpp::Family<pcpp::Gauge>* rw_lag = nullptr;
  pcpp::Family<pcpp::Counter>* rw_snapshots = nullptr;
  pcpp::Family<pcpp::Counter>* rw_retries = nullptr;
  pcpp::Family<pcpp::Counter>* rw_bytes = nullptr;
  // Several local ports (fabric.ports) only: registered at the first status that has them, so
  // a one-port daemon's scrape is unchanged.
  pcpp::Family<pcpp::Gauge>* local_port_up = nullptr;
  pcpp::Counter* local_port_failovers = nullptr;

  void local_ports(const collector::PollerStats& poller) {
    if (poller.local_ports.empty()) return;
    if (local_port_up == nullptr) {
      local_port_up = &gauge_family(registry, "ibpulse_local_port_up",
                                    "Whether a local port (fabric.ports) polls its share of nodes");
      local_port_failovers =
          &counter_family(registry, "ibpulse_local_port_failovers_total",
                          "Times a local port went down and handed its nodes to the others")
               .Add({});
    }
    for (const auto& p : poller.local_ports)
      local_port_up->Add({{"ca", p.ca}, {"port", std::to_string(p.port)}}).Set(p.up ? 1 : 0);
    bring_up(*local_port_failovers, poller.local_port_failovers);
  }

  // Several subnets only, registered as the local ports are.
  pcpp::Family<pcpp::Gauge>* subnet_info = nullptr;
  pcpp::Family<pcpp::Gauge>* subnet_ports = nullptr;
  pcpp::Gauge* duplicate_ports = nullptr;
  pcpp::Counter* duplicate_samples = nullptr;

  void subnets(const DaemonStatus& status) {
    if (status.poller.subnets.size() <= 1) return;
    if (subnet_info == nullptr) {
      subnet_info = &gauge_family(registry, "ibpulse_subnet_info",
                                  "A subnet this collector polls (always 1): `subnet` names it by "
                                  "the local port that reaches it, prefixes are not unique");
      subnet_ports =
          &gauge_family(registry, "ibpulse_subnet_ports", "Ports in the subnet's last discovery");
      duplicate_ports =
          &gauge_family(registry, "ibpulse_duplicate_ports",
                        "Ports found in two subnets (by node GUID and port, or by port GUID) at "
                        "the last discovery: the first subnet's port is kept")
               .Add({});
      duplicate_samples =
          &counter_family(registry, "ibpulse_duplicate_port_samples_total",
                          "Readings of a port found in two subnets that came through the later "
                          "subnet: dropped, never mixed in")
               .Add({});
    }
    for (const auto& sub : status.poller.subnets) {
      subnet_info
          ->Add({{"subnet", sub.local_port}, {"subnet_prefix", collector::guid_string(sub.prefix)}})
          .Set(1);
      subnet_ports->Add({{"subnet", sub.local_port}}).Set(static_cast<double>(sub.ports));
    }
    duplicate_ports->Set(static_cast<double>(status.poller.duplicate_ports));
    bring_up(*duplicate_samples, status.converter.other_subnet_samples);
  }

  void total(const std::string& name, const std::string& help,
             std::function<uint64_t(const DaemonStatus&)> read, const pcpp::Labels& labels = {}) {
    auto& family = counter_family(registry, name, help);
    totals.push_back({&family.Add(labels), std::move(read)});
  }
  void level(const std::string& name, const std::string& help,
             double (*read)(const DaemonStatus&)) {
    auto& family = gauge_family(registry, name, help);
    levels.push_back({&family.Add({}), read});
  }
};

SelfMetrics::SelfMetrics(std::string version) : impl_(std::make_unique<Impl>()) {
  auto& i = *impl_;
  gauge_family(i.registry, "ibpulse_build_info", "ibpulse's version (always 1)")
      .Add({{"version", version}})
      .Set(1);
  using S = const DaemonStatus&;
  i.shard_info = &gauge_family(i.registry, "ibpulse_shard_info",
                               "This collector's shard.index, shard.count and shard.replicas "
                               "(always 1): a shard missing from the TSDB is a dead collector");
  i.total("ibpulse_scrapes_total", "Scrapes of /metrics served", [](S s) { return s.scrapes; });
  i.total("ibpulse_scrape_errors_total", "Scrapes of /metrics that failed",
          [](S s) { return s.scrape_errors; });
  i.level("ibpulse_last_scrape_duration_seconds",
          "Render, compression and write of the last scrape",
          [](S s) { return s.last_scrape_seconds; });
  i.total("ibpulse_http_unauthorized_total",
          "HTTP requests answered 401: no or wrong basic-auth credentials",
          [](S s) { return s.http_unauthorized; });
  i.total("ibpulse_http_tls_handshake_failures_total",
          "TLS handshakes that failed (plain HTTP to the TLS port, no or an untrusted client "
          "certificate, an old protocol)",
          [](S s) { return s.http_tls_failures; });
  i.total("ibpulse_http_bad_requests_total",
          "HTTP request heads refused as malformed (400) or "
          "too large (431)",
          [](S s) { return s.http_bad_requests; });
  i.active_alerts = &gauge_family(i.registry, "ibpulse_alerts_active",
                                  "1 for each raised threshold rule instance (a rule on a port)");
  i.total("ibpulse_alerts_raised_total", "Threshold rule instances raised",
          [](S s) { return s.alerts.raised; });
  i.total("ibpulse_alerts_cleared_total", "Threshold rule instances cleared",
          [](S s) { return s.alerts.cleared; });
  i.total("ibpulse_notifications_suppressed_total",
          "Notifications storm control withheld (alerts.rate-limit, alerts.link-hold-down)",
          [](S s) { return s.alerts.suppressed; });
  i.total("ibpulse_notifications_sent_total", "SNMP notifications sent, summed over the sinks",
          [](S s) { return s.notifications_sent; });
  i.total("ibpulse_notifications_dropped_total",
          "SNMP notifications dropped because a queue was full (the oldest go first)",
          [](S s) { return s.notifications_dropped; });
  i.sma_notifications =
      &counter_family(i.registry, "ibpulse_sma_notifications_total",
                      "IB-SMA-MIB notifications handed to the SNMP agent for its sinks, by "
                      "InfiniBand trap number (not those snmp.sma-notifications turns off, nor "
                      "those storm control withheld)");
  i.total("ibpulse_sm_master_changes_total",
          "Times a subnet's master subnet manager changed, or none answered as master for two "
          "SMInfo rounds (ibpulseSmMasterChanged; the first master seen is no change)",
          [](S s) { return s.alerts.sm_master_changes; });
  i.total("ibpulse_sm_subscriptions_total",
          "InformInfo Sets the subnet manager acknowledged (one per trap of sm.traps, sent again "
          "every sm.subscription-refresh)",
          [](S s) { return s.sm_subscription.subscribed; });
  i.total("ibpulse_sm_subscription_failures_total",
          "InformInfo Sets the subnet manager refused or did not answer",
          [](S s) { return s.sm_subscription.failures; });
  i.total("ibpulse_sm_reports_total",
          "Notices the subnet manager forwarded to the subscription (Reports, each answered)",
          [](S s) { return s.sm_subscription.reports; });
  i.total("ibpulse_sm_reports_untranslatable_total",
          "Forwarded Notices IB-SMA-MIB has no notification for (vendor notices, other traps): "
          "logged, not sent",
          [](S s) { return s.sm_subscription.untranslatable; });
  i.rw_samples = &counter_family(i.registry, "ibpulse_remote_write_samples_total",
                                 "Remote-write samples by result: sent (acknowledged), failed "
                                 "(rejected with a 4xx, not retried), dropped (queue full)");
  i.rw_queue = &gauge_family(i.registry, "ibpulse_remote_write_queue_samples",
                             "Remote-write samples queued or in flight");
  i.rw_snapshots =
      &counter_family(i.registry, "ibpulse_remote_write_snapshots_total",
                      "Published snapshots remote write read (written) or passed over for "
                      "a newer one while it was busy (skipped: fewer samples per series in "
                      "the TSDB)");
  i.rw_retries = &counter_family(i.registry, "ibpulse_remote_write_retries_total",
                                 "Remote-write requests sent again after a 5xx, a 429 or a network "
                                 "error (each try after the first)");
  i.rw_bytes =
      &counter_family(i.registry, "ibpulse_remote_write_sent_bytes_total",
                      "Remote-write request bodies (snappy-compressed protobuf) acknowledged "
                      "with a 2xx, in bytes");
  i.rw_lag =
      &gauge_family(i.registry, "ibpulse_remote_write_lag_seconds",
                    "Age of the oldest snapshot whose samples are not all acknowledged (when "
                    "none is pending: of the last acknowledged one)");
}

namespace {

pcpp::MetricFamily family_of(const converters::PipelineStat& stat) {
  const bool total = stat.kind == converters::StatKind::kTotal;
  return {std::string(stat.metric),
          std::string(stat.help),
          total ? pcpp::MetricType::Counter : pcpp::MetricType::Gauge,
          {}};
}

pcpp::Labels alert_labels(const alerts::AlertEvent& e) {
  return {{"rule", e.rule},
          {"severity", std::string(to_string(e.severity))},
          {"node_guid", collector::guid_string(e.port.node_guid)},
          {"port", std::to_string(e.port.port)}};
}

}  // namespace

SelfMetrics::~SelfMetrics() = default;

void SelfMetrics::Impl::pipeline_families(const converters::PipelineStatus& status) {
  pipeline.clear();
  size_t series = 0;
  for (const converters::PipelineStat& stat : converters::pipeline_stats()) {
    if (stat.metric.empty()) continue;
    pcpp::MetricFamily family = family_of(stat);
    const auto add = [&](double value, std::vector<pcpp::ClientMetric::Label> labels) {
      if (highest.size() <= series) highest.resize(series + 1, 0);
      if (family.type == pcpp::MetricType::Counter) value = std::max(value, highest[series]);
      highest[series++] = value;
      pcpp::ClientMetric& m = family.metric.emplace_back();
      m.label = std::move(labels);
      (family.type == pcpp::MetricType::Counter ? m.counter.value : m.gauge.value) = value;
    };
    if (stat.by_reason != nullptr) {
      for (const collector::MadFailure reason : collector::kMadFailureReasons)
        add(static_cast<double>(stat.by_reason(status, reason)),
            {{"reason", std::string(collector::to_string(reason))}});
    } else if (stat.count != nullptr) {
      add(static_cast<double>(stat.count(status)), {});
    } else {
      add(stat.seconds(status), {});
    }
    pipeline.push_back(std::move(family));
  }
}

void SelfMetrics::update(const DaemonStatus& status) {
  std::lock_guard lock(impl_->mutex);
  if (!impl_->shard_info_set) {
    const collector::ShardSpec& shard = status.poller.shard;
    impl_->shard_info
        ->Add({{"index", std::to_string(shard.index)},
               {"count", std::to_string(shard.count)},
               {"replicas", std::to_string(shard.replicas)}})
        .Set(1);
    impl_->shard_info_set = true;
  }
  impl_->pipeline_families(status);
  impl_->local_ports(status.poller);
  impl_->subnets(status);
  for (const auto& t : impl_->totals)
    bring_up(*t.series, t.read(status));
  for (const auto& l : impl_->levels)
    l.series->Set(l.read(status));
  std::map<pcpp::Labels, pcpp::Gauge*> now;
  for (const auto& e : status.active_alerts) {
    auto labels = alert_labels(e);
    auto it = impl_->active_series.find(labels);
    pcpp::Gauge* g =
        it != impl_->active_series.end() ? it->second : &impl_->active_alerts->Add(labels);
    g->Set(1);
    now.emplace(std::move(labels), g);
  }
  for (const auto& [labels, series] : impl_->active_series) {
    if (!now.contains(labels)) impl_->active_alerts->Remove(series);
  }
  impl_->active_series = std::move(now);
  for (const auto& [trap, count] : status.sma_notifications)
    bring_up(impl_->sma_notifications->Add({{"trap", std::to_string(trap)}}), count);
  for (const auto& rw : status.remote_write) {  // Add() returns the existing series
    auto& i = *impl_;
    bring_up(i.rw_samples->Add({{"url", rw.url}, {"result", "sent"}}), rw.sent);
    bring_up(i.rw_samples->Add({{"url", rw.url}, {"result", "failed"}}), rw.failed);
    bring_up(i.rw_samples->Add({{"url", rw.url}, {"result", "dropped"}}), rw.dropped);
    bring_up(i.rw_retries->Add({{"url", rw.url}}), rw.retries);
    bring_up(i.rw_bytes->Add({{"url", rw.url}}), rw.sent_bytes);
    i.rw_queue->Add({{"url", rw.url}}).Set(static_cast<double>(rw.queue_samples));
    i.rw_lag->Add({{"url", rw.url}}).Set(rw.lag_seconds);
    bring_up(i.rw_snapshots->Add({{"url", rw.url}, {"result", "written"}}), rw.snapshots_written);
    bring_up(i.rw_snapshots->Add({{"url", rw.url}, {"result", "skipped"}}), rw.snapshots_skipped);
  }
}

void SelfMetrics::append(std::string& out) const {
  std::vector<pcpp::MetricFamily> families;
  {
    std::lock_guard lock(impl_->mutex);
    families = impl_->pipeline;
  }
  for (pcpp::MetricFamily& family : impl_->registry.Collect())
    families.push_back(std::move(family));
  out += pcpp::TextSerializer().Serialize(families);
}

}  // namespace ibpulse::exporters::prometheus
