// fabric.ports on the simulated fabric, where a client process gets exactly one local port
// (umad2sim attaches to the first port of one node): `all` gives that port and the daemon
// behaves as with fabric.ca; a second named port, or bad syntax, is refused at start.
#include <gtest/gtest.h>

#include <regex>

#include "sim_fabric.h"

namespace ibpulse::testing {
namespace {

SimFabric& fabric() {
  return SimFabricEnvironment::fabric();
}

TEST(LocalPorts, AllIsTheSimulatorsOnePortAndTheDaemonRunsAsBefore) {
  const auto out = fabric().exec({IBPULSE_BINARY_FOR_TESTS, "run", "--fabric.ports", "all",
                                  "--exit-after-sweeps", "2", "--poll.counters-interval", "300ms",
                                  "--state.save-interval", "off"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  std::smatch m;
  ASSERT_TRUE(
      std::regex_search(out.err, m, std::regex("event=local_ports ports=([^ \n,]+) subnets=1\n")))
      << out.err;
  EXPECT_NE(out.err.find("event=ready ports=12 stale=0"), std::string::npos) << out.err;
  EXPECT_EQ(out.err.find("event=local_port_down"), std::string::npos) << out.err;

  // Named, that port works alone; a second one is refused, naming it and the port there is.
  const std::string only = m[1];
  auto named = fabric().exec({IBPULSE_BINARY_FOR_TESTS, "run", "--fabric.ports", only,
                              "--exit-after-sweeps", "1", "--state.save-interval", "off"});
  EXPECT_EQ(named.exit_code, 0) << named.err;
  auto second = fabric().exec({IBPULSE_BINARY_FOR_TESTS, "run", "--fabric.ports",
                               only + ",mlx5_9:1", "--exit-after-sweeps", "1"});
  EXPECT_EQ(second.exit_code, 1);
  EXPECT_NE(second.err.find("fabric.ports: no local port mlx5_9:1 (this host has: " + only + ")"),
            std::string::npos)
      << second.err;
}

TEST(LocalPorts, BadSyntaxIsRefusedWithTheEntry) {
  auto out = fabric().exec({IBPULSE_BINARY_FOR_TESTS, "run", "--fabric.ports", "mlx5_0"});
  EXPECT_EQ(out.exit_code, 1);
  EXPECT_NE(out.err.find("--fabric.ports: 'mlx5_0' is not CA:PORT"), std::string::npos) << out.err;
}

}  // namespace
}  // namespace ibpulse::testing
