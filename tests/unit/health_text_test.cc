// What `ibpulse top` draws from a health document: the congestion roots with their victims, the
// links sorted and filtered as asked, and never more than the terminal holds.
#include "ibpulse/exporters/alerts/health_text.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

namespace ibpulse::exporters::alerts {
namespace {

using nlohmann::json;

json end(const std::string& node, int port, double ber, int flaps) {
  return {{"node", node},      {"node_guid", "0x1"},       {"port", port},
          {"symbol_ber", ber}, {"effective_ber", nullptr}, {"flaps", flaps},
          {"held", false},     {"maintenance", false}};
}

json document(size_t ok_links) {
  json links = json::array();
  links.push_back({{"state", "failing"},
                   {"reasons", {"flapping"}},
                   {"a", end("node01", 1, 0, 9)},
                   {"b", end("leaf01", 3, 0, 9)}});
  links.push_back({{"state", "degraded"},
                   {"reasons", {"error_burst"}},
                   {"a", end("node02", 1, 2e-9, 0)},
                   {"b", end("leaf02", 4, 0, 0)}});
  for (size_t i = 0; i < ok_links; ++i)
    links.push_back({{"state", "ok"},
                     {"reasons", json::array()},
                     {"a", end("node" + std::to_string(10 + i), 1, 0, 0)},
                     {"b", end("leaf03", static_cast<int>(i + 1), 0, 0)}});
  json roots = {{{"node", "leaf02"},
                 {"node_guid", "0x2"},
                 {"port", 7},
                 {"victims", 12},
                 {"stuck", false},
                 {"utilization", 0.98},
                 {"wait_ratio", 0.4},
                 {"peer", {{"node", "node07"}, {"node_guid", "0x7"}, {"port", 1}}}},
                {{"node", "leaf05"},
                 {"node_guid", "0x5"},
                 {"port", 2},
                 {"victims", 3},
                 {"stuck", true},
                 {"utilization", 0.0},
                 {"wait_ratio", 0.9},
                 {"peer", {{"node", "node09"}, {"node_guid", "0x9"}, {"port", 1}}}}};
  return {{"sequence", 5},
          {"summary",
           {{"links", 2 + ok_links},
            {"failing", 1},
            {"degraded", 1},
            {"ok", ok_links},
            {"roots", 2},
            {"victims", 15},
            {"switches_down", json::array()}}},
          {"links", links},
          {"roots", roots}};
}

HealthDocument parsed(const json& document) {
  auto doc = HealthDocument::parse(document.dump());
  EXPECT_TRUE(doc.ok()) << doc.error();
  return doc.ok() ? *doc : HealthDocument();
}

json arranged_json(const json& document, const HealthTextView& view) {
  return json::parse(arrange(parsed(document), view));
}

bool has(const std::vector<std::string>& lines, const std::string& text) {
  return std::ranges::any_of(
      lines, [&](const std::string& l) { return l.find(text) != std::string::npos; });
}

TEST(HealthText, RootsWithVictimsAndLinksFitAnEightyByTwentyFourTerminal) {
  HealthTextView view;
  const auto lines = render_health_text(parsed(document(100)), view);
  EXPECT_EQ(lines.size(), 24u);
  for (const auto& l : lines)
    EXPECT_LE(l.size(), 80u) << l;
  EXPECT_TRUE(has(lines, "links 102: 1 failing, 1 degraded, 100 ok   roots 2, victims 15"));
  EXPECT_TRUE(has(
      lines, "failing  node01/1           leaf01/3                  0        -     9 flapping"));
  EXPECT_TRUE(has(lines, "leaf02/7           node07/1                12    98%    40%"));
  EXPECT_TRUE(has(lines, "leaf05/2           node09/1                 3     0%    90% stuck"));
}

TEST(HealthText, SortsAndFilters) {
  HealthTextView view;
  view.sort = HealthSort::kBer;
  json arranged = arranged_json(document(3), view);
  EXPECT_EQ(arranged["links"][0]["a"]["node"], "node02") << "the higher BER first";
  view.sort = HealthSort::kFlaps;
  EXPECT_EQ(arranged_json(document(3), view)["links"][0]["a"]["node"], "node01");
  const auto leaf02 = exporters::alerts::NameFilter::compile("^leaf02$").value();
  view.filter = leaf02.get();
  arranged = arranged_json(document(3), view);
  ASSERT_EQ(arranged["links"].size(), 1u);
  EXPECT_EQ(arranged["links"][0]["b"]["node"], "leaf02");
  ASSERT_EQ(arranged["roots"].size(), 1u);
  EXPECT_EQ(arranged["roots"][0]["port"], 7);
}

TEST(HealthText, ALongNodeNameKeepsItsEnd) {
  json doc = document(0);
  doc["links"][0]["a"]["node"] = "rack12-chassis3-node0042 HCA-1";
  const auto lines = render_health_text(parsed(doc), HealthTextView{});
  EXPECT_TRUE(has(lines, "failing  ~-node0042 HCA-1/1 leaf01/3")) << lines[5];  // 18 wide
}

// What `top` shows instead of a frame: the daemon's refusal, or that it is no ibpulse daemon.
TEST(HealthText, ADocumentIsParsedOrSaysWhyNot) {
  EXPECT_EQ(parsed(document(3)).links(), 5u);
  EXPECT_EQ(HealthDocument().links(), 0u);
  auto refused = HealthDocument::parse(R"({"error": "filter: bad regular expression"})");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error(), "filter: bad regular expression");
  auto html = HealthDocument::parse("<html>404</html>");
  ASSERT_FALSE(html.ok());
  EXPECT_EQ(html.error(), "not a health document (is this an ibpulse daemon?)");
}

}  // namespace
}  // namespace ibpulse::exporters::alerts
