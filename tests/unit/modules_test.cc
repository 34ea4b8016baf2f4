// The small pieces each module starts with.
#include <gtest/gtest.h>

#include "ibpulse/collector/environment.h"
#include "ibpulse/converters/width.h"
#include "ibpulse/exporters/alerts/severity.h"
#include "ibpulse/exporters/prometheus/metric_name.h"
#include "ibpulse/exporters/snmp/oids.h"
#include "ibpulse/schema/attributes.h"

namespace ibpulse {
namespace {

TEST(Schema, AttributesAreFoundByNameAndId) {
  auto pc = schema::find_attribute("PortCounters");
  ASSERT_TRUE(pc.has_value());
  EXPECT_EQ(static_cast<int>(pc->id), 0x12);
  auto ext = schema::find_attribute(schema::Attribute::kPortCountersExtended);
  ASSERT_TRUE(ext.has_value());
  EXPECT_EQ(ext->name, "PortCountersExtended");
  EXPECT_FALSE(schema::find_attribute("PortBogus").has_value());
}

TEST(Collector, DetectsTheSimulatorAndItsWindow) {
  auto sim = collector::mad_environment("/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so", "64");
  EXPECT_TRUE(sim.simulated);
  EXPECT_EQ(sim.max_mads, 64u);
  auto hw = collector::mad_environment("", "");
  EXPECT_FALSE(hw.simulated);
  EXPECT_FALSE(hw.max_mads.has_value());
  EXPECT_FALSE(collector::mad_environment("", "0").max_mads.has_value());
  EXPECT_FALSE(collector::mad_environment("", "64x").max_mads.has_value());
}

TEST(Converters, CountersLatchAtAllOnes) {
  EXPECT_EQ(converters::counter_max(4), 15u);
  EXPECT_EQ(converters::counter_max(32), 4294967295u);
  EXPECT_EQ(converters::counter_max(64), ~uint64_t{0});
  EXPECT_TRUE(converters::is_latched(65535, 16));
  EXPECT_FALSE(converters::is_latched(65534, 16));
  EXPECT_DOUBLE_EQ(converters::fill_ratio(15, 4), 1.0);
  EXPECT_NEAR(converters::fill_ratio(3221225471u, 32), 0.75, 1e-9);
}

TEST(Prometheus, FieldNamesFollowTheNamingRule) {
  using exporters::prometheus::snake_case_field;
  EXPECT_EQ(snake_case_field("SymbolErrorCounter"), "symbol_error");
  EXPECT_EQ(snake_case_field("LinkErrorRecoveryCounter"), "link_error_recovery");
  EXPECT_EQ(snake_case_field("PortXmitData"), "xmit_data");
  EXPECT_EQ(snake_case_field("PortRcvErrors"), "rcv_errors");
  EXPECT_EQ(snake_case_field("PortXmitWait"), "xmit_wait");
  EXPECT_EQ(snake_case_field("PortVLOpPackets"), "vl_op_packets");
  EXPECT_EQ(snake_case_field("PortDLIDMappingErrors"), "dlid_mapping_errors");
  EXPECT_TRUE(exporters::prometheus::is_valid_metric_name("infiniband_port_xmit_data_bytes_total"));
  EXPECT_FALSE(exporters::prometheus::is_valid_metric_name("9lives"));
  EXPECT_FALSE(exporters::prometheus::is_valid_metric_name("a-b"));
  EXPECT_FALSE(exporters::prometheus::is_valid_metric_name(""));
}

TEST(Snmp, OidsPrintDotted) {
  EXPECT_EQ(exporters::snmp::to_string(exporters::snmp::kIbpulseRoot),
            "1.3.6.1.4.1.8072.9999.9999");
  EXPECT_EQ(exporters::snmp::to_string(exporters::snmp::kInfinibandMib), "1.3.6.1.3.117");
}

TEST(Alerts, SeveritiesRoundTrip) {
  using exporters::alerts::Severity;
  for (Severity s : {Severity::kInfo, Severity::kWarning, Severity::kCritical}) {
    EXPECT_EQ(exporters::alerts::parse_severity(exporters::alerts::to_string(s)), s);
  }
  EXPECT_FALSE(exporters::alerts::parse_severity("fatal").has_value());
}

}  // namespace
}  // namespace ibpulse
