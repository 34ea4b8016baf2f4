// Collector pieces that need no fabric: the node-name map, topology diffs, ClassPortInfo and
// capability gating, MAD encoding and status handling.
#include <gtest/gtest.h>

#include "../../collector/src/mad_codec.h"
#include "ibpulse/collector/discovery.h"
#include "ibpulse/collector/pma.h"
#include "ibpulse/collector/topology.h"

namespace ibpulse::collector {
namespace {

TEST(NodeNameMap, ReadsInfinibandDiagsFormat) {
  auto names = parse_node_name_map(
      "# comment\n"
      "0x0002c90300a1b2c3 \"node01 mlx5_0\"\n"
      "\n"
      "  0X0000000000200000   \"leaf-01\"  # trailing comment is part of the line\n",
      "map");
  ASSERT_TRUE(names.ok()) << names.error();
  EXPECT_EQ(names->at(0x0002c90300a1b2c3), "node01 mlx5_0");
  EXPECT_EQ(names->at(0x200000), "leaf-01");
}

TEST(NodeNameMap, ReportsFileAndLine) {
  auto bad = parse_node_name_map("0x1 \"ok\"\nzz \"x\"\n", "/etc/map");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("/etc/map:2"), std::string::npos) << bad.error();
  EXPECT_FALSE(parse_node_name_map("0x1 unquoted\n", "m").ok());
}

Topology two_ports(uint16_t lid, bool linked) {
  Topology t;
  t.nodes = {Node{0x10, NodeKind::kCa, "a", "a", 1, 0x10, lid, {}, {}, {}},
             Node{0x20, NodeKind::kSwitch, "s", "s", 1, 0x20, 1, {}, {}, {}}};
  Port a;
  a.key = {0x10, 1};
  a.lid = lid;
  Port s;
  s.key = {0x20, 1};
  s.lid = 1;
  if (linked) {
    a.remote = s.key;
    s.remote = a.key;
  }
  t.ports = {a, s};
  return t;
}

TEST(Topology, DiffReportsLinksAndLidChanges) {
  const auto before = two_ports(5, true);
  EXPECT_TRUE(diff(before, before).empty());
  const auto down = diff(before, two_ports(5, false));
  EXPECT_EQ(down.links_down.size(), 2u);
  EXPECT_TRUE(down.links_up.empty());
  const auto moved = diff(before, two_ports(9, true));
  ASSERT_EQ(moved.lid_changes.size(), 1u);
  EXPECT_EQ(moved.lid_changes[0].before, 5);
  EXPECT_EQ(moved.lid_changes[0].after, 9);
  Topology smaller = before;
  smaller.nodes.pop_back();
  smaller.ports.pop_back();
  EXPECT_EQ(diff(before, smaller).nodes_removed, std::vector<uint64_t>{0x20});
  EXPECT_EQ(guid_string(0x2c9), "0x00000000000002c9");
}

TEST(Pma, ClassPortInfoGatesFields) {
  uint8_t data[192] = {};
  data[2] = 0x10;      // CapabilityMask 0x1000: PortXmitWait only
  data[7] = 0x2 << 5;  // CapabilityMask2 bit 1 (top 27 bits of bytes 4-7)
  const auto caps = decode_class_port_info(data);
  EXPECT_EQ(caps.capability_mask, 0x1000);
  EXPECT_EQ(caps.capability_mask2, 0x2u);
  EXPECT_TRUE(caps.xmit_wait());
  EXPECT_TRUE(caps.additional_extended());
  EXPECT_FALSE(caps.extended_width()) << "0x1000 has neither 0x200 nor 0x400";
  const auto ext = schema::find_field(schema::Attribute::kPortCountersExtended, "PortXmitData");
  EXPECT_FALSE(supports(caps, *ext));
  data[2] = 0x14;  // + 0x400 (IsExtendedWidthSupportedNoIETF): only the four data counters
  const auto no_ietf = decode_class_port_info(data);
  EXPECT_TRUE(supports(no_ietf, *ext));
  EXPECT_FALSE(supports(no_ietf, *schema::find_field(schema::Attribute::kPortCountersExtended,
                                                     "PortUnicastXmitPkts")));
}

// ClassPortInfo CapabilityMask bit 14 (IsPMRSFECCountersSupported, libibmad's
// IS_PM_RSFEC_COUNTERS_SUP): the first of the checks perfquery makes before it decodes
// PortExtendedSpeedsCounters in its RS-FEC layout. ibsim's PMAs (0x1200, 0x1300) lack it.
TEST(Pma, ClassPortInfoSaysWhetherRsFecCountersExist) {
  uint8_t data[192] = {};
  data[2] = 0x13;  // ibsim's switch PMA: 0x1300
  EXPECT_FALSE(decode_class_port_info(data).rs_fec_counters());
  data[2] = 0x40;
  EXPECT_TRUE(decode_class_port_info(data).rs_fec_counters());
  data[2] = 0xbf;  // every other bit of the high byte
  data[3] = 0xff;
  EXPECT_FALSE(decode_class_port_info(data).rs_fec_counters());
}

TEST(MadCodec, EncodesAGmpAndMatchesTheLow32BitsOfTheTid) {
  MadRequest r = pma_get(schema::Attribute::kPortCounters, 7, 3, 0, 0);
  uint8_t mad[kMadSize];
  encode_request(mad, r, 0xA1B2C3D4);
  EXPECT_EQ(mad[0], 1);     // base version
  EXPECT_EQ(mad[1], 0x04);  // performance management class
  EXPECT_EQ(mad[3], 0x01);  // Get
  EXPECT_EQ(mad[17], 0x12);
  EXPECT_EQ(mad[kMadDataOffset + 1], 3) << "PortSelect";
  mad[8] = 0xFF;  // the kernel / umad2sim own the high 32 bits
  mad[3] = 0x81;
  const auto reply = decode_reply(mad);
  EXPECT_EQ(reply.tid, 0xA1B2C3D4u);
  EXPECT_EQ(reply.attribute, 0x12);
  EXPECT_EQ(classify_status(0x0000), MadStatusKind::kOk);
  EXPECT_EQ(classify_status(0x0001), MadStatusKind::kBusy);
  EXPECT_EQ(classify_status(0x0002), MadStatusKind::kRedirect);
  EXPECT_EQ(classify_status(0x000C), MadStatusKind::kError) << "unsupported method/attribute";
  EXPECT_EQ(classify_status(0x001C), MadStatusKind::kError) << "invalid attribute or modifier";
}

// The engine's pool keeps requests packed: what it sends must be the request's MAD, byte for
// byte, whether its data fits in the packed part (a GET) or goes on past it (a SET, an SMP).
TEST(MadCodec, APackedRequestEncodesToTheSameMad) {
  MadRequest get = pma_get(schema::Attribute::kPortCountersExtended, 9, 5, 0, 0);
  get.cookie = 42;
  MadRequest set = get;
  set.method = MadMethod::kSet;
  set.data[2] = 0xFF;  // CounterSelect
  set.data[kPackedData] = 0x5A;
  set.data[kMadDataSize - 1] = 0xA5;
  MadRequest smp = get;
  smp.mgmt_class = MadClass::kSubnetLid;
  smp.m_key = 0x0123456789ABCDEFull;
  for (const MadRequest& r : {get, set, smp}) {
    const bool tail = has_data_tail(r);
    DataTail kept{};
    std::copy(r.data.begin() + kPackedData, r.data.end(), kept.begin());
    const PackedRequest packed = pack(r, tail ? 0 : kNoTail);
    EXPECT_EQ(packed.cookie, 42u);
    EXPECT_EQ(packed.node, r.node);
    EXPECT_EQ(packed.lid, r.lid);
    uint8_t want[kMadSize];
    uint8_t got[kMadSize];
    encode_request(want, r, 0x01020304);
    encode_packed(got, packed, tail ? &kept : nullptr, 0x01020304);
    EXPECT_EQ(std::vector<uint8_t>(got, got + kMadSize),
              std::vector<uint8_t>(want, want + kMadSize));
  }
  EXPECT_TRUE(has_data_tail(set));
  EXPECT_FALSE(has_data_tail(get));
}

}  // namespace
}  // namespace ibpulse::collector
