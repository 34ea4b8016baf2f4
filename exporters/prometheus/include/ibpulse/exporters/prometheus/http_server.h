#pragma once
// The HTTP side of the Prometheus exporter: `/metrics`, optionally `/metrics/self` (the daemon's
// own metrics alone: a 70,000-port fabric's /metrics is 330 MB of text, too much to watch the
// collector with every few seconds), and a landing page `/`, served by civetweb
// (kept out of this header: it is private to ibpulse::exporters_prometheus).
//
// Behaviour: GET and HEAD only (other methods: 405), unknown paths: 404, requests whose headers
// exceed 16 KiB are refused by civetweb with a 4xx. `/metrics` is gzip-compressed when the
// request's Accept-Encoding allows it, and streamed in chunks (Transfer-Encoding: chunked; to an
// HTTP/1.0 client, ended by closing the connection). Nothing is logged per request; failures are
// counted in Stats and the caller decides what to log.
//
// Thread safety: MetricsFn and LandingFn are called concurrently from up to `threads` worker
// threads and must be safe for that (the self-metrics function too). stats() and port() may be
// called from any thread. The destructor stops the server and waits for requests in flight; it must
// not run inside a handler.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "ibpulse/base/result.h"

namespace ibpulse::exporters::prometheus {

// Not a port either infiniband exporter in use today takes (9315, 9683); see docs/operations.md.
inline constexpr uint16_t kDefaultPort = 9731;

struct HttpOptions {
  // [host]:port, e.g. ":9731" (all IPv4 addresses), "127.0.0.1:9731"; port 0 picks a free one.
  // Debian 12's civetweb is built without IPv6, so IPv6 addresses fail at start.
  std::string listen_address = ":9731";
  unsigned threads = 2;  // worker threads; a request beyond these waits in civetweb's queue
  // PEM file holding the certificate and its key; empty: plain HTTP. Needs civetweb with TLS
  // (Debian's has it, and loads libssl.so at start); otherwise start() fails with a clear error.
  std::string tls_certificate;
};

class MetricsServer {
 public:
  // Writes the /metrics body (Prometheus text 0.0.4) by calling `write` with successive
  // pieces; each goes out (compressed when asked) as an HTTP chunk, so a body of any size never
  // sits in memory whole. `write` throws when the scrape cannot go on (the client went away):
  // let that propagate. Not called for HEAD.
  using BodyWriter = std::function<void(std::string_view piece)>;
  using MetricsFn = std::function<void(const BodyWriter& write)>;
  using LandingFn = std::function<std::string()>;  // HTML of the landing page `/`

  struct Stats {
    uint64_t scrapes = 0;  // /metrics responses sent in full (GET or HEAD)
    // Scrapes that failed: MetricsFn threw, compression failed, or the client went away before
    // the body was written. A 500 when nothing was sent yet, else the connection is closed
    // before the body's end.
    uint64_t errors = 0;
    double last_scrape_seconds = 0;  // render + compress + write of the last complete scrape
  };

  // Binds and starts serving; errors like "cannot listen on :9731: address in use".
  // `self_metrics` writes the body of `/metrics/self` (none: that path is a 404); Stats
  // describe `/metrics` (a failed `/metrics/self` counts in errors all the same).
  static Result<std::unique_ptr<MetricsServer>> start(const HttpOptions& options, MetricsFn metrics,
                                                      LandingFn landing,
                                                      MetricsFn self_metrics = {});

  ~MetricsServer();  // stops serving, after the requests in flight
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  uint16_t port() const;  // the bound port (the chosen one when listen_address ends in ":0")
  Stats stats() const;

  struct Impl;  // public so the civetweb callbacks in the .cc file can reach it

 private:
  explicit MetricsServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ibpulse::exporters::prometheus
