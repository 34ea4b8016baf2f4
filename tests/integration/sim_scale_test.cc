// The large fabrics later issues benchmark on come up, and say how big they are and how long
// they took.
#include <gtest/gtest.h>
#include <unistd.h>

#include "sim_fabric.h"

namespace ibpulse::testing {
namespace {

TEST(SimScale, TwoThousandHostsComeUpAndReportSizeAndTime) {
  auto fabric = SimFabric::up("scale", {"--hosts", "2000"});
  size_t hcas = 0;
  size_t active = 0;
  size_t linked = 0;
  for (const auto& p : fabric->ports()) {
    if (p.node.rfind("Hca", 0) == 0) ++hcas;
    if (!p.remote_node.empty()) {
      ++linked;
      active += p.state == "Active";
    }
  }
  EXPECT_EQ(hcas, 2000u);
  EXPECT_EQ(active, linked);
  // A host at the far end of the tree answers perfquery.
  EXPECT_EQ(fabric->perfquery("Hca2000", 1, "SymbolErrorCounter"), 0u);
  const auto status = fabric->sim("status", {"--json"});
  EXPECT_NE(status.out.find("\"hcas\": 2000"), std::string::npos) << status.out;
}

TEST(SimScale, UpReportsSizeAndTimeToReady) {
  const auto root =
      std::filesystem::temp_directory_path() / ("ibpulse-test-scale-" + std::to_string(::getpid()));
  const auto up = run_ibpulse({"sim", "up", "--name", "s", "--root", root.string(), "--hosts",
                               "700", "--owner-pid", std::to_string(::getpid())});
  ASSERT_EQ(up.exit_code, 0) << up.err;
  // 700 hosts on radix 36 need three levels: 39 leaves, 3 pods of 18 aggregation switches, 27
  // cores.
  EXPECT_NE(up.err.find("ready in"), std::string::npos) << up.err;
  EXPECT_NE(up.err.find("(120 switches, 700 HCAs)"), std::string::npos) << up.err;
  run_ibpulse({"sim", "down", "--name", "s", "--root", root.string()});
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace ibpulse::testing
