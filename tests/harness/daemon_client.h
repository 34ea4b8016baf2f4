#pragma once
// `ibpulse run` as integration tests drive it: attached to a simulated fabric, logging into a
// file the test reads; and the parsing of what it logs (its `event=port_total` lines at trace
// level, at stop, are the exported totals).
//
// Thread safety: one test thread uses a Daemon.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "ibpulse/sim/process.h"
#include "sim_fabric.h"

namespace ibpulse::testing {

class Daemon {
 public:
  // Runs `ibpulse run <args>` on `fabric`, attached at node `host` (`sim exec --host`; default:
  // the topology's first node), so it collects that node's subnet; stopped (SIGTERM) when
  // destroyed. `env`: more environment (SIM_SET_ISSM=1: ibsim hands it Reports).
  Daemon(const SimFabric& fabric, const std::vector<std::string>& args,
         const std::string& host = "", const sim::EnvVars& env = {});
  ~Daemon();
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;

  std::string log() const;
  bool wait_for(const std::string& text, std::chrono::milliseconds timeout) const;
  bool running() const;
  void signal(int sig) const;
  // SIGTERM, then the log once the daemon has written its totals (a test failure otherwise).
  std::string stop() const;
  // Full sweeps done so far (ibpulse_sweeps_total on /metrics/self), -1 when not known.
  double sweeps() const;
  // Waits until `more` more sweeps have completed. The first may have begun before the call,
  // so 2 means a whole sweep read after it, converted and published (the converter publishes a
  // sweep's samples long before the next one ends): in place of a sleep "for a sweep".
  bool wait_for_sweeps(int more,
                       std::chrono::milliseconds timeout = std::chrono::seconds(30)) const;
  // The port its /metrics endpoint bound (from `event=web_listening`), 0 before it did.
  uint16_t web_port() const;
  // The UDP port of its SNMP agent (from `event=snmp_listening`), 0 before it bound one.
  uint16_t snmp_port() const;

 private:
  uint16_t listening_port(const std::string& event) const;
  std::filesystem::path log_;
  sim::ProcessRef process_;
};

std::string read_text_file(const std::filesystem::path& path);
// How a GET reaches a server that needs more than plain HTTP: the CA an https:// server's
// certificate must chain to (empty: the system's CAs), and basic auth (empty username: none).
struct HttpAccess {
  std::string ca_file, username, password;
};
// GET `url` (python3's urllib) with `params` ("name=value", url-encoded into its query): the
// body, "HTTP <code> <body>" on an HTTP error status, or "ERROR <what>" when no answer came.
std::string http_get_url(const std::string& url, const std::vector<std::string>& params = {},
                         const HttpAccess& access = {});
// GET http://127.0.0.1:<port><path>: the body, "HTTP <code>\n" (status only) on an HTTP error
// status, or "ERROR <what>" when no answer came.
std::string http_get(uint16_t port, const std::string& path);
// A loopback port nobody uses now (bound to port 0, then released): SOCK_STREAM or SOCK_DGRAM.
uint16_t free_loopback_port(int socket_type);
size_t count(const std::string& text, const std::string& needle);
// The value of `name{labels}` in a /metrics text, labels exactly as written ("": an unlabelled
// series), or -1 when it is absent.
double metric_value(const std::string& metrics, const std::string& name,
                    const std::string& labels = "");

// The start of the daemon's total line for a counter of `node`'s `port`.
std::string total_line(const SimFabric& fabric, const std::string& node, unsigned port,
                       const std::string& counter);
// The last total logged on `line`, or UINT64_MAX when the daemon did not report it.
uint64_t total_in(const std::string& log, const std::string& line);

// The value of `key` on the daemon's event=stopped line: a test failure (and 0) when the line
// or the key is missing, so a renamed statistic cannot pass for a zero or a huge one.
uint64_t stopped_stat(const std::string& log, const std::string& key);

}  // namespace ibpulse::testing
