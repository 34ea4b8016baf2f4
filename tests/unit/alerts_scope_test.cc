// Rule scopes by node name (a regular expression over the node-name map's name and the
// NodeDescription) and by node GUID list: only the ports in scope raise.
#include <gtest/gtest.h>

#include <set>

#include "alert_fabric.h"

namespace ibpulse::exporters::alerts {
namespace {

// Symbol errors on every port of the fabric at once; the ports whose rule instance raised.
std::set<collector::PortKey> raised_by(const std::string& scope) {
  FabricClock f;
  ThresholdEngine e(configured(R"({"name": "any", "counter": "symbol_error",
      "condition": "delta >= 1", "scope": )" +
                               scope + "}"),
                    {});
  step(e, f, 0);
  for (const auto& port : f.topology->ports)
    f.symbol_errors[port.key] = 3;
  std::set<collector::PortKey> raised;
  for (const auto& d : step(e, f, 1)) {
    EXPECT_EQ(d.event.kind, EventKind::kRaised);
    raised.insert(d.event.port);
  }
  return raised;
}

TEST(AlertScopes, ANameRegexMatchesTheMapNameOrTheDescription) {
  // "node07" is the HCA's name, "HCA-1" only in its description, "leaf" the switch's.
  EXPECT_EQ(raised_by(R"({"name": "^node07$"})"), (std::set<collector::PortKey>{{kHca, 1}}));
  EXPECT_EQ(raised_by(R"({"name": "HCA-[0-9]"})"), (std::set<collector::PortKey>{{kHca, 1}}));
  EXPECT_EQ(raised_by(R"({"name": "^leaf"})").size(), 4u);
  EXPECT_TRUE(raised_by(R"({"name": "^spine"})").empty());
}

TEST(AlertScopes, AGuidListTakesOnlyThoseNodes) {
  const auto raised = raised_by(R"({"guids": ["0x0002c90300000001"]})");
  ASSERT_EQ(raised.size(), 4u);
  for (const auto& key : raised)
    EXPECT_EQ(key.node_guid, kSwitch);
  EXPECT_EQ(raised_by(R"({"guids": ["0x0002c90300000001", "0x0002c90300000010"], "ports": "1"})"),
            (std::set<collector::PortKey>{{kSwitch, 1}, {kHca, 1}}));
}

}  // namespace
}  // namespace ibpulse::exporters::alerts
