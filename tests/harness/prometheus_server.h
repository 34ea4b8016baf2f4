#pragma once
// A real Prometheus server (Debian's /usr/bin/prometheus, found in $PATH) for integration
// tests: on a free loopback port, with a data directory of its own, scraping one target every
// second and evaluating the rule files it is given. Queries go through its HTTP API
// (http_get_url, python3's urllib).
//
// Prometheus runs as a child of this process with PR_SET_PDEATHSIG, so it dies with the test
// binary whatever happens; the destructor stops it (SIGTERM, then SIGKILL after 5 s) and
// removes its directory.
//
// Thread safety: one test thread uses a PrometheusServer.

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ibpulse::testing {

class PrometheusServer {
 public:
  struct Options {
    std::vector<std::filesystem::path> rule_files;
    // 1m is Prometheus' own default.
    std::chrono::seconds evaluation_interval = std::chrono::minutes(1);
    // A remote-write receiver (--web.enable-remote-write-receiver, path /api/v1/write) that
    // scrapes nothing: the samples come only from remote write.
    bool remote_write_receiver = false;
    // The scrape over HTTPS (scheme: https) trusting this CA (tls_config.ca_file), with basic
    // auth when `username` is set; target_host names the target ("127.0.0.1", "[::1]").
    std::string ca_file = {};
    std::string username = {};
    std::string password = {};
    std::string target_host = "127.0.0.1";
  };

  // Starts Prometheus scraping <target_host>:<target_port>/metrics; wait_ready() says whether it
  // came up.
  PrometheusServer(uint16_t target_port, const Options& options);
  // No rule files, evaluated every minute.
  explicit PrometheusServer(uint16_t target_port);
  ~PrometheusServer();
  PrometheusServer(const PrometheusServer&) = delete;
  PrometheusServer& operator=(const PrometheusServer&) = delete;

  // What Prometheus wrote on stdout and stderr.
  std::string log() const;
  // The port its HTTP API listens on.
  uint16_t port() const { return port_; }
  // http://127.0.0.1:<port()><path>
  std::string url(const std::string& path) const;

  // True once /-/ready answers; false when it never did or Prometheus did not start.
  bool wait_ready(std::chrono::milliseconds timeout) const;

  // /api/v1/query for `expr` (at `at`, Unix seconds, or now): its `data.result`, or null with
  // the whole answer in `error` when the query failed.
  nlohmann::json query(const std::string& expr, std::optional<double> at = {},
                       std::string* error = nullptr) const;
  // The value of a one-series instant vector, or NaN when there is no single series.
  double value(const std::string& expr, std::optional<double> at = {}) const;
  // Waits until `expr` (one series) is at least `min`; its last value.
  double wait_at_least(const std::string& expr, double min,
                       std::chrono::milliseconds timeout) const;
  // The number of series `expr` returns now (-1 when the query failed).
  int count(const std::string& expr) const;
  // Waits until `expr` returns at least one series.
  bool wait_for_series(const std::string& expr, std::chrono::milliseconds timeout) const;

 private:
  std::filesystem::path dir_;
  uint16_t port_ = 0;
  pid_t pid_ = 0;
};

}  // namespace ibpulse::testing
