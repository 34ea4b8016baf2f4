#include "ibpulse/sim/dump.h"

#include <gtest/gtest.h>

namespace ibpulse::sim {
namespace {

// What ibsim 0.10 printed for `Dump` on the default fabric (abridged), tabs included.
constexpr const char* kDump =
    "# Net status - Sat Nov 21 05:39:39 2026\n"
    "\n"
    "Switch 8 \"Switch1\"\tnodeguid 200000\tsysimgguid 200000\n"
    "#\tlinearcap 30720 FDBtop 6 portchange 0\n"
    "#\tForwarding table 0-6: [0]FF [1]0 [2]1 [3]3 [4]3 [5]2 [6]5\n"
    "200000\t[0]\t\"Sma Port\"[0]\t lid 1 lmc 0 smlid 1  4x  2.5G Active/LinkUp\n"
    "200000\t[1]\t\"Hca1\"[1]\t  4x  2.5G Active/LinkUp\n"
    "200000\t[4]\t\t\t  4x  2.5G Down/Polling\n"
    "\n"
    "Ca 2 \"Hca1\"\tnodeguid 100000\tsysimgguid 100000\n"
    "100001\t[1]\t\"Switch1\"[1]\t lid 2 lmc 0 smlid 1  4x  2.5G Active/LinkUp\n"
    "100002\t[2]\t\t\t lid 0 lmc 0 smlid 0  4x  2.5G Down/Polling\t# err_rate 5\n"
    "#  dumped 2 nodes\n";

TEST(Dump, ReadsPortsLidsAndStates) {
  auto ports = parse_dump(kDump);
  ASSERT_TRUE(ports.ok()) << ports.error();
  ASSERT_EQ(ports->size(), 4u);  // switch port 0 is not an interface

  const DumpPort* sw = find_port(*ports, "Switch1", 1);
  ASSERT_NE(sw, nullptr);
  EXPECT_EQ(sw->type, NodeType::kSwitch);
  EXPECT_EQ(sw->lid, 1u);  // switch ports are addressed through port 0's LID
  EXPECT_EQ(sw->node_guid, 0x200000u);
  EXPECT_EQ(sw->remote_node, "Hca1");
  EXPECT_EQ(sw->remote_port, 1u);
  EXPECT_TRUE(sw->active());
  EXPECT_EQ(sw->width, "4x");
  EXPECT_EQ(sw->speed, "2.5G");

  const DumpPort* idle = find_port(*ports, "Switch1", 4);
  ASSERT_NE(idle, nullptr);
  EXPECT_FALSE(idle->linked());
  EXPECT_EQ(idle->state, "Down");
  EXPECT_EQ(idle->phys_state, "Polling");

  const DumpPort* hca = find_port(*ports, "Hca1", 1);
  ASSERT_NE(hca, nullptr);
  EXPECT_EQ(hca->lid, 2u);
  EXPECT_EQ(hca->port_guid, 0x100001u);
  EXPECT_EQ(hca->remote_node, "Switch1");

  const DumpPort* down = find_port(*ports, "Hca1", 2);
  ASSERT_NE(down, nullptr);
  EXPECT_EQ(down->lid, 0u);
  EXPECT_EQ(down->state, "Down");
  EXPECT_EQ(find_port(*ports, "Hca9", 1), nullptr);
}

TEST(Dump, RejectsGarbage) {
  EXPECT_FALSE(parse_dump("").ok());
  EXPECT_FALSE(parse_dump("Switch 8 \"S\"\tnodeguid 1\n1\t[1]\tnonsense\n").ok());
}

}  // namespace
}  // namespace ibpulse::sim
