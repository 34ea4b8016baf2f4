// `ibpulse sim down|status|exec|set`: the life cycle of a simulated fabric (`up` is in
// sim_up_command.cc).
#include <fmt/format.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli_support.h"
#include "commands.h"
#include "ibpulse/sim/fabric.h"

namespace ibpulse::cli {
namespace {

using namespace std::chrono_literals;

int run_down(const FabricOptions& fo) {
  auto report = sim::down(fabric_root(fo), fo.name);
  if (!report) return fail(report.error());
  fmt::print(stderr, "fabric '{}' is down{}{}\n", fo.name,
             report->stopped.empty() ? "" : ": stopped ", fmt::join(report->stopped, ", "));
  return 0;
}

bool subnet_managers_running(const sim::FabricState& s) {
  return std::all_of(s.parts.begin(), s.parts.end(), [](const sim::SubnetPart& p) {
    return p.subnet_manager && sim::is_running(*p.subnet_manager);
  });
}

nlohmann::json parts_json(const sim::FabricState& s) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& p : s.parts) {
    out.push_back({{"attach_node", p.attach_node},
                   {"subnet_prefix", sim::prefix_text(p.subnet_prefix)},
                   {"nodes", p.nodes},
                   {"links", p.links},
                   {"subnet_manager", p.subnet_manager && sim::is_running(*p.subnet_manager)}});
  }
  return out;
}

nlohmann::json status_json(const sim::FabricState& s) {
  return {{"name", s.name},
          {"running", sim::is_running(s.ibsim)},
          {"subnet_manager", subnet_managers_running(s)},
          {"parts", parts_json(s)},
          {"nodes", s.nodes},
          {"switches", s.switches},
          {"hcas", s.hcas},
          {"ports", s.ports},
          {"links", s.links},
          {"run_dir", s.paths.dir.string()},
          {"env", env_json(sim::client_env(s))}};
}

int run_status(const FabricOptions& fo, bool json) {
  std::vector<sim::FabricState> fabrics;
  if (!fo.name.empty()) {
    auto s = sim::load(fabric_root(fo), fo.name);
    if (!s) return fail(s.error());
    fabrics.push_back(std::move(*s));
  } else {
    fabrics = sim::list(fabric_root(fo));
  }
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& s : fabrics)
      out.push_back(status_json(s));
    fmt::print("{}\n", out.dump(2));
    return 0;
  }
  if (fabrics.empty())
    fmt::print(stderr, "no simulated fabric under {}\n", fabric_root(fo).string());
  for (const auto& s : fabrics) {
    fmt::print("{:<20} {:<8} {:>6} nodes {:>7} ports  {}\n", s.name,
               sim::is_running(s.ibsim) ? "up" : "dead", s.nodes, s.ports, s.paths.dir.string());
  }
  return 0;
}

// umad2sim's SIM_HOST holds at most 31 characters.
constexpr size_t kMaxSimHost = 31;

// Where `sim exec` attaches: a node named by --host (it must exist: umad2sim would otherwise
// fail with no word of why), the node of part --part's subnet manager, or, with neither, the
// first node of the topology (nullopt).
Result<std::optional<std::string>> attach_node(const sim::FabricState& s, const std::string& host,
                                               unsigned part) {
  if (part > 0) {
    if (part > s.parts.size()) {
      return Err("--part {}: fabric '{}' has {} part{}", part, s.name, s.parts.size(),
                 s.parts.size() == 1 ? "" : "s");
    }
    const auto& node = s.parts[part - 1].attach_node;
    if (node.empty()) return std::optional<std::string>();  // a fabric from an older ibpulse
    return std::optional<std::string>(node);
  }
  if (host.empty()) return std::optional<std::string>();
  auto topology = sim::load_topology(s);
  if (!topology) return Error{topology.error()};
  const bool known = std::any_of(topology->nodes.begin(), topology->nodes.end(),
                                 [&](const sim::TopoNode& n) { return n.id == host; });
  if (!known) return Err("--host {}: fabric '{}' has no such node", host, s.name);
  if (host.size() > kMaxSimHost) {
    return Err("--host {}: umad2sim attaches only at nodes whose id has at most {} characters",
               host, kMaxSimHost);
  }
  return std::optional<std::string>(host);
}

// `sim exec` stands in for its command: the signals that stop or reload a process (a service
// manager's SIGTERM, Ctrl-C, SIGHUP) go on to the command, so stopping the wrapper never
// leaves it running on its own. Set before the fork, so that a signal arriving in between is
// kept and sent once the child exists; the child's exec resets the handlers.
volatile sig_atomic_t exec_child = 0;
volatile sig_atomic_t exec_pending_signal = 0;
constexpr int kForwardedSignals[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

void forward_signal(int sig) {
  if (exec_child > 0) {
    ::kill(static_cast<pid_t>(exec_child), sig);
  } else {
    exec_pending_signal = sig;
  }
}

void forward_signals_to_child() {
  struct sigaction action {};
  action.sa_handler = forward_signal;
  sigemptyset(&action.sa_mask);
  for (const int sig : kForwardedSignals)
    ::sigaction(sig, &action, nullptr);
}

int run_exec(const FabricOptions& fo, const std::string& host, unsigned part,
             const std::vector<std::string>& command) {
  auto s = running_fabric(fo);
  if (!s) return fail(s.error());
  auto node = attach_node(*s, host, part);
  if (!node) return fail(node.error());
  auto env = sim::client_env(*s, *node);
  add_sanitizer_env(env);  // the command may be an ASan-built ibpulse
  forward_signals_to_child();
  const pid_t child = ::fork();
  if (child < 0) return fail("fork failed");
  if (child == 0) {
    auto replaced = sim::replace_process(command, env);
    fmt::print(stderr, "ibpulse: {}\n", replaced.error());
    ::_exit(127);
  }
  exec_child = child;
  if (const int sig = exec_pending_signal; sig != 0) ::kill(child, sig);
  if (auto ref = sim::process_ref(child)) sim::register_client(*s, *ref);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  sim::unregister_client(*s, child);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int run_set(const FabricOptions& fo, const std::vector<std::string>& lines) {
  auto s = running_fabric(fo);
  if (!s) return fail(s.error());
  auto reply = sim::console(*s).send(lines);
  if (!reply) return fail(reply.error());
  fmt::print("{}", *reply);
  return 0;
}

// Stops the fabric when the process that owns it (a test binary, a demo) exits, however it
// exits: a crashed test leaves nothing running.
int run_watch(const FabricOptions& fo, pid_t owner_pid) {
  const auto owner = sim::process_ref(owner_pid);
  while (true) {
    auto s = sim::load(fabric_root(fo), fo.name);
    if (!s || !sim::is_running(s->ibsim)) return 0;  // stopped by someone else
    if (!owner || !sim::is_running(*owner)) {
      spdlog::info("owner process {} is gone: stopping fabric '{}'", owner_pid, fo.name);
      auto report = sim::down(fabric_root(fo), fo.name);
      return report ? 0 : fail(report.error());
    }
    std::this_thread::sleep_for(200ms);
  }
}

}  // namespace

void add_fabric_options(CLI::App& sub, FabricOptions& options, bool name_optional) {
  auto* name = sub.add_option("--name", options.name, "Name of the simulated fabric");
  if (!name_optional) name->required();
  sub.add_option("--root", options.root,
                 "Folder holding the fabrics' run directories (default: $IBPULSE_SIM_DIR, "
                 "$XDG_RUNTIME_DIR/ibpulse-sim or /tmp/ibpulse-sim-<uid>)");
}

void add_sim_commands(CLI::App& sim, Action& action) {
  add_sim_up_command(sim, action);
  {
    auto* down = sim.add_subcommand(
        "down",
        "Stop a simulated fabric: its clients, watcher, subnet manager and ibsim, by "
        "pid, and remove its run directory");
    auto fo = std::make_shared<FabricOptions>();
    add_fabric_options(*down, *fo);
    down->callback([fo, &action] { action = [fo] { return run_down(*fo); }; });
  }
  {
    auto* status = sim.add_subcommand("status", "List simulated fabrics, or show one");
    auto fo = std::make_shared<FabricOptions>();
    auto json = std::make_shared<bool>(false);
    add_fabric_options(*status, *fo, true);
    status->add_flag("--json", *json, "Print JSON");
    status->callback(
        [fo, json, &action] { action = [fo, json] { return run_status(*fo, *json); }; });
  }
  {
    auto* exec = sim.add_subcommand(
        "exec",
        "Run a command attached to a simulated fabric (umad2sim preloaded, the fabric's "
        "socket), e.g. `ibpulse sim exec --name lab -- perfquery 2 1`. Exits with the "
        "command's status; SIGTERM, SIGINT, SIGHUP, SIGQUIT and SIGUSR1/2 are passed on to it.");
    auto fo = std::make_shared<FabricOptions>();
    auto host = std::make_shared<std::string>();
    auto part = std::make_shared<unsigned>(0);
    auto command = std::make_shared<std::vector<std::string>>();
    add_fabric_options(*exec, *fo);
    auto* host_option = exec->add_option(
        "--host", *host,
        "Node to attach at (SIM_HOST): the client sees that node's subnet (default: the first "
        "node of the topology)");
    exec->add_option("--part", *part,
                     "Attach in this part (subnet) of a fabric of several disconnected parts, "
                     "numbered from 1 as `sim up` lists them, at the node of its subnet manager")
        ->check(CLI::Range(1u, 1000u))
        ->excludes(host_option);
    exec->add_option("command", *command, "Command and arguments, after --")->required();
    exec->callback([fo, host, part, command, &action] {
      action = [fo, host, part, command] { return run_exec(*fo, *host, *part, *command); };
    });
  }
  {
    auto* set = sim.add_subcommand(
        "set",
        "Send console lines to ibsim and print its replies once it has acted on them; "
        "fails with ibsim's message when it rejects a line. E.g. 'PerformanceSet "
        "\"Hca1\"[1] PortCounters.SymbolErrorCounter=5'");
    auto fo = std::make_shared<FabricOptions>();
    auto lines = std::make_shared<std::vector<std::string>>();
    add_fabric_options(*set, *fo);
    set->add_option("line", *lines, "Console lines (quote each)")->required();
    set->callback([fo, lines, &action] { action = [fo, lines] { return run_set(*fo, *lines); }; });
  }
  {
    auto* watch = sim.add_subcommand("watch", "Stop a fabric when its owner process exits");
    watch->group("");  // internal: started by `sim up --owner-pid`
    auto fo = std::make_shared<FabricOptions>();
    auto owner = std::make_shared<pid_t>(0);
    add_fabric_options(*watch, *fo);
    watch->add_option("--owner-pid", *owner, "Process to watch")->required();
    watch->callback(
        [fo, owner, &action] { action = [fo, owner] { return run_watch(*fo, *owner); }; });
  }
}

}  // namespace ibpulse::cli
