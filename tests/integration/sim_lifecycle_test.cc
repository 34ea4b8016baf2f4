// `sim up` / `sim down` leave nothing behind, even when the owner of a fabric crashes.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "sim_fabric.h"

namespace ibpulse::testing {
namespace {

using namespace std::chrono_literals;

std::vector<sim::ProcessRef> fabric_processes(const std::filesystem::path& run_dir) {
  const auto state = nlohmann::json::parse(std::ifstream(run_dir / "state.json"));
  std::vector<sim::ProcessRef> out;
  const auto add = [&](const nlohmann::json& process) {
    if (process.is_null()) return;
    out.push_back({process.at("pid").get<pid_t>(), process.at("start_time").get<uint64_t>()});
  };
  add(state.at("ibsim"));
  for (const auto& part : state.at("parts"))
    add(part.at("subnet_manager"));  // one resident opensm per part
  add(state.at("watcher"));
  return out;
}

// Live processes whose environment names this socket: ibsim and every client carry it.
std::vector<pid_t> processes_on_socket(const std::string& socket) {
  std::vector<pid_t> out;
  const std::string needle = "IBSIM_SOCKNAME=" + socket;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "environ", std::ios::binary);
    const std::string env{std::istreambuf_iterator<char>(in), {}};
    const pid_t pid = std::stoi(name);
    if (env.find(needle) != std::string::npos && sim::process_ref(pid)) out.push_back(pid);
  }
  return out;
}

bool wait_until(const std::function<bool()>& done, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(50ms);
  }
  return true;
}

TEST(SimLifecycle, DownStopsEverythingItStartedAndItsClients) {
  auto fabric = SimFabric::up("down");
  const auto processes = fabric_processes(fabric->run_dir());
  ASSERT_EQ(processes.size(), 3u) << "ibsim, opensm and the owner watcher";
  for (const auto& p : processes)
    EXPECT_TRUE(sim::is_running(p));

  // A client left running (a poller, a stuck tool) is stopped by `down` too.
  sim::SpawnSpec client;
  client.argv = {IBPULSE_BINARY_FOR_TESTS, "sim", "exec",  "--name", fabric->name(), "--root",
                 fabric->root().string(),  "--",  "sleep", "60"};
  auto exec = sim::spawn_detached(client);
  ASSERT_TRUE(exec.ok()) << exec.error();
  ASSERT_TRUE(
      wait_until([&] { return processes_on_socket(fabric->socket_name()).size() >= 3; }, 5s));

  const auto down = fabric->sim("down");
  ASSERT_EQ(down.exit_code, 0) << down.err;
  EXPECT_NE(down.err.find("stopped"), std::string::npos);
  for (const auto& p : processes)
    EXPECT_FALSE(sim::is_running(p)) << "pid " << p.pid;
  EXPECT_TRUE(wait_until([&] { return processes_on_socket(fabric->socket_name()).empty(); }, 3s))
      << "a process still carries the fabric's socket name";
  EXPECT_FALSE(std::filesystem::exists(fabric->run_dir()));
  sim::terminate(*exec, 1s);
}

// Stopping `sim exec` (a service manager's SIGTERM, Ctrl-C) stops its command: the wrapper
// never leaves a daemon running on its own.
TEST(SimLifecycle, ExecPassesStopSignalsToItsCommand) {
  auto fabric = SimFabric::up("exec-signals");
  for (const int sig : {SIGTERM, SIGINT}) {
    const auto pid_file = fabric->root() / ("child-" + std::to_string(sig));
    sim::SpawnSpec spec;
    spec.argv = {IBPULSE_BINARY_FOR_TESTS,
                 "sim",
                 "exec",
                 "--name",
                 fabric->name(),
                 "--root",
                 fabric->root().string(),
                 "--",
                 "sh",
                 "-c",
                 "echo $$ > " + pid_file.string() + ".tmp && mv " + pid_file.string() + ".tmp " +
                     pid_file.string() + " && exec sleep 60"};
    auto exec = sim::spawn_detached(spec);
    ASSERT_TRUE(exec.ok()) << exec.error();
    ASSERT_TRUE(wait_until([&] { return std::filesystem::exists(pid_file); }, 10s));
    pid_t child_pid = 0;
    std::ifstream(pid_file) >> child_pid;
    const auto child = sim::process_ref(child_pid);
    ASSERT_TRUE(child) << "the command runs";

    ASSERT_EQ(::kill(exec->pid, sig), 0);
    EXPECT_TRUE(wait_until([&] { return !sim::is_running(*child); }, 10s))
        << "signal " << sig << " was not passed on";
    EXPECT_TRUE(wait_until([&] { return !sim::is_running(*exec); }, 10s));
    sim::terminate(*child, 1s);
    sim::terminate(*exec, 1s);
  }
}

TEST(SimLifecycle, ACrashedOwnerTakesItsFabricWithIt) {
  sim::SpawnSpec owner_spec;
  owner_spec.argv = {"sleep", "60"};
  auto owner = sim::spawn_detached(owner_spec);
  ASSERT_TRUE(owner.ok());
  const auto root =
      std::filesystem::temp_directory_path() / ("ibpulse-test-crash-" + std::to_string(::getpid()));
  const std::string name = "crash";
  const auto up = run_ibpulse({"sim", "up", "--name", name, "--root", root.string(), "--owner-pid",
                               std::to_string(owner->pid)});
  ASSERT_EQ(up.exit_code, 0) << up.err;
  const auto processes = fabric_processes(root / name);

  ::kill(owner->pid, SIGKILL);  // the owner dies without running any teardown
  EXPECT_TRUE(wait_until([&] { return !std::filesystem::exists(root / name); }, 10s));
  // The watcher removes the run directory just before it exits itself (slowly when built
  // with sanitizers).
  const auto all_stopped = [&] {
    return std::none_of(processes.begin(), processes.end(),
                        [](const sim::ProcessRef& p) { return sim::is_running(p); });
  };
  EXPECT_TRUE(wait_until(all_stopped, 10s));
  for (const auto& p : processes)
    EXPECT_FALSE(sim::is_running(p)) << "pid " << p.pid;
  std::filesystem::remove_all(root);
}

TEST(SimLifecycle, UpRefusesASecondFabricOfTheSameName) {
  auto fabric = SimFabric::up("twice");
  const auto again =
      run_ibpulse({"sim", "up", "--name", fabric->name(), "--root", fabric->root().string()});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.err.find("already up"), std::string::npos) << again.err;
  EXPECT_TRUE(again.out.empty()) << "standard output carries only export lines";
}

TEST(SimLifecycle, UpPrintsEvalableExportsOnly) {
  const auto root =
      std::filesystem::temp_directory_path() / ("ibpulse-test-env-" + std::to_string(::getpid()));
  const auto up = run_ibpulse({"sim", "up", "--name", "env", "--root", root.string(), "--no-sm",
                               "--owner-pid", std::to_string(::getpid())});
  ASSERT_EQ(up.exit_code, 0) << up.err;
  // The lines work in a shell: perfquery through them reads the fabric.
  const auto shell =
      sim::run_command({"sh", "-c", up.out + "perfquery 1 1 >/dev/null && echo ok"}, {}, 30s);
  ASSERT_TRUE(shell.ok());
  EXPECT_EQ(shell->out, "ok\n") << shell->err;
  std::istringstream lines(up.out);
  for (std::string line; std::getline(lines, line);)
    EXPECT_EQ(line.rfind("export ", 0), 0u) << line;
  EXPECT_NE(up.err.find("ready in"), std::string::npos);
  EXPECT_EQ(run_ibpulse({"sim", "down", "--name", "env", "--root", root.string()}).exit_code, 0);
  std::filesystem::remove_all(root);
}

TEST(SimLifecycle, ClearErrorsForMisuse) {
  const auto root = std::filesystem::temp_directory_path() /
                    ("ibpulse-test-misuse-" + std::to_string(::getpid()));
  const auto unknown = run_ibpulse({"sim", "down", "--name", "nosuch", "--root", root.string()});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("no fabric named 'nosuch'"), std::string::npos) << unknown.err;
  const auto set = run_ibpulse({"sim", "set", "--name", "nosuch", "--root", root.string(), "Dump"});
  EXPECT_EQ(set.exit_code, 1);
  const auto bad_name = run_ibpulse({"sim", "up", "--name", "../etc", "--root", root.string()});
  EXPECT_EQ(bad_name.exit_code, 1);
  EXPECT_NE(bad_name.err.find("bad fabric name"), std::string::npos) << bad_name.err;
  const auto too_big = run_ibpulse(
      {"sim", "up", "--name", "big", "--root", root.string(), "--hosts", "20000", "--radix", "36"});
  EXPECT_EQ(too_big.exit_code, 1);
  EXPECT_NE(too_big.err.find("do not fit"), std::string::npos) << too_big.err;
  const auto no_ibsim = run_ibpulse({"sim", "up", "--name", "x", "--root", root.string()},
                                    std::chrono::seconds(10), {{"PATH", "/nonexistent"}});
  EXPECT_EQ(no_ibsim.exit_code, 1);
  EXPECT_NE(no_ibsim.err.find("ibsim is not installed"), std::string::npos) << no_ibsim.err;
  EXPECT_FALSE(std::filesystem::exists(root / "x"));
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace ibpulse::testing
