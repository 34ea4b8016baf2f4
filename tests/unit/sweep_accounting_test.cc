// The poller's sweep accounting on its own: a sweep counts each linked port once and ends with
// the last one's read, stale ports counted; a port read twice counts once; a sweep whose reads
// all came back undelivered says so (the local port is down); an abandoned sweep's late reads
// end nothing.
#include "sweep_accounting.h"

#include <gtest/gtest.h>

namespace ibpulse::collector {
namespace {

using namespace std::chrono_literals;
using Clock = SweepAccounting::Clock;

const Clock::time_point t0 = Clock::time_point{} + 1h;

// Switch 0x100 ports 0-3 (0 is no link; 3 is not cabled) and HCAs 0x201-0x202 on ports 1-2.
Topology fabric() {
  Topology t;
  const auto port = [&](uint64_t guid, uint8_t n, std::optional<PortKey> remote) {
    Port p;
    p.key = {guid, n};
    p.lid = 1;
    p.remote = remote;
    t.ports.push_back(p);
  };
  port(0x100, 0, std::nullopt);
  port(0x100, 1, PortKey{0x201, 1});
  port(0x100, 2, PortKey{0x202, 1});
  port(0x100, 3, std::nullopt);
  port(0x201, 1, PortKey{0x100, 1});
  port(0x202, 1, PortKey{0x100, 2});
  return t;
}

TEST(SweepAccounting, EachLinkedPortCountsOnceAndTheLastReadEndsTheSweep) {
  const Topology t = fabric();
  SweepAccounting s;
  const uint64_t first = s.count_read(t, 1, t0);
  ASSERT_EQ(first, 1u);
  EXPECT_EQ(s.count_read(t, 1, t0 + 1ms), 0u) << "read again: counts once";
  EXPECT_EQ(s.count_read(t, 2, t0), 1u);
  EXPECT_EQ(s.count_read(t, 4, t0), 1u);
  EXPECT_EQ(s.count_read(t, 5, t0), 1u);
  EXPECT_FALSE(s.completed(1, t.ports[1].key, MadFailure::kNone, t0 + 1s, 1s));
  EXPECT_FALSE(s.completed(1, t.ports[2].key, MadFailure::kTimeout, t0 + 1s, 1s));
  EXPECT_FALSE(s.completed(1, t.ports[4].key, MadFailure::kNone, t0 + 1s, 1s));
  const auto ended = s.completed(1, t.ports[5].key, MadFailure::kNone, t0 + 1500ms, 1s);
  ASSERT_TRUE(ended);
  EXPECT_EQ(ended->summary.number, 1u);
  EXPECT_EQ(ended->summary.ports, 4u) << "the four linked ports, not port 0 or 3";
  EXPECT_EQ(ended->summary.stale, 1u);
  EXPECT_DOUBLE_EQ(ended->summary.seconds, 1.5);
  EXPECT_DOUBLE_EQ(ended->summary.lag_seconds, 0.5) << "half a second past the interval";
  EXPECT_FALSE(ended->all_unreachable);
  EXPECT_EQ(s.count_read(t, 1, t0 + 2s), 2u) << "the next read starts the next sweep";
}

TEST(SweepAccounting, EveryReadUndeliveredBlamesTheLocalPort) {
  const Topology t = fabric();
  SweepAccounting s;
  for (const size_t i : {size_t{1}, size_t{2}, size_t{4}, size_t{5}})
    ASSERT_EQ(s.count_read(t, i, t0), 1u);
  std::optional<SweepAccounting::Ended> ended;
  for (const size_t i : {size_t{1}, size_t{2}, size_t{4}})
    EXPECT_FALSE(s.completed(1, t.ports[i].key, MadFailure::kUnreachable, t0, 1s));
  ended = s.completed(1, t.ports[5].key, MadFailure::kSendError, t0, 1s);
  ASSERT_TRUE(ended);
  EXPECT_TRUE(ended->all_unreachable);
  EXPECT_EQ(ended->summary.stale, 4u);
}

TEST(SweepAccounting, AnAbandonedSweepsReadsEndNothing) {
  const Topology t = fabric();
  SweepAccounting s;
  ASSERT_EQ(s.count_read(t, 1, t0), 1u);
  s.abandon();  // a discovery changed the ports
  EXPECT_FALSE(s.completed(1, t.ports[1].key, MadFailure::kNone, t0, 1s));
  EXPECT_FALSE(s.completed(0, t.ports[1].key, MadFailure::kNone, t0, 1s)) << "no sweep";
  EXPECT_EQ(s.count_read(t, 1, t0 + 1s), 2u) << "a new sweep, not the old one resumed";
  EXPECT_FALSE(s.completed(1, t.ports[1].key, MadFailure::kNone, t0, 1s)) << "old number";
}

}  // namespace
}  // namespace ibpulse::collector
