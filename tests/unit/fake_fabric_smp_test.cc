// The fake fabric's SMP answers and RS-FEC layout, read back with libibmad's field tables:
// the poller tests that rely on them test the poller, not the fake.
#include <gtest/gtest.h>
#include <infiniband/mad.h>

#include "ibpulse/collector/testing/fake_fabric.h"

namespace ibpulse::collector::testing {
namespace {

constexpr uint64_t kSwitch = 0x20, kHca = 0x10;

FakeFabric hdr_pair() {
  FakeFabric f;
  f.add_switch(kSwitch, 1, 4);
  f.add_hca(kHca, 2);
  f.link({kSwitch, 3}, {kHca, 1});
  f.smp_agent = true;
  return f;
}

MadRequest smp(uint16_t lid, uint16_t attribute, uint8_t port) {
  MadRequest r;
  r.lid = lid;
  r.mgmt_class = MadClass::kSubnetLid;
  r.attribute = attribute;
  r.modifier = port;
  return r;
}

uint32_t field(std::array<uint8_t, kMadDataSize>& data, MAD_FIELDS f) {
  return mad_get_field(data.data(), 0, f);
}

TEST(FakeFabricSmp, PortInfoAndPortInfoExtendedDecodeWithLibibmad) {
  FakeFabric f = hdr_pair();
  f.node(kSwitch).speed_ext_active = 4;  // HDR
  f.node(kSwitch).port_info_capability_mask2 = 0x32;
  f.node(kSwitch).fec_mode_active = 3;
  std::array<uint8_t, kMadDataSize> data{};
  ASSERT_EQ(f.answer(smp(1, 0x15, 3), data), 0);
  EXPECT_EQ(field(data, IB_PORT_STATE_F), 4u);
  EXPECT_EQ(field(data, IB_PORT_LINK_SPEED_EXT_ACTIVE_F), 4u);
  EXPECT_EQ(field(data, IB_PORT_CAPMASK_F), 0xc048u);
  EXPECT_EQ(field(data, IB_PORT_CAPMASK2_F), 0x32u);
  ASSERT_EQ(f.answer(smp(1, 0x15, 0), data), 0) << "a switch's port 0";
  EXPECT_EQ(field(data, IB_PORT_CAPMASK2_F), 0x32u);
  ASSERT_EQ(f.answer(smp(1, 0x33, 3), data), 0);
  EXPECT_EQ(field(data, IB_PORT_EXT_CAPMASK_F), 1u);
  EXPECT_EQ(field(data, IB_PORT_EXT_FEC_MODE_ACTIVE_F), 3u);
  f.node(kSwitch).smp_status[0x33] = 0x000C;
  EXPECT_EQ(f.answer(smp(1, 0x33, 3), data), 0x000C);
  f.set_link_up({kHca, 1}, false);
  ASSERT_EQ(f.answer(smp(1, 0x15, 3), data), 0);
  EXPECT_EQ(field(data, IB_PORT_STATE_F), 1u) << "both ends of the link went down";
  EXPECT_EQ(f.topology().find_port({kHca, 1})->link.state, 1);
}

TEST(FakeFabricSmp, ExtendedSpeedsAnswerInTheNodesLayout) {
  FakeFabric f = hdr_pair();
  f.node(kHca).pesc_layout = schema::Layout::kRsFec;
  const auto table = schema::counter_table();
  for (size_t i = 0; i < table.size(); ++i) {
    if (table[i].name == "fec_corrected_symbols") f.set({kHca, 1}, i, 123456);
  }
  MadRequest r;
  r.lid = 2;
  r.attribute = static_cast<uint16_t>(schema::Attribute::kPortExtendedSpeedsCounters);
  r.data[1] = 1;
  std::array<uint8_t, kMadDataSize> data{};
  ASSERT_EQ(f.answer(r, data), 0);
  EXPECT_EQ(field(data, IB_PESC_PORT_FEC_CORR_SYMBOL_CTR_F), 123456u);
}

}  // namespace
}  // namespace ibpulse::collector::testing
