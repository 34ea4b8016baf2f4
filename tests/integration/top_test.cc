// `ibpulse top` against a daemon on the simulated fabric, in a real terminal: tmux with an
// 80x24 window runs it, the test reads the screen (capture-pane) and types keys (send-keys).
// Symbol errors planted on Hca1[1] make its link failing: the first row names both ends; s
// changes the sort, q quits; it stays under 5% of a core; --once --json gives scripts the same.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

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

// A tmux server of the test's own (its own socket), killed with the test.
class Tmux {
 public:
  Tmux() : socket_(fmt::format("ibpulse-top-test-{}", ::getpid())) {}
  ~Tmux() { run("kill-server"); }

  ShellRun run(const std::string& args) const {
    return shell(fmt::format("tmux -L {} {}", socket_, args));
  }
  std::string screen() const { return run("capture-pane -p -t top").out; }
  bool alive() const { return run("has-session -t top").exit_code == 0; }

 private:
  std::string socket_;
};

// CPU time (user + system) of process `pid` in clock ticks.
uint64_t cpu_ticks(const std::string& pid) {
  std::ifstream in("/proc/" + pid + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream fields(text.substr(text.rfind(')') + 2));
  std::string f;
  uint64_t utime = 0;
  uint64_t stime = 0;
  for (int i = 3; i <= 15 && fields >> f; ++i) {
    if (i == 14) utime = std::stoull(f);
    if (i == 15) stime = std::stoull(f);
  }
  return utime + stime;
}

double uptime_seconds() {
  std::ifstream in("/proc/uptime");
  double up = 0;
  in >> up;
  return up;
}

int refresh_of(const std::string& screen) {
  std::smatch m;
  static const std::regex re("#([0-9]+)");
  return std::regex_search(screen, m, re) ? std::stoi(m[1]) : -1;
}

TEST(Top, ShowsTheFailingLinkSortsQuitsAndStaysLight) {
  Daemon d(fabric(), {"--poll.counters-interval", "300ms", "--counters.publish-interval", "200ms",
                      "--state.save-interval", "off", "--health.ber-window", "30s"});
  ASSERT_TRUE(d.wait_for("event=ready", 10s)) << d.log();
  ASSERT_TRUE(d.wait_for_sweeps(2)) << d.log();
  fabric().set("PerformanceSet \"Hca1\"[1] PortCounters.SymbolErrorCounter=1000");
  ASSERT_TRUE(eventually(
      [&] {
        const auto api =
            nlohmann::json::parse(http_get(d.web_port(), "/api/health"), nullptr, false);
        return !api.is_discarded() && api["summary"].value("failing", 0) == 1;
      },
      20s));
  fabric().set("PerformanceSet \"Hca1\"[1] PortCounters.SymbolErrorCounter=0");
  const std::string url = fmt::format("http://127.0.0.1:{}", d.web_port());

  Tmux tmux;
  ASSERT_EQ(tmux.run(fmt::format("new-session -d -s top -x 80 -y 24 'exec {} top --url {}'",
                                 IBPULSE_BINARY_FOR_TESTS, url))
                .exit_code,
            0);
  std::string screen;
  ASSERT_TRUE(eventually(
      [&] {
        screen = tmux.screen();
        return screen.find("failing  Hca1/1") != std::string::npos;
      },
      15s))
      << screen;
  EXPECT_NE(screen.find("failing  Hca1/1             Switch1/1"), std::string::npos) << screen;
  EXPECT_NE(screen.find("ber_above"), std::string::npos) << "cut at 80 columns: " << screen;
  EXPECT_NE(screen.find("links 6: 1 failing"), std::string::npos) << screen;
  std::istringstream lines(screen);
  size_t rows = 0;
  for (std::string line; std::getline(lines, line); ++rows)
    EXPECT_LE(line.size(), 80u) << line;
  EXPECT_LE(rows, 24u);

  // Light: CPU time over ten refreshes (about ten seconds) under 5% of one core.
  // The pane's process is top itself (exec).
  const std::string pid = tmux.run("display -p -t top '#{pane_pid}'").out;
  const std::string top_pid = pid.substr(0, pid.find('\n'));
  ASSERT_FALSE(top_pid.empty());
  const int first = refresh_of(tmux.screen());
  const uint64_t ticks_before = cpu_ticks(top_pid);
  const double up_before = uptime_seconds();
  ASSERT_TRUE(eventually([&] { return refresh_of(tmux.screen()) >= first + 10; }, 30s));
  const double cpu = static_cast<double>(cpu_ticks(top_pid) - ticks_before) /
                     static_cast<double>(sysconf(_SC_CLK_TCK));
  EXPECT_LT(cpu / (uptime_seconds() - up_before), 0.05) << cpu << " s of CPU";

  tmux.run("send-keys -t top s");
  EXPECT_TRUE(eventually([&] { return tmux.screen().find("sort: ber") != std::string::npos; }, 5s))
      << tmux.screen();
  tmux.run("send-keys -t top q");
  EXPECT_TRUE(eventually([&] { return !tmux.alive(); }, 5s)) << "q did not quit";

  // Scripts: the same document, filtered to one switch's links.
  const auto once = fabric().exec(
      {IBPULSE_BINARY_FOR_TESTS, "top", "--url", url, "--once", "--json", "--filter", "^Switch1$"});
  ASSERT_EQ(once.exit_code, 0) << once.err;
  const auto doc = nlohmann::json::parse(once.out);
  ASSERT_EQ(doc["links"].size(), 4u) << "Switch1's four links" << doc.dump();
  EXPECT_EQ(doc["links"][0]["state"], "failing");
  EXPECT_EQ(doc["links"][0]["a"]["node"], "Hca1");
}

TEST(Top, ClearErrorsForBadUrlsAndUnreachableDaemons) {
  const auto https =
      fabric().exec({IBPULSE_BINARY_FOR_TESTS, "top", "--url", "https://x:1", "--once"});
  EXPECT_NE(https.exit_code, 0);
  EXPECT_NE(https.err.find("give an http:// URL"), std::string::npos) << https.err;
  const uint16_t closed = free_loopback_port(SOCK_STREAM);
  const auto refused = fabric().exec({IBPULSE_BINARY_FOR_TESTS, "top", "--url",
                                      fmt::format("http://127.0.0.1:{}", closed), "--once"});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("cannot connect to 127.0.0.1"), std::string::npos) << refused.err;
  // Run from a script with no input (stdin at its end, readable forever): it waits, not spins.
  const ShellRun quiet = shell(fmt::format(
      "bash -c 'TIMEFORMAT=%U+%S; time timeout 3 {} top --url http://127.0.0.1:{} --interval 0.2 "
      "</dev/null >/dev/null 2>&1'",
      IBPULSE_BINARY_FOR_TESTS, closed));
  const size_t plus = quiet.out.rfind('+');
  ASSERT_NE(plus, std::string::npos) << quiet.out;
  const size_t line = quiet.out.rfind('\n', plus);
  const double cpu = std::stod(quiet.out.substr(line == std::string::npos ? 0 : line + 1)) +
                     std::stod(quiet.out.substr(plus + 1));
  EXPECT_LT(cpu, 0.5) << "CPU seconds in 3 s: " << quiet.out;
  const auto json_live = fabric().exec({IBPULSE_BINARY_FOR_TESTS, "top", "--json"});
  EXPECT_NE(json_live.err.find("--json needs --once"), std::string::npos) << json_live.err;
}

}  // namespace
}  // namespace ibpulse::testing
