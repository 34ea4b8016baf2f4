#pragma once
// What the remote-write integration tests read back: a daemon that publishes every 500 ms, its
// remote-write self-metrics in a /metrics text, and a port's series as a PromQL selector.
//
// Thread safety: pure functions.

#include <string>
#include <vector>

#include "daemon_client.h"
#include "sim_fabric.h"

namespace ibpulse::testing {

// A daemon on an ephemeral web port, without a state file, reading and publishing every 500 ms
// (remote write sees a snapshot that often), followed by `extra`.
inline std::vector<std::string> remote_write_daemon_args(const std::vector<std::string>& extra) {
  std::vector<std::string> args = {
      "--web.listen-address",     "127.0.0.1:0", "--state.save-interval",       "off",
      "--poll.counters-interval", "500ms",       "--counters.publish-interval", "500ms"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// ibpulse_remote_write_samples_total{result=..., url=...} (-1: absent).
inline double samples_total(const std::string& metrics, const std::string& url,
                            const std::string& result) {
  return metric_value(metrics, "ibpulse_remote_write_samples_total",
                      "result=\"" + result + "\",url=\"" + url + "\"");
}

// ibpulse_remote_write_queue_samples{url=...} (-1: absent).
inline double queue_samples(const std::string& metrics, const std::string& url) {
  return metric_value(metrics, "ibpulse_remote_write_queue_samples", "url=\"" + url + "\"");
}

// `metric{node_guid="0x...",port="N"}` for `node`'s `port` on `fabric`.
inline std::string port_selector(const SimFabric& fabric, const std::string& metric,
                                 const std::string& node, unsigned port = 1) {
  return metric + "{node_guid=\"" + guid_text(fabric.port(node, port).node_guid) + "\",port=\"" +
         std::to_string(port) + "\"}";
}

}  // namespace ibpulse::testing
