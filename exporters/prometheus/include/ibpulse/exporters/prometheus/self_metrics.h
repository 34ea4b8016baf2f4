#pragma once
// The daemon's own metrics (`ibpulse_` prefix) in a prometheus-cpp registry, the right tool for a
// few dozen series, serialised after the fabric's metrics in the same response.
//
// Thread safety: update() and append() may be called from any threads (the registry locks).

#include <memory>
#include <string>

#include "ibpulse/collector/sm_subscription.h"
#include "ibpulse/converters/pipeline_stats.h"
#include "ibpulse/exporters/alerts/engine.h"

namespace ibpulse::exporters::prometheus {

// One Prometheus remote-write receiver (docs/remote-write.md), as the app reads it from the
// writer: a plain struct, so this module does not depend on exporters/remote_write.
struct RemoteWriteStatus {
  std::string url;                             // credentials removed
  uint64_t sent = 0, failed = 0, dropped = 0;  // samples, cumulative
  uint64_t retries = 0;        // requests sent again after a 5xx, 429 or network error, cumulative
  uint64_t sent_bytes = 0;     // compressed request bodies acknowledged, cumulative
  uint64_t queue_samples = 0;  // queued or in flight
  double lag_seconds = 0;  // age of the oldest snapshot not wholly acknowledged (or the last one)
  // Published snapshots the writer read, and those it passed over for a newer one while busy.
  uint64_t snapshots_written = 0, snapshots_skipped = 0;
};

// The poller's and converter's statistics (the series converters/pipeline_stats.h declares),
// and what the endpoints, the alerts and remote write count.
struct DaemonStatus : converters::PipelineStatus {
  uint64_t scrapes = 0, scrape_errors = 0;
  double last_scrape_seconds = 0;
  // HTTP requests refused: no or wrong credentials, failed TLS handshakes, malformed heads.
  uint64_t http_unauthorized = 0, http_tls_failures = 0, http_bad_requests = 0;
  // Threshold alerts: the raised rule instances and what became of the notifications.
  std::vector<alerts::AlertEvent> active_alerts;
  alerts::EngineStats alerts;
  uint64_t notifications_sent = 0, notifications_dropped = 0;  // by the SNMP agent
  // IB-SMA-MIB notifications by InfiniBand trap number (SnmpAgent::sma_notification_counts).
  std::vector<std::pair<uint16_t, uint64_t>> sma_notifications;
  std::vector<RemoteWriteStatus> remote_write;     // one per remote-write.url
  collector::SmSubscriptionStats sm_subscription;  // the subnet manager's trap forwarding
};

class SelfMetrics {
 public:
  explicit SelfMetrics(std::string version);
  ~SelfMetrics();
  SelfMetrics(const SelfMetrics&) = delete;
  SelfMetrics& operator=(const SelfMetrics&) = delete;

  void update(const DaemonStatus& status);
  void append(std::string& out) const;  // the text format (0.0.4)

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ibpulse::exporters::prometheus
