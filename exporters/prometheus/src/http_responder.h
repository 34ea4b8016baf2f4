#pragma once
// What the metrics server does with one connection: the TLS handshake when the config has TLS,
// the request head, basic auth on every path, then `/metrics`, `/metrics/self` or the landing
// page `/` or a document (GET and HEAD; others 405, unknown paths 404, bad heads 400, heads over 16
// KiB 431). Counts what it served and refused. Private to the exporter.
//
// Thread safety: serve() runs on every worker thread at once; stats() from any thread.

#include <atomic>
#include <string_view>

#include "http_connection.h"
#include "http_request.h"
#include "ibpulse/exporters/prometheus/http_server.h"
#include "serving_config.h"

namespace ibpulse::exporters::prometheus::detail {

class Responder {
 public:
  Responder(MetricsServer::MetricsFn metrics, MetricsServer::LandingFn landing,
            MetricsServer::MetricsFn self_metrics, std::vector<MetricsServer::Document> documents)
      : metrics_(std::move(metrics)),
        landing_(std::move(landing)),
        self_metrics_(std::move(self_metrics)),
        documents_(std::move(documents)) {}

  void serve(Connection& connection, const ServingConfig& config);
  MetricsServer::Stats stats() const;

 private:
  void respond_to_head(Connection& connection, std::string_view bytes, BasicAuth& auth);
  void serve_metrics(Connection& connection, const RequestHead& request,
                     const MetricsServer::MetricsFn& body, bool counted);
  // The landing page and the documents: a whole body, built by `body`.
  void serve_page(Connection& connection, bool head, const std::string& content_type,
                  const std::function<std::string()>& body);
  void failed_scrape(Connection& connection, bool head_sent);

  MetricsServer::MetricsFn metrics_;
  MetricsServer::LandingFn landing_;
  MetricsServer::MetricsFn self_metrics_;
  std::vector<MetricsServer::Document> documents_;
  std::atomic<uint64_t> scrapes_{0};
  std::atomic<uint64_t> errors_{0};
  std::atomic<double> last_scrape_seconds_{0};
  std::atomic<uint64_t> unauthorized_{0};
  std::atomic<uint64_t> tls_failures_{0};
  std::atomic<uint64_t> bad_requests_{0};
};

}  // namespace ibpulse::exporters::prometheus::detail
