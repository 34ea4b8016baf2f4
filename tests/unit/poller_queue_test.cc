// The poller's clear queue (clear_queue.h) and what a PortInfo refresh means (port_info.h), on
// their own: without an engine or a fabric.
#include <gtest/gtest.h>

#include "clear_queue.h"
#include "port_info.h"

namespace ibpulse::collector {
namespace {

using schema::Attribute;

const PortKey kRead{0x1111, 1};
const PortKey kNotRead{0x2222, 1};

bool reads_port_counters(PortKey port, Attribute attribute) {
  return port == kRead && attribute == Attribute::kPortCounters;
}

TEST(ClearQueue, MergesRequestsForTheSameReadAndDropsOnesNoReadServes) {
  ClearRing ring(8);
  ring.push({kRead, Attribute::kPortCounters, 0b001});
  ring.push({kNotRead, Attribute::kPortCounters, 0b010});       // another poller's port
  ring.push({kRead, Attribute::kPortCountersExtended, 0b100});  // an attribute not read
  ring.push({kRead, Attribute::kPortCounters, 0b100});
  ClearQueue queue;
  queue.take(ring, reads_port_counters);
  EXPECT_TRUE(ring.empty());
  EXPECT_EQ(queue.size(), 1u);
  EXPECT_EQ(queue.due(kNotRead, Attribute::kPortCounters), 0u);
  EXPECT_EQ(queue.due(kRead, Attribute::kPortCounters), 0b101u);
  EXPECT_EQ(queue.due(kRead, Attribute::kPortCounters), 0u) << "sent once";
  EXPECT_TRUE(queue.empty());
}

TEST(ClearQueue, KeepsOnlyTheClearsTheNewPlansStillRead) {
  ClearRing ring(8);
  ring.push({kRead, Attribute::kPortCounters, 0b1});
  ring.push({kRead, Attribute::kPortCountersExtended, 0b1});
  ClearQueue queue;
  queue.take(ring, [](PortKey, Attribute) { return true; });
  ASSERT_EQ(queue.size(), 2u);
  queue.keep_only(reads_port_counters);  // the port is read through PortCounters only now
  EXPECT_EQ(queue.size(), 1u);
  EXPECT_EQ(queue.due(kRead, Attribute::kPortCountersExtended), 0u);
  EXPECT_EQ(queue.due(kRead, Attribute::kPortCounters), 0b1u);
}

LinkState link(uint8_t state, uint8_t width = 2, uint8_t speed = 1) {
  LinkState l;
  l.state = state;
  l.width_active = width;
  l.speed_active = speed;
  return l;
}

TEST(LinkChange, ComingUpAsksTheLayoutAndDiscoveryGoingDownOnlyDiscovery) {
  const LinkChange up = link_change(link(1), link(4));  // Down -> Active
  EXPECT_TRUE(up.changed);
  EXPECT_TRUE(up.rediscover);
  EXPECT_TRUE(up.ask_layout);
  const LinkChange down = link_change(link(4), link(1));
  EXPECT_TRUE(down.changed);
  EXPECT_TRUE(down.rediscover);
  EXPECT_FALSE(down.ask_layout);
}

TEST(LinkChange, AWidthChangeOnAnActiveLinkIsReportedWithoutRediscovery) {
  const LinkChange narrower = link_change(link(4, 2), link(4, 1));  // 4X -> 1X
  EXPECT_TRUE(narrower.changed);
  EXPECT_FALSE(narrower.rediscover);
  EXPECT_FALSE(narrower.ask_layout);
  const LinkChange same = link_change(link(4), link(4));
  EXPECT_FALSE(same.changed);
  EXPECT_FALSE(same.rediscover);
  // Init -> Armed: neither end is Active, the peer is the same.
  EXPECT_FALSE(link_change(link(2), link(3)).rediscover);
}

}  // namespace
}  // namespace ibpulse::collector
