#include "ibpulse/sim/port_spec.h"

#include <gtest/gtest.h>

namespace ibpulse::sim {
namespace {

TEST(PortSpec, AcceptsTheUsualSpellings) {
  for (const char* text : {"Hca1[1]", "\"Hca1\"[1]", "Hca1:1"}) {
    auto spec = parse_port_spec(text);
    ASSERT_TRUE(spec.ok()) << text << ": " << spec.error();
    EXPECT_EQ(spec->node, "Hca1");
    EXPECT_EQ(spec->port, 1u);
  }
  auto sw = parse_port_spec("Switch-2.a[36]");
  ASSERT_TRUE(sw.ok());
  EXPECT_EQ(sw->port, 36u);
  EXPECT_EQ(console_port(*sw), "\"Switch-2.a\"[36]");
}

TEST(PortSpec, WholeNodeOnlyWhereAllowed) {
  EXPECT_FALSE(parse_port_spec("Hca1").ok());
  auto all = parse_port_spec("Hca1", true);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->port, 0u);
  EXPECT_EQ(console_port(*all), "\"Hca1\"");
}

TEST(PortSpec, RejectsBadPorts) {
  for (const char* text :
       {"", "Hca1[]", "Hca1[0]", "Hca1[256]", "Hca1[x]", "[1]", "Hca1:", "Hca1[1"}) {
    auto spec = parse_port_spec(text);
    EXPECT_FALSE(spec.ok()) << text;
    if (!spec.ok()) {
      EXPECT_NE(spec.error().find("NODE[PORT]"), std::string::npos);
    }
  }
}

TEST(ErrorSpec, ParsesRulesWithDefaultsAndPorts) {
  auto specs = parse_error_specs(
      "SymbolErrorCounter=5,PortRcvErrorDetails.PortLocalPhysicalErrors=0.5@Hca1[1],"
      "LinkDownedCounter=1@Switch1");
  ASSERT_TRUE(specs.ok()) << specs.error();
  ASSERT_EQ(specs->size(), 3u);
  EXPECT_EQ((*specs)[0].attribute, "PortCounters");
  EXPECT_EQ((*specs)[0].field, "SymbolErrorCounter");
  EXPECT_DOUBLE_EQ((*specs)[0].per_second, 5);
  EXPECT_FALSE((*specs)[0].where.has_value());
  EXPECT_EQ((*specs)[1].attribute, "PortRcvErrorDetails");
  EXPECT_DOUBLE_EQ((*specs)[1].per_second, 0.5);
  ASSERT_TRUE((*specs)[1].where.has_value());
  EXPECT_EQ((*specs)[1].where->port, 1u);
  EXPECT_EQ((*specs)[2].where->node, "Switch1");
  EXPECT_EQ((*specs)[2].where->port, 0u);
}

TEST(ErrorSpec, RejectsUnknownFieldsAndRates) {
  auto unknown = parse_error_specs("SymbolErrors=5");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().find("PortCounters.SymbolErrorCounter"), std::string::npos)
      << "the message lists what is valid: " << unknown.error();
  // Data counters belong to --utilization, not to error rules.
  EXPECT_FALSE(parse_error_specs("PortXmitData=5").ok());
  EXPECT_FALSE(parse_error_specs("SymbolErrorCounter=-1").ok());
  EXPECT_FALSE(parse_error_specs("SymbolErrorCounter=abc").ok());
  EXPECT_FALSE(parse_error_specs("SymbolErrorCounter").ok());
  EXPECT_FALSE(parse_error_specs("SymbolErrorCounter=1@Hca1[0]").ok());
}

}  // namespace
}  // namespace ibpulse::sim
