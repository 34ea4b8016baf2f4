#pragma once
// The simulated fabric the IB-SMA-MIB tests share (snmp_sma_test.cc,
// snmp_sma_notifications_test.cc): its subnet manager programs data/partitions.conf.
#include <gtest/gtest.h>

#include <string>

#include "sim_fabric.h"

namespace ibpulse::testing {

// The subnet manager's partition configuration: the fabric's and the daemon's.
inline const char* const kPartitionsFile =
    IBPULSE_SOURCE_DIR "/tests/integration/data/partitions.conf";

inline SimFabric& fabric() {
  return SimFabricEnvironment::fabric();
}

// A node's context name: its GUID.
inline std::string guid_context(const std::string& node) {
  return guid_text(fabric().port(node, 1).node_guid);
}

// `smpquery WHAT LID [PORT]` on the fabric; its output.
inline std::string smp(const std::string& what, unsigned lid, const std::string& port = "") {
  auto run = fabric().exec({"smpquery", what, std::to_string(lid), port});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  return run.out;
}

}  // namespace ibpulse::testing
