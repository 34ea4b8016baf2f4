#pragma once
// The HTTP side of the Prometheus exporter: `/metrics`, optionally `/metrics/self` (the daemon's
// own metrics alone: a 70,000-port fabric's /metrics is 330 MB of text, too much to watch the
// collector with every few seconds), and a landing page `/`. ibpulse's own small HTTP/1.1 server
// over POSIX sockets and OpenSSL (docs/dependencies.md says why), with TLS and basic auth from a
// web config file in the Prometheus exporter-toolkit format, and IPv4 and IPv6 listen addresses.
//
// Behaviour: GET and HEAD only (other methods: 405), unknown paths: 404, malformed request
// heads: 400, heads over 16 KiB: 431; with basic_auth_users, every path needs credentials (else
// 401 with `WWW-Authenticate: Basic`). With TLS, a plain HTTP request gets a 400 saying to use
// https. `/metrics` is gzip-compressed when the request's Accept-Encoding allows it (never
// brotli: "br, gzip" gets gzip), and streamed in chunks (Transfer-Encoding: chunked; to an
// HTTP/1.0 client, ended by closing the connection). Every response closes its connection.
// A request head must arrive within 10 s; a write that makes no progress for 60 s ends the
// response. Nothing is logged per request; outcomes are counted in Stats and the caller decides
// what to log.
//
// start() sets SIGPIPE to be ignored: OpenSSL writes to sockets with write(2), and a scraper
// that goes away mid-response must not stop the process.
//
// Thread safety: MetricsFn and LandingFn are called concurrently from up to `threads` worker
// threads and must be safe for that (the self-metrics function too). stats(), port() and
// reload_web_config() may be called from any thread. The destructor stops the server and waits
// for the responses being written; it must not run inside a handler.

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
  // [host]:port: ":9731" (every address, IPv6 and IPv4), "0.0.0.0:9731" (every IPv4 address),
  // "127.0.0.1:9731", "[::1]:9731", "[::]:9731" (every address); port 0 picks a free one.
  std::string listen_address = ":9731";
  unsigned threads = 2;  // worker threads; up to 64 more connections wait for one
  // The web config file (TLS, basic auth; exporter-toolkit format, see web_config.h); empty:
  // plain HTTP without authentication.
  std::string web_config_file;
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
  // Another path the server answers (GET and HEAD) with a whole body built per request: the
  // daemon's /api/health JSON, say. `body` gets the request's query ("filter=%5Eleaf&links=50",
  // still percent-encoded; empty: none).
  struct Document {
    std::string path;          // "/api/health"
    std::string content_type;  // "application/json"
    std::function<std::string(std::string_view query)> body;
  };

  struct Stats {
    uint64_t scrapes = 0;  // /metrics responses sent in full (GET or HEAD)
    // Scrapes that failed: MetricsFn threw, compression failed, or the client went away before
    // the body was written. A 500 when nothing was sent yet, else the connection is closed
    // before the body's end.
    uint64_t errors = 0;
    double last_scrape_seconds = 0;  // render + compress + write of the last complete scrape
    uint64_t unauthorized = 0;       // requests answered 401: no or wrong credentials
    uint64_t tls_failures = 0;  // TLS handshakes that failed, plain HTTP to a TLS port included
    uint64_t bad_requests = 0;  // malformed or oversized request heads (400, 431)
  };

  // Binds and starts serving; errors like "cannot listen on :9731: address in use" or
  // "web config /etc/ibpulse/web.yml: tls_server_config.key_file: ... : why".
  // `self_metrics` writes the body of `/metrics/self` (none: that path is a 404); Stats
  // describe `/metrics` (a failed `/metrics/self` counts in errors all the same).
  static Result<std::unique_ptr<MetricsServer>> start(const HttpOptions& options, MetricsFn metrics,
                                                      LandingFn landing,
                                                      MetricsFn self_metrics = {},
                                                      std::vector<Document> documents = {});

  ~MetricsServer();  // stops serving, after the requests in flight
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  // Reads the web config file again (empty: plain HTTP, no auth) and applies it to new
  // connections: new certificates without a restart. On error the running one stays.
  Status reload_web_config(const std::string& web_config_file);

  uint16_t port() const;  // the bound port (the chosen one when listen_address ends in ":0")
  Stats stats() const;

 private:
  struct Impl;
  explicit MetricsServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ibpulse::exporters::prometheus
