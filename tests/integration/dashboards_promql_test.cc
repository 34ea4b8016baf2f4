// Every PromQL expression of dashboards/ (each Grafana panel target and query variable, each
// Prometheus alerting and recording rule) sent to a real Prometheus server that scrapes the
// daemon on the simulated fabric and evaluates the project's rule files: traffic, injected
// errors on Hca1[1] and a link taken down (Hca2[1], so Switch2[1] is a port down with a peer),
// and while the expressions run, a congestion hot spot (every HCA sends toward Hca3: Switch1[2]
// its root). Each expression must parse and evaluate; those that should show something on this
// fabric must return series, and the series must carry the labels the panel's legend names (or
// the node_guid/port an alert is about, or the node_guid/port a table merges its queries on).
// The expressions that may stay empty here are listed below with the reason; the panels that
// should name the faulted link or the planted root are too.
//
// The same expressions also go to a real VictoriaMetrics fed only by the daemon's remote write,
// with vmalert evaluating the recording rules into it.
//
// The server is the harness's PrometheusServer (prometheus_server.h), as in
// prometheus_server_test.cc; the expressions go to its HTTP API with python3's urllib, all of a
// batch in one python3 process.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>
#include <thread>

#include "daemon_client.h"
#include "prometheus_server.h"
#include "sim_fabric.h"
#include "tied_child.h"
#include "victoria_metrics.h"

namespace ibpulse::testing {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

const fs::path kDashboards = fs::path(IBPULSE_SOURCE_DIR) / "dashboards";

SimFabric& fabric() {
  return SimFabricEnvironment::fabric();
}

std::string guid_of(const std::string& node) {
  return guid_text(fabric().port(node, 1).node_guid);
}

// Runs /api/v1/query for every expression in one python3 process: each answer's JSON (or
// {"status": "error", "error": ...} when the request itself failed).
std::vector<nlohmann::json> query_all(const std::string& base_url,
                                      const std::vector<std::string>& exprs) {
  const fs::path in = fs::temp_directory_path() /
                      ("ibpulse-dashboards-queries-" + std::to_string(::getpid()) + ".json");
  std::ofstream(in) << nlohmann::json(exprs).dump();
  const std::string script =
      "import json, sys, urllib.request, urllib.parse, urllib.error\n"
      "out = []\n"
      "for q in json.load(open(sys.argv[2])):\n"
      " url = sys.argv[1] + '?' + urllib.parse.urlencode({'query': q})\n"
      " try:\n  out.append(json.loads(urllib.request.urlopen(url, timeout=10).read()))\n"
      " except urllib.error.HTTPError as e:\n"
      "  out.append(json.loads(e.read() or b'{}') or {'status': 'error', 'error': str(e)})\n"
      " except Exception as e:\n  out.append({'status': 'error', 'error': str(e)})\n"
      "print(json.dumps(out))\n";
  const auto run = sim::run_command(
      {"python3", "-c", script, base_url + "/api/v1/query", in.string()}, {}, 120s);
  fs::remove(in);
  std::vector<nlohmann::json> answers(exprs.size(), {{"status", "error"}, {"error", "no answer"}});
  if (!run) return answers;
  const auto all = nlohmann::json::parse(run->out, nullptr, false);
  if (!all.is_array() || all.size() != exprs.size()) return answers;
  for (size_t i = 0; i < exprs.size(); ++i)
    answers[i] = all[i];
  return answers;
}

// One expression to check, where it comes from and what it must return.
struct Check {
  std::string where;
  std::string expr;
  bool must_return_data = true;
  std::set<std::string> labels;                       // every series carries them
  std::map<std::string, std::string> one_series_has;  // some series has these label values
};

// Expressions that legitimately return nothing on this fabric: a substring of the expression
// and why.
const std::vector<std::pair<std::string, std::string>> kMayBeEmpty = {
    {"fec_", "ibsim does not answer PortExtendedSpeedsCounters"},
    {"error_detection_total", "ibsim does not answer PortExtendedSpeedsCounters"},
    {"sync_header_error_total", "ibsim does not answer PortExtendedSpeedsCounters"},
    {"unknown_block_total", "ibsim does not answer PortExtendedSpeedsCounters"},
    {"_vl_bytes_total", "PortSamples needs sampling.ports and a PMA that answers it"},
    {"_vl_packets_total", "PortSamples needs sampling.ports and a PMA that answers it"},
    {"vl_sample_coverage_ratio", "PortSamples needs sampling.ports and a PMA that answers it"},
    {"infiniband_port_saturated", "no counter is latched"},
    {"infiniband_port_link_degraded{node_guid=~\"$node\",port=~\"$port\"} == 1",
     "every link of the simulator trains at full capability"},
    {"infiniband_port_effective_ber",
     "no RS-FEC layout: ibsim does not answer PortExtendedSpeedsCounters"},
    {"infiniband_port_raw_ber",
     "no RS-FEC layout: ibsim does not answer PortExtendedSpeedsCounters"},
};

// Panel targets that must name a given port (`where` as dashboard_checks() writes it): the
// failing link of Hca1[1] (its lower end: Hca1's GUID is below Switch1's), the hot spot's root
// Switch1[2] (the port feeding Hca3) and victims on the way to it, Switch2[3] (Switch2's
// uplink to Switch1, which Hca4's traffic takes) and Hca1[1] (a sender).
struct PanelSeries {
  std::string node;
  unsigned port;
  std::map<std::string, std::string> more;  // other labels the series has
};
const std::map<std::string, PanelSeries> kPanelSeries = {
    {"ibpulse-fabric-overview panel 28 'Worst links (failing first, then degraded)' A",
     {"Hca1", 1, {{"state", "failing"}, {"remote_description", "Switch1"}}}},
    {"ibpulse-fabric-overview panel 28 'Worst links (failing first, then degraded)' B",
     {"Hca1", 1, {}}},
    {"ibpulse-fabric-overview panel 28 'Worst links (failing first, then degraded)' E",
     {"Hca1", 1, {}}},
    {"ibpulse-fabric-overview panel 28 'Worst links (failing first, then degraded)' F",
     {"Hca1", 1, {{"reason", "ber_above_spec"}}}},
    {"ibpulse-fabric-overview panel 29 'Symbol BER heat map (ports per decade of BER)' A",
     {"Hca1", 1, {}}},
    // The simulator's subnet manager puts every port in the default partition, as a full member.
    {"ibpulse-fabric-overview panel 39 'Partition violations (range), with the port's partitions' "
     "A",
     {"Hca1", 1, {{"pkey", "0x7fff"}, {"membership", "full"}, {"node_description", "Hca1"}}}},
    {"ibpulse-fabric-overview panel 36 'Congestion roots (by victims)' A",
     {"Switch1", 2, {{"node_description", "Switch1"}, {"remote_description", "Hca3"}}}},
    {"ibpulse-fabric-overview panel 36 'Congestion roots (by victims)' B", {"Switch1", 2, {}}},
    {"ibpulse-fabric-overview panel 36 'Congestion roots (by victims)' C", {"Switch1", 2, {}}},
    {"ibpulse-fabric-overview panel 37 'Congestion victims (by wait ratio)' A",
     {"Switch2", 3, {{"node_description", "Switch2"}}}},
    {"ibpulse-fabric-overview panel 37 'Congestion victims (by wait ratio)' B", {"Switch2", 3, {}}},
    {"ibpulse-fabric-overview panel 38 'Wait ratio of the 10 most waiting ports' A",
     {"Switch2", 3, {}}},
    // The port dashboard shows Hca1[1], a sender toward the hot spot.
    {"ibpulse-port panel 30 'Wait ratio, and the congestion role' B",
     {"Hca1", 1, {{"role", "victim"}}}},
};

bool may_be_empty(const std::string& raw_expr) {
  return std::ranges::any_of(kMayBeEmpty, [&](const auto& entry) {
    return raw_expr.find(entry.first) != std::string::npos;  // entry: {needle, why}
  });
}

// Grafana's substitution, with the values this fabric offers: a multi-value variable gets
// "All" (.*), `node` a real node of the dashboard's kind, `port` 1.
std::string substitute(const std::string& expr, const std::map<std::string, std::string>& vars) {
  static const std::map<std::string, std::string> builtins = {{"__rate_interval", "1m"},
                                                              {"__interval", "15s"},
                                                              {"__range", "5m"},
                                                              {"__range_s", "300"},
                                                              {"__interval_ms", "15000"}};
  static const std::regex var(R"(\$\{(\w+)(?::[^}]*)?\}|\[\[(\w+)\]\]|\$(\w+))");
  std::string out;
  auto it = std::sregex_iterator(expr.begin(), expr.end(), var);
  size_t last = 0;
  for (; it != std::sregex_iterator(); ++it) {
    const auto& m = *it;
    const std::string name = m[1].matched ? m[1].str() : m[2].matched ? m[2].str() : m[3].str();
    out.append(expr, last, static_cast<size_t>(m.position()) - last);
    if (auto b = builtins.find(name); b != builtins.end()) {
      out += b->second;
    } else if (auto v = vars.find(name); v != vars.end()) {
      out += v->second;
    } else {
      ADD_FAILURE() << "unknown variable $" << name << " in " << expr;
    }
    last = static_cast<size_t>(m.position() + m.length());
  }
  out.append(expr, last);
  return out;
}

std::set<std::string> legend_labels(const std::string& legend) {
  static const std::regex label(R"(\{\{\s*(\w+)\s*\}\})");
  std::set<std::string> out;
  for (auto it = std::sregex_iterator(legend.begin(), legend.end(), label);
       it != std::sregex_iterator(); ++it)
    out.insert((*it)[1].str());
  // Ports without a link have no peer: the legend shows nothing there.
  for (const char* optional : {"remote_description", "remote_port", "remote_node_guid"})
    out.erase(optional);
  return out;
}

std::vector<Check> dashboard_checks() {
  std::vector<Check> checks;
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(kDashboards / "grafana")) {
    if (entry.path().extension() != ".json") continue;
    ++files;
    const auto d = nlohmann::json::parse(read_text_file(entry.path()));
    const std::string uid = d.at("uid");
    std::map<std::string, std::string> vars;
    for (const auto& v : d.at("templating").at("list")) {
      const std::string name = v.at("name");
      if (v.value("multi", false)) {
        vars[name] = ".*";
      } else if (name == "node") {
        vars[name] = guid_of(uid == "ibpulse-switch" ? "Switch1" : "Hca1");
      } else {
        vars[name] = "1";
      }
    }
    for (const auto& v : d.at("templating").at("list")) {
      if (v.at("type") != "query") continue;
      std::string q = v.at("query").is_object() ? v.at("query").value("query", "")
                                                : v.at("query").get<std::string>();
      static const std::regex wrapped(
          R"(^(?:query_result\(([\s\S]*)\)|label_values\(([\s\S]*),\s*\w+\s*\))$)");
      std::smatch m;
      if (!std::regex_match(q, m, wrapped)) continue;
      checks.push_back({uid + " variable " + v.at("name").get<std::string>(),
                        substitute(m[1].matched ? m[1].str() : m[2].str(), vars),
                        true,
                        {"node_guid"},
                        {}});
    }
    for (const auto& p : d.at("panels")) {
      if (!p.contains("targets")) continue;
      // A table that merges its queries joins their rows on the port (or link) they name.
      const bool merges = std::ranges::any_of(p.value("transformations", nlohmann::json::array()),
                                              [](const auto& x) { return x.at("id") == "merge"; });
      for (const auto& t : p.at("targets")) {
        const std::string raw = t.at("expr");
        Check c;
        c.where = uid + " panel " + std::to_string(p.at("id").get<int>()) + " '" +
                  p.at("title").get<std::string>() + "' " + t.at("refId").get<std::string>();
        c.expr = substitute(raw, vars);
        c.must_return_data = !may_be_empty(raw);
        c.labels = legend_labels(t.value("legendFormat", ""));
        if (raw.find("group_left(node_description") != std::string::npos)
          c.labels.insert({"node_guid", "port", "node_description"});
        if (merges) c.labels.insert({"node_guid", "port"});
        if (auto s = kPanelSeries.find(c.where); s != kPanelSeries.end()) {
          c.one_series_has = s->second.more;
          c.one_series_has["node_guid"] = guid_of(s->second.node);
          c.one_series_has["port"] = std::to_string(s->second.port);
        }
        if (c.where.starts_with("ibpulse-fabric-overview panel 28 ")) {
          // The worst links table selects a link by either end: Switch1[1] selects the link
          // that Hca1[1], its lower end, names.
          auto by_peer = vars;
          by_peer["node"] = guid_of("Switch1");
          by_peer["port"] = "1";
          Check peer = c;
          peer.where += ", $node Switch1 and $port 1";
          peer.expr = substitute(raw, by_peer);
          checks.push_back(std::move(peer));
        }
        checks.push_back(std::move(c));
      }
    }
  }
  EXPECT_EQ(files, 3u) << "the dashboards of dashboards/grafana";
  for (const auto& panel : kPanelSeries) {  // (clang 14 cannot capture a structured binding)
    const std::string& where = panel.first;
    EXPECT_TRUE(std::ranges::any_of(checks, [&](const Check& c) { return c.where == where; }))
        << "no panel target " << where << " (kPanelSeries names a renamed or removed one)";
  }
  return checks;
}

// Alerts whose condition the injected faults make true, and the port each is about.
const std::map<std::string, std::pair<std::string, unsigned>> kAlertsWithData = {
    {"InfiniBandSymbolErrorBurst", {"Hca1", 1}},
    {"InfiniBandLinkErrorRecovery", {"Hca1", 1}},
    {"InfiniBandLinkDowned", {"Hca1", 1}},
    {"InfiniBandReceiveErrors", {"Hca1", 1}},
    {"InfiniBandRemotePhysicalErrors", {"Hca1", 1}},
    {"InfiniBandLocalLinkIntegrityErrors", {"Hca1", 1}},
    {"InfiniBandExcessiveBufferOverruns", {"Hca1", 1}},
    {"InfiniBandTransmitDiscards", {"Hca1", 1}},
    {"InfiniBandXmitWaitCongestion", {"Hca1", 1}},
    {"InfiniBandPortDown", {"Switch2", 1}},
    // 50 symbol errors in seconds of an 8 Gb/s link: far above 1e-12 (docs/health.md).
    {"InfiniBandBerAboveSpec", {"Hca1", 1}},
    {"InfiniBandLinkHealthFailing", {"Hca1", 1}},
};

std::vector<Check> rule_checks() {
  std::vector<Check> checks;
  for (const char* file : {"ibpulse-alerts.rules.yml", "ibpulse-recording.rules.yml"}) {
    const YAML::Node doc = YAML::LoadFile((kDashboards / "prometheus" / file).string());
    for (const auto& group : doc["groups"]) {
      for (const auto& rule : group["rules"]) {
        Check c;
        c.expr = rule["expr"].as<std::string>();
        if (rule["alert"]) {
          const std::string alert = rule["alert"].as<std::string>();
          c.where = std::string(file) + " alert " + alert;
          const auto data = kAlertsWithData.find(alert);
          c.must_return_data = data != kAlertsWithData.end();
          c.labels = {"node_guid", "port", "node_description"};
          if (c.must_return_data) {
            const auto& [node, port] = data->second;
            c.one_series_has = {{"node_guid", guid_of(node)},
                                {"port", std::to_string(port)},
                                {"node_description", node}};
          }
        } else {
          c.where = std::string(file) + " record " + rule["record"].as<std::string>();
          c.must_return_data = !may_be_empty(c.expr);
          c.labels = {"node_guid", "port"};
        }
        checks.push_back(std::move(c));
      }
    }
  }
  return checks;
}

// Errors on Hca1[1], above every default threshold.
const std::vector<std::string> kFaults = {"PortCounters.SymbolErrorCounter=50",
                                          "PortCounters.LinkErrorRecoveryCounter=2",
                                          "PortCounters.LinkDownedCounter=1",
                                          "PortCounters.PortRcvErrors=40",
                                          "PortCounters.PortRcvRemotePhysicalErrors=3",
                                          "PortCounters.LocalLinkIntegrityErrors=1",
                                          "PortCounters.ExcessiveBufferOverrunErrors=1",
                                          "PortCounters.PortXmitDiscards=500",
                                          "PortCounters.PortRcvConstraintErrors=7",
                                          "PortCounters.PortXmitConstraintErrors=3",
                                          "PortCounters.PortXmitWait=200000000"};

// The faults on Hca1[1], or (`on` false) their counters back at 0: every test starts from 0
// so that its own faults are increases, whatever ran before it in this fabric.
void set_faults(bool on) {
  for (const std::string& assignment : kFaults) {
    const std::string line = on ? assignment : assignment.substr(0, assignment.find('=')) + "=0";
    fabric().set("PerformanceSet \"Hca1\"[1] " + line);
  }
}

// Root from 0.6 of line rate (0.9 by default): the hot spot's generator moves the counters in
// ticks of 100 ms or more, so the root's utilisation over a 500 ms reading comes out between
// 0.8 and 1.2, and at 0.9 it would be no root in a fifth of the snapshots.
const std::vector<std::string> kDaemonArgs = {"--web.listen-address",
                                              "127.0.0.1:0",
                                              "--state.save-interval",
                                              "off",
                                              "--poll.counters-interval",
                                              "500ms",
                                              "--counters.publish-interval",
                                              "500ms",
                                              "--poll.details-interval",
                                              "1s",
                                              "--poll.port-info-interval",
                                              "1s",
                                              "--collect.vl",
                                              "true",
                                              "--collect.lanes",
                                              "true",
                                              "--congestion.root-utilization",
                                              "0.6"};

// Every check against the answers a query API gave.
void expect_answers(const std::vector<Check>& checks, const std::vector<nlohmann::json>& answers) {
  size_t with_data = 0;
  for (size_t i = 0; i < checks.size(); ++i) {
    const Check& c = checks[i];
    const auto& a = answers[i];
    SCOPED_TRACE(c.where + "\n  " + c.expr);
    ASSERT_EQ(a.value("status", ""), "success") << a.dump();
    const auto& result = a.at("data").at("result");
    if (!result.empty()) {
      ++with_data;
    } else {
      std::cout << "empty" << (c.must_return_data ? " (UNEXPECTED): " : ": ") << c.where << "\n";
    }
    if (c.must_return_data) {
      EXPECT_FALSE(result.empty()) << "no series";
    }
    for (const auto& s : result) {
      for (const auto& label : c.labels) {
        const auto& metric = s.at("metric");
        EXPECT_TRUE(metric.contains(label) && !metric.at(label).get<std::string>().empty())
            << "no " << label << " in " << metric.dump();
      }
    }
    if (!c.one_series_has.empty()) {
      bool found = false;
      for (const auto& s : result) {
        bool all = true;
        for (const auto& [k, v] : c.one_series_has)
          all = all && s.at("metric").value(k, "") == v;
        found = found || all;
      }
      EXPECT_TRUE(found) << "no series for " << nlohmann::json(c.one_series_has).dump() << " in "
                         << result.dump();
    }
  }
  std::cout << checks.size() << " expressions, " << with_data << " with data\n";
  EXPECT_GT(with_data, checks.size() * 3 / 4);
}

std::vector<Check> all_checks() {
  auto checks = dashboard_checks();
  auto rules = rule_checks();
  checks.insert(checks.end(), rules.begin(), rules.end());
  return checks;
}

std::vector<std::string> expressions(const std::vector<Check>& checks) {
  std::vector<std::string> exprs;
  exprs.reserve(checks.size());
  for (const auto& c : checks)
    exprs.push_back(c.expr);
  return exprs;
}

std::string hca1_selector() {
  return "{node_guid=\"" + guid_of("Hca1") + "\",port=\"1\"}";
}
std::string sw2_selector() {
  return "{node_guid=\"" + guid_of("Switch2") + "\",port=\"1\"}";
}

// A congestion hot spot toward Hca3 (`sim traffic --hot-spot`, docs/congestion.md) from start to
// stop: the congestion panels show roots and victims only while ports wait, so it runs while
// the expressions do. Stopped with SIGTERM (the generator finishes its tick), or at 2 minutes.
// Start it after the faults: the generator rewrites PortXmitWait, which they set. Its ports wait
// a fifth of the time (50,000,000 ticks a second): Hca1[1], one of them, starts from the faults'
// 200,000,000 and latches its 32-bit PortXmitWait after 80 s.
class HotSpot {
 public:
  HotSpot()
      : log_(fs::temp_directory_path() /
             ("ibpulse-dashboards-hot-spot-" + std::to_string(::getpid()) + ".log")),
        pid_(spawn_tied_child(IBPULSE_BINARY_FOR_TESTS,
                              {"ibpulse", "sim", "traffic", "--name", fabric().name(), "--root",
                               fabric().root().string(), "--hot-spot", "Hca3", "--wait-ratio",
                               "0.2", "--duration", "120", "--tick-ms", "100"},
                              log_)) {}
  ~HotSpot() {
    stop_child(pid_, 5s);
    fs::remove(log_);
  }
  HotSpot(const HotSpot&) = delete;
  HotSpot& operator=(const HotSpot&) = delete;
  bool started() const { return pid_ > 0; }
  std::string log() const { return read_text_file(log_); }

  // The root and a victim as the daemon names them, for the waits.
  static std::string root_expr() {
    return "infiniband_port_congestion_victims{node_guid=\"" + guid_of("Switch1") +
           "\",port=\"2\"} > 0";
  }
  static std::string victim_expr() {
    return "infiniband_port_congestion{node_guid=\"" + guid_of("Switch2") +
           "\",port=\"3\",role=\"victim\"}";
  }

 private:
  fs::path log_;
  pid_t pid_;
};

// Traffic on every link (rates and utilisation have something to show), the errors, and a link
// down: Hca2 leaves the fabric, its peer Switch2[1] is a port down with a history.
void inject() {
  const auto traffic =
      fabric().sim("traffic", {"--utilization", "0.5", "--duration", "8", "--tick-ms", "100"});
  ASSERT_EQ(traffic.exit_code, 0) << traffic.err;
  set_faults(true);
  ASSERT_EQ(fabric().sim("link-down", {"Hca2[1]"}).exit_code, 0);
}

TEST(DashboardsPromql, EveryExpressionParsesAndReturnsTheSeriesItsPanelShows) {
  set_faults(false);
  Daemon d(fabric(), kDaemonArgs);
  // Not stale=0: on a loaded machine the first sweep may miss a port, which the next one reads.
  ASSERT_TRUE(d.wait_for("event=ready ports=12", 15s)) << d.log();
  ASSERT_NE(d.web_port(), 0) << d.log();
  const fs::path rule_dir = kDashboards / "prometheus";
  PrometheusServer prom(d.web_port(), {.rule_files = {rule_dir / "ibpulse-alerts.rules.yml",
                                                      rule_dir / "ibpulse-recording.rules.yml"},
                                       .evaluation_interval = 1s});
  ASSERT_TRUE(prom.wait_ready(30s)) << prom.log();
  const std::string hca1 = hca1_selector();
  // A baseline of every counter before anything moves them.
  ASSERT_TRUE(prom.wait_for_series(
      "count_over_time(infiniband_port_symbol_error_total" + hca1 + "[1m]) >= 3", 15s))
      << prom.log();
  // Switch2[1] Active before its link goes down (the other test of this binary took it down
  // and up, and opensm takes a moment to activate it): the port-down expressions need that.
  ASSERT_TRUE(prom.wait_for_series("infiniband_port_state" + sw2_selector() + " == 4", 30s))
      << d.log();
  inject();
  EXPECT_TRUE(prom.wait_for_series("infiniband_port_state" + sw2_selector() + " < 4", 20s))
      << d.log();
  EXPECT_TRUE(prom.wait_for_series(
      "increase(infiniband_port_symbol_error_total" + hca1 + "[1m]) > 10", 10s));
  // The recording rules (evaluated every 15s) have caught up with the errors, and the alert
  // has fired: the rule files work end to end, not only their expressions. The burst stays in
  // increase()[1m] for a minute, so the alert's wait spans several of its group's evaluations:
  // on a loaded machine one of them may meet a failed scrape (every series stale, the join
  // with infiniband_port_info empty), and the next one fires it.
  EXPECT_TRUE(
      prom.wait_for_series("infiniband_port:errors:rate1m{counter=\"symbol_error\"} > 0", 35s));
  EXPECT_TRUE(prom.wait_for_series(
      "ALERTS{alertname=\"InfiniBandSymbolErrorBurst\",alertstate=\"firing\",rule="
      "\"symbol_error_burst\",severity=\"warning\",node_description=\"Hca1\"}",
      45s))
      << "rules: " << http_get_url(prom.url("/api/v1/rules")) << "\nalert expression now: "
      << prom.query("increase(infiniband_port_symbol_error_total" + hca1 + "[1m])").dump()
      << "\ninfo: " << prom.query("infiniband_port_info" + hca1).dump()
      << "\nfailed scrapes in 2m: "
      << prom.query("count_over_time(up[2m]) - sum_over_time(up[2m])").dump() << "\n"
      << prom.log();
  {
    HotSpot hot_spot;
    ASSERT_TRUE(hot_spot.started());
    ASSERT_TRUE(prom.wait_for_series(HotSpot::root_expr(), 20s)) << hot_spot.log() << d.log();
    ASSERT_TRUE(prom.wait_for_series(HotSpot::victim_expr(), 10s)) << hot_spot.log();
    const auto checks = all_checks();
    expect_answers(
        checks, query_all("http://127.0.0.1:" + std::to_string(prom.port()), expressions(checks)));
  }
  ASSERT_EQ(fabric().sim("link-up", {"Hca2[1]"}).exit_code, 0);
}

// The same expressions against VictoriaMetrics (its MetricsQL runs the PromQL the dashboards
// use) fed only by the daemon's remote write, as a site with a distributed TSDB runs them.
TEST(DashboardsPromql, EveryExpressionWorksOnVictoriaMetricsFedByRemoteWrite) {
  set_faults(false);
  VictoriaMetrics vm;
  ASSERT_TRUE(vm.wait_ready(30s)) << vm.log();
  auto args = kDaemonArgs;
  // Every series every snapshot, as a scrape sees it: with changed-only an idle counter has
  // one sample per remote-write.resend, and rate() over a window shorter than two resends is
  // empty for it (docs/remote-write.md says how dashboards cope).
  args.insert(args.end(),
              {"--remote-write.url", vm.url("/api/v1/write"), "--remote-write.changed-only",
               "false", "--remote-write.instance", "collector-1"});
  Daemon d(fabric(), args);
  ASSERT_TRUE(d.wait_for("event=ready ports=12", 15s)) << d.log();
  const auto has_series = [&vm](const std::string& expr, std::chrono::seconds timeout) {
    const auto until = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < until) {
      const auto r = vm.query(expr);
      if (r.is_array() && !r.empty()) return true;
      std::this_thread::sleep_for(500ms);
    }
    return false;
  };
  const std::string hca1 = hca1_selector();
  ASSERT_TRUE(
      has_series("count_over_time(infiniband_port_symbol_error_total" + hca1 + "[1m]) >= 1", 20s))
      << d.log();
  // Switch2[1] Active before its link goes down: the port-down expressions need that history.
  ASSERT_TRUE(has_series("infiniband_port_state" + sw2_selector() + " == 4", 30s)) << d.log();
  inject();  // after a first sample of every counter at 0 arrived: the errors are increases
  EXPECT_TRUE(has_series("infiniband_port_state" + sw2_selector() + " < 4", 20s)) << d.log();
  // The port's info series changes its labels with the link (no remote_* any more): the new
  // one travels in another request than the state (each series keeps to one of the writer's
  // shards), so wait for it too before the joins of the port-down expressions look for it.
  EXPECT_TRUE(has_series("(infiniband_port_state" + sw2_selector() +
                             " < 4) * on(node_guid, port) group_left infiniband_port_info",
                         20s))
      << d.log();
  EXPECT_TRUE(has_series("increase(infiniband_port_symbol_error_total" + hca1 + "[1m]) > 10", 20s));
  EXPECT_TRUE(
      has_series("rate(infiniband_port_xmit_wait_ticks_total" + hca1 + "[1m]) > 1000000", 20s));
  // The hot spot from here on: VictoriaMetrics shows a new series some seconds after it
  // arrives, and the wait for the recording rules covers that.
  std::optional<HotSpot> hot_spot;
  hot_spot.emplace();
  EXPECT_TRUE(hot_spot->started());
  // The recording rules, as a VictoriaMetrics site runs them: vmalert evaluates them against
  // the TSDB and writes the recorded series back into it.
  const fs::path vmalert_log =
      fs::temp_directory_path() / ("ibpulse-vmalert-" + std::to_string(::getpid()) + ".log");
  const pid_t vmalert = spawn_tied_child(
      "/usr/bin/vmalert",
      {"vmalert", "-rule=" + (kDashboards / "prometheus" / "ibpulse-recording.rules.yml").string(),
       "-datasource.url=" + vm.url(""), "-remoteWrite.url=" + vm.url(""),
       "-httpListenAddr=127.0.0.1:" + std::to_string(free_loopback_port(SOCK_STREAM)),
       "-loggerLevel=WARN"},
      vmalert_log);
  ASSERT_GT(vmalert, 0);
  const bool recorded =
      has_series("infiniband_port:errors:rate1m{counter=\"symbol_error\"} > 0", 45s);
  EXPECT_TRUE(recorded) << read_text_file(vmalert_log);
  auto checks = all_checks();
  for (auto& c : checks) {
    // Pushed port series carry no collector (shards and replicas share them): a panel that
    // groups them by instance shows one series without it (docs/dashboards.md).
    if (c.expr.find("ibpulse_") == std::string::npos) c.labels.erase("instance");
  }
  EXPECT_TRUE(has_series(HotSpot::root_expr(), 20s)) << hot_spot->log() << d.log();
  EXPECT_TRUE(has_series(HotSpot::victim_expr(), 10s)) << hot_spot->log();
  expect_answers(checks, query_all(vm.url(""), expressions(checks)));
  hot_spot.reset();
  stop_child(vmalert, 5s);
  fs::remove(vmalert_log);
  // The per-collector panels group by instance: the daemon's own series carry it when pushed.
  const auto sweeps = vm.query("ibpulse_sweeps_total");
  ASSERT_TRUE(sweeps.is_array() && sweeps.size() == 1) << sweeps.dump();
  EXPECT_EQ(sweeps[0].at("metric").value("instance", ""), "collector-1");
  const auto port_series = vm.query("infiniband_port_info{instance!=\"\"}");
  EXPECT_TRUE(port_series.is_array() && port_series.empty()) << "port series carry no instance";
  ASSERT_EQ(fabric().sim("link-up", {"Hca2[1]"}).exit_code, 0);
}

}  // namespace
}  // namespace ibpulse::testing
