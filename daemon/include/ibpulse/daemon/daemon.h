#pragma once
// The collector daemon's pipeline, owned and wired in one place: the pollers (one per local
// port, SubnetSet) push readings into their rings; the converter thread (ConvertLoop) turns
// them into snapshots; the alert thread (AlertLoop) judges link health and raises alerts on
// each new snapshot; the HTTP endpoint, the SNMP agent and the remote writer serve and send
// them. The command line (app/) builds DaemonOptions from the configuration, starts a Daemon,
// forwards SIGHUP as reload() and stops it.
//
// Thread safety: start(), reload() and stop() from one thread (the caller's); the accessors
// from any.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "ibpulse/base/result.h"
#include "ibpulse/collector/poller.h"
#include "ibpulse/collector/sm_subscription.h"
#include "ibpulse/collector/subnets.h"
#include "ibpulse/converters/convert_loop.h"
#include "ibpulse/exporters/alerts/engine.h"
#include "ibpulse/exporters/alerts/health.h"
#include "ibpulse/exporters/alerts/rule.h"
#include "ibpulse/exporters/prometheus/renderer.h"
#include "ibpulse/exporters/prometheus/self_metrics.h"
#include "ibpulse/exporters/prometheus/web_endpoint.h"
#include "ibpulse/exporters/remote_write/writer.h"
#include "ibpulse/exporters/snmp/endpoint.h"

namespace ibpulse::daemon {

struct DaemonOptions {
  collector::PollerOptions poller;
  // Each subnet's local ports, and its name (collector/subnets.h); one subnet with no port:
  // poller.discovery's CA and port.
  std::vector<std::vector<collector::LocalPort>> subnets{{}};
  std::vector<collector::Topology::Subnet> subnet_names{{}};
  size_t ring_size = 32768;  // readings per local port's ring
  converters::ConvertLoopOptions convert;
  std::vector<exporters::alerts::Rule> rules;
  exporters::alerts::EngineOptions alerts;
  exporters::alerts::HealthOptions health;
  std::filesystem::path health_file;  // link health across restarts; empty: not kept
  std::chrono::milliseconds health_save_interval{60000};
  exporters::prometheus::WebOptions web;  // listen address "off": no HTTP endpoint
  exporters::snmp::EndpointOptions snmp;  // agent.listen "off": no agent
  exporters::remote_write::WriterOptions remote_write;
  collector::PollerBackend backend;  // empty: the real fabric (tests: a fake one)
  // The subscription to the subnet manager's traps (no traps, or a fake backend: none).
  collector::SmSubscriptionOptions sm_subscription;
};

// What SIGHUP changes in a running daemon.
struct DaemonReload {
  collector::PollerOptions poller;
  std::string web_config_file;
  std::vector<exporters::alerts::Rule> rules;
};

class Daemon {
 public:
  // Every thread running and every endpoint listening; an error names the setting to fix
  // ("--web.listen-address: ...", "snmp: ...") and leaves nothing running.
  static Result<std::unique_ptr<Daemon>> start(DaemonOptions options);
  ~Daemon();
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;

  uint16_t web_port() const;   // 0: no HTTP endpoint
  uint16_t snmp_port() const;  // 0: no agent, or AgentX
  uint64_t sweeps() const { return sweeps_.load(); }
  // The pollers ended by themselves (an error stop() returns).
  bool poller_ended() const { return poller_ended_.load(); }
  const converters::SnapshotStore& snapshots() const { return snapshots_; }
  const exporters::alerts::HealthStore& healths() const { return healths_; }
  collector::PollerStats poller_stats() const;
  converters::ConverterStats converter_stats() const;

  void reload(DaemonReload reload);
  // The periodic statistics line (event=stats).
  void log_stats() const;
  // Stops every thread (the last readings converted and saved), logs the final statistics and
  // returns the pollers' result. Once; the destructor calls it if nobody did.
  Status stop();

 private:
  explicit Daemon(DaemonOptions options);
  void start_sm_subscription();
  Status start_endpoints();
  void status_for_metrics(exporters::prometheus::DaemonStatus& status) const;

  DaemonOptions options_;
  converters::SnapshotStore snapshots_;
  exporters::alerts::HealthStore healths_;
  std::atomic<uint64_t> sweeps_{0};
  std::atomic<bool> poller_ended_{false};
  bool stopped_ = false;
  // Last: destroyed first, so that no thread of theirs outlives the stores above.
  struct Parts;
  std::unique_ptr<Parts> parts_;
};

}  // namespace ibpulse::daemon
