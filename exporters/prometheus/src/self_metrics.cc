#include "ibpulse/exporters/prometheus/self_metrics.h"

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

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

// Each series is a gauge set from the daemon's cumulative statistics (prometheus-cpp counters
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
  // One series per raised rule instance, added and removed as alerts come and go.
  pcpp::Family<pcpp::Gauge>* active_alerts = nullptr;
  std::map<pcpp::Labels, pcpp::Gauge*> active_series;
  // This collector's place among the shards: set once, from the first status.
  pcpp::Family<pcpp::Gauge>* shard_info = nullptr;
  bool shard_info_set = false;
  std::mutex mutex;  // update(): counters are brought up to totals under it
  // Remote write, one set of series per receiver URL (added when a URL first appears).
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
  i.total("ibpulse_sweeps_total", "Full sweeps of the fabric's counters",
          [](S s) { return s.poller.sweeps; });
  i.level("ibpulse_last_sweep_duration_seconds", "Duration of the last full sweep",
          [](S s) { return s.poller.last_sweep.seconds; });
  i.level("ibpulse_last_sweep_lag_seconds",
          "How much longer than poll.counters-interval the last sweep took (0: keeping up)",
          [](S s) { return s.poller.last_sweep.lag_seconds; });
  i.level("ibpulse_last_sweep_stale_ports", "Ports the last sweep could not read",
          [](S s) { return static_cast<double>(s.poller.last_sweep.stale); });
  i.level("ibpulse_fabric_nodes", "Nodes in the last discovery",
          [](S s) { return static_cast<double>(s.poller.nodes); });
  i.level("ibpulse_fabric_ports", "Ports in the last discovery",
          [](S s) { return static_cast<double>(s.poller.ports); });
  i.level("ibpulse_shards_configured", "shard.count: collectors sharing the fabric",
          [](S s) { return static_cast<double>(s.poller.shard.count); });
  i.level("ibpulse_shard_nodes", "Nodes this collector polls and exports (shard.*)",
          [](S s) { return static_cast<double>(s.poller.owned_nodes); });
  i.shard_info = &gauge_family(i.registry, "ibpulse_shard_info",
                               "This collector's shard.index, shard.count and shard.replicas "
                               "(always 1): a shard missing from the TSDB is a dead collector");
  i.total("ibpulse_discoveries_total", "Fabric discoveries run",
          [](S s) { return s.poller.discoveries; });
  i.total("ibpulse_discovery_failures_total", "Fabric discoveries that failed",
          [](S s) { return s.poller.discovery_failures; });
  i.level("ibpulse_discovery_missing_nodes",
          "Nodes the last discovery did not find whose ports are still polled by their last LIDs "
          "(until discovery.missing-limit discoveries in a row miss them)",
          [](S s) { return static_cast<double>(s.poller.missing_nodes); });
  i.level("ibpulse_discovery_ports_without_port_info",
          "Linked ports the last discovery read no PortInfo of (lost SMPs): polled by their last "
          "LIDs when an earlier discovery read it, else not until a discovery does",
          [](S s) { return static_cast<double>(s.poller.ports_without_port_info); });
  i.total("ibpulse_discovery_nodes_gone_total",
          "Nodes dropped after discovery.missing-limit discoveries in a row missed them",
          [](S s) { return s.poller.nodes_gone; });
  i.total("ibpulse_late_reads_total",
          "Reads that came due before the previous ones completed: the sweeps lag their interval",
          [](S s) { return s.poller.late_reads; });
  i.total("ibpulse_xmit_wait_tick_asks_total",
          "Nodes' PortSamplesControl asked for their PortXmitWait tick and answered (not reads; "
          "their failures are not in ibpulse_mads_failed_total)",
          [](S s) { return s.poller.tick_asks_answered; });
  i.total("ibpulse_xmit_wait_tick_asks_failed_total",
          "Nodes' PortSamplesControl asks that failed after every retry (ibsim answers none): "
          "those nodes' ports use the default tick",
          [](S s) { return s.poller.tick_asks_failed; });
  i.total("ibpulse_mads_sent_total", "PMA MADs sent, retries included",
          [](S s) { return s.poller.mad.sent; });
  i.total("ibpulse_mads_answered_total", "PMA MADs answered",
          [](S s) { return s.poller.mad.answered; });
  i.total("ibpulse_mad_timeouts_total", "MAD attempts that timed out",
          [](S s) { return s.poller.mad.attempt_timeouts; });
  i.total("ibpulse_mad_late_replies_total",
          "Answers that came after their attempt had timed out (dropped: the read was retried or "
          "failed)",
          [](S s) { return s.poller.mad.stale_replies; });
  i.total("ibpulse_mad_malformed_replies_total",
          "Replies dropped because they were shorter than a MAD or answered another attribute "
          "under one of our transaction IDs (the read is retried)",
          [](S s) { return s.poller.mad.malformed_replies; });
  for (const collector::MadFailure reason : collector::kMadFailureReasons) {
    i.total("ibpulse_mads_failed_total",
            "MADs that failed after every retry, by reason: timeout (no answer), unreachable "
            "(came back undelivered), status (an error status, e.g. an attribute the PMA does "
            "not support), redirect (the PMA asks to be reached elsewhere; not followed), "
            "send_error (the send itself failed)",
            [reason](S s) { return s.poller.mad.failed_for(reason); },
            {{"reason", std::string(collector::to_string(reason))}});
  }
  i.total("ibpulse_ring_drops_total", "Samples dropped because the converter's ring was full",
          [](S s) { return s.poller.ring_drops; });
  i.total("ibpulse_samples_converted_total", "Samples the converter applied",
          [](S s) { return s.converter.samples; });
  i.total("ibpulse_foreign_clears_total",
          "Readings below the previous one that ibpulse did not cause (out-of-band clears)",
          [](S s) { return s.converter.foreign_clears; });
  i.total("ibpulse_own_clears_total", "Counters cleared by ibpulse (counters.clear-policy)",
          [](S s) { return s.converter.own_clears; });
  i.total("ibpulse_own_clears_failed_total", "Clears ibpulse sent that the PMA did not confirm",
          [](S s) { return s.converter.own_clears_failed; });
  i.total("ibpulse_saturations_total",
          "Readings that found a narrow counter latched at all ones (counts beyond it are lost)",
          [](S s) { return s.converter.lossy_intervals; });
  i.level("ibpulse_saturated_counters", "Narrow counters latched at all ones right now",
          [](S s) { return static_cast<double>(s.saturated_counters); });
  i.total("ibpulse_source_switches_total", "Counters that moved between 32- and 64-bit sources",
          [](S s) { return s.converter.source_switches; });
  i.total("ibpulse_readings_held_total",
          "Samples with counters held back until their own copy is read again: restored ones "
          "read from the other copy (narrow or 64-bit) than the last run's, and 64-bit ones "
          "read narrow while their node's ClassPortInfo goes unanswered",
          [](S s) { return s.converter.readings_held; });
  i.total("ibpulse_discontinuities_total",
          "Breaks in a counter's history: out-of-band clears, source switches, and ports "
          "whose totals restarted (back after they were forgotten, taken up by a shard)",
          [](S s) { return s.converter.discontinuities(); });
  i.level("ibpulse_snapshot_age_seconds", "Age of the snapshot the scrape was rendered from",
          [](S s) { return s.snapshot_age_seconds; });
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

pcpp::Labels alert_labels(const alerts::AlertEvent& e) {
  return {{"rule", e.rule},
          {"severity", std::string(to_string(e.severity))},
          {"node_guid", collector::guid_string(e.port.node_guid)},
          {"port", std::to_string(e.port.port)}};
}

}  // namespace

SelfMetrics::~SelfMetrics() = default;

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
  out += pcpp::TextSerializer().Serialize(impl_->registry.Collect());
}

}  // namespace ibpulse::exporters::prometheus
