#include "ibpulse/daemon/config.h"

#include <cstdlib>

#include "ibpulse/collector/environment.h"
#include "ibpulse/collector/sampler.h"

namespace ibpulse::daemon {
namespace {

using namespace std::chrono_literals;

std::filesystem::path state_dir(const DaemonConfig& config) {
  return config.convert.state_dir.empty() ? default_state_dir() : config.convert.state_dir;
}

// The checks that span keys, and what follows from several.
Status finish(DaemonConfig& config) {
  if (auto s = collector::validate(config.poller.shard); !s) return s;
  if (config.discovery_cache_max_age > config.poller.rediscover) {
    return Err(
        "--discovery.cache-max-age ({} s) must not exceed --discovery.interval ({} s): a cached "
        "topology is trusted no longer than a discovered one",
        std::chrono::duration_cast<std::chrono::seconds>(config.discovery_cache_max_age).count(),
        std::chrono::duration_cast<std::chrono::seconds>(config.poller.rediscover).count());
  }
  // The cache also tells a restart which nodes the last run polled (collector/discovery.h):
  // written wherever state is kept.
  if (config.discovery_cache_max_age.count() > 0 ||
      config.convert.state_save_interval.count() > 0) {
    config.poller.discovery.cache_file = state_dir(config) / "topology";
    config.poller.discovery.cache_max_age =
        std::chrono::duration_cast<std::chrono::seconds>(config.discovery_cache_max_age);
  }
  if (const auto& c = config.health.congestion; c.victim_utilization > c.root_utilization) {
    return Err(
        "--congestion.victim-utilization ({}) must not exceed --congestion.root-utilization ({}): "
        "a port cannot send little and at line rate at once",
        c.victim_utilization, c.root_utilization);
  }
  config.convert.converter.shard = config.poller.shard;
  return Ok{};
}

}  // namespace

Result<DaemonConfig> build_config(const std::filesystem::path& file,
                                  const config::FlagValues& flags) {
  DaemonConfig config;
  for (const auto& name : collector::default_sample_counters()) {
    const auto code = collector::parse_select(name);
    IBPULSE_CHECK(code.has_value(), "default sampled counter {} has a select code", name);
    config.poller.sampling.selects.push_back(*code);
  }
  const auto& keys = config_keys();
  std::optional<ConfigNode> root;
  if (!file.empty()) {
    auto read = read_config_file(file);
    if (!read) return Error{read.error()};
    root = std::move(*read);
  }
  const std::string_view hint = " (see `ibpulse run --help` for the keys)";
  if (auto s = config::apply(keys, config, root ? &*root : nullptr, flags, hint); !s) {
    return Error{s.error()};
  }
  if (auto s = finish(config); !s) return Error{s.error()};
  return config;
}

std::filesystem::path default_state_dir() {
  const auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v ? v : "";
  };
  if (collector::current_mad_environment().simulated) {
    // A simulated fabric's state belongs to that fabric only: a new one with the same GUIDs
    // must not inherit it, so without its run directory there is no default at all.
    return env("IBPULSE_SIM_RUN_DIR");
  }
  if (const std::string systemd = env("STATE_DIRECTORY"); !systemd.empty()) {
    return systemd.substr(0, systemd.find(':'));  // the first, when the unit names several
  }
  if (const std::string xdg = env("XDG_STATE_HOME"); !xdg.empty()) {
    return std::filesystem::path(xdg) / "ibpulse";
  }
  if (const std::string home = env("HOME"); !home.empty()) {
    return std::filesystem::path(home) / ".local" / "state" / "ibpulse";
  }
  return {};
}

DaemonOptions daemon_options(const DaemonConfig& config, LocalSubnets subnets,
                             std::vector<exporters::alerts::Rule> rules) {
  DaemonOptions o;
  o.poller = config.poller;
  o.subnets = std::move(subnets.ports);
  o.subnet_names = std::move(subnets.names);
  o.ring_size = config.ring_size;
  o.convert = config.convert;
  o.convert.state_dir = state_dir(config);
  // A restored counter read from the other copy waits for two discoveries (each asks every
  // node's ClassPortInfo again), at least a minute.
  o.convert.converter.restored_source_wait =
      std::max<std::chrono::milliseconds>(2 * config.poller.rediscover, std::chrono::minutes(1));
  o.rules = std::move(rules);
  o.alerts = config.alerts.engine;
  o.health = config.health;
  // Link health is kept across restarts beside the counters' state (docs/health.md).
  if (config.convert.state_save_interval.count() != 0) {
    o.health_file = o.convert.state_dir / "health.json";
  }
  o.health_save_interval = config.convert.state_save_interval;
  o.web = config.web;
  o.snmp = config.snmp;
  o.snmp.state_dir = o.convert.state_dir;
  o.remote_write = config.remote_write;
  // The SM is asked from the first local port (fabric.ports), else fabric.ca's.
  o.sm_subscription = config.sm_subscription;
  const bool listed = !o.subnets.empty() && !o.subnets.front().empty();
  o.sm_subscription.ca = listed ? o.subnets.front().front().ca : config.poller.discovery.ca;
  o.sm_subscription.ca_port =
      listed ? o.subnets.front().front().port : config.poller.discovery.ca_port;
  return o;
}

}  // namespace ibpulse::daemon
