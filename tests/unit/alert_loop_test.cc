// The daemon's alert thread on its own: woken by each published snapshot, it judges link health
// and publishes it under the snapshot's sequence, raises the rules' alerts (a link down on a
// port with a peer), and saves the health at stop.
#include "ibpulse/exporters/alerts/alert_loop.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

namespace ibpulse::exporters::alerts {
namespace {

using namespace std::chrono_literals;
using converters::Clock;

constexpr collector::PortKey kHca{0x11, 1}, kSwitch{0x50, 1};

// Two nodes linked port to port; `up` false: the link is down (both ends).
std::shared_ptr<const converters::FabricSnapshot> snapshot(uint64_t sequence, bool up) {
  auto topology = std::make_shared<collector::Topology>();
  topology->nodes = {
      {kHca.node_guid, collector::NodeKind::kCa, "h1", "h1", 1, 0, 1, {}, {}, {}},
      {kSwitch.node_guid, collector::NodeKind::kSwitch, "sw", "sw", 1, 0, 2, {}, {}, {}}};
  auto s = std::make_shared<converters::FabricSnapshot>();
  s->sequence = sequence;
  s->published = Clock::now();
  for (const auto& [key, peer] : {std::pair{kHca, kSwitch}, std::pair{kSwitch, kHca}}) {
    collector::Port p;
    p.key = key;
    p.remote = peer;
    p.lid = static_cast<uint16_t>(key.node_guid);
    p.link.state = up ? 4 : 1;
    p.link.phys_state = up ? 5 : 2;
    topology->ports.push_back(p);
    converters::PortSnapshot& row = s->ports.emplace_back();
    row.key = key;
    row.oper_status = up ? converters::OperStatus::kUp : converters::OperStatus::kDown;
    row.last_read = s->published;
  }
  s->topology = topology;
  return s;
}

// Polls the health store (no publish signal of its own) until it holds `sequence`'s health.
bool health_of(const HealthStore& healths, uint64_t sequence) {
  const auto until = Clock::now() + 10s;
  while (Clock::now() < until) {
    const auto h = healths.load();
    if (h && h->sequence == sequence) return true;
    std::this_thread::sleep_for(5ms);
  }
  return false;
}

TEST(AlertLoop, EachSnapshotIsJudgedAndItsAlertsRaisedAndTheHealthSavedAtStop) {
  const auto file = std::filesystem::temp_directory_path() /
                    ("ibpulse-alert-loop-" + std::to_string(::getpid()) + ".health");
  std::filesystem::remove(file);
  converters::SnapshotStore snapshots;
  HealthStore healths;
  AlertLoop loop(default_rules(), EngineOptions{}, HealthOptions{}, snapshots, healths, file);
  std::vector<AlertEvent> notified;
  std::mutex mutex;
  loop.set_notifier([&](AlertEvent e) {
    std::lock_guard lock(mutex);
    notified.push_back(std::move(e));
  });
  std::atomic<bool> stop{false};
  std::thread thread([&] { loop.run(stop); });
  snapshots.publish(snapshot(1, true));
  ASSERT_TRUE(health_of(healths, 1));
  EXPECT_EQ(loop.active_count(), 0u);
  snapshots.publish(snapshot(2, false));
  ASSERT_TRUE(health_of(healths, 2));
  const auto h = healths.load();
  EXPECT_EQ(h->ports.size(), 2u);
  EXPECT_EQ(h->links.size(), 1u) << "a link is two ports";
  stop = true;
  thread.join();
  EXPECT_GT(loop.active_count(), 0u) << "the link went down";
  {
    std::lock_guard lock(mutex);
    ASSERT_FALSE(notified.empty());
  }
  EXPECT_GT(std::filesystem::file_size(file), 0u) << "saved at stop";
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace ibpulse::exporters::alerts
