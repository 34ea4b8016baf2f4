// The threshold engine on hand-built snapshots: rules, windows, hysteresis, state rules and
// storm control, with the exact events each step must produce.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "alert_fabric.h"
#include "ibpulse/exporters/alerts/engine.h"
#include "ibpulse/exporters/alerts/event_queue.h"

namespace ibpulse::exporters::alerts {
namespace {

// A rule as a flag gives it (YAML flow text, JSON alike), saying where it was written.
struct RuleText {
  std::string text;
  std::string where;
};
ParsedRules parse_rules(const std::vector<RuleText>& texts, bool with_defaults) {
  std::vector<ConfigNode> rules;
  for (const auto& t : texts) {
    auto node = parse_config_text(t.text, t.where);
    IBPULSE_CHECK(node.ok(), "test rule {} parses", t.text);
    rules.push_back(std::move(*node));
  }
  return alerts::parse_rules(rules, with_defaults);
}

TEST(AlertRules, ParsesAConfiguredRuleAndTunesADefaultOne) {
  const auto parsed = parse_rules(
      {{R"({"name": "xmit_wait", "counter": "PortXmitWait", "condition": "rate > 5000",
            "window": "30s", "for": "1m", "clear-after": "2m", "renotify": "1h",
            "severity": "critical", "scope": {"node-type": "switch", "ports": "1-36,40",
            "name": "^leaf"}})",
        "ibpulse.yaml:7"},
       {R"({"name": "symbol_error_burst", "condition": "delta > 50"})", "ibpulse.yaml:15"},
       {R"({"name": "link_degraded", "enabled": "false"})", "ibpulse.yaml"}},
      true);
  EXPECT_TRUE(parsed.errors.empty()) << parsed.errors.front();
  const Rule r = rule_named(parsed.rules, "xmit_wait");
  EXPECT_EQ(r.counter, "xmit_wait_ticks");
  EXPECT_EQ(r.measure, Condition::kRatePerSecond);
  EXPECT_EQ(r.threshold, 5000);
  EXPECT_EQ(r.window, 30s);
  EXPECT_EQ(r.hold_for, 60s);
  EXPECT_EQ(r.clear_after, 120s);
  EXPECT_EQ(r.renotify, 3600s);
  EXPECT_EQ(r.severity, Severity::kCritical);
  EXPECT_EQ(r.origin, "ibpulse.yaml:7");
  ASSERT_TRUE(r.scope.node_kind.has_value());
  EXPECT_EQ(r.scope.ports.size(), 2u);
  const Rule tuned = rule_named(parsed.rules, "symbol_error_burst");
  EXPECT_EQ(tuned.threshold, 50);
  EXPECT_EQ(tuned.clear_after, 120s);                      // the default's, untouched
  EXPECT_EQ(parsed.rules.size(), default_rules().size());  // one added, one dropped
  for (const auto& rule : parsed.rules)
    EXPECT_NE(rule.name, "link_degraded");
}

TEST(AlertRules, ABadRuleIsReportedWithItsLineAndTheOthersStay) {
  const auto parsed = parse_rules(
      {{R"({"name": "a", "counter": "no_such_counter", "condition": "delta > 1"})", "f.yaml:3"},
       {R"({"name": "b", "counter": "symbol_error", "window": "soon", "condition": "increased"})",
        "f.yaml:8"},
       {R"({"name": "c", "counter": "symbol_error", "condition": "increased",
            "name-regex": "(["})",
        "f.yaml:12"},
       {R"({"name": "d", "counter": "rcv_errors", "condition": "increased"})", "f.yaml:20"},
       {R"({"name": "e", "counter": "utilisation", "condition": "delta > 3"})", "f.yaml:25"}},
      false);
  ASSERT_EQ(parsed.errors.size(), 4u);
  EXPECT_EQ(parsed.errors[0].rfind("f.yaml:3: rule 'a': unknown counter 'no_such_counter'", 0), 0u)
      << parsed.errors[0];
  EXPECT_EQ(parsed.errors[1].rfind("f.yaml:8: rule 'b': window: expected a duration", 0), 0u)
      << parsed.errors[1];
  EXPECT_EQ(parsed.errors[2].rfind("f.yaml:12: rule 'c': name: bad regular expression", 0), 0u)
      << parsed.errors[2];
  EXPECT_NE(parsed.errors[3].find("f.yaml:25: rule 'e'"), std::string::npos) << parsed.errors[3];
  ASSERT_EQ(parsed.rules.size(), 1u);
  EXPECT_EQ(parsed.rules[0].name, "d");
  EXPECT_EQ(parsed.rules[0].threshold, 0);
}

// std::regex copies what a bound repeats, nested bounds multiplied, and reads the bound into
// a long unchecked (fuzz_alert_rules found "{33333333333333333333}"): such a pattern is refused
// with what is wrong before std::regex sees it; ordinary ones compile.
TEST(AlertRules, ANamePatternThatExpandsPastTheLimitsIsRefused) {
  const auto rule = [](const std::string& pattern) {
    return RuleText{
        R"({"name": "r", "counter": "symbol_error", "condition": "increased", "scope": {"name": )" +
            nlohmann::json(pattern).dump() + "}}",
        "f"};
  };
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"x{33333333333333333333}", "the repetition '{33333333333333333333}' counts above 255"},
      {"a{256}", "the repetition '{256}' counts above 255"},
      {"a{1,999}", "the repetition '{1,999}' counts above 255"},
      {"a{3333333333333333333333,3:}", "the repetition '{3333333333333333333333,3' counts above"},
      {"(a{100}){101}", "more than 10000 atoms once its repetitions are expanded"},
      {"((a{25}){25}){25}", "more than 10000 atoms once its repetitions are expanded"},
      {"b)((a{25}){25}){25}", "more than 10000 atoms once its repetitions are expanded"},
      {std::string(1025, 'a'), "longer than 1024 characters"}};
  for (const auto& [pattern, why] : refused) {
    const auto parsed = parse_rules({rule(pattern)}, false);
    ASSERT_EQ(parsed.errors.size(), 1u) << pattern;
    EXPECT_NE(parsed.errors[0].find("name: bad regular expression"), std::string::npos)
        << parsed.errors[0];
    EXPECT_NE(parsed.errors[0].find(why), std::string::npos) << parsed.errors[0];
  }
  for (const std::string pattern :
       {"^leaf[0-9]{1,3}$", "[{]x{2,}", "(sw|leaf){2}z{255}", "[[:alpha:]]{3}", "a\\{"}) {
    const auto parsed = parse_rules({rule(pattern)}, false);
    EXPECT_TRUE(parsed.errors.empty()) << pattern << ": " << parsed.errors.front();
    EXPECT_EQ(parsed.rules.size(), 1u) << pattern;
  }
}

TEST(AlertRules, EnabledAndThresholdsMustSayWhatTheyMean) {
  const auto parsed =
      parse_rules({{R"({"name": "link_degraded", "enabled": "Off"})", "f"},
                   {R"({"name": "port_down", "enabled": "maybe"})", "f"},
                   {R"({"name": "a", "counter": "symbol_error", "condition": "delta > inf"})", "f"},
                   {R"({"name": "b", "counter": "utilisation", "condition": "value > 500%"})", "f"},
                   {R"({"name": null, "counter": "symbol_error", "condition": "increased"})", "f"}},
                  true);
  ASSERT_EQ(parsed.errors.size(), 4u);
  EXPECT_NE(parsed.errors[0].find("enabled: 'maybe'"), std::string::npos) << parsed.errors[0];
  EXPECT_NE(parsed.errors[1].find("'inf' is not a number"), std::string::npos) << parsed.errors[1];
  EXPECT_NE(parsed.errors[2].find("more than 100%"), std::string::npos) << parsed.errors[2];
  EXPECT_NE(parsed.errors[3].find("give the rule a name"), std::string::npos) << parsed.errors[3];
  for (const auto& r : parsed.rules)
    EXPECT_NE(r.name, "link_degraded");
  EXPECT_EQ(parsed.rules.size(), default_rules().size() - 1);  // port_down stays as it was
}

// Found by fuzz_alert_rules: a value of another type (a list, once a JSON number) where text
// was expected threw from inside the error message and took the daemon down (at start, or at a
// SIGHUP reload).
TEST(AlertRules, AValueOfTheWrongTypeIsAnErrorNotACrash) {
  const auto parsed = parse_rules(
      {{R"({"name": "a", "counter": "symbol_error", "condition": "delta > 0", "severity": 7})",
        "f"},
       {R"({"name": "b", "counter": "symbol_error", "condition": "delta > 0", "severity": [1]})",
        "f"}},
      false);
  ASSERT_EQ(parsed.errors.size(), 2u);
  EXPECT_NE(parsed.errors[0].find("severity: '7'"), std::string::npos) << parsed.errors[0];
  EXPECT_NE(parsed.errors[1].find("severity: '(a list)'"), std::string::npos) << parsed.errors[1];
  EXPECT_TRUE(parsed.rules.empty());
}

TEST(AlertRules, TheDefaultSetCoversTheDayOneFaults) {
  std::set<std::string> names;
  for (const auto& r : default_rules())
    names.insert(r.name);
  for (const char* want :
       {"symbol_error_burst", "link_downed", "rcv_remote_physical_errors", "xmit_wait_congestion",
        "high_utilisation", "fec_uncorrectable_blocks", "port_down", "link_degraded"}) {
    EXPECT_TRUE(names.count(want)) << want;
  }
}

TEST(ThresholdEngine, ASymbolErrorBurstRaisesOnceAndClearsAfterTheHysteresis) {
  FabricClock f;
  ThresholdEngine e(only("symbol_error_burst"), {});
  EXPECT_TRUE(step(e, f, 0).empty());
  EXPECT_TRUE(step(e, f, 1).empty());
  f.symbol_errors[{kHca, 1}] = 500;  // the burst
  auto d = step(e, f, 2);
  ASSERT_EQ(d.size(), 1u);
  const AlertEvent& raised = d[0].event;
  EXPECT_TRUE(d[0].notify);
  EXPECT_EQ(raised.kind, EventKind::kRaised);
  EXPECT_EQ(raised.port, (collector::PortKey{kHca, 1}));
  EXPECT_EQ(raised.node_name, "node07");
  EXPECT_EQ(raised.if_index, 5u);
  EXPECT_EQ(raised.counter, "symbol_error");
  EXPECT_EQ(raised.value, 500);
  EXPECT_EQ(raised.threshold, 10);
  EXPECT_EQ(raised.window_seconds, 60u);
  EXPECT_EQ(raised.severity, Severity::kWarning);
  EXPECT_EQ(e.active().size(), 1u);
  // Still above the threshold within the window: no second notification.
  for (double t = 3; t <= 60; t += 1)
    EXPECT_TRUE(step(e, f, t).empty()) << t;
  // The burst leaves the window after a minute (plus a slot), then 2 minutes of hysteresis.
  double cleared_at = 0;
  for (double t = 61; t <= 300 && cleared_at == 0; t += 1) {
    for (const auto& x : step(e, f, t)) {
      EXPECT_EQ(x.event.kind, EventKind::kCleared);
      EXPECT_EQ(x.event.value, 0);  // the last value seen
      cleared_at = t;
    }
  }
  EXPECT_GE(cleared_at, 180);
  EXPECT_LE(cleared_at, 192);
  EXPECT_TRUE(e.active().empty());
  EXPECT_EQ(e.stats().raised, 1u);
  EXPECT_EQ(e.stats().cleared, 1u);
}

// Ports in several of the engine's blocks (it skips blocks of ports whose counter did not move
// over the window): 6 switches of 250 ports, every one linked.
std::shared_ptr<collector::Topology> many_ports() {
  auto t = std::make_shared<collector::Topology>();
  for (uint64_t n = 1; n <= 6; ++n) {
    const uint64_t guid = kSwitch + 0x100 * n;
    t->nodes.push_back({guid,
                        collector::NodeKind::kSwitch,
                        "spine",
                        "spine",
                        250,
                        0,
                        static_cast<uint16_t>(n),
                        {},
                        {},
                        {}});
    for (unsigned port = 1; port <= 250; ++port)
      t->ports.push_back(FabricClock::port_of(guid, static_cast<uint8_t>(port), true));
  }
  return t;
}

TEST(ThresholdEngine, AnIncreaseAfterLongQuietRaisesWhereverThePortIs) {
  FabricClock f;
  f.topology = many_ports();
  ThresholdEngine e(only("symbol_error_burst"), {});
  // Well over a window of snapshots where nothing moved: every block is unchanged.
  for (double t = 0; t <= 80; t += 1)
    ASSERT_TRUE(step(e, f, t).empty()) << t;
  // The first and the last port of a block, one in the middle of another, the fabric's last.
  const std::vector<size_t> rows = {0, 511, 512, 900, 1499};
  for (size_t row : rows)
    f.symbol_errors[f.topology->ports[row].key] = 11 + row;
  std::set<collector::PortKey> raised;
  for (const auto& d : step(e, f, 81)) {
    EXPECT_EQ(d.event.kind, EventKind::kRaised);
    EXPECT_EQ(d.event.value, static_cast<double>(f.symbol_errors[d.event.port]));
    raised.insert(d.event.port);
  }
  std::set<collector::PortKey> expected;
  for (size_t row : rows)
    expected.insert(f.topology->ports[row].key);
  EXPECT_EQ(raised, expected);
  EXPECT_EQ(e.active().size(), rows.size());
  // Quiet again: each clears once the increase left the window and the hysteresis passed, in
  // blocks where nothing else moved.
  size_t cleared = 0;
  for (double t = 82; t <= 300; t += 1) {
    for (const auto& d : step(e, f, t)) {
      EXPECT_EQ(d.event.kind, EventKind::kCleared);
      EXPECT_EQ(d.event.value, 0);  // the port was still judged: its last increase was 0
      ++cleared;
    }
  }
  EXPECT_EQ(cleared, rows.size());
  EXPECT_TRUE(e.active().empty());
}

TEST(ThresholdEngine, ABurstSoonAfterTheFirstReadingCounts) {
  FabricClock f;
  ThresholdEngine e(only("symbol_error_burst"), {});
  f.read = false;
  EXPECT_TRUE(step(e, f, 0).empty());  // the first kept slot has no value for any port
  f.read = true;
  EXPECT_TRUE(step(e, f, 1).empty());
  f.symbol_errors[{kSwitch, 4}] = 40;  // before the next kept slot (10 s)
  const auto d = step(e, f, 2);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].event.value, 40);
}

TEST(ThresholdEngine, AWindowShorterThanTheSnapshotIntervalStillSeesIncreases) {
  FabricClock f;
  const auto rules = configured(R"({"name": "quick", "counter": "symbol_error",
      "condition": "delta > 0", "window": "100ms"})");
  ThresholdEngine e(rules, {});
  step(e, f, 0);
  step(e, f, 1);
  f.symbol_errors[{kHca, 1}] = 3;
  const auto d = step(e, f, 2);  // snapshots 1 s apart: the increase since the previous one
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].event.value, 3);
}

TEST(ThresholdEngine, TheClearOfAPortThatLeftCarriesTheObjectsOfItsRaise) {
  FabricClock f;
  const auto rules = configured(R"({"name": "any", "counter": "symbol_error",
      "condition": "increased", "clear-after": "5s"})");
  ThresholdEngine e(rules, {});
  step(e, f, 0);
  f.symbol_errors[{kHca, 1}] = 9;
  ASSERT_EQ(step(e, f, 1).size(), 1u);
  // The HCA leaves the fabric: its port is no longer in the snapshots.
  auto t = std::make_shared<collector::Topology>(*f.topology);
  std::erase_if(t->ports, [](const auto& p) { return p.key.node_guid == kHca; });
  std::erase_if(t->nodes, [](const auto& n) { return n.guid == kHca; });
  f.topology = t;
  std::vector<AlertEvent> cleared;
  for (double s = 2; s <= 10; ++s) {
    for (const auto& d : step(e, f, s))
      cleared.push_back(d.event);
  }
  ASSERT_EQ(cleared.size(), 1u);
  EXPECT_EQ(cleared[0].kind, EventKind::kCleared);
  EXPECT_EQ(cleared[0].if_index, 5u);
  EXPECT_EQ(cleared[0].node_name, "node07");
}

TEST(ThresholdEngine, ALinkUpWithheldAfterTheHoldDownIsSentLater) {
  FabricClock f;
  ThresholdEngine e({}, {.rate_limit = 1, .rate_interval = 10s, .link_hold_down = 5s});
  step(e, f, 0);
  f.link(kSwitch, 1).link.state = 1;
  f.link(kHca, 1).link.state = 1;
  // Both ports go down: one linkDown fits the limit, the other waits for its hold-down.
  std::vector<Decision> all;
  for (double t = 1; t <= 8; ++t) {
    for (auto& d : step(e, f, t))
      all.push_back(d);
  }
  f.link(kSwitch, 1).link.state = 4;  // up again after the hold-downs ended
  f.link(kHca, 1).link.state = 4;
  for (double t = 9; t <= 40; ++t) {
    for (auto& d : step(e, f, t))
      all.push_back(d);
  }
  std::map<std::pair<collector::PortKey, EventKind>, int> sent;
  for (const auto& d : all) {
    if (d.notify && d.event.kind != EventKind::kRateLimited) ++sent[{d.event.port, d.event.kind}];
  }
  // Every port ends with a sent linkUp after its sent linkDown: managers never keep a stale down.
  for (collector::PortKey port : {collector::PortKey{kSwitch, 1}, collector::PortKey{kHca, 1}}) {
    EXPECT_EQ((sent[{port, EventKind::kLinkDown}]), (sent[{port, EventKind::kLinkUp}]))
        << port.node_guid;
  }
  EXPECT_GE((sent[{collector::PortKey{kSwitch, 1}, EventKind::kLinkDown}]) +
                (sent[{collector::PortKey{kHca, 1}, EventKind::kLinkDown}]),
            1);
}

TEST(ThresholdEngine, ErrorsBelowTheThresholdOrOutsideTheScopeRaiseNothing) {
  FabricClock f;
  const auto rules = configured(R"({"name": "switch_symbols", "counter": "symbol_error",
      "condition": "delta >= 5", "node-type": "switch", "ports": "2-4"})");
  ThresholdEngine e(rules, {});
  step(e, f, 0);
  f.symbol_errors[{kHca, 1}] = 100;     // not a switch
  f.symbol_errors[{kSwitch, 1}] = 100;  // a switch port outside 2-4
  f.symbol_errors[{kSwitch, 3}] = 4;    // below
  EXPECT_TRUE(step(e, f, 1).empty());
  f.symbol_errors[{kSwitch, 3}] = 5;
  const auto d = step(e, f, 2);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].event.port, (collector::PortKey{kSwitch, 3}));
}

TEST(ThresholdEngine, AGaugeRuleWaitsForItsHoldTimeAndRenotifies) {
  FabricClock f;
  const auto rules = configured(R"({"name": "busy", "counter": "utilisation",
      "condition": "value > 90%", "for": "10s", "clear-after": "5s", "renotify": "30s"})");
  ThresholdEngine e(rules, {});
  f.utilisation[{kSwitch, 1}] = 0.95f;
  std::vector<double> raised_at;
  std::vector<double> renotified_at;
  for (double t = 0; t <= 45; t += 1) {
    for (const auto& d : step(e, f, t)) {
      ASSERT_EQ(d.event.kind, EventKind::kRaised);
      EXPECT_NEAR(d.event.value, 95, 1e-3);
      EXPECT_NEAR(d.event.threshold, 90, 1e-9);
      EXPECT_EQ(d.event.condition, Condition::kPercent);
      (d.event.renotify ? renotified_at : raised_at).push_back(t);
    }
  }
  EXPECT_EQ(raised_at, std::vector<double>{10});
  EXPECT_EQ(renotified_at, std::vector<double>{40});
}

TEST(ThresholdEngine, RateRulesDivideByTheTimeTheIncreaseTook) {
  FabricClock f;
  const auto rules = configured(R"({"name": "fast", "counter": "symbol_error",
      "condition": "rate > 100", "window": "10s"})");
  ThresholdEngine e(rules, {});
  step(e, f, 0);
  f.symbol_errors[{kSwitch, 1}] = 150;  // 150 in 2 s: 75/s
  EXPECT_TRUE(step(e, f, 2).empty());
  f.symbol_errors[{kSwitch, 1}] = 450;  // 450 in 4 s: 112.5/s
  const auto d = step(e, f, 4);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_DOUBLE_EQ(d[0].event.value, 112.5);
}

TEST(ThresholdEngine, PortDownAndLinkChangesFollowThePortState) {
  FabricClock f;
  ThresholdEngine e(only("port_down"), {});
  EXPECT_TRUE(step(e, f, 0).empty());  // switch ports 2-4 were down from the start, no peer
  f.link(kSwitch, 1).link.state = 1;   // Unlink
  auto d = step(e, f, 1);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].event.kind, EventKind::kLinkDown);
  EXPECT_EQ(d[0].event.if_index, 1u);
  EXPECT_EQ(d[0].event.oper_status, 2);
  EXPECT_EQ(d[0].event.admin_status, 1);
  EXPECT_EQ(d[1].event.kind, EventKind::kSma);  // a switch port: SMA trap 128 too
  EXPECT_EQ(d[1].event.sma_trap, 128);
  EXPECT_EQ(d[2].event.kind, EventKind::kRaised);
  EXPECT_EQ(d[2].event.rule, "port_down");
  EXPECT_EQ(d[2].event.condition, Condition::kState);
  EXPECT_EQ(d[2].event.value, 1);
  f.link(kSwitch, 1).link.state = 4;  // relinked
  d = step(e, f, 2);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].event.kind, EventKind::kLinkUp);
  EXPECT_EQ(d[1].event.sma_trap, 128);
  for (double t = 3; t < 62; ++t)
    EXPECT_TRUE(step(e, f, t).empty()) << t;
  d = step(e, f, 62);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].event.kind, EventKind::kCleared);
}

TEST(ThresholdEngine, ALinkTrainedBelowItsCapabilityRaises) {
  FabricClock f;
  ThresholdEngine e(only("link_degraded"), {});
  EXPECT_TRUE(step(e, f, 0).empty());
  f.link(kHca, 1).link.width_active = 1;  // 4X running at 1X
  const auto d = step(e, f, 1);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].event.port, (collector::PortKey{kHca, 1}));
  EXPECT_EQ(d[0].event.counter, "link-degraded");
}

TEST(ThresholdEngine, AFlappingPortSendsABoundedNumberOfNotifications) {
  FabricClock f;
  ThresholdEngine e(only("port_down"),
                    {.rate_limit = 50, .rate_interval = 10s, .link_hold_down = 60s});
  step(e, f, 0);
  size_t sent = 0;
  size_t withheld = 0;
  std::vector<EventKind> sent_links;
  for (int t = 1; t <= 59; ++t) {  // down, up, down, up ... every second
    f.link(kSwitch, 1).link.state = t % 2 ? 1 : 4;
    for (const auto& d : step(e, f, t)) {
      (d.notify ? sent : withheld)++;
      if (d.notify && d.event.kind != EventKind::kRaised) sent_links.push_back(d.event.kind);
    }
  }
  // One linkDown, one linkUp, each with its SMA trap 128, one port_down raise; the 57 other
  // changes withheld (and their 128s never made).
  EXPECT_EQ(sent, 5u);
  EXPECT_EQ(withheld, 57u);
  EXPECT_EQ(sent_links, (std::vector<EventKind>{EventKind::kLinkDown, EventKind::kSma,
                                                EventKind::kLinkUp, EventKind::kSma}));
  // At the end of the hold-down the final state (down, at t=59) is sent.
  const auto d = step(e, f, 61);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].event.kind, EventKind::kLinkDown);
  EXPECT_TRUE(d[0].notify);
  EXPECT_EQ(e.stats().suppressed, 57u);
}

TEST(ThresholdEngine, AFabricWideEventIsRateLimitedWithOneSummary) {
  FabricClock f;
  const auto rules =
      configured(R"({"name": "any", "counter": "symbol_error", "condition": "increased"})");
  ThresholdEngine e(rules, {.rate_limit = 2, .rate_interval = 10s, .link_hold_down = 60s});
  step(e, f, 0);
  for (const auto& port : f.topology->ports)
    f.symbol_errors[port.key] = 7;  // all 5 ports
  size_t sent = 0;
  size_t withheld = 0;
  for (const auto& d : step(e, f, 1))
    (d.notify ? sent : withheld)++;
  EXPECT_EQ(sent, 2u);
  EXPECT_EQ(withheld, 3u);
  EXPECT_EQ(e.active().size(), 5u);  // Prometheus and the log still see every one
  std::vector<AlertEvent> summaries;
  std::vector<AlertEvent> retries;
  for (double t = 2; t <= 11; ++t) {
    for (const auto& d : step(e, f, t)) {
      if (d.event.kind == EventKind::kRateLimited) summaries.push_back(d.event);
      if (d.event.kind == EventKind::kRaised && d.notify) retries.push_back(d.event);
    }
  }
  ASSERT_EQ(summaries.size(), 1u);
  EXPECT_EQ(summaries[0].suppressed, 3u);
  EXPECT_EQ(summaries[0].window_seconds, 10u);
  // The withheld raises are tried again in the next interval, within its limit; a retry withheld
  // again is not counted twice.
  EXPECT_EQ(retries.size(), 2u);
  EXPECT_EQ(e.stats().suppressed, 3u);
}

TEST(ThresholdEngine, NewRulesKeepWhatTheirNameRaisedAndClearWhatIsGone) {
  FabricClock f;
  auto first = parse_rules({{R"({"name": "a", "counter": "symbol_error",
      "condition": "increased", "clear-after": "1h"})",
                             "x"},
                            {R"({"name": "gone", "counter": "symbol_error",
      "condition": "increased", "clear-after": "1h"})",
                             "x"}},
                           false);
  ThresholdEngine e(first.rules, {});
  step(e, f, 0);
  f.symbol_errors[{kHca, 1}] = 5;
  ASSERT_EQ(step(e, f, 1).size(), 2u);  // both raised
  auto second = parse_rules({{R"({"name": "a", "counter": "symbol_error",
      "condition": "delta > 3", "clear-after": "1h"})",
                              "x"},
                             {R"({"name": "new", "counter": "symbol_error",
      "condition": "delta > 100"})",
                              "x"}},
                            false);
  e.replace_rules(second.rules);
  const auto d = step(e, f, 2);
  // 'gone' clears with the objects of its raise; 'a' stays raised without a second raise.
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].event.kind, EventKind::kCleared);
  EXPECT_EQ(d[0].event.rule, "gone");
  EXPECT_EQ(d[0].event.if_index, 5u);
  EXPECT_TRUE(d[0].notify);
  const auto active = e.active();
  ASSERT_EQ(active.size(), 1u);
  EXPECT_EQ(active[0].rule, "a");
  EXPECT_EQ(active[0].threshold, 3);
  EXPECT_EQ(e.rules().size(), 2u);
}

TEST(EventQueue, DropsTheOldestWhenFull) {
  EventQueue q(2);
  for (uint32_t i = 1; i <= 3; ++i) {
    AlertEvent e;
    e.if_index = i;
    q.push(e);
  }
  const auto events = q.take_all();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].if_index, 2u);
  EXPECT_EQ(events[1].if_index, 3u);
  EXPECT_EQ(q.dropped(), 1u);
  EXPECT_TRUE(q.take_all().empty());
}

}  // namespace
}  // namespace ibpulse::exporters::alerts
