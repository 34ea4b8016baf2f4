#include "ibpulse/collector/link_capability.h"

#include <gtest/gtest.h>

namespace ibpulse::collector {
namespace {

// A 4X/12X-capable EDR port, trained at 4X EDR and Active.
LinkState edr_4x() {
  LinkState l;
  l.state = 4;
  l.width_supported = l.width_enabled = 1 | 2 | 8;  // 1X, 4X, 12X
  l.width_active = 2;
  l.speed_supported = l.speed_enabled = 1 | 2 | 4;  // SDR..QDR
  l.speed_active = 4;
  l.speed_ext_supported = l.speed_ext_enabled = 1 | 2;  // FDR, EDR
  l.speed_ext_active = 2;
  return l;
}

TEST(LinkCapability, FullWidthAndSpeedIsNotDegraded) {
  LinkState peer = edr_4x();
  peer.width_supported = peer.width_enabled = 1 | 2;  // the peer stops at 4X
  const auto c = link_capability(edr_4x(), peer);
  EXPECT_EQ(c.active_lanes, 4u);
  EXPECT_EQ(c.expected_lanes, 4u);
  EXPECT_EQ(c.active_speed, 5u);  // EDR
  EXPECT_EQ(c.expected_speed, 5u);
  EXPECT_FALSE(c.degraded());
}

TEST(LinkCapability, FourXRunningAtOneXIsDegradedInWidth) {
  LinkState port = edr_4x();
  LinkState peer = edr_4x();
  peer.width_supported = peer.width_enabled = 1 | 2;
  port.width_active = 1;
  const auto c = link_capability(port, peer);
  EXPECT_EQ(c.active_lanes, 1u);
  EXPECT_EQ(c.expected_lanes, 4u);
  EXPECT_TRUE(c.width_degraded());
  EXPECT_FALSE(c.speed_degraded());
}

TEST(LinkCapability, EdrRunningAtFdrOrQdrIsDegradedInSpeed) {
  LinkState port = edr_4x();
  port.width_active = 8;  // 12X: both ends can
  port.speed_ext_active = 1;
  EXPECT_TRUE(link_capability(port, edr_4x()).speed_degraded());
  EXPECT_FALSE(link_capability(port, edr_4x()).width_degraded());
  port.speed_ext_active = 0;  // extended speeds not in use: QDR
  EXPECT_EQ(link_capability(port, edr_4x()).active_speed, 3u);
  EXPECT_TRUE(link_capability(port, edr_4x()).speed_degraded());
}

TEST(LinkCapability, WhatOneEndDisablesIsNotExpected) {
  LinkState port = edr_4x();
  LinkState peer = edr_4x();
  port.speed_ext_active = 1;   // FDR
  peer.speed_ext_enabled = 1;  // the peer enables FDR only
  port.width_active = 2;       // 4X
  peer.width_enabled = 1 | 2;  // 12X supported but not enabled
  EXPECT_FALSE(link_capability(port, peer).degraded());
  peer.speed_ext_enabled = 30;  // "extended speeds disabled": QDR is the best
  port.speed_ext_active = 0;
  EXPECT_EQ(link_capability(port, peer).expected_speed, 3u);
  EXPECT_FALSE(link_capability(port, peer).degraded());
}

TEST(LinkCapability, OnlyActiveLinksAreJudged) {
  LinkState port = edr_4x();
  port.width_active = 1;
  port.state = 2;  // Init
  EXPECT_FALSE(link_capability(port, edr_4x()).degraded());
  port.state = 4;
  port.width_active = 0;  // nothing reported
  EXPECT_FALSE(link_capability(port, edr_4x()).degraded());
}

TEST(LinkCapability, LooksThePeerUpInTheTopology) {
  Topology t;
  Port a;
  Port b;
  a.key = {0x10, 1};
  b.key = {0x20, 3};
  a.link = edr_4x();
  b.link = edr_4x();
  a.link.width_active = 1;
  a.remote = b.key;
  t.ports = {a, b};
  EXPECT_TRUE(link_capability(t, t.ports[0]).width_degraded());
  t.ports[0].remote.reset();
  EXPECT_FALSE(link_capability(t, t.ports[0]).degraded());
}

}  // namespace
}  // namespace ibpulse::collector
