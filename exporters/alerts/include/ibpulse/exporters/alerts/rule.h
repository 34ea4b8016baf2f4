#pragma once
// Threshold rules: what the engine watches on every port in a rule's scope, when it raises and
// when it clears. Rules come from the configuration (`alerts.rules`, a list of maps, see
// docs/alerts.md) on top of a documented default set (default_rules()).
//
// Thread safety: value types; parse_rules() is a pure function.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ibpulse/base/config_node.h"
#include "ibpulse/collector/topology.h"
#include "ibpulse/exporters/alerts/event.h"
#include "ibpulse/exporters/alerts/name_filter.h"
#include "ibpulse/exporters/alerts/severity.h"

namespace ibpulse::exporters::alerts {

using std::chrono::milliseconds;

// Where a counter rule's numbers come from.
struct CounterSource {
  enum class Kind { kCounter, kFamily, kDerived, kUtilisation, kCovered } kind = Kind::kCounter;
  size_t index = 0;  // kCounter: core counter index; kDerived: DerivedId; kUtilisation: 0 max,
                     // 1 transmit, 2 receive; kCovered: 0 symbol errors', 1 RS-FEC totals'
                     // covered milliseconds (PortSnapshot::covered_symbol_ms, covered_fec_ms)
  std::vector<size_t> members;  // kFamily: the counters summed (table indices)
};

// Which ports a rule applies to: every condition given must hold.
struct Scope {
  std::optional<collector::NodeKind> node_kind;
  std::set<uint64_t> node_guids;
  std::shared_ptr<const NameFilter> name;  // searched in the node's name and its description
  std::string name_text;
  std::vector<std::pair<unsigned, unsigned>> ports;  // inclusive ranges; empty: all

  bool matches(const collector::Node& node, uint8_t port) const;
};

// kSwitchDown: one instance per switch (port 0), raised while health says it is down.
enum class RuleKind { kCounter, kPortDown, kLinkDegraded, kHealth, kSwitchDown };
enum class Comparison { kAbove, kAtLeast, kBelow, kAtMost };

struct Rule {
  std::string name;
  RuleKind kind = RuleKind::kCounter;
  std::string counter;  // the counter's ibpulse name ("symbol_error"), or the state watched
  CounterSource source;
  Condition measure = Condition::kDelta;  // delta, rate, percent (a gauge), or state
  Comparison comparison = Comparison::kAbove;
  double threshold = 0;  // in the measure's unit; percent as a fraction (0.9)
  milliseconds window{60000};
  milliseconds hold_for{0};         // the condition must hold this long before raising
  milliseconds clear_after{60000};  // ...and be false this long before clearing
  milliseconds renotify{0};         // 0: a raised instance is notified once
  Severity severity = Severity::kWarning;
  Scope scope;
  // kHealth: the link health reasons (health.h's HealthReason bits) any of which raises it.
  uint16_t health_reasons = 0;
  std::string origin;  // "config.yaml:12", "--alerts.rules", "default rule set"

  bool holds(double value) const;
};

// The rules an operator of a production fabric wants on day one (docs/alerts.md lists them).
std::vector<Rule> default_rules();

struct ParsedRules {
  std::vector<Rule> rules;          // defaults (unless disabled), then the configured ones
  std::vector<std::string> errors;  // "config.yaml:14: rule 'x': unknown counter 'y' (...)"
};
// Each configured rule a map (name, counter or state, condition, ...), whose where() is its
// origin ("config.yaml:12", "--alerts.rules"). Configured rules replace default ones of the
// same name; `enabled: false` drops one. A bad rule is reported and skipped: it never stops the
// others. Errors name what to write.
ParsedRules parse_rules(const std::vector<ConfigNode>& rules, bool with_defaults);

}  // namespace ibpulse::exporters::alerts
