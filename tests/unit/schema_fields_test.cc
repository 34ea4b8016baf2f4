// The schema's layouts, checked against libibmad's field tables wherever libibmad has the
// field (and is right), on random attribute data.
#include <gtest/gtest.h>
#include <infiniband/mad.h>

#include <random>
#include <set>
#include <tuple>

#include "ibpulse/schema/fields.h"

namespace ibpulse::schema {
namespace {

struct Range {
  Attribute attribute = Attribute::kPortCounters;
  int first = 0;
  int last = 0;  // exclusive
  Layout layout = Layout::kStandard;
};

// libibmad's field ranges per attribute (rdma-core v44).
const Range kRanges[] = {
    {Attribute::kPortCounters, IB_PC_ERR_SYM_F, IB_PC_LAST_F},
    {Attribute::kPortCountersExtended, IB_PC_EXT_XMT_BYTES_F, IB_PC_EXT_LAST_F},
    {Attribute::kPortCountersExtended, IB_PC_EXT_ERR_SYM_F, IB_PC_EXT_ERR_LAST_F},
    {Attribute::kPortRcvErrorDetails, IB_PC_RCV_LOCAL_PHY_ERR_F, IB_PC_RCV_ERR_LAST_F},
    {Attribute::kPortXmitDiscardDetails, IB_PC_XMT_INACT_DISC_F, IB_PC_XMT_DISC_LAST_F},
    {Attribute::kPortOpRcvCounters, IB_PC_PORT_OP_RCV_PKTS_F, IB_PC_PORT_OP_RCV_COUNTERS_LAST_F},
    {Attribute::kPortFlowCtlCounters, IB_PC_PORT_XMIT_FLOW_PKTS_F,
     IB_PC_PORT_FLOW_CTL_COUNTERS_LAST_F},
    {Attribute::kPortVLOpPackets, IB_PC_PORT_VL_OP_PACKETS0_F, IB_PC_PORT_VL_OP_PACKETS_LAST_F},
    {Attribute::kPortVLOpData, IB_PC_PORT_VL_OP_DATA0_F, IB_PC_PORT_VL_OP_DATA_LAST_F},
    {Attribute::kPortVLXmitFlowCtlUpdateErrors, IB_PC_PORT_VL_XMIT_FLOW_CTL_UPDATE_ERRORS0_F,
     IB_PC_PORT_VL_XMIT_FLOW_CTL_UPDATE_ERRORS_LAST_F},
    {Attribute::kPortVLXmitWaitCounters, IB_PC_PORT_VL_XMIT_WAIT0_F,
     IB_PC_PORT_VL_XMIT_WAIT_COUNTERS_LAST_F},
    {Attribute::kPortExtendedSpeedsCounters, IB_PESC_SYNC_HDR_ERR_CTR_F, IB_PESC_LAST_F},
    {Attribute::kPortExtendedSpeedsCounters, IB_PESC_RSFEC_SYNC_HDR_ERR_CTR_F, IB_PESC_RSFEC_LAST_F,
     Layout::kRsFec},
};

TEST(SchemaFields, DecodeLikeLibibmadOnRandomData) {
  std::mt19937_64 rng(42);
  std::set<std::tuple<Attribute, Layout, std::string>> checked;
  for (int round = 0; round < 50; ++round) {
    uint8_t data[256];
    for (auto& b : data)
      b = static_cast<uint8_t>(rng());
    for (const Range& r : kRanges) {
      for (int f = r.first; f < r.last; ++f) {
        const std::string name = mad_field_name(static_cast<MAD_FIELDS>(f));
        if (name.find("Select") != std::string::npos) continue;  // masks, not counters
        auto field = find_field(r.attribute, name, r.layout);
        ASSERT_TRUE(field.has_value()) << "schema lacks " << name;
        uint64_t expected = 0;
        mad_decode_field(data, static_cast<MAD_FIELDS>(f), &expected);
        EXPECT_EQ(extract_bits(data, field->bit_offset, field->width), expected) << name;
        checked.insert({r.attribute, r.layout, name});
      }
    }
  }
  // Every schema field was checked, except QP1Dropped of PortCounters, which libibmad v44
  // reads from VL15Dropped's bytes (its IB_PC_QP1_DROP_F entry has VL15Dropped's offset).
  for (const Field& f : all_fields()) {
    if (f.attribute == Attribute::kPortCounters && f.name == "QP1Dropped") continue;
    EXPECT_TRUE(checked.count({f.attribute, f.layout, std::string(f.name)})) << f.name;
  }
}

TEST(SchemaFields, Qp1DroppedIsBytes20And21) {
  uint8_t data[64] = {};
  data[20] = 0x12;
  data[21] = 0x34;
  data[22] = 0xAB;  // VL15Dropped
  auto qp1 = find_field(Attribute::kPortCounters, "QP1Dropped");
  auto vl15 = find_field(Attribute::kPortCounters, "VL15Dropped");
  ASSERT_TRUE(qp1 && vl15);
  EXPECT_EQ(extract_bits(data, qp1->bit_offset, qp1->width), 0x1234u);
  EXPECT_EQ(extract_bits(data, vl15->bit_offset, vl15->width), 0xAB00u);
}

TEST(SchemaFields, WidthsScalesAndLatching) {
  auto xmit = find_field(Attribute::kPortCounters, "PortXmitData");
  ASSERT_TRUE(xmit);
  EXPECT_EQ(xmit->width, 32);
  EXPECT_EQ(xmit->scale, 4) << "PortXmitData counts 4-byte words";
  EXPECT_TRUE(xmit->latches());
  auto xmit64 = find_field(Attribute::kPortCountersExtended, "PortXmitData");
  ASSERT_TRUE(xmit64);
  EXPECT_FALSE(xmit64->latches());
  EXPECT_EQ(xmit64->requires_capability, Requires::kExtendedWidth);
  EXPECT_EQ(
      find_field(Attribute::kPortCountersExtended, "PortUnicastXmitPkts")->requires_capability,
      Requires::kExtendedWidthFull);
  EXPECT_EQ(find_field(Attribute::kPortCounters, "LocalLinkIntegrityErrors")->width, 4);
  EXPECT_EQ(find_field(Attribute::kPortVLXmitFlowCtlUpdateErrors, "PortVLXmitFlowCtlUpdateErrors15")
                ->width,
            2);
  EXPECT_EQ(fields_of(Attribute::kPortCounters).size(), 18u);
  EXPECT_EQ(fields_of(Attribute::kPortCountersExtended).size(), 22u);
  EXPECT_TRUE(fields_of(Attribute::kClassPortInfo).empty());
}

TEST(SchemaFields, SelectMasksClearExactlyTheGivenCounters) {
  const auto pc = fields_of(Attribute::kPortCounters);
  // opensm's PerfMgr clears everything but the data counters with 0x0fff.
  std::vector<Field> errors;
  for (const Field& f : pc) {
    if (f.select == SelectMask::kCounterSelect && f.select_bit < 12) errors.push_back(f);
  }
  EXPECT_EQ(select_masks_for(errors).counter_select, 0x0fffu);
  const auto all = select_masks_for(pc);
  EXPECT_EQ(all.counter_select, 0xffffu);
  EXPECT_EQ(all.counter_select2, 0x3u) << "PortXmitWait (bit 0) and QP1Dropped (bit 1)";
}

TEST(SchemaFields, ExtractBitsReadsMsbFirst) {
  const uint8_t data[] = {0xA5, 0x0F};
  EXPECT_EQ(extract_bits(data, 0, 4), 0xAu);
  EXPECT_EQ(extract_bits(data, 4, 8), 0x50u);
  EXPECT_EQ(extract_bits(data, 14, 2), 0x3u);
  EXPECT_EQ(extract_bits(data, 12, 8), 0xF0u) << "bits past the end read as zero";
}

}  // namespace
}  // namespace ibpulse::schema
