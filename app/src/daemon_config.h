#pragma once
// The daemon's configuration: one table of keys, each settable from the YAML file (nested
// maps, `mad: {window: 64}`) and as a flag named by its dotted path (`--mad.window 64`).
// Flags override the file. Unknown keys and bad values are errors naming the file, line and
// key.

#include <CLI/CLI.hpp>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "ibpulse/base/result.h"
#include "ibpulse/collector/poller.h"
#include "ibpulse/converters/converter.h"
#include "ibpulse/exporters/alerts/engine.h"
#include "ibpulse/exporters/alerts/rule.h"
#include "ibpulse/exporters/prometheus/renderer.h"
#include "ibpulse/exporters/remote_write/options.h"
#include "ibpulse/exporters/snmp/agent.h"

namespace ibpulse::cli {

struct DaemonConfig {
  collector::PollerOptions poller;
  // fabric.ports: several local ports on one subnet, one poller each (docs/scale-out.md).
  // Empty and not `all`: the one port of fabric.ca/fabric.ca-port.
  std::vector<collector::LocalPort> local_ports;
  bool all_local_ports = false;
  converters::ConverterOptions converter;
  std::chrono::milliseconds publish_interval{1000};
  std::chrono::milliseconds foreign_clear_window{600000};  // 3 foreign clears in it: a warning
  std::string state_dir;                                   // empty: default_state_dir()
  std::chrono::milliseconds state_save_interval{60000};    // 0: no state file at all
  std::chrono::milliseconds discovery_cache_max_age{0};    // 0: no topology cache
  std::string node_name_map;
  std::string web_listen_address = ":9731";  // "off": no HTTP endpoint
  std::string web_config_file;  // TLS and basic auth (exporter-toolkit format); empty: none
  exporters::prometheus::MetricGroups collect;
  // The SNMP agent: listen "off" for none; its state in <state dir>/snmp.
  exporters::snmp::AgentOptions snmp;
  // `--snmp.trap-sink ADDR` sinks: v2c traps with snmp.trap-community (added to snmp.trap_sinks
  // when the agent starts, whatever the order the keys came in).
  std::vector<std::string> trap_sink_addresses;
  std::string trap_community = "public";
  // Threshold alerts (docs/alerts.md): configured rules on top of the default set.
  std::vector<exporters::alerts::RuleText> alert_rules;
  bool default_alert_rules = true;
  exporters::alerts::EngineOptions alerts;
  exporters::alerts::HealthOptions health;  // link health (docs/health.md)
  // 32768 x 408 B = 13 MB per local port: 170 ms of readings at 190k MADs/s, while the
  // converter builds a 70,000-port snapshot in 15 ms. 65536 was 4% of the daemon at 70k ports.
  size_t ring_size = 32768;
  exporters::remote_write::WriterOptions remote_write;  // docs/remote-write.md; no URL: off
};

// Where the counters' state lives when state.dir is not set: a simulated fabric's own run
// directory (`ibpulse sim down` removes it with the fabric), else systemd's STATE_DIRECTORY,
// else $XDG_STATE_HOME/ibpulse or ~/.local/state/ibpulse. Empty when none of them is known.
std::filesystem::path default_state_dir();

// Raw values as given: scalars are one-element lists.
using ConfigValues = std::map<std::string, std::vector<std::string>>;

struct ConfigKey {
  std::string name;  // dotted path
  std::string help;
  std::string default_text;
};
const std::vector<ConfigKey>& config_keys();

// Reads a YAML file into dotted keys, rejecting unknown ones (with file:line).
Result<std::map<std::string, std::pair<std::vector<std::string>, int>>> read_config_file(
    const std::filesystem::path& path);

// Builds the configuration: defaults, then the file (if any), then flags.
Result<DaemonConfig> build_config(const std::filesystem::path& file, const ConfigValues& flags);

// Adds one `--<key>` flag per config key; values land in `flags`.
void add_config_flags(CLI::App& app, ConfigValues& flags);

}  // namespace ibpulse::cli
