// `ibpulse sim up|down|status|exec|set`: the life cycle of a simulated fabric.
#include <fmt/format.h>
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

Result<sim::Topology> choose_topology(const std::string& file, size_t hosts, unsigned radix) {
  if (!file.empty()) {
    std::ifstream in(file);
    if (!in) return Err("cannot read topology file {}", file);
    const std::string text{std::istreambuf_iterator<char>(in), {}};
    auto topology = sim::parse_net(text);
    if (!topology) return Err("{}: {}", file, topology.error());
    return topology;
  }
  if (hosts > 0) return sim::fat_tree(hosts, radix);
  return sim::default_topology();
}

nlohmann::json env_json(const sim::EnvVars& env) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [k, v] : env)
    out[k] = v;
  return out;
}

void print_summary(const sim::FabricState& s) {
  fmt::print(stderr,
             "fabric '{}' ready in {:.1f} s: {} nodes ({} switches, {} HCAs), {} ports, {} links\n"
             "  run directory {} (LID map: ports.json)\n",
             s.name, s.seconds_to_ready, s.nodes, s.switches, s.hcas, s.ports, s.links,
             s.paths.dir.string());
}

int run_up(const FabricOptions& fo, const std::string& topology_file, size_t hosts, unsigned radix,
           bool no_sm, pid_t owner, bool json, unsigned timeout_s) {
  auto topology = choose_topology(topology_file, hosts, radix);
  if (!topology) return fail(topology.error());
  Progress progress;
  sim::UpOptions o;
  o.name = fo.name;
  o.root = fabric_root(fo);
  o.topology = std::move(*topology);
  o.subnet_manager = !no_sm;
  if (owner > 0) o.owner_pid = owner;
  o.self_exe = sim::self_executable();
  o.timeout = std::chrono::seconds(timeout_s);
  o.progress = std::ref(progress);
  progress(fmt::format("generating a topology of {} nodes", o.topology.nodes.size()), 0, 0);
  auto state = sim::up(o);
  progress.finish();
  if (!state) return fail(state.error());
  print_summary(*state);
  const auto env = sim::client_env(*state);
  if (json) {
    nlohmann::json out = nlohmann::json::parse(std::ifstream(state->paths.state()), nullptr, false);
    out["env"] = env_json(env);
    fmt::print("{}\n", out.dump(2));
  } else {
    for (const auto& [k, v] : env)
      fmt::print("export {}={}\n", k, shell_quote(v));
  }
  return 0;
}

int run_down(const FabricOptions& fo) {
  auto report = sim::down(fabric_root(fo), fo.name);
  if (!report) return fail(report.error());
  fmt::print(stderr, "fabric '{}' is down{}{}\n", fo.name,
             report->stopped.empty() ? "" : ": stopped ", fmt::join(report->stopped, ", "));
  return 0;
}

nlohmann::json status_json(const sim::FabricState& s) {
  return {{"name", s.name},
          {"running", sim::is_running(s.ibsim)},
          {"subnet_manager", s.subnet_manager && sim::is_running(*s.subnet_manager)},
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

int run_exec(const FabricOptions& fo, const std::string& host, std::vector<std::string> command) {
  auto s = running_fabric(fo);
  if (!s) return fail(s.error());
  auto env = sim::client_env(*s, host.empty() ? std::nullopt : std::optional<std::string>(host));
  add_sanitizer_env(env);  // the command may be an ASan-built ibpulse
  const pid_t child = ::fork();
  if (child < 0) return fail("fork failed");
  if (child == 0) {
    auto replaced = sim::replace_process(command, env);
    fmt::print(stderr, "ibpulse: {}\n", replaced.error());
    ::_exit(127);
  }
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

void add_discovery_flags(CLI::App& sub, DiscoveryFlags& flags) {
  sub.add_option("--ca", flags.ca, "Local HCA to use (default: the first one)");
  sub.add_option("--ca-port", flags.ca_port, "Port of the local HCA (default: the first active)")
      ->check(CLI::Range(0, 254));
  sub.add_option("--node-name-map", flags.node_name_map,
                 "ib-node-name-map file (`0x<GUID> \"name\"` per line) naming nodes")
      ->check(CLI::ExistingFile);
  sub.add_option("--max-smps", flags.max_smps, "SMPs in flight during discovery")
      ->capture_default_str()
      ->check(CLI::Range(1u, 256u));
  sub.add_option("--m-key", flags.m_key, "M_Key for fabrics that protect their SMAs");
}

void add_sim_commands(CLI::App& sim, Action& action) {
  {
    auto* up = sim.add_subcommand(
        "up",
        "Start a simulated fabric: generate the topology, start ibsim, assign LIDs (opensm -o), "
        "start a resident subnet manager and wait until every linked port is Active. Prints "
        "`export` lines for clients (eval them), or JSON; progress goes to standard error.");
    struct Args {
      FabricOptions fo;
      std::string topology;
      size_t hosts = 0;
      unsigned radix = 36;
      bool no_sm = false;
      pid_t owner = 0;
      bool json = false;
      unsigned timeout = 300;
    };
    auto a = std::make_shared<Args>();
    add_fabric_options(*up, a->fo);
    auto* topo = up->add_option("--topology", a->topology,
                                "ibsim net file (ibnetdiscover format) to run instead of a "
                                "generated topology")
                     ->check(CLI::ExistingFile);
    auto* hosts = up->add_option("--hosts", a->hosts,
                                 "Generate a fat tree with this many 1-port HCAs (two levels, "
                                 "or three when two cannot hold them)")
                      ->check(CLI::Range(size_t{1}, size_t{100000}));
    up->add_option("--radix", a->radix, "Ports per switch of the generated fat tree")
        ->capture_default_str()
        ->needs(hosts);
    topo->excludes(hosts);
    up->add_flag("--no-sm", a->no_sm, "Do not keep a subnet manager running after LIDs are set");
    up->add_option("--owner-pid", a->owner,
                   "Stop the fabric automatically when this process exits (for tests)");
    up->add_flag("--json", a->json, "Print the fabric's state and client environment as JSON");
    up->add_option("--timeout", a->timeout, "Seconds to wait for the fabric to be ready")
        ->capture_default_str();
    up->footer(
        "Without --topology or --hosts the fabric is ibsim's net.2sw2path4hca example: "
        "Switch1, Switch2, Hca1..Hca4.\nExample: eval \"$(ibpulse sim up --name lab)\"; perfquery");
    up->callback([a, &action] {
      action = [a] {
        return run_up(a->fo, a->topology, a->hosts, a->radix, a->no_sm, a->owner, a->json,
                      a->timeout);
      };
    });
  }
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
        "command's status.");
    auto fo = std::make_shared<FabricOptions>();
    auto host = std::make_shared<std::string>();
    auto command = std::make_shared<std::vector<std::string>>();
    add_fabric_options(*exec, *fo);
    exec->add_option("--host", *host,
                     "Node to attach at (SIM_HOST; default: the first node of the topology)");
    exec->add_option("command", *command, "Command and arguments, after --")->required();
    exec->callback([fo, host, command, &action] {
      action = [fo, host, command] { return run_exec(*fo, *host, *command); };
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
