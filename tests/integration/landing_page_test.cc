// The landing page's fabric health view in a real browser (Debian's chromium, headless): after
// symbol errors on Hca1[1] and a hot spot on Hca3 (the traffic generator), the switch rows colour
// Switch1's port 1 failing and mark its port 2 the congestion root, and the tables name the
// failing link and the root; the page loads nothing from elsewhere; a screenshot renders.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <thread>

#include "daemon_client.h"
#include "eventually.h"
#include "shell.h"
#include "sim_fabric.h"

namespace ibpulse::testing {
namespace {

using namespace std::chrono_literals;

SimFabric& fabric() {
  return SimFabricEnvironment::fabric();
}

std::string chromium(const std::string& args) {
  return shell("chromium --headless --no-sandbox --disable-gpu --user-data-dir=" +
               (std::filesystem::temp_directory_path() /
                ("ibpulse-chromium-" + std::to_string(::getpid())))
                   .string() +
               " " + args)
      .out;
}

// The class of Switch's cell for `port` in the rendered grid ("" when absent).
std::string cell_class(const std::string& dom, const std::string& node, unsigned port) {
  const size_t row = dom.find("<td class=\"name\">" + node + "</td>");
  if (row == std::string::npos) return "";
  const std::regex cell(R"re(<div class="([^"]*)" data-port="(\d+)")re");
  const size_t row_end = dom.find("</tr>", row);
  const std::string text = dom.substr(row, row_end - row);
  for (std::sregex_iterator it(text.begin(), text.end(), cell), end; it != end; ++it) {
    if (std::stoul((*it)[2]) == port) return (*it)[1];
  }
  return "";
}

TEST(LandingPage, AHeadlessBrowserShowsTheFailingLinkAndTheCongestionRoot) {
  Daemon d(fabric(), {"--poll.counters-interval", "1s", "--counters.publish-interval", "500ms",
                      "--state.save-interval", "off", "--health.ber-window", "1m"});
  ASSERT_TRUE(d.wait_for("event=ready", 10s)) << d.log();
  ASSERT_TRUE(d.wait_for_sweeps(2)) << d.log();
  fabric().set("PerformanceSet \"Hca1\"[1] PortCounters.SymbolErrorCounter=2000");
  sim::CommandOutput traffic_out;
  std::thread traffic([&] {
    traffic_out =
        fabric().sim("traffic", {"--hot-spot", "Hca3", "--duration", "12", "--tick-ms", "100"});
  });
  const bool judged = eventually(
      [&] {
        const auto api =
            nlohmann::json::parse(http_get(d.web_port(), "/api/health"), nullptr, false);
        // Steady: the hot spot's whole tree (a first partial interval can show part of it).
        return !api.is_discarded() && api["summary"].value("failing", 0) >= 1 &&
               api["roots"].size() == 1 && api["roots"][0].value("victims", 0) == 4;
      },
      15s);
  const std::string url = fmt::format("http://127.0.0.1:{}/", d.web_port());
  const std::string dom = judged ? chromium("--virtual-time-budget=3000 --dump-dom " + url) : "";
  const auto png = std::filesystem::temp_directory_path() /
                   ("ibpulse-landing-" + std::to_string(::getpid()) + ".png");
  const std::string shot =
      judged ? chromium("--window-size=1280,900 --screenshot=" + png.string() + " " + url) : "";
  traffic.join();
  fabric().set("PerformanceSet \"Hca1\"[1] PortCounters.SymbolErrorCounter=0");
  ASSERT_TRUE(judged) << http_get(d.web_port(), "/api/health");
  EXPECT_EQ(traffic_out.exit_code, 0) << traffic_out.err;

  EXPECT_NE(cell_class(dom, "Switch1", 1).find("failing"), std::string::npos) << dom;
  EXPECT_NE(cell_class(dom, "Switch1", 2).find("root"), std::string::npos) << dom;
  EXPECT_NE(cell_class(dom, "Switch1", 4).find("nolink"), std::string::npos);
  EXPECT_NE(cell_class(dom, "Switch2", 3).find("victim"), std::string::npos);
  EXPECT_NE(dom.find("<td>failing</td><td>Hca1/1</td><td>Switch1/1</td>"), std::string::npos);
  EXPECT_NE(dom.find("<tr class=\"congestion-root\"><td>Switch1/2</td><td>Hca3/1</td><td>4</td>"),
            std::string::npos);
  // Air-gapped management networks: nothing but the daemon's own paths.
  const std::string html = http_get(d.web_port(), "/");
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  // A PNG of the requested width (IHDR: bytes 16-19, big-endian).
  std::ifstream in(png, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::filesystem::remove(png);
  ASSERT_GE(bytes.size(), 24u) << shot;
  EXPECT_EQ(bytes.substr(1, 3), "PNG");
  const auto byte = [&](size_t i) { return static_cast<unsigned>(static_cast<uint8_t>(bytes[i])); };
  EXPECT_EQ(byte(16) << 24 | byte(17) << 16 | byte(18) << 8 | byte(19), 1280u);
}

}  // namespace
}  // namespace ibpulse::testing
