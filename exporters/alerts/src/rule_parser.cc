// alerts.rules: one map per rule (a YAML list item, or a flag's `{...}`).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <map>

#include "counter_source.h"
#include "ibpulse/base/duration.h"
#include "ibpulse/base/number.h"
#include "ibpulse/exporters/alerts/health.h"
#include "ibpulse/exporters/alerts/rule.h"
#include "name_pattern.h"

namespace ibpulse::exporters::alerts {
namespace {

// A scalar's text; what else was written, for the error that follows.
std::string text_of(const ConfigNode& v) {
  if (v.is_scalar()) return v.text();
  return v.is_map() ? "(a map)" : v.is_list() ? "(a list)" : "";
}

bool has(const ConfigNode& rule, std::string_view key) {
  return rule.find(key) != nullptr;
}

std::string field_text(const ConfigNode& rule, std::string_view key) {
  const ConfigNode* v = rule.find(key);
  return v ? text_of(*v) : std::string();
}

Result<milliseconds> duration_field(const ConfigNode& rule, const char* key, milliseconds fallback,
                                    bool zero_allowed) {
  if (!has(rule, key)) return fallback;
  const std::string text = field_text(rule, key);
  if (zero_allowed && (text == "0" || text == "off")) return milliseconds(0);
  auto d = parse_duration(text);
  if (!d) return Err("{}: {}", key, d.error());
  return *d;
}

Result<double> parse_number(std::string text, bool& percent) {
  percent = text.ends_with('%');
  if (percent) text.pop_back();
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  const bool digits = text.find_first_not_of("0123456789.eE+-") == std::string::npos;
  if (text.empty() || !digits || *end != '\0' || !std::isfinite(v) || v < 0) {
    return Err("'{}' is not a number of 0 or more", text);
  }
  if (percent && v > 100) return Err("'{}%' is more than 100%", text);
  return percent ? v / 100 : v;
}

// "delta > 10", "rate >= 1e6", "value > 90%", "increased".
Status parse_condition(const std::string& text, bool gauge, Rule& r) {
  if (text == "increased") {
    if (gauge) return Err("condition 'increased' needs a counter, not a gauge");
    r.measure = Condition::kDelta;
    r.comparison = Comparison::kAbove;
    r.threshold = 0;
    return Ok{};
  }
  const auto space = text.find(' ');
  const std::string what = text.substr(0, space);
  std::string rest = space == std::string::npos ? "" : text.substr(space + 1);
  static const std::map<std::string, Comparison> kComparisons = {{">", Comparison::kAbove},
                                                                 {">=", Comparison::kAtLeast},
                                                                 {"<", Comparison::kBelow},
                                                                 {"<=", Comparison::kAtMost}};
  const auto op_end = rest.find(' ');
  const auto op = kComparisons.find(rest.substr(0, op_end));
  const std::string usage =
      "write 'delta > N' (increase over the window), 'rate > N' (per second), 'value > N' or "
      "'value > N%' (gauges) or 'increased'";
  if (op == kComparisons.end() || op_end == std::string::npos) {
    return Err("condition '{}': {}", text, usage);
  }
  bool percent = false;
  auto threshold = parse_number(rest.substr(op_end + 1), percent);
  if (!threshold) return Err("condition '{}': {}", text, threshold.error());
  r.comparison = op->second;
  r.threshold = *threshold;
  if (what == "delta" || what == "rate") {
    if (gauge) return Err("condition '{}': a gauge has no {}; compare its value", text, what);
    if (percent) return Err("condition '{}': a percentage needs a gauge", text);
    r.measure = what == "delta" ? Condition::kDelta : Condition::kRatePerSecond;
    return Ok{};
  }
  if (what == "value") {
    if (!gauge) return Err("condition '{}': a counter is compared by delta or rate", text);
    r.measure = Condition::kPercent;
    if (!percent && r.threshold > 1) {
      return Err("condition '{}': utilisation is 0..1; write a fraction or a percentage", text);
    }
    return Ok{};
  }
  return Err("condition '{}': {}", text, usage);
}

Result<std::vector<std::pair<unsigned, unsigned>>> parse_ports(const ConfigNode& v) {
  std::vector<std::string> items;
  if (v.is_list()) {
    for (const auto& item : v.items())
      items.push_back(text_of(item));
  } else {
    std::string text = text_of(v);
    for (size_t start = 0; start <= text.size();) {
      const size_t comma = std::min(text.find(',', start), text.size());
      items.push_back(text.substr(start, comma - start));
      start = comma + 1;
    }
  }
  std::vector<std::pair<unsigned, unsigned>> out;
  for (const std::string& item : items) {
    unsigned lo = 0;
    unsigned hi = 0;
    const auto dash = item.find('-');
    const std::string first = item.substr(0, dash);
    const std::string last = dash == std::string::npos ? first : item.substr(dash + 1);
    const auto a = std::from_chars(first.data(), first.data() + first.size(), lo);
    const auto b = std::from_chars(last.data(), last.data() + last.size(), hi);
    if (first.empty() || last.empty() || a.ec != std::errc() || b.ec != std::errc() ||
        a.ptr != first.data() + first.size() || b.ptr != last.data() + last.size() || lo > hi ||
        hi > 254) {
      return Err("ports: '{}' is not a port or range (write 1-36,40)", item);
    }
    out.emplace_back(lo, hi);
  }
  return out;
}

// One key of a rule's scope (in its `scope` map, or beside the rule's other keys).
Status parse_scope_key(const std::string& key, const ConfigNode& v, Scope& scope) {
  if (key == "node-type") {
    const std::string t = text_of(v);
    if (t == "switch") {
      scope.node_kind = collector::NodeKind::kSwitch;
    } else if (t == "ca" || t == "hca") {
      scope.node_kind = collector::NodeKind::kCa;
    } else if (t == "router") {
      scope.node_kind = collector::NodeKind::kRouter;
    } else {
      return Err("node-type: '{}' is not switch, ca or router", t);
    }
  } else if (key == "guids") {
    for (const ConfigNode* g : v.as_list()) {
      const std::string t = text_of(*g);
      uint64_t guid = 0;
      const auto r =
          std::from_chars(t.data() + std::min<size_t>(2, t.size()), t.data() + t.size(), guid, 16);
      if (!t.starts_with("0x") || r.ec != std::errc() || r.ptr != t.data() + t.size()) {
        return Err("guids: '{}' is not a GUID (write 0x followed by hex digits)", t);
      }
      scope.node_guids.insert(guid);
    }
  } else if (key == "name") {
    scope.name_text = text_of(v);
    auto compiled = NameFilter::compile(scope.name_text);
    if (!compiled) return Err("name: {}", compiled.error());
    scope.name = std::move(*compiled);
  } else if (key == "ports") {
    auto ports = parse_ports(v);
    if (!ports) return Error{ports.error()};
    scope.ports = std::move(*ports);
  } else {
    return Err("scope: unknown key '{}' (node-type, guids, name, ports)", key);
  }
  return Ok{};
}

Status parse_source(const ConfigNode& j, Rule& r) {
  const bool has_counter = has(j, "counter");
  const bool has_state = has(j, "state");
  if (has_counter == has_state) return Err("give either counter or state");
  if (has_state) {
    const std::string state = field_text(j, "state");
    if (state == "port-down") {
      r.kind = RuleKind::kPortDown;
    } else if (state == "link-degraded") {
      r.kind = RuleKind::kLinkDegraded;
    } else if (state == "switch-down") {
      r.kind = RuleKind::kSwitchDown;
    } else if (const uint16_t reasons = health_rule_reasons(state); reasons != 0) {
      r.kind = RuleKind::kHealth;
      r.health_reasons = reasons;
    } else {
      return Err(
          "state: '{}' is not port-down, link-degraded, switch-down, ber-above-spec, "
          "link-flapping or health-failing",
          state);
    }
    r.counter = state;
    r.measure = Condition::kState;
    if (has(j, "condition")) return Err("a state rule has no condition");
    return Ok{};
  }
  const std::string name = field_text(j, "counter");
  const auto resolved = resolve_counter(name);
  if (!resolved) {
    return Err(
        "unknown counter '{}' (an ibpulse name such as symbol_error or xmit_data_bytes, see "
        "docs/metrics.md; an IBA field such as SymbolErrorCounter; if_in_octets; utilisation)",
        name);
  }
  r.kind = RuleKind::kCounter;
  r.counter = resolved->name;
  r.source = resolved->source;
  if (!has(j, "condition")) return Err("a counter rule needs a condition");
  return parse_condition(field_text(j, "condition"), is_gauge(r.source), r);
}

const std::set<std::string>& rule_keys() {
  static const std::set<std::string> keys = {"name",      "counter",    "state",       "window",
                                             "condition", "for",        "clear-after", "renotify",
                                             "severity",  "enabled",    "scope",       "node-type",
                                             "guids",     "name-regex", "ports"};
  return keys;
}

// Fills `r` from `j` (defaults already in place when it replaces a default rule).
Status parse_rule_fields(const ConfigNode& j, Rule& r) {
  for (const auto& [key, value] : j.fields()) {
    if (!rule_keys().contains(key)) {
      return Err(
          "unknown key '{}' (name, counter or state, condition, window, for, clear-after, "
          "renotify, severity, enabled, scope)",
          key);
    }
  }
  if (has(j, "counter") || has(j, "state")) {
    if (auto s = parse_source(j, r); !s) return s;
  } else if (has(j, "condition")) {
    if (r.kind != RuleKind::kCounter) return Err("a state rule has no condition");
    if (auto s = parse_condition(field_text(j, "condition"), is_gauge(r.source), r); !s) return s;
  }
  auto window = duration_field(j, "window", r.window, false);
  auto hold = duration_field(j, "for", r.hold_for, true);
  auto clear = duration_field(j, "clear-after", r.clear_after, true);
  auto renotify = duration_field(j, "renotify", r.renotify, true);
  for (const auto* d : {&window, &hold, &clear, &renotify}) {
    if (!*d) return Error{d->error()};
  }
  r.window = *window;
  r.hold_for = *hold;
  r.clear_after = *clear;
  r.renotify = *renotify;
  if (has(j, "severity")) {
    const auto sev = parse_severity(field_text(j, "severity"));
    if (!sev) {
      return Err("severity: '{}' (info, warning, minor, major, critical)",
                 field_text(j, "severity"));
    }
    r.severity = *sev;
  }
  // The scope's keys, from its map and beside the rule's own (name-regex: the scope's name).
  std::vector<std::pair<std::string, const ConfigNode*>> scope;
  if (const ConfigNode* map = j.find("scope")) {
    if (!map->is_map()) return Err("scope: a map of node-type, guids, name, ports");
    for (const auto& [key, value] : map->fields())
      scope.emplace_back(key, &value);
  }
  for (const char* key : {"node-type", "guids", "ports", "name-regex"}) {
    if (const ConfigNode* value = j.find(key)) {
      scope.emplace_back(std::string_view(key) == "name-regex" ? "name" : key, value);
    }
  }
  if (!scope.empty()) {
    r.scope = Scope{};
    for (const auto& [key, value] : scope) {
      if (auto s = parse_scope_key(key, *value, r.scope); !s) return s;
    }
  }
  if (r.kind == RuleKind::kCounter && r.counter.empty()) return Err("give a counter or a state");
  return Ok{};
}

// `enabled`: true/yes/on/1 or false/no/off/0 (any case); anything else is an error.
Result<bool> enabled(const ConfigNode& j) {
  if (!has(j, "enabled")) return true;
  const auto v = parse_bool(field_text(j, "enabled"));
  if (!v) return Err("enabled: '{}' (write true or false)", field_text(j, "enabled"));
  return *v;
}

}  // namespace

ParsedRules parse_rules(const std::vector<ConfigNode>& configured_rules, bool with_defaults) {
  ParsedRules out;
  if (with_defaults) out.rules = default_rules();
  std::set<std::string> configured;
  for (size_t i = 0; i < configured_rules.size(); ++i) {
    const ConfigNode& j = configured_rules[i];
    const std::string& where = j.where();
    if (!j.is_map()) {
      out.errors.push_back(
          fmt::format("{}: rule {}: a rule is a map of name, counter, ...", where, i + 1));
      continue;
    }
    const ConfigNode* name_node = j.find("name");
    const std::string name = name_node && name_node->is_scalar() ? name_node->text() : "";
    const auto fail = [&](const std::string& why) {
      out.errors.push_back(fmt::format("{}: rule '{}': {}", where,
                                       name.empty() ? fmt::format("#{}", i + 1) : name, why));
    };
    if (name.empty()) {
      fail("give the rule a name");
      continue;
    }
    if (!configured.insert(name).second) {
      fail("a rule of this name came earlier; names must be unique");
      continue;
    }
    auto existing = std::find_if(out.rules.begin(), out.rules.end(),
                                 [&](const Rule& r) { return r.name == name; });
    const auto on = enabled(j);
    if (!on) {
      fail(on.error());
      continue;
    }
    if (!*on) {
      if (existing != out.rules.end()) out.rules.erase(existing);
      continue;
    }
    const bool replaces_default = existing != out.rules.end();
    // A rule that names a default one tunes it: unset keys keep the default's values.
    Rule r = replaces_default ? *existing : Rule{};
    r.name = name;
    r.origin = where;
    if (!replaces_default && !has(j, "counter") && !has(j, "state")) {
      fail("give a counter or a state (port-down, link-degraded)");
      continue;
    }
    if (auto s = parse_rule_fields(j, r); !s) {
      fail(s.error());
      continue;
    }
    if (replaces_default) {
      *existing = std::move(r);
    } else {
      out.rules.push_back(std::move(r));
    }
  }
  return out;
}

bool Scope::matches(const collector::Node& node, uint8_t port) const {
  if (node_kind && node.kind != *node_kind) return false;
  if (!node_guids.empty() && !node_guids.contains(node.guid)) return false;
  if (name && !name->search(node.name) && !name->search(node.description)) return false;
  if (ports.empty()) return true;
  return std::any_of(ports.begin(), ports.end(), [port](const auto& range) {
    return port >= range.first && port <= range.second;
  });
}

bool Rule::holds(double value) const {
  switch (comparison) {
    case Comparison::kAbove:
      return value > threshold;
    case Comparison::kAtLeast:
      return value >= threshold;
    case Comparison::kBelow:
      return value < threshold;
    case Comparison::kAtMost:
      return value <= threshold;
  }
  return false;
}

}  // namespace ibpulse::exporters::alerts
