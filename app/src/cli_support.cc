#include "cli_support.h"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <vector>

#include "ibpulse/base/number.h"

namespace ibpulse::cli {
namespace {

std::vector<std::string> g_args;
std::atomic<bool> g_stop{false};

void on_stop_signal(int /*signo*/) {
  g_stop.store(true);
}

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

std::filesystem::path fabric_root(const FabricOptions& options) {
  return options.root.empty() ? sim::default_root() : std::filesystem::path(options.root);
}

Result<sim::FabricState> running_fabric(const FabricOptions& options) {
  auto s = sim::load(fabric_root(options), options.name);
  if (!s) return s;
  if (!sim::is_running(s->ibsim)) {
    return Err(
        "fabric '{}' is not running (ibsim pid {} is gone); `ibpulse sim down --name {}` "
        "cleans up",
        options.name, s->ibsim.pid, options.name);
  }
  return s;
}

int fail(std::string_view message) {
  fmt::print(stderr, "ibpulse: {}\n", message);
  return kFailed;
}

void set_program_args(int argc, char** argv) {
  g_args.assign(argv, argv + argc);
}

void add_sanitizer_env(sim::EnvVars& env) {
#ifdef IBPULSE_ASAN_SUPPRESSIONS  // an ASan build (app/CMakeLists.txt)
  // An ASan build must come first in the library list; umad2sim's preload now does. Both
  // work together once ASan stops checking the order and ignores umad2sim's own overflow.
  const char* asan = std::getenv("ASAN_OPTIONS");
  env.emplace_back("ASAN_OPTIONS",
                   std::string(asan ? asan : "") + (asan && *asan ? ":" : "") +
                       "verify_asan_link_order=0:suppressions=" + IBPULSE_ASAN_SUPPRESSIONS);
  env.emplace_back("LSAN_OPTIONS", std::string("suppressions=") + IBPULSE_LSAN_SUPPRESSIONS);
#else
  (void)env;
#endif
}

Status run_as_client(const sim::FabricState& fabric, const std::optional<std::string>& sim_host) {
  const char* socket = std::getenv("IBSIM_SOCKNAME");
  const char* preload = std::getenv("LD_PRELOAD");
  const char* host = std::getenv("SIM_HOST");
  const bool attached = socket != nullptr && fabric.socket_name == socket && preload != nullptr &&
                        std::strstr(preload, "libumad2sim") != nullptr &&
                        (!sim_host || (host != nullptr && *sim_host == host));
  if (attached) return Ok{};
  if (std::getenv("IBPULSE_SIM_REEXEC") != nullptr) {
    return Err("could not attach to fabric '{}' (LD_PRELOAD={})", fabric.name,
               preload ? preload : "");
  }
  auto env = sim::client_env(fabric, sim_host);
  env.emplace_back("IBPULSE_SIM_REEXEC", "1");
  add_sanitizer_env(env);
  auto self = g_args;
  self.front() = sim::self_executable().string();
  auto replaced = sim::replace_process(self, env);
  return Err("cannot re-run ibpulse as a fabric client: {}", replaced.error());
}

const std::atomic<bool>& install_stop_signals() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  return g_stop;
}

void Progress::operator()(std::string_view stage, size_t done, size_t total) {
  if (!started_) {
    started_ = true;
    tty_ = ::isatty(STDERR_FILENO) != 0;
    start_ = now_seconds();
  }
  const double elapsed = now_seconds() - start_;
  const std::string counts = total > 0 ? fmt::format(" {}/{}", done, total) : "";
  if (tty_) {
    fmt::print(stderr, "\r\033[K[{:6.1f}s] {}{}", elapsed, stage, counts);
    std::fflush(stderr);
  } else if (stage != last_stage_) {
    fmt::print(stderr, "[{:6.1f}s] {}\n", elapsed, stage);
  }
  last_stage_ = std::string(stage);
}

void Progress::finish() const {
  if (tty_ && started_) fmt::print(stderr, "\n");
}

nlohmann::json env_json(const sim::EnvVars& env) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [k, v] : env)
    out[k] = v;
  return out;
}

std::string shell_quote(std::string_view value) {
  std::string out = "'";
  for (char c : value) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out.push_back(c);
    }
  }
  return out + "'";
}

}  // namespace ibpulse::cli
