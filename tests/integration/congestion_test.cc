// Congestion roots and victims end to end on the simulated fabric (ibsim's net.2sw2path4hca:
// Hca1 and Hca3 on Switch1, Hca2 and Hca4 on Switch2, the switches joined by ports 3 and 5;
// links 4X SDR, 1 GB/s of data each way). The test plants the counters itself through ibsim's
// console, independent of any traffic generator: PortXmitData growing at a chosen share of
// the link and PortXmitWait at a chosen share of the time (ticks of 1 ms here), rewritten every
// 50 ms as time passes, and names the roots and victims it expects in the scrape.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "daemon_client.h"
#include "eventually.h"
#include "sim_fabric.h"

namespace ibpulse::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

SimFabric& fabric() {
  return SimFabricEnvironment::fabric();
}

constexpr double kDwordsPerSecond = 1e9 / 4;  // 4X SDR: 8 Gb/s of data
constexpr double kTicksPerSecond = 1000;      // --congestion.xmit-wait-tick 1ms

struct Load {
  std::string node;
  unsigned port;
  double utilisation;  // of the link's data rate
  double wait;         // share of the time with data to send and none sent
};

// Rewrites the planted ports' transmit counters as the loads say, from a thread, until
// destroyed. Values start from what the port reads now, so they never step back.
class Planter {
 public:
  explicit Planter(std::vector<Load> loads) : loads_(std::move(loads)) {
    for (const Load& l : loads_) {
      bases_.push_back({fabric().perfquery(l.node, l.port, "PortXmitData", true),
                        fabric().perfquery(l.node, l.port, "PortXmitWait")});
    }
    thread_ = std::thread([this] { run(); });
  }
  ~Planter() {
    stop_ = true;
    thread_.join();
  }

 private:
  void run() {
    const auto start = Clock::now();
    while (!stop_) {
      const double t = std::chrono::duration<double>(Clock::now() - start).count();
      std::vector<std::string> lines;
      for (size_t i = 0; i < loads_.size(); ++i) {
        const Load& l = loads_[i];
        const auto data =
            bases_[i].first + static_cast<uint64_t>(l.utilisation * kDwordsPerSecond * t);
        const auto wait = bases_[i].second + static_cast<uint64_t>(l.wait * kTicksPerSecond * t);
        const std::string port = fmt::format("PerformanceSet \"{}\"[{}] ", l.node, l.port);
        lines.push_back(port + fmt::format("PortCountersExtended.PortXmitData={}", data));
        lines.push_back(port + fmt::format("PortCounters.PortXmitData={}",
                                           std::min<uint64_t>(data, 0xFFFFFFFF)));
        lines.push_back(port + fmt::format("PortCounters.PortXmitWait={}", wait));
      }
      const auto out = fabric().sim("set", lines);
      if (out.exit_code != 0) ADD_FAILURE() << "sim set: " << out.err;
      std::this_thread::sleep_for(50ms);
    }
  }

  std::vector<Load> loads_;
  std::vector<std::pair<uint64_t, uint64_t>> bases_;  // PortXmitData (64-bit), PortXmitWait
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

std::string labels(const std::string& node, unsigned port) {
  return fmt::format("node_guid=\"{}\",port=\"{}\"", guid_text(fabric().port(node, port).node_guid),
                     port);
}

std::vector<std::string> daemon_args() {
  return {"--poll.counters-interval", "1s",  "--counters.publish-interval", "500ms",
          "--state.save-interval",    "off", "--congestion.xmit-wait-tick", "1ms",
          "--discovery.interval",     "1h"};
}

// Hca1 and Hca3 send to Hca4: Switch2's port to Hca4 runs at line rate and waits half the
// time (the root); the senders and Switch1's two ports toward Switch2 wait as much while
// sending little (victims). Nothing else waits.
TEST(Congestion, PlantedHotSpotNamesItsRootAndVictims) {
  Daemon d(fabric(), daemon_args());
  ASSERT_TRUE(d.wait_for("event=ready", 10s)) << d.log();
  const std::vector<std::pair<std::string, unsigned>> victims = {
      {"Hca1", 1}, {"Hca3", 1}, {"Switch1", 3}, {"Switch1", 5}};
  std::vector<Load> loads = {{"Switch2", 2, 1.0, 0.5}};
  for (const auto& [node, port] : victims)
    loads.push_back({node, port, 0.2, 0.5});
  Planter planter(loads);
  const std::string root = labels("Switch2", 2);
  std::string scrape;
  nlohmann::json api;
  // The planter's writes land up to a few hundred ms late on a loaded machine, so one interval
  // can read the root below the root threshold (0.9 of line rate): wait for an interval that
  // reads the planted load in both views (each fetch may see a different snapshot).
  ASSERT_TRUE(eventually(
      [&] {
        scrape = http_get(d.web_port(), "/metrics");
        // A whole interval of planted load: the first one the daemon reads is partly before.
        if (metric_value(scrape, "infiniband_port_congestion_victims", root) != 4 ||
            metric_value(scrape, "infiniband_port_xmit_wait_ratio", root) <= 0.4)
          return false;
        api = nlohmann::json::parse(http_get(d.web_port(), "/api/health"));
        return !api["roots"].empty();
      },
      30s))
      << scrape << "\n"
      << api.dump();
  EXPECT_EQ(metric_value(scrape, "infiniband_port_congestion", root + ",role=\"root\""), 1);
  for (const auto& [node, port] : victims) {
    EXPECT_EQ(
        metric_value(scrape, "infiniband_port_congestion", labels(node, port) + ",role=\"victim\""),
        1)
        << node << "/" << port;
  }
  EXPECT_EQ(count(scrape, "\ninfiniband_port_congestion{"), 5u) << scrape;
  EXPECT_NEAR(metric_value(scrape, "infiniband_port_xmit_wait_ratio", root), 0.5, 0.1);
  // /api/health lists the root with its victims and the receiver it feeds.
  ASSERT_EQ(api["roots"].size(), 1u) << api.dump();
  const auto& first = api["roots"][0];
  EXPECT_EQ(first["node"], "Switch2");
  EXPECT_EQ(first["port"], 2);
  EXPECT_EQ(first["victims"], 4);
  EXPECT_EQ(first["stuck"], false);
  EXPECT_EQ(first["peer"]["node"], "Hca4");
  EXPECT_EQ(api["summary"]["victims"], 4);
  EXPECT_EQ(metric_value(scrape, "infiniband_port_xmit_wait_ratio", labels("Hca2", 1)), 0);
}

// Every linked port busy at 95% and waiting 1% of the time: congestion nowhere, although every
// port's wait ratio is read.
TEST(Congestion, AUniformlyLoadedFabricHasNoRoots) {
  Daemon d(fabric(), daemon_args());
  ASSERT_TRUE(d.wait_for("event=ready", 10s)) << d.log();
  std::vector<Load> loads;
  for (const std::string sw : {"Switch1", "Switch2"}) {
    for (const unsigned port : {1u, 2u, 3u, 5u})
      loads.push_back({sw, port, 0.95, 0.01});
  }
  for (const std::string hca : {"Hca1", "Hca2", "Hca3", "Hca4"})
    loads.push_back({hca, 1, 0.95, 0.01});
  Planter planter(loads);
  std::string scrape;
  ASSERT_TRUE(eventually(
      [&] {
        scrape = http_get(d.web_port(), "/metrics");
        // Late planter writes (a loaded machine) can read one interval well below 0.95.
        return metric_value(scrape, "infiniband_port_xmit_utilization_ratio", labels("Hca1", 1)) >
                   0.85 &&
               std::ranges::all_of(loads, [&](const Load& l) {
                 return metric_value(scrape, "infiniband_port_xmit_wait_ratio",
                                     labels(l.node, l.port)) >= 0.005;
               });
      },
      30s))
      << scrape;
  EXPECT_EQ(count(scrape, "\ninfiniband_port_congestion{"), 0u) << scrape;
  EXPECT_EQ(count(scrape, "\ninfiniband_port_congestion_victims{"), 0u);
}

// The same tree from the traffic generator's hot spot (docs/simulated-fabric.md): Hca1, Hca2 and
// Hca4 send to Hca3; Switch1's port to Hca3 is the root, the senders and Switch2's port toward
// Switch1 on their path (the generator takes port 3) its victims.
TEST(Congestion, TheGeneratorsHotSpotGivesTheSameTree) {
  std::vector<std::string> args = daemon_args();
  args.back() = "1h";
  for (std::string& a : args) {
    if (a == "1ms") a = "4ns";  // the generator's default tick
  }
  Daemon d(fabric(), args);
  ASSERT_TRUE(d.wait_for("event=ready", 10s)) << d.log();
  sim::CommandOutput traffic_out;
  std::thread traffic([&] {
    traffic_out =
        fabric().sim("traffic", {"--hot-spot", "Hca3", "--duration", "12", "--tick-ms", "100"});
  });
  const std::string root = labels("Switch1", 2);
  std::string scrape;
  const bool found = eventually(
      [&] {
        scrape = http_get(d.web_port(), "/metrics");
        return metric_value(scrape, "infiniband_port_congestion_victims", root) == 4;
      },
      15s);
  traffic.join();
  EXPECT_EQ(traffic_out.exit_code, 0) << traffic_out.err;
  ASSERT_TRUE(found) << scrape;
  for (const auto& [node, port] : std::vector<std::pair<std::string, unsigned>>{
           {"Hca1", 1}, {"Hca2", 1}, {"Hca4", 1}, {"Switch2", 3}}) {
    EXPECT_EQ(
        metric_value(scrape, "infiniband_port_congestion", labels(node, port) + ",role=\"victim\""),
        1)
        << node << "/" << port;
  }
  EXPECT_EQ(count(scrape, "\ninfiniband_port_congestion{"), 5u) << scrape;
}

}  // namespace
}  // namespace ibpulse::testing
