// The SNMP agent's MIB view on a hand-built fabric: exact values of the system group, ifTable,
// ifXTable and the IB-IF-MIB tables; GETNEXT order and ends; per-node contexts with ifIndex =
// port number; counter columns of a port never read are absent, not 0, and a row has them all
// or none.
#include "ibpulse/exporters/snmp/mib_view.h"

#include <gtest/gtest.h>

#include <limits>
#include <map>

#include "ibpulse/schema/counters.h"
#include "test_snapshot.h"

namespace ibpulse::exporters::snmp {
namespace {

using converters::Clock;
using namespace std::chrono_literals;

using converters::testing::kSwitch;
const Clock::time_point t0 = Clock::time_point{} + 1h;
const std::string kSwitchContext = "0x0002c90300000abc";

std::shared_ptr<const converters::FabricSnapshot> snapshot() {
  return converters::testing::small_fabric_snapshot(t0);
}

class MibViewTest : public ::testing::Test {
 protected:
  MibViewTest() : view_(snapshot(), system(), t0 - 10s) {}
  static SystemInfo system() {
    SystemInfo s;
    s.name = "fabric-a";
    s.contact = "ops@example.org";
    return s;
  }

  // The whole context, walked with GETNEXT from the start: name -> value text.
  std::map<Oid, VarBind> walk(const std::string& context = "") {
    std::map<Oid, VarBind> out;
    Oid at;
    VarBind vb;
    while (view_.next(context, at, false, t0 + 3s, vb)) {
      EXPECT_TRUE(at < vb.name) << to_string(at) << " then " << to_string(vb.name);
      if (!(at < vb.name)) break;
      at = vb.name;
      out[vb.name] = vb;
    }
    return out;
  }

  MibView view_;
};

Oid oid(std::initializer_list<uint32_t> parts) {
  return Oid(parts);
}
Oid if_x(uint32_t column, uint32_t index) {
  return {1, 3, 6, 1, 2, 1, 31, 1, 1, 1, column, index};
}
Oid if_entry(uint32_t column, uint32_t index) {
  return {1, 3, 6, 1, 2, 1, 2, 2, 1, column, index};
}
Oid port_stat(uint32_t column, uint32_t index) {
  Oid o = kIbIfMib;
  o.insert(o.end(), {1, 1, 1, column, index});
  return o;
}

TEST_F(MibViewTest, FabricContextValues) {
  const auto all = walk();
  auto number = [&](const Oid& o) {
    auto it = all.find(o);
    return it == all.end() ? ~uint64_t{0} : it->second.number;
  };
  auto text = [&](const Oid& o) {
    auto it = all.find(o);
    return it == all.end() ? std::string("<absent>") : it->second.text;
  };
  EXPECT_EQ(text(oid({1, 3, 6, 1, 2, 1, 1, 5, 0})), "fabric-a");
  EXPECT_EQ(text(oid({1, 3, 6, 1, 2, 1, 1, 4, 0})), "ops@example.org");
  EXPECT_EQ(number(oid({1, 3, 6, 1, 2, 1, 1, 3, 0})), 1300u);  // 13 s of sysUpTime
  EXPECT_EQ(number(oid({1, 3, 6, 1, 2, 1, 2, 1, 0})), 3u);     // ifNumber
  // ifIndex in key order: the HCA's port 1, then the switch's 7 and 8.
  EXPECT_EQ(text(if_entry(2, 1)), "node01 HCA-1 port 1 (node GUID 0x0002c90300000001)");
  EXPECT_EQ(text(if_x(1, 2)), "leaf01/7");
  EXPECT_EQ(text(if_x(18, 1)), "to leaf01/7");  // ifAlias: the other end
  EXPECT_EQ(number(if_entry(3, 3)), 199u);      // infiniband(199)
  EXPECT_EQ(number(if_entry(8, 1)), 1u);        // up
  EXPECT_EQ(number(if_entry(8, 3)), 2u);        // down
  EXPECT_EQ(number(if_entry(4, 1)), 4096u);
  EXPECT_EQ(number(if_x(15, 1)), 100000u);         // ifHighSpeed, Mb/s
  EXPECT_EQ(number(if_x(15, 3)), 0u);              // a down link has no speed
  EXPECT_EQ(number(if_entry(5, 1)), 4294967295u);  // ifSpeed saturates
  // ifHCOutOctets = PortXmitData x 4 + PortXmitPkts x 4, exact in 64 bits.
  EXPECT_EQ(number(if_x(10, 1)), 20'000'000'004'000ull);
  EXPECT_EQ(all.at(if_x(10, 1)).type, VarType::kCounter64);
  EXPECT_EQ(number(if_entry(16, 1)), 20'000'000'004'000ull & 0xFFFFFFFFu);  // ifOutOctets
  EXPECT_EQ(number(if_x(6, 1)), 428u);  // RcvData x 4 + RcvPkts x 4
  EXPECT_EQ(number(if_x(7, 1)), 7u);
  // IB-IF-MIB: the switch's counters, Counter32.
  EXPECT_EQ(number(port_stat(2, 2)), 65535u);  // ibIfPortSymbolErrs
  EXPECT_EQ(number(port_stat(4, 2)), 2u);      // ibIfPortLinkDowned
  EXPECT_EQ(all.at(port_stat(2, 2)).type, VarType::kCounter32);
  // Never read: no instance rather than a 0.
  EXPECT_EQ(all.count(if_x(6, 3)), 0u);
  EXPECT_EQ(all.count(port_stat(2, 3)), 0u);
  EXPECT_EQ(all.count(port_stat(2, 1)), 0u);  // the HCA's read did not advertise it
}

TEST_F(MibViewTest, VlTrafficRows) {
  const auto all = walk();
  Oid in_octets = kIbIfMib;
  in_octets.insert(in_octets.end(), {1, 2, 1, 5, 1, 1});  // ibIfVLInOctets.ifIndex 1.VL 1
  ASSERT_EQ(all.count(in_octets), 1u);
  EXPECT_EQ(all.at(in_octets).number, 48u);  // RcvDataVL x 4 + RcvPktVL x 4 (POH)
  Oid in_packets = kIbIfMib;
  in_packets.insert(in_packets.end(), {1, 2, 1, 6, 1, 1});
  EXPECT_EQ(all.at(in_packets).number, 2u);
  Oid out_octets = kIbIfMib;
  out_octets.insert(out_octets.end(), {1, 2, 1, 3, 1, 1});
  EXPECT_EQ(all.count(out_octets), 0u);  // transmit side not sampled
}

TEST_F(MibViewTest, GetIsExact) {
  VarBind vb;
  EXPECT_TRUE(view_.get("", if_x(10, 1), t0, vb));
  EXPECT_EQ(vb.number, 20'000'000'004'000ull);
  EXPECT_FALSE(view_.get("", if_x(10, 4), t0, vb));                  // no such row
  EXPECT_FALSE(view_.get("", if_x(10, 3), t0, vb));                  // never read
  EXPECT_FALSE(view_.get("", oid({1, 3, 6, 1, 2, 1, 31}), t0, vb));  // not an instance
  EXPECT_FALSE(view_.get("", oid({1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 10, 1, 0}), t0, vb));  // too long
}

TEST_F(MibViewTest, NextHonoursInclusiveAndEnds) {
  VarBind vb;
  ASSERT_TRUE(view_.next("", if_x(10, 1), true, t0, vb));
  EXPECT_EQ(vb.name, if_x(10, 1));
  ASSERT_TRUE(view_.next("", if_x(10, 1), false, t0, vb));
  EXPECT_EQ(vb.name, if_x(10, 2));
  ASSERT_TRUE(view_.next("", if_x(10, 99), false, t0, vb));  // past the rows: next column
  EXPECT_EQ(vb.name, if_x(11, 1));
  EXPECT_FALSE(view_.next("", oid({1, 3, 6, 1, 5}), false, t0, vb));  // past everything
  ASSERT_TRUE(view_.next("", oid({1, 3, 6, 1, 2, 1, 2, 2, 1, 12}), false, t0, vb));
  // Column 12 (NUcast, deprecated) is not served: on to 13. The HCA's row has every counter
  // column once its data counters were read (its discards sum what was read: none, 0).
  EXPECT_EQ(vb.name, if_entry(13, 1));
}

TEST_F(MibViewTest, NodeContextsNumberByPort) {
  EXPECT_TRUE(view_.has_context(kSwitchContext));
  EXPECT_FALSE(view_.has_context("0x0000000000000042"));
  EXPECT_EQ(view_.node_contexts(),
            (std::vector<std::string>{"0x0002c90300000001", "0x0002c90300000abc"}));
  const auto all = walk(kSwitchContext);
  EXPECT_EQ(all.at(oid({1, 3, 6, 1, 2, 1, 1, 5, 0})).text, "leaf01");
  EXPECT_EQ(all.at(oid({1, 3, 6, 1, 2, 1, 2, 1, 0})).number, 2u);
  EXPECT_EQ(all.at(if_entry(1, 7)).number, 7u);
  EXPECT_EQ(all.at(if_entry(1, 8)).number, 8u);
  EXPECT_EQ(all.count(if_entry(1, 1)), 0u);
  EXPECT_EQ(all.at(port_stat(2, 7)).number, 65535u);
  VarBind vb;
  EXPECT_FALSE(view_.next("0x0000000000000042", {}, false, t0, vb));
}

// IBPULSE-MIB's ibpulsePortTable augments ifEntry in every context: each interface's subnet
// prefix (its own GID prefix, the subnet's for a port without a link) and the local port that
// reaches the subnet.
// A row serves every counter column or none: a port whose error counters were read before its
// data counters (the extended attribute later in a sweep) has no ifInOctets yet, so it has no
// ifInErrors or zero broadcast counters either; cfgmaker takes a missing column for good.
TEST(MibViewPorts, ARowHasEveryCounterColumnOrNone) {
  using schema::Attribute;
  converters::Converter c({});
  c.set_topology(converters::testing::two_node_fabric("leaf01"), t0);
  auto errors_only = converters::testing::sample(kSwitch, Attribute::kPortCounters, t0);
  errors_only.superseded = collector::superseded_fields(0x0F);  // data in the extended one
  errors_only.values[converters::testing::field(Attribute::kPortCounters, "PortRcvErrors")] = 3;
  c.apply(errors_only);
  const auto columns = [&] {
    MibView view(c.snapshot(t0 + 1s), {}, t0 - 10s);
    std::vector<uint32_t> out;
    VarBind vb;
    for (uint32_t column = 2; column <= 13; ++column) {
      if (view.get("", if_x(column, 2), t0, vb)) out.push_back(column);
    }
    for (uint32_t column = 10; column <= 20; ++column) {
      if (view.get("", if_entry(column, 2), t0, vb)) out.push_back(100 + column);
    }
    return out;
  };
  EXPECT_TRUE(columns().empty()) << "errors read, data not yet: no counter column";
  auto ext = converters::testing::sample(kSwitch, Attribute::kPortCountersExtended, t0 + 1s);
  ext.advertised = 0x0F;
  c.apply(ext);
  // Every counter column the schema says ifXTable and ifTable serve (schema_counters_test holds
  // them to RFC 2863's list).
  std::vector<uint32_t> counter_columns;
  for (uint8_t column = 2; column <= 13; ++column) {
    if (schema::if_counter_column(schema::MibTable::kIfXTable, column).source !=
        schema::IfCounterColumn::Source::kNone)
      counter_columns.push_back(column);
  }
  for (uint8_t column = 10; column <= 20; ++column) {
    if (schema::if_counter_column(schema::MibTable::kIfTable, column).source !=
        schema::IfCounterColumn::Source::kNone)
      counter_columns.push_back(100 + column);
  }
  ASSERT_EQ(counter_columns.size(), 21u);
  EXPECT_EQ(columns(), counter_columns);
}

TEST(MibViewPorts, EveryInterfaceHasItsSubnet) {
  auto snap = std::make_shared<converters::FabricSnapshot>(*snapshot());
  auto topology = std::make_shared<collector::Topology>(*snap->topology);
  topology->subnets = {{0xfe800000000000aa, "mlx5_1:1"}};
  for (auto& p : topology->ports)
    p.subnet_prefix = p.remote ? 0xfe80000000000000 : 0;
  snap->topology = topology;
  const MibView view(snap, SystemInfo{}, t0);
  const auto column = [](uint32_t c, uint32_t index) {
    Oid o = kIbpulsePortEntry;
    o.insert(o.end(), {c, index});
    return o;
  };
  VarBind vb;
  ASSERT_TRUE(view.get("", column(1, 1), t0, vb));
  EXPECT_EQ(vb.type, VarType::kOctetString);
  EXPECT_EQ(vb.text, "0xfe80000000000000");
  ASSERT_TRUE(view.get("", column(1, 3), t0, vb));  // the switch's port 8: no link
  EXPECT_EQ(vb.text, "0xfe800000000000aa");
  ASSERT_TRUE(view.get("", column(2, 2), t0, vb));
  EXPECT_EQ(vb.text, "mlx5_1:1");
  ASSERT_TRUE(view.get(kSwitchContext, column(2, 7), t0, vb));  // ifIndex = port number there
  EXPECT_EQ(vb.text, "mlx5_1:1");
  EXPECT_FALSE(view.get("", column(2, 4), t0, vb));  // no such interface
  // A walk goes column by column over every interface, then on to the fabric's nodes.
  ASSERT_TRUE(view.next("", kIbpulsePorts, false, t0, vb));
  EXPECT_EQ(vb.name, column(1, 1));
  ASSERT_TRUE(view.next("", column(1, 3), false, t0, vb));
  EXPECT_EQ(vb.name, column(2, 1));
  ASSERT_TRUE(view.next("", column(2, 3), false, t0, vb));
  EXPECT_TRUE(std::equal(kIbpulseSm.begin(), kIbpulseSm.end(), vb.name.begin()));
  // ibpulseSm is the fabric's: a node's context has nothing there.
  EXPECT_FALSE(view.next(kSwitchContext, kIbpulseSm, false, t0, vb));
}

// The RS-FEC counters (PortExtendedSpeedsCounters' RS-FEC layout) have no IF-MIB or IB-IF-MIB
// column: ibpulsePortTable serves them, exact Counter64s, on ports that read them only.
TEST(MibViewPorts, RsFecCountersAreColumnsOfThePortsThatRunRsFec) {
  using schema::Attribute;
  converters::Converter c({});
  c.set_topology(converters::testing::two_node_fabric("leaf01"), t0);
  collector::RawSample rs_fec;
  rs_fec.port = kSwitch;
  rs_fec.received = t0;
  std::array<uint8_t, 192> data{};
  data[140] = 0x01;  // PortFECCorrectableBlockCtr 0x01000005: exact past 24 bits
  data[143] = 0x05;
  data[147] = 6;  // PortFECUncorrectableBlockCtr
  data[151] = 7;  // PortFECCorrectedSymbolCtr
  collector::decode_fields(Attribute::kPortExtendedSpeedsCounters, schema::Layout::kRsFec, data,
                           rs_fec);
  rs_fec.advertised = (uint64_t{1} << rs_fec.field_count) - 1;
  c.apply(rs_fec);
  auto legacy = converters::testing::sample(converters::testing::kHca,
                                            Attribute::kPortExtendedSpeedsCounters, t0);
  c.apply(legacy);
  const MibView view(c.snapshot(t0 + 1s), {}, t0 - 10s);
  const auto column = [](uint32_t col, uint32_t index) {
    Oid o = kIbpulsePortEntry;
    o.insert(o.end(), {col, index});
    return o;
  };
  VarBind vb;
  ASSERT_TRUE(view.get("", column(3, 2), t0, vb));
  EXPECT_EQ(vb.type, VarType::kCounter64);
  EXPECT_EQ(vb.number, 0x01000005u);
  ASSERT_TRUE(view.get("", column(4, 2), t0, vb));
  EXPECT_EQ(vb.number, 6u);
  ASSERT_TRUE(view.get("", column(5, 2), t0, vb));
  EXPECT_EQ(vb.number, 7u);
  for (const uint32_t col : {3u, 4u, 5u})
    EXPECT_FALSE(view.get("", column(col, 1), t0, vb)) << "the older layout has no totals";
  ASSERT_TRUE(view.get(kSwitchContext, column(5, 7), t0, vb)) << "ifIndex = port number";
  EXPECT_EQ(vb.number, 7u);
}

// ibpulseLinkHealthTable serves the alert loop's health judgement per interface: the port's own
// state, its link's (both ends combined, the same on both rows), the reasons, BERs in units of
// 1e-18 (absent where unknown), flaps, and the peer.
TEST(MibViewPorts, LinkHealthRowsCombineBothEndsOfALink) {
  using converters::testing::kHca;
  using converters::testing::kSwitchDown;
  const float kNan = std::numeric_limits<float>::quiet_NaN();
  auto health = std::make_shared<alerts::HealthSnapshot>();
  alerts::PortHealth hca{kHca, 2.5e-13f, kNan, kNan, kNan, 0, 0, alerts::HealthState::kOk};
  alerts::PortHealth sw{kSwitch,
                        0.0f,
                        3e-15f,
                        2.0f,
                        40.0f,
                        7,
                        alerts::kReasonFlapping | alerts::kReasonErrorBurst,
                        alerts::HealthState::kFailing};
  alerts::PortHealth down{kSwitchDown, kNan, kNan, kNan, kNan, 0, 0, alerts::HealthState::kOk};
  health->ports = {hca, sw, down};
  health->links = {{kHca, kSwitch, sw.reasons, alerts::HealthState::kFailing}};
  health->link_of_port = {0, 0, alerts::HealthSnapshot::kNoLink};
  const MibView view(snapshot(), {}, t0 - 10s, true, false, health);
  const auto column = [](uint32_t col, uint32_t index) {
    Oid o = kIbpulseLinkHealthEntry;
    o.insert(o.end(), {col, index});
    return o;
  };
  const auto number = [&](uint32_t col, uint32_t index, const std::string& context = "") {
    VarBind vb;
    EXPECT_TRUE(view.get(context, column(col, index), t0, vb)) << col << "." << index;
    return vb.number;
  };
  // ifIndex 1: the HCA port, 2: switch port 7 (its peer), 3: switch port 8 (no link).
  EXPECT_EQ(number(1, 1), 1u) << "the HCA end alone is ok";
  EXPECT_EQ(number(1, 2), 3u);
  EXPECT_EQ(number(2, 1), 3u) << "its link is failing: the switch end flaps";
  EXPECT_EQ(number(2, 2), 3u);
  EXPECT_EQ(number(2, 3), 1u);
  VarBind vb;
  ASSERT_TRUE(view.get("", column(3, 1), t0, vb));
  EXPECT_EQ(vb.text, "flapping,error_burst");
  ASSERT_TRUE(view.get("", column(3, 3), t0, vb));
  EXPECT_EQ(vb.text, "");
  ASSERT_TRUE(view.get("", column(4, 1), t0, vb));
  EXPECT_EQ(vb.type, VarType::kCounter64);
  EXPECT_EQ(vb.number, 250000u) << "2.5e-13 in units of 1e-18";
  EXPECT_EQ(number(4, 2), 0u) << "covered time without errors reads 0";
  EXPECT_FALSE(view.get("", column(4, 3), t0, vb)) << "no covered time: no instance";
  EXPECT_FALSE(view.get("", column(5, 1), t0, vb)) << "no RS-FEC totals: no instance";
  EXPECT_EQ(number(5, 2), 3000u);
  EXPECT_EQ(number(6, 2), 1'000'000'000'000'000'000u) << "a ratio is at most 1";
  ASSERT_TRUE(view.get("", column(7, 2), t0, vb));
  EXPECT_EQ(vb.type, VarType::kGauge32);
  EXPECT_EQ(vb.number, 7u);
  ASSERT_TRUE(view.get("", column(8, 1), t0, vb));
  EXPECT_EQ(vb.text, "0x0002c90300000abc");
  EXPECT_EQ(number(9, 1), 7u);
  EXPECT_EQ(number(9, 2), 1u);
  EXPECT_FALSE(view.get("", column(8, 3), t0, vb)) << "no link: no peer";
  EXPECT_EQ(number(2, 7, kSwitchContext), 3u) << "ifIndex = port number in a node's context";
  // Without a health judgement the table is empty: a walk of it finds nothing.
  const MibView none(snapshot(), {}, t0 - 10s);
  EXPECT_FALSE(none.get("", column(1, 1), t0, vb));
  ASSERT_TRUE(
      none.next("", kIbpulseLinkHealthEntry, false, t0, vb) == false ||
      !std::equal(kIbpulseLinkHealthEntry.begin(), kIbpulseLinkHealthEntry.end(), vb.name.begin()));
}

}  // namespace
}  // namespace ibpulse::exporters::snmp
