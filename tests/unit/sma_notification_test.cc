// The varbinds of IB-SMA-MIB's notifications (the SNMP exporter's notification.h): sysUpTime.0,
// snmpTrapOID.0 = ibSmaNotificationPrefix.n, the trap's objects in its OBJECTS order, then
// IBPULSE-MIB's node GUID and name. 144 and 145 cannot be caused on the simulator: checked here,
// with the key violations (256-259) whose objects only the subnet manager's Notice holds.
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

Oid sma_object(uint32_t column) {
  return {1, 3, 6, 1, 3, 117, 3, 1, 1, column, 0};
}

collector::Gid gid(uint8_t last) {
  collector::Gid g{0xfe, 0x80};
  g[15] = last;
  return g;
}

std::string octets(const collector::Gid& g) {
  return std::string(reinterpret_cast<const char*>(g.data()), g.size());
}

// A Notice the subnet manager forwarded, as the alerts engine hands it on.
AlertEvent forwarded(uint16_t trap) {
  AlertEvent e = sma(trap);
  collector::SmNotice n;
  n.trap = trap;
  n.issuer_lid = 0x0042;
  n.lid = 0x1234;
  n.lid2 = 0x0567;
  n.key = 0x8001;
  n.sl = 5;
  n.qp1 = 0x123456;
  n.qp2 = 0x000789;
  n.gid1 = gid(1);
  n.gid2 = gid(2);
  n.switch_lid = 0x0003;
  n.port = 17;
  n.data_valid = 0x00c5;  // lidaddr1, pkey, gidaddr1, gidaddr2
  n.method = 0x02;
  n.attribute_id = 0x0015;
  n.attribute_modifier = 0x00010002;
  e.notice = n;
  return e;
}

TEST(SmaNotification, BadMKeyCarriesTheKeyAndTheRequestItGuarded) {
  AlertEvent e = forwarded(256);
  e.notice->key = 0x0123456789abcdef;
  const auto v = notification_varbinds(e, 0);
  ASSERT_EQ(v.size(), 9u);
  EXPECT_EQ(v[1].oid_value, (Oid{1, 3, 6, 1, 3, 117, 3, 2, 0, 7}));
  EXPECT_EQ(v[2].name, kLid);
  EXPECT_EQ(v[2].number, 0x1234u);
  EXPECT_EQ(v[3].name, sma_object(19));  // ibSmaNodeKey
  EXPECT_EQ(v[3].text, std::string("\x01\x23\x45\x67\x89\xab\xcd\xef", 8));
  EXPECT_EQ(v[4].name, sma_object(16));  // ibSmaNodeMethod
  EXPECT_EQ(v[4].number, 2u);
  EXPECT_EQ(v[5].name, sma_object(17));  // ibSmaNodeAttributeId
  EXPECT_EQ(v[5].number, 0x15u);
  EXPECT_EQ(v[6].name, sma_object(18));  // ibSmaNodeAttributeModifier
  EXPECT_EQ(v[6].number, 0x00010002u);
  EXPECT_EQ(v[7].text, "0x0002c90300000010");
}

TEST(SmaNotification, BadPKeyAndQKeyNameBothEndsOfThePacket) {
  for (const uint16_t trap : {uint16_t{257}, uint16_t{258}}) {
    const auto v = notification_varbinds(forwarded(trap), 0);
    ASSERT_EQ(v.size(), 12u) << trap;
    EXPECT_EQ(v[1].oid_value, (Oid{1, 3, 6, 1, 3, 117, 3, 2, 0, trap == 257 ? 8u : 9u}));
    EXPECT_EQ(v[2].name, sma_object(19));  // the key first: its OBJECTS order
    EXPECT_EQ(v[2].text, std::string("\0\0\0\0\0\0\x80\x01", 8));
    EXPECT_EQ(v[3].name, sma_object(14));
    EXPECT_EQ(v[3].number, 0x1234u);
    EXPECT_EQ(v[4].name, sma_object(24));  // ibSmaNodeGid1
    EXPECT_EQ(v[4].text, octets(gid(1)));
    EXPECT_EQ(v[5].name, sma_object(22));  // ibSmaNodeQueuePair1
    EXPECT_EQ(v[5].number, 0x123456u);
    EXPECT_EQ(v[6].name, sma_object(20));  // ibSmaNodeLid2
    EXPECT_EQ(v[6].number, 0x0567u);
    EXPECT_EQ(v[7].name, sma_object(25));  // ibSmaNodeGid2
    EXPECT_EQ(v[7].text, octets(gid(2)));
    EXPECT_EQ(v[8].name, sma_object(23));  // ibSmaNodeQueuePair2
    EXPECT_EQ(v[8].number, 0x789u);
    EXPECT_EQ(v[9].name, sma_object(21));  // ibSmaNodeServiceLevel
    EXPECT_EQ(v[9].number, 5u);
    EXPECT_EQ(v[9].type, VarType::kGauge32);
  }
}

TEST(SmaNotification, BadPKeyAtASwitchPortAddsTheSwitchThePortAndWhichFieldsHold) {
  const auto v = notification_varbinds(forwarded(259), 0);
  ASSERT_EQ(v.size(), 15u);
  EXPECT_EQ(v[1].oid_value, (Oid{1, 3, 6, 1, 3, 117, 3, 2, 0, 10}));
  EXPECT_EQ(v[10].name, sma_object(27));  // ibSmaNodeSwitchLid
  EXPECT_EQ(v[10].number, 3u);
  EXPECT_EQ(v[11].name, sma_object(15));  // ibSmaNodePortNum
  EXPECT_EQ(v[11].number, 17u);
  EXPECT_EQ(v[12].name, sma_object(28));  // ibSmaNodeDataValid: BITS, bit 0 the first octet's MSB
  EXPECT_EQ(v[12].type, VarType::kOctetString);
  EXPECT_EQ(v[12].text, std::string("\xa3", 1));  // lidaddr1(0), pkey(2), gidaddr1(6), gidaddr2(7)
  EXPECT_EQ(v[13].text, "0x0002c90300000010");
  EXPECT_EQ(v[14].text, "node07");
}

// IBPULSE-MIB's ibpulseSmMasterChanged: snmpTrapOID.0 = ibpulseNotifications.4, then the
// subnet, the master now and before, and the node's GUID and name (ibpulseNotificationObjects
// 12..17, 1, 2; instance 0).
Oid ibpulse_object(uint32_t n) {
  return {1, 3, 6, 1, 4, 1, 8072, 9999, 9999, 1, 3, n, 0};
}

TEST(SmMasterNotification, CarriesTheSubnetTheNewMasterAndThePreviousOne) {
  AlertEvent e;
  e.kind = EventKind::kSmMaster;
  e.port = {0x0002c90300000010, 1};
  e.node_name = "node07";
  e.lid = 4;
  e.subnet_prefix = 0xfe80000000000001;
  e.sm_guid = 0x0002c90300000011;
  e.previous_sm_guid = 0x0002c90300000001;
  e.sm_priority = 7;
  e.sm_state = 3;
  const auto v = notification_varbinds(e, 9);
  ASSERT_EQ(v.size(), 10u);
  EXPECT_EQ(v[1].oid_value, (Oid{1, 3, 6, 1, 4, 1, 8072, 9999, 9999, 0, 4}));
  EXPECT_EQ(v[2].name, ibpulse_object(12));
  EXPECT_EQ(v[2].type, VarType::kOctetString);
  EXPECT_EQ(v[2].text, std::string("\xfe\x80\x00\x00\x00\x00\x00\x01", 8));
  EXPECT_EQ(v[3].name, ibpulse_object(13));
  EXPECT_EQ(v[3].text, std::string("\x00\x02\xc9\x03\x00\x00\x00\x11", 8));
  EXPECT_EQ(v[4].name, ibpulse_object(14));
  EXPECT_EQ(v[4].type, VarType::kGauge32);
  EXPECT_EQ(v[4].number, 4u);
  EXPECT_EQ(v[5].name, ibpulse_object(15));
  EXPECT_EQ(v[5].number, 7u);
  EXPECT_EQ(v[6].name, ibpulse_object(16));
  EXPECT_EQ(v[6].type, VarType::kInteger);
  EXPECT_EQ(v[6].number, 3u);
  EXPECT_EQ(v[7].name, ibpulse_object(17));
  EXPECT_EQ(v[7].text, std::string("\x00\x02\xc9\x03\x00\x00\x00\x01", 8));
  EXPECT_EQ(v[8].name, ibpulse_object(1));
  EXPECT_EQ(v[8].text, "0x0002c90300000010");
  EXPECT_EQ(v[9].name, ibpulse_object(2));
  EXPECT_EQ(v[9].text, "node07");
}

}  // namespace
}  // namespace ibpulse::exporters::snmp::detail
