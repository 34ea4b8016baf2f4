// The simulated fabric as the reference tools see it: perfquery and smpquery, attached with
// `ibpulse sim exec`, read what the console set.
#include "sim_fabric.h"

#include <gtest/gtest.h>

namespace ibpulse::testing {
namespace {

SimFabric& fabric() {
  return SimFabricEnvironment::fabric();
}

TEST(SimFabric, DefaultTopologyIsUpWithLidsOnEveryLinkedPort) {
  size_t linked = 0;
  for (const auto& p : fabric().ports()) {
    if (p.remote_node.empty()) continue;
    ++linked;
    EXPECT_EQ(p.state, "Active") << p.node << "[" << p.port << "]";
    EXPECT_GT(p.lid, 0u) << p.node << "[" << p.port << "]";
  }
  EXPECT_EQ(linked, 12u);  // 6 links
  EXPECT_EQ(fabric().port("Switch1", 3).remote_node, "Switch2");
  EXPECT_EQ(fabric().port("Switch1", 3).remote_port, 3u);
}

TEST(SimFabric, PerfqueryReadsWhatPerformanceSetWrote) {
  fabric().set("PerformanceSet \"Hca3\"[1] PortCounters.SymbolErrorCounter=4321");
  EXPECT_EQ(fabric().perfquery("Hca3", 1, "SymbolErrorCounter"), 4321u);
  // A switch port, addressed through the switch's LID with PortSelect.
  fabric().set("PerformanceSet \"Switch2\"[3] PortCounters.PortRcvErrors=77");
  EXPECT_EQ(fabric().perfquery("Switch2", 3, "PortRcvErrors"), 77u);
  EXPECT_EQ(fabric().perfquery("Switch2", 5, "PortRcvErrors"), 0u);
}

TEST(SimFabric, NarrowCountersLatchAtAllOnes) {
  fabric().set("PerformanceSet \"Hca2\"[1] PortCounters.PortXmitData=5000000000");
  fabric().set("PerformanceSet \"Hca2\"[1] PortCountersExtended.PortXmitData=5000000000");
  fabric().set("PerformanceSet \"Hca2\"[1] PortCounters.SymbolErrorCounter=70000");
  fabric().set("PerformanceSet \"Hca2\"[1] PortCounters.LocalLinkIntegrityErrors=20");
  EXPECT_EQ(fabric().perfquery("Hca2", 1, "PortXmitData"), 4294967295u);
  EXPECT_GE(fabric().perfquery("Hca2", 1, "PortXmitData", true), 5000000000u);
  EXPECT_EQ(fabric().perfquery("Hca2", 1, "SymbolErrorCounter"), 65535u);
  EXPECT_EQ(fabric().perfquery("Hca2", 1, "LocalLinkIntegrityErrors"), 15u);
}

TEST(SimFabric, SetFailsWithIbsimsMessage) {
  const auto bad_field = fabric().sim("set", {"PerformanceSet \"Hca1\"[1] PortCounters.Bogus=1"});
  EXPECT_EQ(bad_field.exit_code, 1);
  EXPECT_NE(bad_field.err.find("field Bogus cannot be found"), std::string::npos) << bad_field.err;
  const auto bad_node =
      fabric().sim("set", {"PerformanceSet \"Nope\"[1] PortCounters.PortRcvErrors=1"});
  EXPECT_EQ(bad_node.exit_code, 1);
  EXPECT_NE(bad_node.err.find("not found"), std::string::npos) << bad_node.err;
  const auto unknown = fabric().sim("set", {"frobnicate"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("unknown"), std::string::npos) << unknown.err;
  const auto ok = fabric().sim("set", {"PerformanceSet \"Hca1\"[1] PortCounters.PortRcvErrors=3"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.out.find("has been set to 3"), std::string::npos) << ok.out;
}

TEST(SimFabric, LinkDownMakesBothEndsDownAndLinkUpRestoresThem) {
  const unsigned hca_lid = fabric().lid("Hca4", 1);
  // Whatever an earlier run of this test (--gtest_repeat) left there.
  const uint64_t hca_downed = fabric().perfquery("Hca4", 1, "LinkDownedCounter");
  const uint64_t switch_downed = fabric().perfquery("Switch2", 2, "LinkDownedCounter");
  const auto down = fabric().sim("link-down", {"Hca4[1]", "--count-downed"});
  ASSERT_EQ(down.exit_code, 0) << down.err;

  // The switch side, read with smpquery through the switch's own LID.
  const auto sw =
      fabric().exec({"smpquery", "portinfo", std::to_string(fabric().lid("Switch2", 2)), "2"});
  ASSERT_EQ(sw.exit_code, 0) << sw.err;
  EXPECT_NE(sw.out.find("LinkState:.......................Down"), std::string::npos) << sw.out;
  // The HCA is unreachable: MADs bounce.
  EXPECT_NE(fabric().exec({"perfquery", std::to_string(hca_lid), "1"}).exit_code, 0);

  const auto up = fabric().sim("link-up", {"Hca4[1]"});
  ASSERT_EQ(up.exit_code, 0) << up.err;
  const auto back = fabric().exec({"smpquery", "portinfo", std::to_string(hca_lid), "1"});
  ASSERT_EQ(back.exit_code, 0) << back.err;
  EXPECT_NE(back.out.find("LinkState:.......................Active"), std::string::npos);
  // --count-downed added one LinkDowned at each end; the LID stayed the same.
  EXPECT_EQ(fabric().perfquery("Hca4", 1, "LinkDownedCounter"), hca_downed + 1);
  EXPECT_EQ(fabric().perfquery("Switch2", 2, "LinkDownedCounter"), switch_downed + 1);
}

TEST(SimFabric, BumpAddsToTheCurrentValue) {
  fabric().set("PerformanceSet \"Switch1\"[5] PortCounters.LinkErrorRecoveryCounter=250");
  const auto bump =
      fabric().sim("bump", {"Switch1[5]", "--counter", "LinkErrorRecoveryCounter", "--by", "3"});
  ASSERT_EQ(bump.exit_code, 0) << bump.err;
  EXPECT_EQ(bump.out, "253\n");
  // An 8-bit counter latches at 255.
  const auto latch =
      fabric().sim("bump", {"Switch1:5", "--counter", "LinkErrorRecoveryCounter", "--by", "10"});
  ASSERT_EQ(latch.exit_code, 0) << latch.err;
  EXPECT_EQ(latch.out, "255\n");
  EXPECT_EQ(fabric().perfquery("Switch1", 5, "LinkErrorRecoveryCounter"), 255u);
}

TEST(SimFabric, ErrorRateDropsMads) {
  ASSERT_EQ(fabric().sim("error", {"Hca1[1]", "100"}).exit_code, 0);
  EXPECT_NE(fabric().exec({"perfquery", std::to_string(fabric().lid("Hca1", 1)), "1"}).exit_code,
            0);
  ASSERT_EQ(fabric().sim("error", {"Hca1[1]", "0"}).exit_code, 0);
  EXPECT_EQ(fabric().exec({"perfquery", std::to_string(fabric().lid("Hca1", 1)), "1"}).exit_code,
            0);
}

TEST(SimFabric, ExecPassesTheExitStatusThrough) {
  EXPECT_EQ(fabric().exec({"sh", "-c", "exit 7"}).exit_code, 7);
  const auto env = fabric().exec({"sh", "-c", "echo $IBSIM_SOCKNAME $IBPULSE_SIM_MAX_MADS"});
  EXPECT_EQ(env.out, fabric().socket_name() + " 64\n");
  EXPECT_EQ(fabric().exec({"/nonexistent"}).exit_code, 127);
}

}  // namespace
}  // namespace ibpulse::testing
