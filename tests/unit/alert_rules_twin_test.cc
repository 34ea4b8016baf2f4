// dashboards/prometheus/ibpulse-alerts.rules.yml is the Prometheus twin of the daemon's default
// rule set: one alert per default rule (its `rule` label), with the same severity, the same
// hold (`for`) and clear delay (`keep_firing_for`), and for the counter rules the same metric,
// window and threshold. A default changed on one side only fails here.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "ibpulse/base/duration.h"
#include "ibpulse/exporters/alerts/rule.h"
#include "ibpulse/exporters/alerts/severity.h"

namespace ibpulse::exporters::alerts {
namespace {

using std::chrono::milliseconds;

struct TwinAlert {
  std::string expr, severity;
  milliseconds hold{0}, keep{0};
};

milliseconds duration_of(const YAML::Node& node) {
  if (!node) return milliseconds{0};
  auto d = parse_duration(node.as<std::string>());
  EXPECT_TRUE(d.ok()) << node.as<std::string>();
  return d.ok() ? *d : milliseconds{-1};
}

// The alerts of the rules file that carry a `rule` label, by that label.
std::map<std::string, TwinAlert> twin_alerts() {
  const YAML::Node file = YAML::LoadFile(std::string(IBPULSE_SOURCE_DIR) +
                                         "/dashboards/prometheus/ibpulse-alerts.rules.yml");
  std::map<std::string, TwinAlert> out;
  for (const auto& group : file["groups"]) {
    for (const auto& rule : group["rules"]) {
      const YAML::Node labels = rule["labels"];
      if (!labels || !labels["rule"]) continue;
      const auto name = labels["rule"].as<std::string>();
      EXPECT_FALSE(out.contains(name)) << "two alerts for " << name;
      out[name] = {rule["expr"].as<std::string>(), labels["severity"].as<std::string>(),
                   duration_of(rule["for"]), duration_of(rule["keep_firing_for"])};
    }
  }
  return out;
}

// The number the expression compares with: after its last '>'.
double threshold_of(const std::string& expr) {
  const size_t gt = expr.rfind('>');
  return gt == std::string::npos ? -1 : std::strtod(expr.c_str() + gt + 1, nullptr);
}

TEST(AlertRulesTwin, EveryDefaultRuleHasItsPrometheusTwinWithTheSameSettings) {
  auto twins = twin_alerts();
  const std::vector<Rule> defaults = default_rules();
  for (const Rule& r : defaults) {
    SCOPED_TRACE(r.name);
    const auto found = twins.find(r.name);
    ASSERT_NE(found, twins.end()) << "no alert with rule: " << r.name;
    const TwinAlert t = found->second;
    twins.erase(found);
    EXPECT_EQ(t.severity, to_string(r.severity));
    EXPECT_EQ(t.hold, r.hold_for) << "for:";
    EXPECT_EQ(t.keep, r.clear_after) << "keep_firing_for:";
    if (r.kind != RuleKind::kCounter) continue;
    const std::string metric =
        r.counter == "utilisation" ? "utilization_ratio" : r.counter + "_total";
    EXPECT_NE(t.expr.find(metric), std::string::npos) << t.expr;
    EXPECT_DOUBLE_EQ(threshold_of(t.expr), r.threshold) << t.expr;
    if (r.measure != Condition::kPercent) {
      // (fmt, not operator+: g++ 12 warns falsely on that, -Wrestrict.)
      const std::string window = fmt::format("[{}m]", r.window.count() / 60000);
      EXPECT_NE(t.expr.find(window), std::string::npos) << "window " << window << ": " << t.expr;
    }
  }
  // What is left names no default rule (each found one was taken out above).
  for (const auto& [name, alert] : twins)
    ADD_FAILURE() << "an alert for rule " << name << ", which the daemon does not have";
}

}  // namespace
}  // namespace ibpulse::exporters::alerts
