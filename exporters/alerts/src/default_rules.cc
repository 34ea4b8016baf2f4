// The default rule set (docs/alerts.md; dashboards/prometheus holds its Prometheus twin).

#include "counter_source.h"
#include "ibpulse/base/check.h"
#include "ibpulse/exporters/alerts/health.h"
#include "ibpulse/exporters/alerts/rule.h"

namespace ibpulse::exporters::alerts {
namespace {

using namespace std::chrono_literals;

struct Default {
  const char* name;
  const char* counter;  // empty: a state rule
  RuleKind kind;
  Condition measure;
  double threshold;
  milliseconds hold_for, clear_after;
  Severity severity;
};

// Error counters that a healthy link never moves get "any increase in a minute"; the noisy ones
// (symbol errors, receive errors, discards) a threshold above background noise.
constexpr milliseconds kMinute = 60s;
const Default kDefaults[] = {
    {"symbol_error_burst", "symbol_error", RuleKind::kCounter, Condition::kDelta, 10, 0s, 2min,
     Severity::kWarning},
    {"link_error_recovery", "link_error_recovery", RuleKind::kCounter, Condition::kDelta, 0, 0s,
     5min, Severity::kMinor},
    {"link_downed", "link_downed", RuleKind::kCounter, Condition::kDelta, 0, 0s, 5min,
     Severity::kMinor},
    {"rcv_errors", "rcv_errors", RuleKind::kCounter, Condition::kDelta, 10, 0s, 2min,
     Severity::kWarning},
    {"rcv_remote_physical_errors", "rcv_remote_physical_errors", RuleKind::kCounter,
     Condition::kDelta, 0, 0s, 5min, Severity::kWarning},
    {"local_link_integrity_errors", "local_link_integrity_errors", RuleKind::kCounter,
     Condition::kDelta, 0, 0s, 5min, Severity::kWarning},
    {"excessive_buffer_overrun_errors", "excessive_buffer_overrun_errors", RuleKind::kCounter,
     Condition::kDelta, 0, 0s, 5min, Severity::kWarning},
    {"xmit_discards", "xmit_discards", RuleKind::kCounter, Condition::kDelta, 100, 0s, 5min,
     Severity::kMinor},
    // Partition enforcement drops: a port sending into, or receiving from, a partition it is not
    // a member of (or limited to limited). The Prometheus twins name the port's partitions.
    {"rcv_constraint_errors", "rcv_constraint_errors", RuleKind::kCounter, Condition::kDelta, 0, 0s,
     5min, Severity::kWarning},
    {"xmit_constraint_errors", "xmit_constraint_errors", RuleKind::kCounter, Condition::kDelta, 0,
     0s, 5min, Severity::kWarning},
    {"fec_uncorrectable_blocks", "fec_uncorrectable_blocks", RuleKind::kCounter, Condition::kDelta,
     0, 0s, 5min, Severity::kMajor},
    {"xmit_wait_congestion", "xmit_wait_ticks", RuleKind::kCounter, Condition::kRatePerSecond, 1e6,
     1min, 5min, Severity::kWarning},
    {"high_utilisation", "utilisation", RuleKind::kCounter, Condition::kPercent, 0.9, 5min, 5min,
     Severity::kInfo},
    {"port_down", "", RuleKind::kPortDown, Condition::kState, 0, 0s, 1min, Severity::kMajor},
    {"link_degraded", "", RuleKind::kLinkDegraded, Condition::kState, 0, 0s, 1min,
     Severity::kMajor},
    // Link health (health.h): each condition is judged over its own window already.
    {"ber_above_spec", "ber-above-spec", RuleKind::kHealth, Condition::kState, 0, 0s, 1min,
     Severity::kMajor},
    {"link_flapping", "link-flapping", RuleKind::kHealth, Condition::kState, 0, 0s, 1min,
     Severity::kMajor},
    {"health_failing", "health-failing", RuleKind::kHealth, Condition::kState, 0, 0s, 1min,
     Severity::kCritical},
    // One alert for a switch that lost power or rebooted, not one per port and peer.
    {"switch_down", "switch-down", RuleKind::kSwitchDown, Condition::kState, 0, 0s, 1min,
     Severity::kCritical},
};

}  // namespace

std::vector<Rule> default_rules() {
  std::vector<Rule> rules;
  for (const Default& d : kDefaults) {
    Rule r;
    r.name = d.name;
    r.kind = d.kind;
    r.measure = d.measure;
    r.threshold = d.threshold;
    r.window = kMinute;
    r.hold_for = d.hold_for;
    r.clear_after = d.clear_after;
    r.severity = d.severity;
    r.origin = "default rule set";
    if (d.kind == RuleKind::kCounter) {
      const auto resolved = resolve_counter(d.counter);
      IBPULSE_CHECK(resolved, "default rule {} names {}, not a counter of the schema", d.name,
                    d.counter);
      r.counter = resolved->name;
      r.source = resolved->source;
    } else if (d.kind == RuleKind::kHealth) {
      r.counter = d.counter;
      r.health_reasons = health_rule_reasons(d.counter);
      IBPULSE_CHECK(r.health_reasons != 0, "default rule {} watches {}", d.name, d.counter);
    } else {
      r.counter = d.kind == RuleKind::kPortDown     ? "port-down"
                  : d.kind == RuleKind::kSwitchDown ? "switch-down"
                                                    : "link-degraded";
    }
    rules.push_back(std::move(r));
  }
  return rules;
}

}  // namespace ibpulse::exporters::alerts
