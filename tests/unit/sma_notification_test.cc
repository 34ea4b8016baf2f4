// The varbinds of IB-SMA-MIB's notifications (the SNMP exporter's notification.h): sysUpTime.0,
// snmpTrapOID.0 = ibSmaNotificationPrefix.n, the trap's objects in its OBJECTS order, then
// IBPULSE-MIB's node GUID and name. 144 and 145 cannot be caused on the simulator: checked here.
#include <gtest/gtest.h>

#include <string>

#include "notification.h"

namespace ibpulse::exporters::snmp::detail {
namespace {

using alerts::AlertEvent;
using alerts::EventKind;

AlertEvent sma(uint16_t trap) {
  AlertEvent e;
  e.kind = EventKind::kSma;
  e.sma_trap = trap;
  e.port = {0x0002c90300000010, 1};
  e.node_name = "node07";
  e.lid = 0x1234;
  return e;
}

const Oid kLid = {1, 3, 6, 1, 3, 117, 3, 1, 1, 14, 0};

TEST(SmaNotification, CapabilityMaskModifiedCarriesTheLidAndTheFourOctetMask) {
  AlertEvent e = sma(144);
  e.capability_mask = 0x0251c04a;
  const auto v = notification_varbinds(e, 42);
  ASSERT_EQ(v.size(), 6u);
  EXPECT_EQ(v[0].number, 42u);
  EXPECT_EQ(v[1].oid_value, (Oid{1, 3, 6, 1, 3, 117, 3, 2, 0, 5}));
  EXPECT_EQ(v[2].name, kLid);
  EXPECT_EQ(v[2].type, VarType::kGauge32);
  EXPECT_EQ(v[2].number, 0x1234u);
  EXPECT_EQ(v[3].name, (Oid{1, 3, 6, 1, 3, 117, 3, 1, 1, 26, 0}));  // ibSmaNodeCapMask
  EXPECT_EQ(v[3].text, std::string("\x02\x51\xc0\x4a", 4));
  EXPECT_EQ(v[4].text, "0x0002c90300000010");
  EXPECT_EQ(v[5].text, "node07");
}

TEST(SmaNotification, SystemImageGuidModifiedCarriesTheEightOctetGuid) {
  AlertEvent e = sma(145);
  e.system_image_guid = 0x0002c90300000abc;
  const auto v = notification_varbinds(e, 0);
  ASSERT_EQ(v.size(), 6u);
  EXPECT_EQ(v[1].oid_value, (Oid{1, 3, 6, 1, 3, 117, 3, 2, 0, 6}));
  EXPECT_EQ(v[3].name, (Oid{1, 3, 6, 1, 3, 117, 3, 1, 1, 6, 0}));  // ibSmaSystemImageGuid
  EXPECT_EQ(v[3].text, std::string("\x00\x02\xc9\x03\x00\x00\x0a\xbc", 8));
}

TEST(SmaNotification, EachTrapHasItsNotificationNumber) {
  const std::vector<std::pair<uint16_t, uint32_t>> numbers = {
      {128, 1}, {129, 2}, {130, 3}, {131, 4}, {144, 5},
      {145, 6}, {256, 7}, {257, 8}, {258, 9}, {259, 10}};
  for (const auto& [trap, n] : numbers) {
    const auto v = notification_varbinds(sma(trap), 0);
    EXPECT_EQ(v[1].oid_value, (Oid{1, 3, 6, 1, 3, 117, 3, 2, 0, n})) << trap;
    EXPECT_EQ(v[2].name, kLid) << trap;
  }
  // 129 to 131 name the port too.
  const auto integrity = notification_varbinds(sma(129), 0);
  ASSERT_EQ(integrity.size(), 6u);
  EXPECT_EQ(integrity[3].name, (Oid{1, 3, 6, 1, 3, 117, 3, 1, 1, 15, 0}));
  EXPECT_EQ(integrity[3].number, 1u);
}

}  // namespace
}  // namespace ibpulse::exporters::snmp::detail
