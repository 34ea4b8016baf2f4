// The daemon's converter thread on its own: samples pushed into a ring come out in a published
// snapshot, and a reader waiting on the store is woken by the publish; its state file carries
// a port's totals across a restart (a clear by another tool after it is then counted on top of
// them, not from zero).
#include "ibpulse/converters/convert_loop.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include "sample_builders.h"

namespace ibpulse::converters {
namespace {

using collector::RawSample;
using schema::Attribute;
using schema::CounterId;
using namespace std::chrono_literals;

const collector::PortKey kPort{0x0002c90300000001ull, 1};

RawSample xmit_data(uint64_t dwords, Clock::time_point at) {
  RawSample s = testing::sample(kPort, Attribute::kPortCounters, at);
  s.values[testing::field(Attribute::kPortCounters, "PortXmitData")] = dwords;
  return s;
}

// A ConvertLoop on its own thread, over one ring, until destroyed.
class RunningLoop {
 public:
  RunningLoop(const ConvertLoopOptions& options, SnapshotStore& store)
      : clears_(1, 16), loop_(options, {&ring_}, clears_, store) {
    loop_.set_topology(*testing::one_port_topology(kPort));
    thread_ = std::thread([this] { loop_.run(stop_); });
  }
  ~RunningLoop() {
    stop_ = true;
    thread_.join();
  }
  void push(const RawSample& s) { ASSERT_TRUE(ring_.push(s)); }
  ConvertLoop& loop() { return loop_; }

 private:
  collector::SampleRing ring_{64};
  collector::ClearRings clears_;
  ConvertLoop loop_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// The first published snapshot in which kPort's transmitted octets are `octets`, waiting on
// the store's publishes (null after 10 s without one).
std::shared_ptr<const FabricSnapshot> wait_for_octets(const SnapshotStore& store, uint64_t octets) {
  std::shared_ptr<const FabricSnapshot> seen;
  const auto until = Clock::now() + 10s;
  while (Clock::now() < until) {
    auto next = store.wait_for_newer(seen, 1s);
    if (!next) continue;
    const PortSnapshot* p = next->find(kPort);
    if (p != nullptr && p->has(CounterId::kXmitData) && p->total(CounterId::kXmitData) == octets)
      return next;
    seen = next;
  }
  return nullptr;
}

ConvertLoopOptions quick(std::filesystem::path state_dir = {}) {
  ConvertLoopOptions o;
  o.publish_interval = 10ms;
  o.state_dir = std::move(state_dir);
  return o;
}

TEST(ConvertLoop, SamplesFromTheRingArePublishedAndReadersWoken) {
  SnapshotStore store;
  RunningLoop loop(quick(), store);
  const auto t0 = Clock::now();
  loop.push(xmit_data(1000, t0));
  loop.push(xmit_data(1500, t0 + 1s));
  const auto snap = wait_for_octets(store, 6000);
  ASSERT_NE(snap, nullptr) << "PortXmitData counts 4-octet words";
  EXPECT_GT(snap->sequence, 0u) << "numbered in publishing order";
  EXPECT_EQ(store.wait_for_newer(nullptr, 0ms), store.load()) << "any snapshot is newer than none";
}

collector::SubnetManagerInfo manager(uint64_t guid, uint8_t subnet) {
  collector::SubnetManagerInfo sm;
  sm.node_guid = sm.info.guid = guid;
  sm.subnet = subnet;
  return sm;
}

// A daemon polling two subnets reads each one's SMs in rounds of its own: a round replaces
// that subnet's SMs only, and the snapshot counts each subnet's rounds.
TEST(ConvertLoop, ASubnetsRoundReplacesOnlyItsOwnSubnetManagers) {
  SnapshotStore store;
  RunningLoop loop(quick(), store);
  loop.loop().update_subnet_managers(0, {manager(0x10, 0)});
  loop.loop().update_subnet_managers(1, {manager(0x20, 1), manager(0x21, 1)});
  loop.loop().update_subnet_managers(0, {});  // subnet 0's SM did not answer
  const auto t0 = Clock::now();
  loop.push(xmit_data(1000, t0));
  loop.push(xmit_data(1500, t0 + 1s));
  std::shared_ptr<const FabricSnapshot> seen;
  const auto until = Clock::now() + 10s;
  while (Clock::now() < until) {
    auto next = store.wait_for_newer(seen, 1s);
    if (next) seen = next;
    if (seen && seen->subnet_managers && seen->subnet_managers->rounds.size() == 2 &&
        seen->subnet_managers->rounds[0] == 2)
      break;
  }
  ASSERT_TRUE(seen && seen->subnet_managers);
  EXPECT_EQ(seen->subnet_managers->rounds, (std::vector<uint64_t>{2, 1}));
  std::vector<uint64_t> guids;
  for (const auto& sm : seen->subnet_managers->managers)
    guids.push_back(sm.info.guid);
  EXPECT_EQ(guids, (std::vector<uint64_t>{0x20, 0x21}));
}

TEST(ConvertLoop, TheStateFileCarriesTotalsAcrossARestart) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("ibpulse-convert-loop-" + std::to_string(::getpid()) + "-" +
                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto t0 = Clock::now();
  {
    SnapshotStore store;
    RunningLoop first(quick(dir), store);
    first.push(xmit_data(1000, t0));
    first.push(xmit_data(1500, t0 + 1s));
    ASSERT_NE(wait_for_octets(store, 6000), nullptr);
  }  // stopped: saved
  ASSERT_TRUE(std::filesystem::exists(dir / "counters.state"));
  SnapshotStore store;
  RunningLoop second(quick(dir), store);
  // Another tool cleared the counter meanwhile: 10 words since, on top of the 1,500 saved.
  second.push(xmit_data(10, t0 + 2s));
  EXPECT_NE(wait_for_octets(store, 6040), nullptr);
  std::filesystem::remove_all(dir);
}

TEST(ConvertLoop, WithoutAStateFileARestartStartsFromTheReading) {
  SnapshotStore store;
  RunningLoop loop(quick(), store);
  loop.push(xmit_data(10, Clock::now()));
  EXPECT_NE(wait_for_octets(store, 40), nullptr);
}

}  // namespace
}  // namespace ibpulse::converters
