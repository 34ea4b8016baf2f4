// P_Key tables: decoding a PKeyTable block, the SMPs a table takes and how they are addressed,
// the poller's reading queue (partition_reads.h) and merging new tables into the published ones.
#include "ibpulse/collector/partitions.h"

#include <gtest/gtest.h>

#include <array>
#include <set>
#include <vector>

#include "partition_reads.h"

namespace ibpulse::collector {
namespace {

std::array<uint8_t, 64> block_of(std::initializer_list<uint16_t> pkeys) {
  std::array<uint8_t, 64> data{};
  size_t i = 0;
  for (const uint16_t k : pkeys) {
    data[2 * i] = static_cast<uint8_t>(k >> 8);
    data[2 * i + 1] = static_cast<uint8_t>(k & 0xFF);
    ++i;
  }
  return data;
}

TEST(Partitions, ABlockKeepsItsValidEntriesWithTheirIndexes) {
  // 0x0000 and 0x8000 are empty entries; 0x0003 a limited, 0xffff a full member.
  const auto data = block_of({0xFFFF, 0x0000, 0x0003, 0x8000, 0x8002});
  std::vector<PKeyEntry> out;
  decode_pkey_block(data, 1, 64, out);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0], (PKeyEntry{32, 0xFFFF}));
  EXPECT_EQ(out[1], (PKeyEntry{34, 0x0003}));
  EXPECT_EQ(out[2], (PKeyEntry{36, 0x8002}));
  EXPECT_TRUE(out[0].full_member());
  EXPECT_FALSE(out[1].full_member());
  EXPECT_EQ(out[1].partition(), 0x0003);
  EXPECT_EQ(out[2].partition(), 0x0002);
  // Entries at or past the capacity are not the port's.
  out.clear();
  decode_pkey_block(data, 0, 3, out);
  EXPECT_EQ(out.size(), 2u);
}

TEST(Partitions, CapacityBlocksAndModifiers) {
  Node ca;
  ca.kind = NodeKind::kCa;
  ca.sma.partition_cap = 128;
  Node sw;
  sw.kind = NodeKind::kSwitch;
  sw.sma.partition_cap = 8;
  EXPECT_EQ(pkey_capacity(ca, 1), 128);
  EXPECT_EQ(pkey_capacity(sw, 0), 8);
  EXPECT_EQ(pkey_capacity(sw, 3), 0) << "no SwitchInfo read: no enforcement table known";
  sw.switch_info = SmaSwitchInfo{};
  sw.switch_info->partition_enforcement_cap = 64;
  EXPECT_EQ(pkey_capacity(sw, 3), 64);
  EXPECT_EQ(pkey_blocks(0), 0u);
  EXPECT_EQ(pkey_blocks(1), 1u);
  EXPECT_EQ(pkey_blocks(64), 2u);
  EXPECT_EQ(pkey_blocks(65), 3u);
  EXPECT_EQ(pkey_blocks(65535), kMaxPKeyBlocks);
  EXPECT_EQ(pkey_modifier(NodeKind::kSwitch, 3, 1), 0x00030001u);
  EXPECT_EQ(pkey_modifier(NodeKind::kCa, 2, 1), 0x00000001u) << "a CA's port is the LID's";
}

// A switch (8-entry port 0, 64-entry data ports 1 and 2, port 2 without a link) and a CA
// (128 entries) linked to its port 1.
Topology small_fabric() {
  Topology t;
  Node sw;
  sw.guid = 0x20;
  sw.kind = NodeKind::kSwitch;
  sw.sma.partition_cap = 8;
  sw.switch_info = SmaSwitchInfo{};
  sw.switch_info->partition_enforcement_cap = 64;
  Node ca;
  ca.guid = 0x10;
  ca.kind = NodeKind::kCa;
  ca.sma.partition_cap = 128;
  t.nodes = {ca, sw};
  Port c;
  c.key = {0x10, 1};
  c.lid = 5;
  c.remote = PortKey{0x20, 1};
  Port s1;
  s1.key = {0x20, 1};
  s1.lid = 1;
  s1.remote = PortKey{0x10, 1};
  Port s2;
  s2.key = {0x20, 2};
  s2.lid = 1;
  t.ports = {c, s1, s2};
  return t;
}

TEST(PartitionReads, ReadsEveryLinkedPortAndEachSwitchsPort0ByBlocks) {
  PartitionReads reads;
  reads.plan(small_fabric());
  std::vector<PartitionReads::Ask> asks;
  while (const auto a = reads.next())
    asks.push_back(*a);
  // CA port 1: 4 blocks; switch port 0: 1; switch port 1: 2. Port 2 has no link.
  ASSERT_EQ(asks.size(), 7u);
  std::set<std::pair<PortKey, unsigned>> seen;
  for (const auto& a : asks) {
    seen.insert({a.port, a.block});
    if (a.port.node_guid == 0x20)
      EXPECT_EQ(a.modifier, uint32_t{a.port.port} << 16 | a.block);
    else
      EXPECT_EQ(a.modifier, a.block);
    EXPECT_EQ(a.lid, a.port.node_guid == 0x20 ? 1 : 5);
  }
  EXPECT_EQ(seen.size(), 7u);
  EXPECT_TRUE(seen.contains({PortKey{0x20, 0}, 0}));
  EXPECT_FALSE(seen.contains({PortKey{0x20, 2}, 0}));
  // Planning again while they are read queues nothing twice.
  reads.plan(small_fabric());
  EXPECT_FALSE(reads.next().has_value());

  const auto data = block_of({0xFFFF, 0x0003});
  for (const auto& a : asks) {
    if (a.port == PortKey{0x20, 1} && a.block == 1) {
      reads.failed(a.port);  // this table is dropped
    } else {
      reads.answered(a.port, a.block, data);
    }
  }
  const auto done = reads.take_finished();
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0].port, (PortKey{0x10, 1}));  // sorted by port
  EXPECT_EQ(done[0].capacity, 128);
  // Each of its 4 blocks holds the two P_Keys, at indexes 0, 1, 32, 33, ...
  ASSERT_EQ(done[0].entries.size(), 8u);
  EXPECT_EQ(done[0].entries[2], (PKeyEntry{32, 0xFFFF}));
  EXPECT_EQ(done[1].port, (PortKey{0x20, 0}));
  EXPECT_EQ(done[1].entries.size(), 2u);
  EXPECT_EQ(reads.answers(), 6u);
  EXPECT_EQ(reads.failures(), 1u);
  EXPECT_TRUE(reads.idle());
  EXPECT_TRUE(reads.take_finished().empty());
}

TEST(PartitionReads, AtMostAFewPortsAreReadAtOnce) {
  Topology t;
  Node ca;
  ca.kind = NodeKind::kCa;
  ca.sma.partition_cap = 32;  // one block each
  for (uint64_t g = 1; g <= 10; ++g) {
    ca.guid = g;
    t.nodes.push_back(ca);
    Port p;
    p.key = {g, 1};
    p.lid = static_cast<uint16_t>(g);
    p.remote = PortKey{100, static_cast<uint8_t>(g)};
    t.ports.push_back(p);
  }
  PartitionReads reads;
  reads.plan(t);
  std::vector<PartitionReads::Ask> out;
  while (const auto a = reads.next())
    out.push_back(*a);
  EXPECT_EQ(out.size(), PartitionReads::kPortsInFlight);
  reads.answered(out[0].port, 0, block_of({0xFFFF}));
  ASSERT_TRUE(reads.next().has_value()) << "a finished port makes room for the next";
  EXPECT_FALSE(reads.next().has_value());
}

TEST(PartitionTables, NewTablesReplaceTheirPortsAndKeepTheOthers) {
  PartitionTables before;
  before.ports = {{{1, 1}, {{0, 0xFFFF}}, 32, false}, {{3, 1}, {{0, 0xFFFF}}, 32, false}};
  const std::vector<PortPartitions> updates = {{{2, 1}, {{0, 0x8002}}, 32, false},
                                               {{3, 1}, {{1, 0x0003}}, 32, false}};
  const PartitionTables after = before.merged(updates);
  ASSERT_EQ(after.ports.size(), 3u);
  EXPECT_EQ(after.ports[0], before.ports[0]);
  EXPECT_EQ(after.ports[1], updates[0]);
  EXPECT_EQ(after.ports[2], updates[1]);
  EXPECT_EQ(after.find({3, 1})->entries[0].pkey, 0x0003);
  EXPECT_EQ(after.find({4, 1}), nullptr);
}

}  // namespace
}  // namespace ibpulse::collector

namespace ibpulse::collector {
namespace {

TEST(PartitionsConf, NamesEachPartitionByItsLow15Bits) {
  const auto conf = parse_partitions_conf(R"(# opensm partitions
Default : ALL=limited, SELF=full ;
storage=0x8002, ipoib, sl=1 :  # full-member P_Key: the partition is 0x0002
    0x0002c90300000001=full,
    0x0002c90300000002 ;
compute=3,defmember=full : ALL_CAS ;
auto : ALL ;
again=0x0002 : ALL ;
)",
                                          "partitions.conf");
  ASSERT_TRUE(conf) << conf.error();
  EXPECT_EQ(conf->names,
            (PartitionNames{{0x0002, "storage"}, {0x0003, "compute"}, {0x7FFF, "Default"}}));
  EXPECT_EQ(conf->skipped, (std::vector<std::string>{"auto"})) << "no P_Key: opensm makes one";
}

TEST(PartitionsConf, ErrorsNameTheFileAndLine) {
  const auto bad = parse_partitions_conf("Default=0x7fff : ALL ;\n\nx=0xzz : ALL ;\n", "p.conf");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("p.conf:3: partition 'x'"), std::string::npos) << bad.error();
  const auto no_colon = parse_partitions_conf("Default=0x7fff ALL ;", "p.conf");
  ASSERT_FALSE(no_colon);
  EXPECT_NE(no_colon.error().find("p.conf:1:"), std::string::npos) << no_colon.error();
  EXPECT_FALSE(load_partitions_conf("/nonexistent/partitions.conf"));
}

}  // namespace
}  // namespace ibpulse::collector
