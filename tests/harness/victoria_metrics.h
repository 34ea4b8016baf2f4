#pragma once
// A real VictoriaMetrics single-node server (Debian's /usr/bin/victoria-metrics) for remote-write
// tests: on a free loopback port with a data directory of its own, queried through its HTTP API
// (http_get_url). It can be stopped and started again on the same port and data, to play a
// receiver outage. With Options it serves HTTPS (-tls) and asks for basic auth (-httpAuth.*):
// its queries then trust the given CA and send the credentials, so they go the way the
// daemon's writes do.
//
// VictoriaMetrics runs as a child of this process with PR_SET_PDEATHSIG, so it dies with the
// test binary; the destructor stops it and removes its directory.
//
// Thread safety: one test thread uses a VictoriaMetrics.

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace ibpulse::testing {

class VictoriaMetrics {
 public:
  struct Options {
    // -tls with this certificate and key (both, or neither); queries trust `tls_ca_file`.
    std::filesystem::path tls_cert_file{}, tls_key_file{}, tls_ca_file{};
    // -httpAuth.username/-httpAuth.password: every request but /health needs them.
    std::string username{}, password{};
  };

  VictoriaMetrics() : VictoriaMetrics(Options{}) {}
  explicit VictoriaMetrics(Options options);  // started; wait_ready() says whether it came up
  ~VictoriaMetrics();
  VictoriaMetrics(const VictoriaMetrics&) = delete;
  VictoriaMetrics& operator=(const VictoriaMetrics&) = delete;

  void start();
  void stop();  // SIGTERM and wait (SIGKILL after 10 s)
  bool wait_ready(std::chrono::milliseconds timeout) const;
  std::string log() const;
  // http://127.0.0.1:<port><path> (https:// with TLS)
  std::string url(const std::string& path) const;

  // /api/v1/query's data.result for `expr` (null when the query failed).
  nlohmann::json query(const std::string& expr) const;
  // /api/v1/export for the series `match` selects, between `start` and `end` (Unix seconds):
  // one JSON object per series (metric, values, timestamps).
  std::vector<nlohmann::json> export_series(const std::string& match, double start,
                                            double end) const;

 private:
  // GET url(path) with `params`: http_get_url's answers, with the CA and credentials of
  // options_.
  std::string get(const std::string& path, const std::vector<std::string>& params = {}) const;

  Options options_;
  std::filesystem::path dir_;
  uint16_t port_ = 0;
  pid_t pid_ = 0;
};

}  // namespace ibpulse::testing
