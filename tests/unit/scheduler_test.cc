// The scheduler without a fabric: spreading, re-arming on completion, lateness, topology
// changes that keep the schedule of ports that stayed.
#include "scheduler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

namespace ibpulse::collector {
namespace {

using namespace std::chrono_literals;
using Clock = Scheduler::Clock;

Topology fabric(unsigned switches, unsigned ports_each, bool linked = true) {
  Topology t;
  for (unsigned s = 0; s < switches; ++s) {
    const uint64_t guid = 0x1000 + s;
    t.nodes.push_back(Node{guid,
                           NodeKind::kSwitch,
                           "sw",
                           "sw",
                           static_cast<uint8_t>(ports_each),
                           guid,
                           1,
                           {},
                           {},
                           {}});
    for (unsigned p = 1; p <= ports_each; ++p) {
      Port port;
      port.key = {guid, static_cast<uint8_t>(p)};
      port.lid = static_cast<uint16_t>(s + 1);
      if (linked) port.remote = PortKey{0x9999, 1};
      t.ports.push_back(port);
    }
  }
  return t;
}

Intervals intervals(std::chrono::milliseconds port_info = 0ms) {
  return Intervals{1000ms, 10000ms, 60000ms, port_info};
}

TEST(Scheduler, SpreadsFirstReadsOverTheIntervalAndInterleavesNodes) {
  Scheduler s(intervals());
  const auto t0 = Clock::now();
  s.update(fabric(4, 8), t0);
  EXPECT_EQ(s.items(), 4u * 8 * 2);  // counters + details per linked port
  std::vector<Scheduler::Item> first_quarter;
  for (auto& item : s.take_due(t0 + 249ms)) {
    if (item.group == Group::kCounters) first_quarter.push_back(item);
  }
  // 32 counter items over 1 s: a quarter of them in the first quarter second.
  EXPECT_EQ(first_quarter.size(), 8u);
  std::set<uint64_t> nodes;
  for (const auto& item : first_quarter)
    nodes.insert(item.port.node_guid);
  EXPECT_EQ(nodes.size(), 4u) << "consecutive reads go to different nodes";
}

TEST(Scheduler, ReadsANodesPortsInRunsWithNodesTakingTurnsInTopologyOrder) {
  Scheduler s(intervals());
  s.set_node_run(4);
  const auto t0 = Clock::now();
  Topology t = fabric(3, 8);
  // Topology order is not GUID order: the first switch listed last.
  std::rotate(t.ports.begin(), t.ports.begin() + 8, t.ports.end());
  s.update(t, t0);
  std::vector<std::pair<uint64_t, unsigned>> order;
  for (const auto& item : s.take_due(t0 + 999ms)) {
    if (item.group == Group::kCounters) order.emplace_back(item.port.node_guid, item.port.port);
  }
  std::vector<std::pair<uint64_t, unsigned>> expected;
  for (unsigned run = 0; run < 2; ++run) {
    for (const uint64_t node : {0x1001u, 0x1002u, 0x1000u}) {
      for (unsigned p = 1; p <= 4; ++p)
        expected.emplace_back(node, run * 4 + p);
    }
  }
  EXPECT_EQ(order, expected);
}

TEST(Scheduler, AnItemComesBackOnlyAfterItsReadsCompleted) {
  Scheduler s(intervals());
  const auto t0 = Clock::now();
  s.update(fabric(1, 1), t0);
  auto due = s.take_due(t0 + 10s);
  ASSERT_EQ(due.size(), 2u);
  EXPECT_TRUE(s.take_due(t0 + 100s).empty()) << "not due again before done()";
  // Completed in time: next due one interval after its last due time.
  const Scheduler::Item counters = due[0].group == Group::kCounters ? due[0] : due[1];
  EXPECT_FALSE(s.done(counters, t0 + 500ms));
  EXPECT_TRUE(s.take_due(t0 + 999ms).empty());
  const auto again = s.take_due(t0 + 1000ms);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_FALSE(s.done(counters, t0 + 1s)) << "an item completes once per take";
  // Completed late: due again at once, not bunched with missed rounds.
  EXPECT_TRUE(s.done(again[0], t0 + 5s));
  EXPECT_EQ(s.take_due(t0 + 5s).size(), 1u);
}

TEST(Scheduler, PortsWithoutALinkArePolledSlowly) {
  Scheduler s(intervals());
  const auto t0 = Clock::now();
  s.update(fabric(1, 2, false), t0);
  const auto due = s.take_due(t0 + 1h);
  ASSERT_EQ(due.size(), 2u);
  for (const auto& item : due)
    EXPECT_EQ(item.group, Group::kIdle);
  s.done(due[0], t0 + 1s);
  EXPECT_TRUE(s.take_due(t0 + 59s).empty());
  EXPECT_EQ(s.take_due(t0 + 60s).size(), 1u);
}

// Thousands of items, taken a few at a time as the poller does: every one comes out once (in
// due order as far as next_due() shows), and a port that left and came back (a freed slot reused,
// its old heap entry stale) is read once, not twice; an item taken before its port left completes
// as dropped.
TEST(Scheduler, EveryItemComesOutOnceAcrossPortsLeavingAndComingBack) {
  Scheduler s(intervals());
  const auto t0 = Clock::now();
  const Topology all = fabric(40, 50);  // 2,000 ports, 4,000 items
  s.update(all, t0);
  auto early = s.take_due(t0 + 1ms);
  ASSERT_FALSE(early.empty());
  Topology fewer = all;
  fewer.ports.erase(fewer.ports.begin(), fewer.ports.begin() + 500);
  s.update(fewer, t0 + 2ms);  // 500 ports gone: 1,000 heap entries stale
  for (const auto& item : early) {
    ASSERT_LT(item.port_index, 500u) << "the first due are port 1 of the first nodes";
    EXPECT_FALSE(s.done(item, t0 + 3ms)) << "its port left: the item was dropped";
  }
  s.update(all, t0 + 4ms);  // back: new items in the freed slots
  EXPECT_EQ(s.items(), 4000u);
  std::map<std::pair<PortKey, Group>, int> seen;
  std::vector<Scheduler::Item> batch;
  auto last_due = t0;
  for (auto at = t0 + 5ms; at <= t0 + 11s; at += 5ms) {
    batch.clear();
    s.take_due(at, batch, 7);
    while (!batch.empty()) {
      for (const auto& item : batch)
        ++seen[{item.port, item.group}];
      batch.clear();
      s.take_due(at, batch, 7);
    }
    if (const auto next = s.next_due()) {
      EXPECT_GE(*next, last_due) << "due times come out in order";
      last_due = *next;
    }
  }
  // Never done(), so each comes out once: the 1,000 of the ports that came back too.
  EXPECT_EQ(seen.size(), 4000u);
  for (const auto& [key, n] : seen)
    EXPECT_EQ(n, 1) << key.first.node_guid << ":" << int(key.first.port);
}

// Late items are due again at the moment they completed: completed in a shuffled order, they
// come out in the order of those moments, whatever the heap did in between.
TEST(Scheduler, ItemsComeOutInTheOrderTheyBecameDue) {
  Scheduler s(intervals());
  const auto t0 = Clock::now();
  s.update(fabric(30, 40), t0);  // 2,400 items
  const auto late = t0 + 1h;
  auto items = s.take_due(late);
  ASSERT_EQ(items.size(), 2400u);
  std::vector<size_t> order(items.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = (i * 7919) % order.size();  // a permutation: 7919 is prime to 2,400
  std::map<std::pair<PortKey, Group>, size_t> due_rank;
  for (size_t i = 0; i < items.size(); ++i) {
    EXPECT_TRUE(s.done(items[i], late + std::chrono::milliseconds(order[i])));
    due_rank[{items[i].port, items[i].group}] = order[i];
  }
  std::vector<Scheduler::Item> again;
  for (auto at = late; again.size() < items.size() && at < late + 3s; at += 100ms) {
    for (size_t before = SIZE_MAX; before != again.size();) {
      before = again.size();
      s.take_due(at, again, 5);  // a few at a time, as the poller takes them
    }
  }
  ASSERT_EQ(again.size(), items.size());
  for (size_t i = 0; i < again.size(); ++i)
    EXPECT_EQ((due_rank[{again[i].port, again[i].group}]), i);
}

TEST(Scheduler, RediscoveryKeepsTheScheduleOfPortsThatStayed) {
  Scheduler s(intervals());
  const auto t0 = Clock::now();
  auto before = fabric(2, 2);
  s.update(before, t0);
  auto after = before;
  after.ports.pop_back();         // a port gone
  after.ports[0].remote.reset();  // a link down: moves to the idle group
  s.update(after, t0 + 100ms);
  EXPECT_EQ(s.items(), 2u * 2 + 1);  // two linked ports x 2 groups, one idle
  std::map<Group, int> groups;
  for (const auto& item : s.take_due(t0 + 2h))
    groups[item.group]++;
  EXPECT_EQ(groups[Group::kCounters], 2);
  EXPECT_EQ(groups[Group::kDetails], 2);
  EXPECT_EQ(groups[Group::kIdle], 1);
}

TEST(Scheduler, ItemsCarryTheirPortIndexAcrossRediscoveries) {
  Scheduler s(intervals());
  const auto t0 = Clock::now();
  auto before = fabric(2, 2);
  s.update(before, t0);
  auto after = before;
  after.ports.erase(after.ports.begin());  // every other port moves down one index
  s.update(after, t0);
  const auto due = s.take_due(t0 + 2h);
  ASSERT_EQ(due.size(), 3u * 2);
  for (const auto& item : due) {
    ASSERT_LT(item.port_index, after.ports.size());
    EXPECT_EQ(after.ports[item.port_index].key, item.port);
  }
}

TEST(Scheduler, SwitchPort0IsReadWithTheCounters) {
  Scheduler s(intervals());
  auto t = fabric(1, 1);
  Port port0;
  port0.key = {0x1000, 0};
  port0.lid = 1;
  t.ports.insert(t.ports.begin(), port0);
  s.update(t, Clock::now());
  std::map<Group, int> groups;
  for (const auto& item : s.take_due(Clock::now() + 2h)) {
    if (item.port.port == 0) groups[item.group]++;
  }
  EXPECT_EQ(groups[Group::kCounters], 1);
  EXPECT_EQ(groups.size(), 1u) << "no details, and not idle although it has no peer";
}

TEST(Scheduler, PortInfoIsReadForLinkedAndUnlinkedPortsUntilSwitchedOff) {
  Scheduler s(intervals(5s));
  const auto t0 = Clock::now();
  auto t = fabric(1, 2);
  t.ports[1].remote.reset();
  s.update(t, t0);
  EXPECT_EQ(s.items(), 2u + 1 + 2) << "counters+details, idle, and PortInfo for both";
  auto due = s.take_due(t0 + 1h);
  std::vector<Scheduler::Item> port_info;
  for (const auto& item : due) {
    if (item.group == Group::kPortInfo) port_info.push_back(item);
  }
  ASSERT_EQ(port_info.size(), 2u);
  s.done(port_info[0], t0 + 1h);
  EXPECT_EQ(s.take_due(t0 + 1h + 5s).size(), 1u);
  s.set_intervals(intervals(0ms));  // off: items retire when their reads complete
  s.done(port_info[1], t0 + 1h);
  EXPECT_TRUE(s.take_due(t0 + 2h).empty());
  EXPECT_EQ(s.items(), 2u + 1 + 1);
}

TEST(Scheduler, PortsWithoutALidAreNotPolled) {
  Scheduler s(intervals());
  auto t = fabric(1, 1);
  t.ports[0].lid = 0;
  s.update(t, Clock::now());
  EXPECT_EQ(s.items(), 0u);
}

}  // namespace
}  // namespace ibpulse::collector
