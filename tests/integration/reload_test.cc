// SIGHUP re-reads the config file: poll intervals and poll lists take effect in the running
// daemon, and a bad file is reported and the running configuration kept.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "daemon_client.h"
#include "sim_fabric.h"

namespace ibpulse::testing {
namespace {

using namespace std::chrono_literals;

SimFabric& fabric() {
  return SimFabricEnvironment::fabric();
}

std::string sample_read(const std::string& node, unsigned port) {
  return "event=sample_read node_guid=" + guid_text(fabric().port(node, port).node_guid) +
         " port=" + std::to_string(port) + " attribute=PortCounters ";
}

TEST(Reload, SighupAppliesNewIntervalsAndPollListsAndKeepsThemOverABadFile) {
  const auto config = std::filesystem::temp_directory_path() /
                      ("ibpulse-reload-" + std::to_string(::getpid()) + ".yaml");
  const std::string hca3 = guid_text(fabric().port("Hca3", 1).node_guid);
  // 5 s between sweeps (the first one spread over it), Hca3 never polled.
  std::ofstream(config) << "poll:\n  counters-interval: 5s\n  skip-nodes: [" << hca3 << "]\n";
  Daemon d(fabric(),
           {"--config", config.string(), "--state.save-interval", "off", "--log.level", "trace"});
  ASSERT_TRUE(d.wait_for("event=ready ports=11 ", 20s)) << d.log();
  EXPECT_EQ(count(d.log(), sample_read("Hca3", 1)), 0u) << d.log();

  std::ofstream(config) << "poll:\n  counters-interval: 300ms\n";
  d.signal(SIGHUP);
  ASSERT_TRUE(d.wait_for("event=reloaded", 10s)) << d.log();
  const size_t before = count(d.log(), "event=sweep sweep=") + 1;  // and the ready line
  // Five more sweeps within 12 s: at the old 5 s they would take 25 s.
  EXPECT_TRUE(d.wait_for("event=sweep sweep=" + std::to_string(before + 5) + " ", 12s)) << d.log();
  EXPECT_TRUE(d.wait_for(sample_read("Hca3", 1), 10s)) << d.log();

  std::ofstream(config) << "poll:\n  counters-interval: [not, a, duration]\n";
  d.signal(SIGHUP);
  ASSERT_TRUE(d.wait_for("event=reload_failed", 10s)) << d.log();
  EXPECT_NE(d.log().find("poll.counters-interval"), std::string::npos) << d.log();
  // Still sweeping every 300 ms, not back to an hour or stopped.
  const size_t after = count(d.log(), "event=sweep sweep=");
  EXPECT_TRUE(d.wait_for("event=sweep sweep=" + std::to_string(after + 3) + " ", 20s)) << d.log();
  d.stop();
  std::filesystem::remove(config);
}

}  // namespace
}  // namespace ibpulse::testing
