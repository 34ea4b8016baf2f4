#pragma once
// The daemon's Prometheus endpoint: /metrics renders the latest snapshot (fabric metrics) and
// then the daemon's own metrics, /metrics/self the daemon's own metrics alone; /api/health and
// /api/health/grid the link health and congestion as JSON (health_view.h); / is a landing page
// with links, the fabric's size and the last sweep's status.
//
// Thread safety: the server's workers call the callbacks; they read the snapshot store and the
// stats functions, which are thread-safe.

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "ibpulse/base/result.h"
#include "ibpulse/collector/poller.h"
#include "ibpulse/converters/snapshot.h"
#include "ibpulse/exporters/prometheus/http_server.h"
#include "ibpulse/exporters/prometheus/renderer.h"
#include "ibpulse/exporters/prometheus/self_metrics.h"

namespace ibpulse::exporters::prometheus {

// The endpoint's configuration (web.*, collect.*: config_keys.h).
struct WebOptions {
  std::string listen_address = ":9731";  // [host]:port; "off": no endpoint
  std::string config_file;  // TLS and basic auth (exporter-toolkit format); empty: none
  MetricGroups collect;
};

class WebEndpoint {
 public:
  struct Sources {
    const converters::SnapshotStore* snapshots;
    const exporters::alerts::HealthStore* healths;  // null: no link health in /metrics
    std::function<collector::PollerStats()> poller;
    std::function<converters::ConverterStats()> converter;
    // Fills the alert fields of the daemon's status (none: no alerts in /metrics).
    std::function<void(DaemonStatus&)> alerts;
  };
  // Listen address "off": no endpoint (nullptr). Errors name the address or the web config file.
  static Result<std::unique_ptr<WebEndpoint>> start(const WebOptions& web, Sources sources);

  uint16_t port() const { return server_->port(); }
  // At SIGHUP: TLS certificates and users from the file again; on error the running ones stay.
  Status reload_web_config(const std::string& web_config_file) {
    return server_->reload_web_config(web_config_file);
  }
  MetricsServer::Stats stats() const { return server_->stats(); }

 private:
  WebEndpoint(MetricGroups groups, Sources sources);
  void metrics(const MetricsServer::BodyWriter& write);
  void self_metrics(const MetricsServer::BodyWriter& write,
                    const converters::FabricSnapshot* snapshot);
  std::string landing() const;
  // /api/health (or, with `grid`, /api/health/grid): health_view.h. `query`: filter=REGEX
  // (links and roots with an end on a matching node), links=N (how many, default 100).
  std::string health_json(bool grid, std::string_view query) const;

  Sources sources_;
  FabricRenderer renderer_;
  SelfMetrics self_;
  std::unique_ptr<MetricsServer> server_;
  // What the workers read: set once server_ is, since a scrape may arrive before start() ends.
  std::atomic<const MetricsServer*> serving_{nullptr};
};

}  // namespace ibpulse::exporters::prometheus
