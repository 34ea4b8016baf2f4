#pragma once
// The daemon's configuration: every module's keys (each declared beside the options it fills:
// collector, converters, exporters) and the daemon's own, read from the YAML file and then
// from flags named by the keys' dotted paths (base/config_keys.h); flags win. Unknown keys and
// bad values are errors naming the file, line and key, or the flag.
//
// Thread safety: pure functions, except that build_config() reads the files the configuration
// names (node name map, secrets) and local_subnets() runs discoveries.

#include <chrono>
#include <filesystem>
#include <vector>

#include "ibpulse/base/config_keys.h"
#include "ibpulse/collector/local_ports.h"
#include "ibpulse/collector/poller.h"
#include "ibpulse/collector/sm_subscription.h"
#include "ibpulse/daemon/daemon.h"
#include "ibpulse/exporters/alerts/config_keys.h"

namespace ibpulse::daemon {

struct DaemonConfig {
  collector::PollerOptions poller;
  // fabric.ports: several local ports on one subnet, one poller each (docs/scale-out.md).
  // Empty and not `all`: the one port of fabric.ca/fabric.ca-port.
  std::vector<collector::LocalPort> local_ports;
  bool all_local_ports = false;
  converters::ConvertLoopOptions convert;                // state_dir empty: default_state_dir()
  std::chrono::milliseconds discovery_cache_max_age{0};  // 0: no topology cache
  exporters::prometheus::WebOptions web;
  exporters::snmp::EndpointOptions snmp;  // state_dir: the daemon's, filled in by daemon_options
  exporters::alerts::AlertOptions alerts;
  exporters::alerts::HealthOptions health;  // link health (docs/health.md)
  // 32768 x 408 B = 13 MB per local port: 170 ms of readings at 190k MADs/s, while the
  // converter builds a 70,000-port snapshot in 15 ms. 65536 was 4% of the daemon at 70k ports.
  size_t ring_size = 32768;
  exporters::remote_write::WriterOptions remote_write;  // docs/remote-write.md; no URL: off
  // The subnet manager's trap forwarding (sm.*); its HCA port is the first local port's.
  collector::SmSubscriptionOptions sm_subscription;
};

// Every key `ibpulse run` takes, in the order --help lists them.
const config::Keys<DaemonConfig>& config_keys();

// Defaults, then the file (if any), then flags; then the checks that span keys.
Result<DaemonConfig> build_config(const std::filesystem::path& file,
                                  const config::FlagValues& flags);

// Where the counters' state lives when state.dir is not set: a simulated fabric's own run
// directory (`ibpulse sim down` removes it with the fabric), else systemd's STATE_DIRECTORY,
// else $XDG_STATE_HOME/ibpulse or ~/.local/state/ibpulse. Empty when none of them is known.
std::filesystem::path default_state_dir();

// fabric.ports resolved against this host's ports and grouped by subnet: what the daemon's
// SubnetSet is built from. Not set: one group without ports (the fabric.ca/fabric.ca-port one).
struct LocalSubnets {
  std::vector<std::vector<collector::LocalPort>> ports;  // in the order fabric.ports gives
  std::vector<collector::Topology::Subnet> names;        // per subnet: its first local port
};
Result<LocalSubnets> local_subnets(const DaemonConfig& config);

// What Daemon::start takes, from the configuration, the chosen local ports and the parsed
// rules.
DaemonOptions daemon_options(const DaemonConfig& config, LocalSubnets subnets,
                             std::vector<exporters::alerts::Rule> rules);

}  // namespace ibpulse::daemon
