// `ibpulse demo`: the main job on the built-in simulated fabric.
#include <fmt/format.h>
#include <unistd.h>

#include <thread>

#include "cli_support.h"
#include "commands.h"
#include "ibpulse/sim/fabric.h"

namespace ibpulse::cli {
namespace {

using namespace std::chrono_literals;

struct DemoArgs {
  std::string name = "demo";
  size_t hosts = 0;
  unsigned radix = 36;
  double duration = 0;
};

void print_plan(const sim::FabricState& s, const std::vector<sim::DumpPort>& ports) {
  fmt::print("Simulated fabric '{}': {} nodes ({} switches, {} HCAs), {} ports, {} links\n", s.name,
             s.nodes, s.switches, s.hcas, s.ports, s.links);
  fmt::print("{:<12} {:>4} {:>5} {:<18} {:<8} {}\n", "node", "port", "lid", "node_guid", "state",
             "peer");
  size_t shown = 0;
  for (const auto& p : ports) {
    if (!p.linked()) continue;
    if (++shown > 40) {
      fmt::print("... and more (full list: {})\n", s.paths.ports().string());
      break;
    }
    fmt::print("{:<12} {:>4} {:>5} 0x{:016x} {:<8} {}[{}]\n", p.node, p.port, p.lid, p.node_guid,
               p.state, p.remote_node, p.remote_port);
  }
  fmt::print(
      "\nibpulse would poll every port above and serve:\n"
      "  Prometheus metrics  http://127.0.0.1:9683/metrics  (exporter not built yet)\n"
      "  SNMP agent          udp:127.0.0.1:1161             (agent not built yet)\n"
      "Attach the collector and your own tools meanwhile:\n"
      "  ibpulse sim exec --name {0} -- ibpulse run --log.level debug\n"
      "  ibpulse sim exec --name {0} -- ibpulse query --all\n"
      "  ibpulse sim exec --name {0} -- perfquery {1} 1\n"
      "  ibpulse sim traffic --name {0} --utilization 0.5\n",
      s.name, ports.empty() ? 1 : ports.front().lid);
}

int run_demo(const DemoArgs& a) {
  const auto& stop = install_stop_signals();
  auto topology = a.hosts > 0 ? sim::fat_tree(a.hosts, a.radix) : sim::default_topology();
  if (!topology) return fail(topology.error());
  Progress progress;
  sim::UpOptions o;
  o.name = a.name;
  o.root = sim::default_root();
  o.topology = std::move(*topology);
  o.owner_pid = ::getpid();  // the fabric goes when the demo goes, however it ends
  o.self_exe = sim::self_executable();
  o.progress = std::ref(progress);
  auto state = sim::up(o);
  progress.finish();
  if (!state) return fail(state.error());
  auto ports = sim::dump_ports(*state);
  if (!ports) {
    (void)sim::down(o.root, o.name);
    return fail(ports.error());
  }
  print_plan(*state, *ports);
  fmt::print(stderr, "\nfabric up in {:.1f} s; {}\n", state->seconds_to_ready,
             a.duration > 0 ? fmt::format("stopping after {} s", a.duration)
                            : std::string("Ctrl-C stops the demo"));
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(a.duration);
  while (!stop.load() && (a.duration <= 0 || std::chrono::steady_clock::now() < until)) {
    std::this_thread::sleep_for(100ms);
  }
  auto down = sim::down(o.root, o.name);
  if (!down) return fail(down.error());
  fmt::print(stderr, "fabric '{}' stopped\n", a.name);
  return 0;
}

}  // namespace

void add_demo_command(CLI::App& app, Action& action) {
  auto* demo = app.add_subcommand(
      "demo",
      "Bring up a simulated fabric (ibsim + opensm) and show what ibpulse serves for it; "
      "runs until Ctrl-C or --duration, then stops everything it started");
  auto a = std::make_shared<DemoArgs>();
  demo->add_option("--name", a->name, "Fabric name")->capture_default_str();
  auto* hosts = demo->add_option("--hosts", a->hosts,
                                 "Use a generated fat tree with this many hosts instead of the "
                                 "built-in 2-switch, 4-HCA fabric");
  demo->add_option("--radix", a->radix, "Switch ports of the generated fat tree")
      ->capture_default_str()
      ->needs(hosts);
  demo->add_option("--duration", a->duration, "Seconds to run (default: until Ctrl-C)")
      ->check(CLI::NonNegativeNumber);
  demo->callback([a, &action] { action = [a] { return run_demo(*a); }; });
}

}  // namespace ibpulse::cli
