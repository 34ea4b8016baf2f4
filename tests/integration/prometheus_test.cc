// The daemon's Prometheus endpoint on the simulated fabric, read over real HTTP: exact counter
// values for what was injected, descriptive labels on the info series, the daemon's own
// metrics, promtool's lint clean on the whole scrape, and HTTP errors for bad requests.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <fstream>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include "daemon_client.h"
#include "eventually.h"
#include "sim_fabric.h"

namespace ibpulse::testing {
namespace {

using namespace std::chrono_literals;

SimFabric& fabric() {
  return SimFabricEnvironment::fabric();
}

TEST(Prometheus, ServesExactCountersInfoAndSelfMetricsThatLintClean) {
  fabric().set("PerformanceSet \"Hca1\"[1] PortCounters.SymbolErrorCounter=1234");
  fabric().set("PerformanceSet \"Hca1\"[1] PortCounters.LinkDownedCounter=7");
  Daemon d(fabric(), {"--web.listen-address", "127.0.0.1:0", "--poll.counters-interval", "300ms",
                      "--counters.publish-interval", "200ms", "--state.save-interval", "off"});
  ASSERT_TRUE(d.wait_for("event=ready", 10s)) << d.log();
  const uint16_t port = d.web_port();
  ASSERT_NE(port, 0) << d.log();
  const std::string hca =
      "{node_guid=\"" + guid_text(fabric().port("Hca1", 1).node_guid) + "\",port=\"1\"}";
  std::string scrape;
  const auto xmit_series = [&scrape] {
    size_t series = 0;
    for (auto at = scrape.find("\ninfiniband_port_xmit_data_bytes_total{"); at != std::string::npos;
         at = scrape.find("\ninfiniband_port_xmit_data_bytes_total{", at + 1)) {
      ++series;
    }
    return series;
  };
  // A snapshot with Hca1's readings and every linked port: on a loaded machine the first sweep
  // may miss a port (stale), which a later one reads.
  EXPECT_TRUE(eventually(
      [&] {
        scrape = http_get(port, "/metrics");
        return scrape.find("\ninfiniband_port_symbol_error_total" + hca + " 1234\n") !=
                   std::string::npos &&
               xmit_series() == 12;
      },
      20s));
  EXPECT_NE(scrape.find("\ninfiniband_port_symbol_error_total" + hca + " 1234\n"),
            std::string::npos)
      << scrape.substr(0, 4000);
  EXPECT_NE(scrape.find("\ninfiniband_port_link_downed_total" + hca + " 7\n"), std::string::npos);
  EXPECT_NE(scrape.find("\ninfiniband_port_state" + hca + " 4\n"), std::string::npos);
  EXPECT_NE(scrape.find("infiniband_port_info{node_guid=\"" +
                        guid_text(fabric().port("Hca1", 1).node_guid) +
                        "\",port=\"1\",node_description=\""),
            std::string::npos);
  EXPECT_NE(scrape.find("\nibpulse_build_info{version=\""), std::string::npos);
  EXPECT_NE(scrape.find("\nibpulse_sweeps_total "), std::string::npos);
  EXPECT_NE(scrape.find("\nibpulse_fabric_nodes 6\n"), std::string::npos);  // 2 switches, 4 HCAs
  EXPECT_NE(scrape.find("\nibpulse_saturated_counters 0\n"), std::string::npos);
  EXPECT_NE(scrape.find("\nibpulse_last_sweep_lag_seconds "), std::string::npos);
  EXPECT_EQ(xmit_series(), 12u);  // every linked port of the fabric

  const auto path = std::filesystem::temp_directory_path() /
                    ("ibpulse-scrape-" + std::to_string(::getpid()) + ".prom");
  std::ofstream(path) << scrape;
  EXPECT_EQ(std::system(("promtool check metrics < " + path.string()).c_str()), 0);
  std::filesystem::remove(path);

  // The daemon's own metrics alone: every ibpulse_ family of the full scrape, no port series.
  const std::string self = http_get(port, "/metrics/self");
  EXPECT_EQ(self.find("infiniband_"), std::string::npos) << self;
  EXPECT_NE(self.find("\nibpulse_fabric_nodes 6\n"), std::string::npos) << self;
  for (size_t at = scrape.find("\n# TYPE ibpulse_"); at != std::string::npos;
       at = scrape.find("\n# TYPE ibpulse_", at + 1)) {
    const std::string type_line = scrape.substr(at, scrape.find('\n', at + 1) - at + 1);
    EXPECT_NE(self.find(type_line), std::string::npos) << type_line;
  }
  std::ofstream(path) << self;
  EXPECT_EQ(std::system(("promtool check metrics < " + path.string()).c_str()), 0);
  std::filesystem::remove(path);

  EXPECT_EQ(http_get(port, "/nope"), "HTTP 404\n");
  EXPECT_NE(http_get(port, "/").find("<a href=\"/metrics\">"), std::string::npos);
  EXPECT_NE(http_get(port, "/").find("<a href=\"/metrics/self\">"), std::string::npos);
  d.stop();
  fabric().set("PerformanceSet \"Hca1\"[1] PortCounters.SymbolErrorCounter=0");
  fabric().set("PerformanceSet \"Hca1\"[1] PortCounters.LinkDownedCounter=0");
}

// Families whose values the test decides: error counters it injects (MADs never move them),
// discovery's gauges and labels. Data and packet counters move with every MAD, ages and the
// daemon's own metrics with time: they are checked above, not frozen here.
bool stable(const std::string& line) {
  static const char* const kFamilies[] = {
      "infiniband_port_symbol_error_total{",
      "infiniband_port_link_downed_total{",
      "infiniband_port_rcv_errors_total{",
      "infiniband_port_xmit_discards_total{",
      "infiniband_port_vl15_dropped_total{",
      "infiniband_port_if_in_errors_total{",
      "infiniband_port_if_in_discards_total{",
      "infiniband_port_state{",
      "infiniband_port_phys_state{",
      "infiniband_port_link_width_lanes{",
      "infiniband_port_link_rate_bytes_per_second{",
      "infiniband_port_mtu_bytes{",
      "infiniband_port_info{",
      "infiniband_port_saturated{",
      "infiniband_port_health{",
      "infiniband_port_health_reason_info{",
      "infiniband_link_health{",
  };
  return std::ranges::any_of(kFamilies, [&](const char* f) { return line.starts_with(f); });
}

// The LIDs opensm gives are fixed for the built-in fabric, but the GUIDs and LIDs stay in the
// file as they are: a change in them is a change in what operators see.
TEST(Prometheus, AScrapeMatchesTheGoldenFile) {
  const std::filesystem::path golden =
      std::filesystem::path(IBPULSE_SOURCE_DIR) / "tests/integration/golden/scrape.prom";
  fabric().set("PerformanceSet \"Hca3\"[1] PortCounters.SymbolErrorCounter=65535");
  fabric().set("PerformanceSet \"Hca3\"[1] PortCounters.PortRcvErrors=12");
  fabric().set("PerformanceSet \"Hca4\"[1] PortCounters.PortXmitDiscards=34");
  fabric().set("PerformanceSet \"Hca4\"[1] PortCounters.VL15Dropped=5");
  fabric().set("PerformanceSet \"Switch2\"[1] PortCounters.LinkDownedCounter=3");
  Daemon d(fabric(), {"--web.listen-address", "127.0.0.1:0", "--poll.counters-interval", "300ms",
                      "--counters.publish-interval", "200ms", "--state.save-interval", "off"});
  ASSERT_TRUE(d.wait_for("event=ready", 10s)) << d.log();
  ASSERT_TRUE(d.wait_for_sweeps(2)) << d.log();
  const std::string scrape = http_get(d.web_port(), "/metrics");
  d.stop();
  for (const char* reset :
       {"\"Hca3\"[1] PortCounters.SymbolErrorCounter=0", "\"Hca3\"[1] PortCounters.PortRcvErrors=0",
        "\"Hca4\"[1] PortCounters.PortXmitDiscards=0", "\"Hca4\"[1] PortCounters.VL15Dropped=0",
        "\"Switch2\"[1] PortCounters.LinkDownedCounter=0"}) {
    fabric().set(std::string("PerformanceSet ") + reset);
  }
  std::vector<std::string> lines;
  std::istringstream in(scrape);
  for (std::string line; std::getline(in, line);) {
    if (stable(line)) lines.push_back(line);
  }
  std::sort(lines.begin(), lines.end());
  std::string got;
  for (const auto& l : lines)
    got += l + "\n";
  if (std::getenv("IBPULSE_UPDATE_GOLDEN") != nullptr) {
    std::filesystem::create_directories(golden.parent_path());
    std::ofstream(golden) << got;
    GTEST_SKIP() << "rewrote " << golden;
  }
  std::ifstream file(golden);
  const std::string want{std::istreambuf_iterator<char>(file), {}};
  EXPECT_EQ(got, want) << "regenerate with IBPULSE_UPDATE_GOLDEN=1 if the change is meant";
  EXPECT_GT(lines.size(), 100u);
}

// One scrape's samples: family name -> (label set -> value text).
using Samples = std::map<std::string, std::map<std::string, std::string>>;

// Parses the sample lines of a scrape; a label set seen twice in a family is a failure.
Samples parse_samples(const std::string& scrape) {
  Samples samples;
  std::istringstream in(scrape);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const size_t brace = line.find('{');
    const size_t close = line.rfind("} ");
    if (brace == std::string::npos || close == std::string::npos) continue;  // self-metrics
    auto& family = samples[line.substr(0, brace)];
    const bool fresh =
        family.emplace(line.substr(brace + 1, close - brace - 1), line.substr(close + 2)).second;
    EXPECT_TRUE(fresh) << "duplicate series: " << line;
  }
  return samples;
}

// The ports (`node_guid="..",port=".."`) a family has series for.
std::set<std::string> ports_of(const Samples& samples, const std::string& family) {
  std::set<std::string> out;
  auto it = samples.find(family);
  if (it == samples.end()) return out;
  for (const auto& [labels, value] : it->second) {
    const size_t port = labels.find(",port=\"");
    out.insert(labels.substr(0, labels.find('"', port + 7) + 1));
  }
  return out;
}

// Scrapes taken while a link goes down and comes back, with discovery re-running every second:
// each is one whole snapshot (every family of a port from the same topology, no series twice,
// the body complete), and no exported counter ever goes backwards from one scrape to the next.
TEST(Prometheus, ScrapesDuringRediscoveryAreWholeSnapshots) {
  const auto& hca = fabric().port("Hca1", 1);
  Daemon d(fabric(),
           {"--poll.counters-interval", "200ms", "--counters.publish-interval", "100ms",
            "--discovery.interval", "1s", "--mad.timeout", "20ms", "--state.save-interval", "off"});
  ASSERT_TRUE(d.wait_for("event=ready ports=12", 10s)) << d.log();
  const uint16_t port = d.web_port();
  const std::string hca_labels = "node_guid=\"" + guid_text(hca.node_guid) + "\",port=\"1\"";
  // Each scrape spawns a client, so how many fit in a second depends on the machine's load: the
  // test moves on when enough scrapes were taken in each phase, not after a time.
  std::mutex mutex;
  std::condition_variable taken;
  std::vector<std::string> scrapes;
  bool done = false;
  std::thread scraper([&] {
    for (;;) {
      std::string scrape = http_get(port, "/metrics");
      std::lock_guard lock(mutex);
      if (done) return;
      scrapes.push_back(std::move(scrape));
      taken.notify_all();
    }
  });
  // Waits until `more` scrapes begun after this call are in, each accepted by `counts`.
  auto wait_for_scrapes = [&](size_t more, auto counts) {
    std::unique_lock lock(mutex);
    const size_t from = scrapes.size() + 1;  // the one in flight began before this call
    return taken.wait_for(lock, 30s, [&] {
      size_t n = 0;
      for (size_t i = from; i < scrapes.size(); ++i)
        n += counts(scrapes[i]) ? 1u : 0u;
      return n >= more;
    });
  };
  auto any = [](const std::string&) { return true; };
  auto with_hca = [&](const std::string& scrape) {
    return ports_of(parse_samples(scrape), "infiniband_port_info").contains(hca_labels);
  };
  const std::string removed = "event=node_removed node_guid=" + guid_text(hca.node_guid);
  const std::string added = "event=node_added node_guid=" + guid_text(hca.node_guid);
  const bool whole = wait_for_scrapes(1, with_hca);  // the topology before the link goes down
  const bool down = whole && fabric().sim("link-down", {"Hca1[1]"}).exit_code == 0 &&
                    d.wait_for(removed, 15s) && wait_for_scrapes(5, any);
  const bool up = fabric().sim("link-up", {"Hca1[1]"}).exit_code == 0 && d.wait_for(added, 15s) &&
                  wait_for_scrapes(3, with_hca);
  {
    std::lock_guard lock(mutex);
    done = true;
  }
  scraper.join();
  ASSERT_TRUE(down && up) << d.log();
  ASSERT_GE(scrapes.size(), 10u);

  size_t without_hca = 0;
  std::map<std::string, uint64_t> last;  // family{labels} -> the previous scrape's value
  for (size_t n = 0; n < scrapes.size(); ++n) {
    const std::string& scrape = scrapes[n];
    SCOPED_TRACE("scrape " + std::to_string(n));
    ASSERT_NE(scrape.find("\nibpulse_scrapes_total "), std::string::npos) << scrape.substr(0, 500);
    const Samples samples = parse_samples(scrape);
    // The topology's families cover the same ports; so do the counters read from one port.
    const auto topology = ports_of(samples, "infiniband_port_info");
    EXPECT_GE(topology.size(), 20u);  // 24 ports, less Hca1's 2 while its link is down
    for (const char* family : {"infiniband_port_state", "infiniband_port_lid",
                               "infiniband_port_mtu_bytes", "infiniband_port_phys_state"}) {
      EXPECT_TRUE(ports_of(samples, family) == topology)
          << family << ": " << ports_of(samples, family).size() << " ports, not "
          << topology.size();
    }
    // Data counters are read from active ports, error counters from every port with a PMA.
    const auto data = ports_of(samples, "infiniband_port_xmit_data_bytes_total");
    for (const char* family :
         {"infiniband_port_rcv_data_bytes_total", "infiniband_port_xmit_packets_total",
          "infiniband_port_if_out_octets_total", "infiniband_port_if_in_ucast_packets_total"}) {
      EXPECT_TRUE(ports_of(samples, family) == data)
          << family << ": " << ports_of(samples, family).size() << " ports, not " << data.size();
    }
    const auto errors = ports_of(samples, "infiniband_port_symbol_error_total");
    EXPECT_GE(errors.size(), data.size());
    for (const char* family :
         {"infiniband_port_link_downed_total", "infiniband_port_xmit_discards_total",
          "infiniband_port_rcv_errors_total"}) {
      EXPECT_TRUE(ports_of(samples, family) == errors)
          << family << ": " << ports_of(samples, family).size() << " ports, not " << errors.size();
    }
    if (!topology.contains(hca_labels)) ++without_hca;
    for (const auto& [family, series] : samples) {
      if (!family.ends_with("_total")) continue;
      for (const auto& [labels, text] : series) {
        const uint64_t value = std::stoull(text);
        auto [it, fresh] = last.emplace(family + "{" + labels + "}", value);
        if (!fresh) {
          EXPECT_GE(value, it->second) << family << "{" << labels << "}";
          it->second = value;
        }
      }
    }
  }
  EXPECT_GT(without_hca, 0u);  // some scrapes did see the rediscovered topology
  // Back to the whole topology at the end.
  EXPECT_EQ(ports_of(parse_samples(scrapes.back()), "infiniband_port_info"),
            ports_of(parse_samples(scrapes.front()), "infiniband_port_info"));
}

// fabric.node-name-map in the daemon: the names it gives replace the node descriptions in the
// info series, on the node's own ports and as the peer of the ports linked to them; a map
// with a bad line stops the start naming the file and the line.
TEST(Prometheus, TheNodeNameMapNamesNodesInTheInfoSeries) {
  const auto map = std::filesystem::temp_directory_path() /
                   ("ibpulse-names-" + std::to_string(::getpid()) + ".map");
  const auto& hca2 = fabric().port("Hca2", 1);
  std::ofstream(map) << "# site names\n" << guid_text(hca2.node_guid) << " \"rack7/node 2\"\n";
  Daemon d(fabric(), {"--web.listen-address", "127.0.0.1:0", "--poll.counters-interval", "300ms",
                      "--counters.publish-interval", "200ms", "--state.save-interval", "off",
                      "--fabric.node-name-map", map.string()});
  ASSERT_TRUE(d.wait_for("event=ready", 10s)) << d.log();
  ASSERT_NE(d.web_port(), 0) << d.log();
  const std::string own = "infiniband_port_info{node_guid=\"" + guid_text(hca2.node_guid) +
                          "\",port=\"1\",node_description=\"rack7/node 2\",";
  const std::string as_peer = "remote_node_guid=\"" + guid_text(hca2.node_guid) +
                              "\",remote_port=\"1\",remote_description=\"rack7/node 2\"";
  std::string scrape;
  EXPECT_TRUE(eventually(
      [&] {
        scrape = http_get(d.web_port(), "/metrics");
        return scrape.find(own) != std::string::npos;
      },
      10s))
      << scrape.substr(0, 3000);
  EXPECT_NE(scrape.find(as_peer), std::string::npos);
  EXPECT_EQ(scrape.find("node_description=\"Hca2\""), std::string::npos);
  d.stop();

  std::ofstream(map) << guid_text(hca2.node_guid) << " \"rack7\"\nnot-a-guid \"x\"\n";
  const auto bad =
      fabric().exec({IBPULSE_BINARY_FOR_TESTS, "run", "--exit-after-sweeps", "1",
                     "--state.save-interval", "off", "--fabric.node-name-map", map.string()});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find(map.string() + ":2"), std::string::npos) << bad.err;
  std::filesystem::remove(map);
}

TEST(Prometheus, AnAddressInUseStopsTheStartWithAClearError) {
  Daemon first(fabric(), {"--web.listen-address", "127.0.0.1:0", "--state.save-interval", "off"});
  ASSERT_TRUE(first.wait_for("event=web_listening", 10s)) << first.log();
  const uint16_t port = first.web_port();
  const auto out =
      fabric().exec({IBPULSE_BINARY_FOR_TESTS, "run", "--web.listen-address",
                     "127.0.0.1:" + std::to_string(port), "--state.save-interval", "off"});
  EXPECT_NE(out.exit_code, 0);
  EXPECT_NE(out.err.find("--web.listen-address: cannot listen on 127.0.0.1:" +
                         std::to_string(port) + ": address in use"),
            std::string::npos)
      << out.err;
}

}  // namespace
}  // namespace ibpulse::testing
