// ibpulseSmMasterChanged on the simulated fabric, at a real snmptrapd: the fabric runs without a
// resident subnet manager (`sim up --no-sm`); the test starts its own opensm at Switch1, the
// daemon sees it as the first master (logged, not sent), the test stops it (no SM answers as
// master: one notification after two SMInfo rounds) and starts another at Hca2 with another
// priority (a master again: a second notification). `sminfo`, the reference reader, says which
// SM is master; every varbind is checked. Each repetition starts from no SM.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <regex>
#include <string>
#include <vector>

#include "daemon_client.h"
#include "eventually.h"
#include "sim_fabric.h"
#include "snmp_client.h"
#include "snmptrapd.h"

namespace ibpulse::testing {
namespace {

using namespace std::chrono_literals;

SimFabric& fabric() {
  return SimFabricEnvironment::fabric();
}

const std::string kIbpulse = "1.3.6.1.4.1.8072.9999.9999.";
const std::string kMasterChanged = kIbpulse + "0.4";
std::string object(unsigned n) {
  return fmt::format("{}1.3.{}.0", kIbpulse, n);
}

// An IbGuid as snmptrapd prints it.
std::string hex_guid(uint64_t guid) {
  return "Hex-STRING " + hex_octets(guid, 8);
}

// A subnet manager the test runs: opensm attached at `host`, with its own cache and logs.
class SubnetManager {
 public:
  SubnetManager(const std::string& host, unsigned priority) {
    static unsigned next = 0;
    dir_ = fabric().run_dir() / fmt::format("test-sm-{}", ++next);
    std::filesystem::create_directories(dir_);
    // -d0: ignore other SMs, as the fabric's own do; -s 0: no periodic sweeps.
    process_ = fabric().start_client(
        {"opensm", "-s", "0", "-d0", "-p", std::to_string(priority), "-f",
         (dir_ / "opensm.log").string()},
        dir_ / "opensm.out", {{"OSM_CACHE_DIR", dir_.string()}, {"OSM_TMP_DIR", dir_.string()}},
        host);
  }
  ~SubnetManager() { stop(); }
  SubnetManager(const SubnetManager&) = delete;
  SubnetManager& operator=(const SubnetManager&) = delete;

  bool master() const {
    return eventually(
        [&] {
          return read_text_file(dir_ / "opensm.out").find("Entering MASTER state") !=
                 std::string::npos;
        },
        30s);
  }
  void stop() {
    if (!stopped_) sim::terminate(process_, 5s);
    stopped_ = true;
  }
  std::string output() const { return read_text_file(dir_ / "opensm.out"); }

 private:
  std::filesystem::path dir_;
  sim::ProcessRef process_;
  bool stopped_ = false;
};

// The master SM `sminfo` finds: {LID, GUID}; {0, 0} when none answers.
std::pair<unsigned, uint64_t> sminfo() {
  const auto run = fabric().exec({"sminfo"});
  std::smatch m;
  static const std::regex kLine(R"(sm lid (\d+) sm guid 0x([0-9a-f]+),.* state 3 SMINFO_MASTER)");
  if (run.exit_code != 0 || !std::regex_search(run.out, m, kLine)) return {0, 0};
  return {std::stoul(m[1]), std::stoull(m[2], nullptr, 16)};
}

// The ibpulseSmMasterChanged notifications received so far.
std::vector<TrapNotification> master_changes(Snmptrapd& trapd, size_t at_least) {
  std::vector<TrapNotification> got;
  eventually(
      [&] {
        got.clear();
        for (const auto& t : trapd.wait_for(trapd.notifications().size() + 1, 200ms))
          if (t.trap_oid == kMasterChanged) got.push_back(t);
        return got.size() >= at_least;
      },
      30s);
  return got;
}

TEST(SmMaster, ALostMasterAndTheNextOneAreNotifiedWithEveryObject) {
  auto trapd = Snmptrapd::start();
  ASSERT_TRUE(trapd);
  SubnetManager first("Switch1", 1);
  ASSERT_TRUE(first.master()) << first.output();
  const auto [first_lid, first_guid] = sminfo();
  ASSERT_NE(first_guid, 0u);
  const PortInfo& switch1 = fabric().port("Switch1", 1);
  Daemon d(fabric(),
           {"--snmp.trap-sink", trapd->address(), "--sm.traps", "none", "--poll.port-info-interval",
            "500ms", "--state.save-interval", "off", "--discovery.interval", "1h"});
  // The first master seen is logged, not sent.
  ASSERT_TRUE(d.wait_for(fmt::format("event=sm_master_seen subnet_prefix=0xfe80000000000000 "
                                     "sm_guid={:#018x}",
                                     first_guid),
                         30s))
      << d.log();
  first.stop();
  const auto lost = master_changes(*trapd, 1);
  ASSERT_EQ(lost.size(), 1u) << trapd->output() << d.log();
  const TrapNotification& l = lost[0];
  EXPECT_EQ(l.varbinds.size(), 10u) << trapd->output();  // sysUpTime, snmpTrapOID, 8 objects
  EXPECT_EQ(l.value_of(object(12)), hex_guid(0xfe80000000000000));
  EXPECT_EQ(l.value_of(object(13)), hex_guid(0)) << "no master";
  EXPECT_EQ(l.value_of(object(14)), fmt::format("Gauge32 {}", first_lid)) << "the previous's";
  EXPECT_EQ(l.value_of(object(15)), "Gauge32 0");
  EXPECT_EQ(l.value_of(object(16)), "INTEGER 0");
  EXPECT_EQ(l.value_of(object(17)), hex_guid(first_guid));
  EXPECT_EQ(l.value_of(object(1)), fmt::format("STRING 0x{:016x}", switch1.node_guid));
  EXPECT_EQ(l.value_of(object(2)), "STRING Switch1");

  SubnetManager next("Hca2", 7);
  ASSERT_TRUE(next.master()) << next.output();
  const auto [next_lid, next_guid] = sminfo();
  ASSERT_NE(next_guid, 0u);
  ASSERT_NE(next_guid, first_guid);
  const auto changes = master_changes(*trapd, 2);
  ASSERT_EQ(changes.size(), 2u) << trapd->output() << d.log();
  const TrapNotification& n = changes[1];
  EXPECT_EQ(n.varbinds.size(), 10u) << trapd->output();
  EXPECT_EQ(n.value_of(object(12)), hex_guid(0xfe80000000000000));
  EXPECT_EQ(n.value_of(object(13)), hex_guid(next_guid));
  EXPECT_EQ(n.value_of(object(14)), fmt::format("Gauge32 {}", next_lid));
  EXPECT_EQ(next_lid, fabric().lid("Hca2", 1));
  EXPECT_EQ(n.value_of(object(15)), "Gauge32 7");
  EXPECT_EQ(n.value_of(object(16)), "INTEGER 3");
  EXPECT_EQ(n.value_of(object(17)), hex_guid(0)) << "none was told last";
  EXPECT_EQ(n.value_of(object(1)),
            fmt::format("STRING 0x{:016x}", fabric().port("Hca2", 1).node_guid));
  EXPECT_EQ(n.value_of(object(2)), "STRING Hca2");
  EXPECT_EQ(metric_value(http_get(d.web_port(), "/metrics"), "ibpulse_sm_master_changes_total"), 2);
  next.stop();
}

}  // namespace
}  // namespace ibpulse::testing

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new ibpulse::testing::SimFabricEnvironment({"--no-sm"}));
  return RUN_ALL_TESTS();
}
