#pragma once
// The alert thread's configuration keys (alerts.*, health.*, congestion.*), declared beside
// the options they fill; base/config_keys.h says how a program reads them.
//
// Thread safety: value types and pure functions.

#include <vector>

#include "ibpulse/base/config_keys.h"
#include "ibpulse/exporters/alerts/engine.h"
#include "ibpulse/exporters/alerts/health.h"

namespace ibpulse::exporters::alerts {

// What alerts.* configure.
struct AlertOptions {
  // The configured rules, each a map (parse_rules() reads them; a bad one is reported and
  // skipped when the daemon starts, not a configuration error).
  std::vector<ConfigNode> rules;
  bool default_rules = true;  // also the default set (default_rules())
  EngineOptions engine;
};

// alerts.rules, alerts.default-rules, alerts.rate-limit, alerts.rate-interval,
// alerts.link-hold-down.
config::Keys<AlertOptions> alert_keys();

// health.* (docs/health.md) and congestion.wait-ratio, root-utilization, victim-utilization
// (docs/congestion.md).
config::Keys<HealthOptions> health_keys();

}  // namespace ibpulse::exporters::alerts
