// Fabrics of several parts from a net file: one SM per part, attached at the part's first node
// (an HCA here), re-sweeps without resident SMs, and the topologies `sim up` refuses.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "sim_fabric.h"

namespace ibpulse::testing {
namespace {

using namespace std::chrono_literals;

constexpr uint64_t kLinkLocalPrefix = 0xfe80000000000000;

// Two parts of different shapes; the second starts with an HCA, where its SM then attaches.
constexpr const char* kTwoPartNet = R"(
Switch	8 "SwA"
[1]	"HcaA1"[1]
[2]	"HcaA2"[1]

Hca	1 "HcaA1"
[1]	"SwA"[1]

Hca	1 "HcaA2"
[1]	"SwA"[2]

Hca	1 "HcaB1"
[1]	"SwB1"[1]

Switch	8 "SwB1"
[1]	"HcaB1"[1]
[4]	"SwB2"[4]

Switch	8 "SwB2"
[4]	"SwB1"[4]
[1]	"HcaB2"[1]
[2]	"HcaB3"[1]

Hca	1 "HcaB2"
[1]	"SwB2"[1]

Hca	1 "HcaB3"
[1]	"SwB2"[2]
)";

std::vector<sim::ProcessRef> subnet_managers(const SimFabric& f) {
  const auto state = nlohmann::json::parse(std::ifstream(f.run_dir() / "state.json"));
  std::vector<sim::ProcessRef> out;
  for (const auto& part : state.at("parts")) {
    const auto& sm = part.at("subnet_manager");
    if (sm.is_null()) continue;
    out.push_back({sm.at("pid").get<pid_t>(), sm.at("start_time").get<uint64_t>()});
  }
  return out;
}

TEST(SimPartsFromFile, ANetFileOfTwoPartsGetsAnSmPerPartAndDownStopsBoth) {
  const auto net = std::filesystem::temp_directory_path() /
                   ("ibpulse-two-parts-" + std::to_string(::getpid()) + ".net");
  std::ofstream(net) << kTwoPartNet;
  auto f = SimFabric::up("file", {"--topology", net.string()});
  std::filesystem::remove(net);
  ASSERT_EQ(f->parts().size(), 2u);
  EXPECT_EQ(f->parts()[0].attach_node, "SwA");
  EXPECT_EQ(f->parts()[1].attach_node, "HcaB1");
  for (const auto& part : f->parts())
    EXPECT_EQ(part.subnet_prefix, kLinkLocalPrefix) << "fe80:: unless told otherwise";
  for (const auto& p : f->ports()) {
    if (p.remote_node.empty()) continue;
    EXPECT_EQ(p.state, "Active") << p.node << "[" << p.port << "]";
  }
  // Each part numbered from 1 by its own SM: part 2's HCAs reuse part 1's LIDs.
  const std::set<unsigned> a = {f->lid("SwA", 1), f->lid("HcaA1", 1), f->lid("HcaA2", 1)};
  const std::set<unsigned> b = {f->lid("HcaB1", 1), f->lid("SwB1", 1), f->lid("SwB2", 1),
                                f->lid("HcaB2", 1), f->lid("HcaB3", 1)};
  EXPECT_EQ(a.size(), 3u);
  EXPECT_EQ(b.size(), 5u);
  EXPECT_TRUE(std::includes(b.begin(), b.end(), a.begin(), a.end()));
  const auto found = f->exec({"ibnetdiscover"}, "HcaB3");
  ASSERT_EQ(found.exit_code, 0) << found.err;
  EXPECT_EQ(ibnetdiscover_names(found.out),
            (std::set<std::string>{"HcaB1", "SwB1", "SwB2", "HcaB2", "HcaB3"}));

  const auto sms = subnet_managers(*f);
  ASSERT_EQ(sms.size(), 2u);
  for (const auto& sm : sms)
    EXPECT_TRUE(sim::is_running(sm));
  const auto down = f->sim("down");
  ASSERT_EQ(down.exit_code, 0) << down.err;
  EXPECT_NE(down.err.find("opensm 2"), std::string::npos) << down.err;
  for (const auto& sm : sms)
    EXPECT_FALSE(sim::is_running(sm)) << "opensm pid " << sm.pid;
}

// Without resident SMs only `opensm -o` makes a re-linked port Active: `link-up` must run it
// in the port's part, attached there.
TEST(SimPartsNoSm, LinkUpInTheSecondPartRunsThatPartsOpensm) {
  const auto net = std::filesystem::temp_directory_path() /
                   ("ibpulse-two-parts-nosm-" + std::to_string(::getpid()) + ".net");
  std::ofstream(net) << kTwoPartNet;
  auto f = SimFabric::up("nosm", {"--topology", net.string(), "--no-sm"});
  std::filesystem::remove(net);
  ASSERT_EQ(f->parts().size(), 2u);
  EXPECT_TRUE(subnet_managers(*f).empty());
  ASSERT_EQ(f->sim("link-down", {"HcaB2[1]"}).exit_code, 0);
  const auto up = f->sim("link-up", {"HcaB2[1]", "--timeout", "10"});
  ASSERT_EQ(up.exit_code, 0) << up.err;
  const auto back =
      f->exec({"smpquery", "portinfo", std::to_string(f->lid("HcaB2", 1)), "1"}, "HcaB3");
  ASSERT_EQ(back.exit_code, 0) << back.err;
  EXPECT_EQ(smpquery_field(back.out, "LinkState"), "Active");
}

TEST(SimPartsErrors, TooManyPartsOrPrefixesAreRefusedBeforeAnythingStarts) {
  const auto root = std::filesystem::temp_directory_path() /
                    ("ibpulse-test-parts-misuse-" + std::to_string(::getpid()));
  const auto up = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"sim", "up", "--name", "x", "--root", root.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_ibpulse(args, 30s);
  };
  const auto too_many = up({"--hosts", "2", "--radix", "4", "--rails", "10"});
  EXPECT_EQ(too_many.exit_code, 1);
  EXPECT_NE(too_many.err.find("10 disconnected parts"), std::string::npos) << too_many.err;
  EXPECT_NE(too_many.err.find("at most 9 parts"), std::string::npos) << too_many.err;
  const auto count = up({"--hosts", "2", "--radix", "4", "--rails", "2", "--subnet-prefix",
                         "0xfe80000000000000,0xfe80000000000001,0xfe80000000000002"});
  EXPECT_EQ(count.exit_code, 1);
  EXPECT_NE(count.err.find("3 subnet prefixes given for 2 parts"), std::string::npos) << count.err;
  const auto bad = up({"--subnet-prefix", "fe80::1"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("bad subnet prefix 'fe80::1'"), std::string::npos) << bad.err;
  EXPECT_FALSE(std::filesystem::exists(root / "x"));
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace ibpulse::testing
