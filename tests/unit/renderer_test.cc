// The Prometheus renderer on a hand-built fabric: exact lines for counters (64-bit integers),
// IF-MIB values, saturation, gauges and info labels (escaped), and promtool's lint clean.
#include "ibpulse/exporters/prometheus/renderer.h"

#include <gtest/gtest.h>

#include "ibpulse/converters/converter.h"
#include "promtool_lint.h"
#include "sample_builders.h"
#include "test_fabric.h"

namespace ibpulse::exporters::prometheus {
namespace {

using converters::Clock;
using converters::Converter;
using schema::Attribute;
using namespace std::chrono_literals;

using converters::testing::kHca;
using converters::testing::kSwitch;
const Clock::time_point t0 = Clock::time_point{} + 1h;

std::shared_ptr<collector::Topology> fabric() {
  // quotes, a backslash and a newline: all escaped
  auto t = converters::testing::two_node_fabric("leaf \"A\\1\"\nrack");
  t->subnets = {{0xfe80000000000000, "mlx5_0:1"}};
  for (auto& p : t->ports)
    p.subnet_prefix = 0xfe80000000000000;
  return t;
}

std::string render_fabric(MetricGroups groups = {}) {
  Converter c({});
  const auto t = fabric();
  c.set_topology(t, t0);
  auto ext = converters::testing::sample(kHca, Attribute::kPortCountersExtended, t0);
  ext.advertised = 0x0F;  // the four 64-bit data and packet counters, no IETF ones
  ext.values[converters::testing::field(Attribute::kPortCountersExtended, "PortXmitData")] =
      5'000'000'000'000ull;  // exact beyond a double's 2^53 once x 4: 20'000'000'000'000
  ext.values[converters::testing::field(Attribute::kPortCountersExtended, "PortRcvData")] = 100;
  ext.values[converters::testing::field(Attribute::kPortCountersExtended, "PortRcvPkts")] = 7;
  c.apply(ext);
  auto narrow = converters::testing::sample(kSwitch, Attribute::kPortCounters, t0);
  narrow.values[converters::testing::field(Attribute::kPortCounters, "SymbolErrorCounter")] =
      0xFFFF;  // latched
  narrow.values[converters::testing::field(Attribute::kPortCounters, "PortRcvErrors")] = 3;
  c.apply(narrow);
  c.apply(converters::testing::vl1_sample(kHca, t0));
  // FDR and faster links: port-wide counters beside per-lane ones.
  auto speeds = converters::testing::sample(kHca, Attribute::kPortExtendedSpeedsCounters, t0);
  speeds.values[converters::testing::field(Attribute::kPortExtendedSpeedsCounters,
                                           "SyncHeaderErrorCounter")] = 5;
  speeds.values[converters::testing::field(Attribute::kPortExtendedSpeedsCounters,
                                           "ErrorDetectionCounterLane3")] = 2;
  c.apply(speeds);
  // An HDR switch port: the RS-FEC layout (port totals, per-lane corrected symbols).
  collector::RawSample rs_fec;
  rs_fec.port = kSwitch;
  rs_fec.received = t0;
  const std::array<uint8_t, 192> data = [] {
    std::array<uint8_t, 192> d{};
    d[143] = 9;         // PortFECCorrectableBlockCtr, bytes 140-143
    d[44 + 4 + 3] = 4;  // FECCorrectableSymbolCtrLane1
    return d;
  }();
  collector::decode_fields(Attribute::kPortExtendedSpeedsCounters, schema::Layout::kRsFec, data,
                           rs_fec);
  rs_fec.advertised = (uint64_t{1} << rs_fec.field_count) - 1;
  c.apply(rs_fec);
  std::string out;
  FabricRenderer(groups).render(*c.snapshot(t0 + 2s), out);
  return out;
}

bool has_line(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos;
}

TEST(Renderer, CountersAreExactIntegersWithSmallLabels) {
  const std::string out = render_fabric();
  const std::string hca = R"({node_guid="0x0002c90300000001",port="1"})";
  const std::string sw = R"({node_guid="0x0002c90300000abc",port="7"})";
  EXPECT_TRUE(has_line(out, "infiniband_port_xmit_data_bytes_total" + hca + " 20000000000000"))
      << out;
  EXPECT_TRUE(has_line(out, "infiniband_port_rcv_data_bytes_total" + hca + " 400"));
  EXPECT_TRUE(has_line(out, "infiniband_port_symbol_error_total" + sw + " 65535"));
  EXPECT_TRUE(has_line(out, "infiniband_port_rcv_errors_total" + sw + " 3"));
  EXPECT_EQ(out.find("infiniband_port_symbol_error_total" + hca), std::string::npos)
      << "the HCA's extended read did not advertise SymbolError: no series";
  // IF-MIB: ifInOctets = RcvData x 4 + RcvPkts x 4 (+ flow control, not read: 0).
  EXPECT_TRUE(has_line(out, "infiniband_port_if_in_octets_total" + hca + " 428")) << out;
  EXPECT_TRUE(has_line(out, "infiniband_port_if_in_ucast_packets_total" + hca + " 7"));
  EXPECT_TRUE(has_line(out, "# TYPE infiniband_port_xmit_data_bytes_total counter"));
}

TEST(Renderer, SampledPerVlTrafficAndItsCoverage) {
  const std::string out = render_fabric();
  const std::string hca = R"(node_guid="0x0002c90300000001",port="1")";
  EXPECT_TRUE(has_line(out, "infiniband_port_rcv_data_vl_bytes_total{" + hca + R"(,vl="1"} 40)"))
      << out;
  EXPECT_TRUE(has_line(out, "infiniband_port_rcv_pkt_vl_packets_total{" + hca + R"(,vl="1"} 2)"));
  EXPECT_EQ(out.find("xmit_data_vl_bytes_total{"), std::string::npos);  // not sampled
  EXPECT_TRUE(has_line(out, "infiniband_port_vl_sample_coverage_ratio{" + hca + "} 1"));
}

TEST(Renderer, SaturationGaugesAndInfo) {
  const std::string out = render_fabric();
  const std::string sw = R"(node_guid="0x0002c90300000abc",port="7")";
  EXPECT_TRUE(has_line(out, "infiniband_port_saturated{" + sw + R"(,counter="symbol_error"} 1)"))
      << out;
  EXPECT_EQ(out.find(R"(counter="rcv_errors")"), std::string::npos);
  EXPECT_TRUE(has_line(out, "infiniband_port_state{" + sw + "} 4"));
  EXPECT_TRUE(has_line(out, "infiniband_port_link_width_lanes{" + sw + "} 4"));
  // EDR 4X: 4 x 25.78125 Gb/s x 64/66 = 100 Gb/s of data = 12.5 GB/s.
  EXPECT_TRUE(has_line(out, "infiniband_port_link_rate_bytes_per_second{" + sw + "} 12500000000"))
      << out;
  EXPECT_TRUE(has_line(out, "infiniband_port_mtu_bytes{" + sw + "} 4096"));
  EXPECT_TRUE(has_line(
      out, "infiniband_port_info{" + sw +
               R"(,node_description="leaf \"A\\1\"\nrack",node_type="switch",)"
               R"(system_image_guid="0x0000000000000000",lid="3",)"
               R"(subnet_prefix="0xfe80000000000000",local_port="mlx5_0:1",link_width="4X",)"
               R"(link_speed="EDR",remote_node_guid="0x0002c90300000001",remote_port="1",)"
               R"(remote_description="node01 HCA-1"} 1)"))
      << out;
  EXPECT_NE(out.find("infiniband_port_last_read_age_seconds{" + sw + "} 2\n"), std::string::npos)
      << out;
}

// A Down port has a state but no width, rate or speed: PortInfo's values for them mean nothing
// until the link trains.
TEST(Renderer, ADownPortHasNoWidthOrRate) {
  const std::string out = render_fabric();
  const std::string down = R"(node_guid="0x0002c90300000abc",port="8")";
  EXPECT_TRUE(has_line(out, "infiniband_port_state{" + down + "} 1")) << out;
  EXPECT_TRUE(has_line(out, "infiniband_port_phys_state{" + down + "} 2"));
  EXPECT_EQ(out.find("infiniband_port_link_width_lanes{" + down), std::string::npos);
  EXPECT_EQ(out.find("infiniband_port_link_rate_bytes_per_second{" + down), std::string::npos);
  EXPECT_TRUE(
      has_line(out, "infiniband_port_info{" + down +
                        R"(,node_description="leaf \"A\\1\"\nrack",node_type="switch",)"
                        R"(system_image_guid="0x0000000000000000",lid="3",)"
                        R"(subnet_prefix="0xfe80000000000000",local_port="mlx5_0:1",link_width="",)"
                        R"(link_speed=""} 1)"))
      << out;
}

TEST(Renderer, MetricGroupsLeaveOutWhatTheyName) {
  const std::string all = render_fabric();
  EXPECT_NE(all.find("# TYPE infiniband_port_local_physical_errors_total counter"),
            std::string::npos);
  EXPECT_EQ(all.find("infiniband_port_vl_xmit_wait_ticks_total"), std::string::npos)
      << "per-VL families are off by default";
  MetricGroups lean;
  lean.error_details = lean.if_mib = lean.link = false;
  const std::string out = render_fabric(lean);
  EXPECT_EQ(out.find("local_physical_errors"), std::string::npos);
  EXPECT_EQ(out.find("infiniband_port_if_"), std::string::npos);
  EXPECT_EQ(out.find("infiniband_port_info"), std::string::npos);
  EXPECT_EQ(out.find("infiniband_port_saturated"), std::string::npos);
  EXPECT_NE(out.find("\ninfiniband_port_symbol_error_total{node_guid=\"0x0002c90300000abc\","
                     "port=\"7\"} 65535\n"),
            std::string::npos);
  MetricGroups with_vl;
  with_vl.vl = true;
  EXPECT_NE(render_fabric(with_vl).find("# TYPE infiniband_port_vl_xmit_wait_ticks_total counter"),
            std::string::npos);
}

TEST(Renderer, LabelValuesAreEscapedAndValidUtf8) {
  std::string out;
  append_escaped_label_value(
      "a\"b\\c\nd\te\x01"
      "f caf\xC3\xA9 \xFF\xC3",
      out);
  EXPECT_EQ(out, "a\\\"b\\\\c\\nd e f caf\xC3\xA9 \xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(Renderer, StreamedInChunksItIsTheSameText) {
  Converter c({});
  c.set_topology(fabric(), t0);
  const auto snap = c.snapshot(t0);
  std::string whole;
  FabricRenderer().render(*snap, whole);
  std::string joined;
  std::string scratch;
  size_t chunks = 0;
  size_t largest = 0;
  FabricRenderer().render(
      *snap, scratch,
      [&](std::string_view chunk) {
        joined.append(chunk);
        ++chunks;
        largest = std::max(largest, chunk.size());
      },
      256);
  EXPECT_EQ(joined, whole);
  EXPECT_GT(chunks, 3u);
  EXPECT_LT(largest, 256u + 1024u);  // a chunk ends at the first line past the size
}

// PortExtendedSpeedsCounters' SyncHeaderError and UnknownBlock counters are per port (in the
// default counters group), its other counters per lane (with collect.lanes).
TEST(Renderer, ExtendedSpeedsPortCountersHaveNoLaneLabel) {
  const std::string hca = R"(node_guid="0x0002c90300000001",port="1")";
  const std::string out = render_fabric();
  EXPECT_TRUE(has_line(out, "infiniband_port_sync_header_error_total{" + hca + "} 5")) << out;
  EXPECT_TRUE(has_line(out, "infiniband_port_unknown_block_total{" + hca + "} 0"));
  EXPECT_EQ(out.find("infiniband_port_error_detection_total"), std::string::npos);
  MetricGroups lanes;
  lanes.lanes = true;
  const std::string with_lanes = render_fabric(lanes);
  EXPECT_TRUE(
      has_line(with_lanes, "infiniband_port_error_detection_total{" + hca + R"(,lane="3"} 2)"))
      << with_lanes;
  EXPECT_TRUE(
      has_line(with_lanes, "infiniband_port_error_detection_total{" + hca + R"(,lane="0"} 0)"));
  EXPECT_EQ(with_lanes.find(",=\""), std::string::npos);
}

// The RS-FEC port totals share their name with the older layout's per-lane counters: one
// family, the totals in the default counters group and the lanes only with collect.lanes.
TEST(Renderer, RsFecTotalsAreCountersAndTheirLanesAreLanes) {
  const std::string sw = R"(node_guid="0x0002c90300000abc",port="7")";
  const std::string hca = R"(node_guid="0x0002c90300000001",port="1")";
  const std::string out = render_fabric();
  EXPECT_TRUE(has_line(out, "infiniband_port_fec_correctable_blocks_total{" + sw + "} 9")) << out;
  EXPECT_TRUE(has_line(out, "infiniband_port_fec_corrected_symbols_total{" + sw + "} 0"));
  EXPECT_EQ(out.find("lane="), std::string::npos);
  MetricGroups lanes;
  lanes.lanes = true;
  const std::string with_lanes = render_fabric(lanes);
  EXPECT_TRUE(has_line(with_lanes, "infiniband_port_fec_correctable_blocks_total{" + sw + "} 9"));
  EXPECT_TRUE(has_line(with_lanes,
                       "infiniband_port_fec_correctable_blocks_total{" + hca + R"(,lane="0"} 0)"));
  EXPECT_TRUE(has_line(with_lanes,
                       "infiniband_port_fec_correctable_symbols_total{" + sw + R"(,lane="1"} 4)"))
      << with_lanes;
  size_t helps = 0;
  for (size_t at = 0; (at = with_lanes.find("# HELP infiniband_port_fec_correctable_blocks_total ",
                                            at)) != std::string::npos;
       ++at)
    ++helps;
  EXPECT_EQ(helps, 1u);
}

// The congestion series: a role per port that has one, in port order; victims per root.
TEST(Renderer, CongestionRolesAndVictimCounts) {
  alerts::HealthSnapshot h;
  h.congestion.roots = {{kSwitch, 1, false}};
  h.congestion.victims = {{kHca, {0}}};
  std::string text;
  std::string scratch;
  FabricRenderer().render_health(h, scratch, [&](std::string_view chunk) { text += chunk; });
  const std::string hca = "node_guid=\"0x0002c90300000001\",port=\"1\"";
  const std::string sw = "node_guid=\"0x0002c90300000abc\",port=\"7\"";
  EXPECT_TRUE(has_line(text, "infiniband_port_congestion{" + hca + ",role=\"victim\"} 1")) << text;
  EXPECT_LT(text.find(hca + ",role"), text.find(sw + ",role")) << "in port order";
  EXPECT_TRUE(has_line(text, "infiniband_port_congestion{" + sw + ",role=\"root\"} 1"));
  EXPECT_TRUE(has_line(text, "infiniband_port_congestion_victims{" + sw + "} 1"));
  EXPECT_EQ(text.find("infiniband_port_congestion_victims{" + hca), std::string::npos);
  const testing::LintResult lint = testing::promtool_lint(text);
  EXPECT_EQ(lint.status, 0) << lint.output;
}

// PortXmitWait as a share of the interval: 25,000,000 ticks of 4 ns in 1 s.
TEST(Renderer, XmitWaitRatioOfThePortsThatReadIt) {
  Converter c({});
  c.set_topology(fabric(), t0);
  auto wait = converters::testing::sample(kSwitch, Attribute::kPortCounters, t0);
  const size_t field = converters::testing::field(Attribute::kPortCounters, "PortXmitWait");
  c.apply(wait);
  wait.received = t0 + 1s;
  wait.values[field] = 25'000'000;
  c.apply(wait);
  std::string out;
  FabricRenderer().render(*c.snapshot(t0 + 1s), out);
  const std::string series =
      "\ninfiniband_port_xmit_wait_ratio{node_guid=\"0x0002c90300000abc\",port=\"7\"} ";
  const size_t at = out.find(series);
  ASSERT_NE(at, std::string::npos) << out;
  EXPECT_NEAR(std::stod(out.substr(at + series.size())), 0.1, 1e-6);  // a float's precision
  EXPECT_EQ(out.find("infiniband_port_xmit_wait_ratio{node_guid=\"0x0002c90300000001\""),
            std::string::npos)
      << "the HCA's PortXmitWait was never read";
}

TEST(Renderer, PromtoolLintsItClean) {
  for (const bool lanes : {false, true}) {
    MetricGroups groups;
    groups.lanes = groups.vl = lanes;
    const testing::LintResult lint = testing::promtool_lint(render_fabric(groups));
    EXPECT_EQ(lint.status, 0) << lint.output;
    EXPECT_EQ(lint.output, "");
  }
}

}  // namespace
}  // namespace ibpulse::exporters::prometheus
