// The Notices a subnet manager forwards (collector/sm_notice.h), decoded from bytes laid out
// by hand from the specification's trap tables, and the sm.traps / snmp.sma-notifications
// trap lists.
#include "ibpulse/collector/sm_notice.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>

namespace ibpulse::collector {
namespace {

using Notice = std::array<uint8_t, kNoticeSize>;

// A generic Notice of `trap` from LID 0x0042 (a switch's, type urgent); DataDetails at 10.
Notice notice(uint16_t trap) {
  Notice n{};
  n[0] = 0x80 | 1;  // IsGeneric, Type 1 (urgent)
  n[3] = 2;         // ProducerType 2 (switch)
  n[4] = static_cast<uint8_t>(trap >> 8);
  n[5] = static_cast<uint8_t>(trap);
  n[6] = 0x00;
  n[7] = 0x42;
  n[64] = 0xfe;  // IssuerGID fe80::...:0042
  n[65] = 0x80;
  n[79] = 0x42;
  return n;
}

template <size_t N>
void put(Notice& n, size_t details_offset, const std::array<uint8_t, N>& bytes) {
  for (size_t i = 0; i < N; ++i)
    n[10 + details_offset + i] = bytes[i];
}

TEST(SmNotice, TheHeaderAndTrap128sSwitchLid) {
  Notice n = notice(128);
  put<2>(n, 0, {0x00, 0x03});
  const auto d = decode_notice(n);
  ASSERT_TRUE(d) << d.error();
  EXPECT_EQ(d->trap, 128);
  EXPECT_EQ(d->type, 1);
  EXPECT_EQ(d->producer_type, 2u);
  EXPECT_EQ(d->issuer_lid, 0x42);
  EXPECT_EQ(d->issuer_gid[0], 0xfe);
  EXPECT_EQ(d->issuer_gid[15], 0x42);
  EXPECT_EQ(d->lid, 3);
}

TEST(SmNotice, ThresholdTrapsNameTheLidAndPort) {
  for (const uint16_t trap : {uint16_t{129}, uint16_t{130}, uint16_t{131}}) {
    Notice n = notice(trap);
    put<3>(n, 2, {0x01, 0x02, 7});
    const auto d = decode_notice(n);
    ASSERT_TRUE(d) << d.error();
    EXPECT_EQ(d->lid, 0x0102) << trap;
    EXPECT_EQ(d->port, 7) << trap;
  }
}

TEST(SmNotice, CapabilityMaskAndSystemImageGuid) {
  Notice mask = notice(144);
  put<2>(mask, 2, {0x00, 0x09});
  put<4>(mask, 6, {0x02, 0x51, 0xc0, 0x4a});
  const auto m = decode_notice(mask);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->lid, 9);
  EXPECT_EQ(m->capability_mask, 0x0251c04au);
  Notice image = notice(145);
  put<2>(image, 2, {0x00, 0x0a});
  put<8>(image, 6, {0x00, 0x02, 0xc9, 0x03, 0x00, 0x00, 0x0a, 0xbc});
  const auto g = decode_notice(image);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->lid, 10);
  EXPECT_EQ(g->system_image_guid, 0x0002c90300000abcu);
}

TEST(SmNotice, BadMKey) {
  Notice n = notice(256);
  put<2>(n, 2, {0x00, 0x11});               // LID
  put<2>(n, 4, {0x00, 0x99});               // DR SLID: not an object
  put<1>(n, 6, {0x02});                     // method Set
  put<2>(n, 8, {0x00, 0x15});               // attribute PortInfo
  put<4>(n, 10, {0x00, 0x01, 0x00, 0x02});  // modifier
  put<8>(n, 14, {1, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef});
  const auto d = decode_notice(n);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->lid, 0x11);
  EXPECT_EQ(d->method, 2);
  EXPECT_EQ(d->attribute_id, 0x15);
  EXPECT_EQ(d->attribute_modifier, 0x00010002u);
  EXPECT_EQ(d->key, 0x0123456789abcdefu);
}

TEST(SmNotice, BadPKeyAndQKeyCarryBothEnds) {
  for (const uint16_t trap : {uint16_t{257}, uint16_t{258}}) {
    Notice n = notice(trap);
    put<2>(n, 2, {0x00, 0x05});               // LID1
    put<2>(n, 4, {0x00, 0x06});               // LID2
    put<4>(n, 6, {0x00, 0x00, 0x80, 0x01});   // key
    put<4>(n, 10, {0x50, 0x12, 0x34, 0x56});  // SL 5, QP1 0x123456
    put<4>(n, 14, {0xff, 0x00, 0x07, 0x89});  // 8 reserved bits, QP2 0x000789
    n[10 + 18] = 0xfe;                        // GID1 fe...01
    n[10 + 33] = 0x01;
    n[10 + 34] = 0xfe;  // GID2 fe...02
    n[10 + 49] = 0x02;
    const auto d = decode_notice(n);
    ASSERT_TRUE(d);
    EXPECT_EQ(d->lid, 5) << trap;
    EXPECT_EQ(d->lid2, 6) << trap;
    EXPECT_EQ(d->key, 0x8001u) << trap;
    EXPECT_EQ(d->sl, 5) << trap;
    EXPECT_EQ(d->qp1, 0x123456u) << trap;
    EXPECT_EQ(d->qp2, 0x789u) << trap;
    EXPECT_EQ(d->gid1[0], 0xfe);
    EXPECT_EQ(d->gid1[15], 0x01);
    EXPECT_EQ(d->gid2[0], 0xfe);
    EXPECT_EQ(d->gid2[15], 0x02);
  }
}

TEST(SmNotice, BadPKeyAtASwitchPort) {
  Notice n = notice(259);
  put<2>(n, 0, {0x00, 0xc5});               // DataValid
  put<2>(n, 2, {0x00, 0x05});               // LID1
  put<2>(n, 4, {0x00, 0x06});               // LID2
  put<2>(n, 6, {0x80, 0x01});               // P_Key
  put<4>(n, 8, {0x30, 0x00, 0x00, 0x11});   // SL 3, QP1 0x11
  put<4>(n, 12, {0x00, 0x00, 0x00, 0x22});  // QP2 0x22
  n[10 + 16] = 0xaa;                        // GID1
  n[10 + 32] = 0xbb;                        // GID2
  put<3>(n, 48, {0x00, 0x03, 17});          // switch LID, port
  const auto d = decode_notice(n);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->data_valid, 0xc5);
  EXPECT_EQ(d->lid, 5);
  EXPECT_EQ(d->lid2, 6);
  EXPECT_EQ(d->key, 0x8001u);
  EXPECT_EQ(d->sl, 3);
  EXPECT_EQ(d->qp1, 0x11u);
  EXPECT_EQ(d->qp2, 0x22u);
  EXPECT_EQ(d->gid1[0], 0xaa);
  EXPECT_EQ(d->gid2[0], 0xbb);
  EXPECT_EQ(d->switch_lid, 3);
  EXPECT_EQ(d->port, 17);
}

TEST(SmNotice, WhatIbSmaMibCannotTranslateIsAnError) {
  Notice vendor = notice(128);
  vendor[0] = 0x01;  // IsGeneric clear
  EXPECT_FALSE(decode_notice(vendor));
  const auto gid_in = decode_notice(notice(64));
  ASSERT_FALSE(gid_in);
  EXPECT_NE(gid_in.error().find("trap 64"), std::string::npos) << gid_in.error();
  const Notice whole = notice(128);
  EXPECT_FALSE(decode_notice(std::span<const uint8_t>(whole.data(), 79)));
}

TEST(SmNotice, TrapListsAcceptAllNoneAndTheTenNumbers) {
  const auto all = parse_sma_traps("all");
  ASSERT_TRUE(all);
  EXPECT_EQ(all->size(), 10u);
  const auto none = parse_sma_traps("none");
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
  const auto some = parse_sma_traps("259,128,128");
  ASSERT_TRUE(some);
  EXPECT_EQ(*some, (std::vector<uint16_t>{128, 259}));
  EXPECT_FALSE(parse_sma_traps("64"));
  EXPECT_FALSE(parse_sma_traps("128,x"));
}

}  // namespace
}  // namespace ibpulse::collector
