// `ibpulse sim up`: start a simulated fabric, of one subnet or of several disconnected parts.
#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_support.h"
#include "commands.h"
#include "ibpulse/sim/fabric.h"

namespace ibpulse::cli {
namespace {

struct UpArgs {
  FabricOptions fo;
  std::string topology;
  size_t hosts = 0;
  unsigned radix = 36;
  unsigned rails = 1;
  std::string subnet_prefixes;
  std::string partitions;
  bool no_sm = false;
  pid_t owner = 0;
  bool json = false;
  unsigned timeout = 300;
};

Result<sim::Topology> choose_topology(const UpArgs& a) {
  if (!a.topology.empty()) {
    std::ifstream in(a.topology);
    if (!in) return Err("cannot read topology file {}", a.topology);
    const std::string text{std::istreambuf_iterator<char>(in), {}};
    auto topology = sim::parse_net(text);
    if (!topology) return Err("{}: {}", a.topology, topology.error());
    return topology;
  }
  if (a.hosts > 0) return sim::fat_tree(a.hosts, a.radix, a.rails);
  return sim::default_topology();
}

void print_summary(const sim::FabricState& s) {
  fmt::print(stderr,
             "fabric '{}' ready in {:.1f} s: {} nodes ({} switches, {} HCAs), {} ports, {} links\n"
             "  run directory {} (LID map: ports.json)\n",
             s.name, s.seconds_to_ready, s.nodes, s.switches, s.hcas, s.ports, s.links,
             s.paths.dir.string());
  if (s.parts.size() < 2) return;
  for (size_t p = 0; p < s.parts.size(); ++p) {
    const auto& part = s.parts[p];
    fmt::print(stderr,
               "  part {}: {} nodes, {} links, subnet prefix {}, SM at {} (clients: sim exec "
               "--part {})\n",
               p + 1, part.nodes, part.links, sim::prefix_text(part.subnet_prefix),
               part.attach_node, p + 1);
  }
}

Result<sim::UpOptions> up_options(const UpArgs& a) {
  auto topology = choose_topology(a);
  if (!topology) return Error{topology.error()};
  sim::UpOptions o;
  if (!a.subnet_prefixes.empty()) {
    auto parsed = sim::parse_subnet_prefixes(a.subnet_prefixes);
    if (!parsed) return Err("--subnet-prefix: {}", parsed.error());
    o.subnet_prefixes = std::move(*parsed);
  }
  o.name = a.fo.name;
  o.root = fabric_root(a.fo);
  o.topology = std::move(*topology);
  o.subnet_manager = !a.no_sm;
  o.partitions = a.partitions;
  if (a.owner > 0) o.owner_pid = a.owner;
  o.self_exe = sim::self_executable();
  o.timeout = std::chrono::seconds(a.timeout);
  return o;
}

int run_up(const UpArgs& a) {
  auto o = up_options(a);
  if (!o) return fail(o.error());
  Progress progress;
  o->progress = std::ref(progress);
  progress(fmt::format("generating a topology of {} nodes", o->topology.nodes.size()), 0, 0);
  auto state = sim::up(*o);
  progress.finish();
  if (!state) return fail(state.error());
  print_summary(*state);
  const auto env = sim::client_env(*state);
  if (a.json) {
    nlohmann::json out = nlohmann::json::parse(std::ifstream(state->paths.state()), nullptr, false);
    out["env"] = env_json(env);
    fmt::print("{}\n", out.dump(2));
  } else {
    for (const auto& [k, v] : env)
      fmt::print("export {}={}\n", k, shell_quote(v));
  }
  return 0;
}

}  // namespace

void add_sim_up_command(CLI::App& sim, Action& action) {
  auto* up = sim.add_subcommand(
      "up",
      "Start a simulated fabric: generate the topology, start ibsim, assign LIDs (opensm -o), "
      "start a resident subnet manager and wait until every linked port is Active. A topology "
      "of several disconnected parts (e.g. rails) gets one subnet manager per part. Prints "
      "`export` lines for clients (eval them), or JSON; progress goes to standard error.");
  auto a = std::make_shared<UpArgs>();
  add_fabric_options(*up, a->fo);
  auto* topo = up->add_option("--topology", a->topology,
                              "ibsim net file (ibnetdiscover format) to run instead of a "
                              "generated topology; it may hold several disconnected parts")
                   ->check(CLI::ExistingFile);
  auto* hosts = up->add_option("--hosts", a->hosts,
                               "Generate a fat tree with this many 1-port HCAs (two levels, "
                               "or three when two cannot hold them)")
                    ->check(CLI::Range(size_t{1}, size_t{100000}));
  up->add_option("--radix", a->radix, "Ports per switch of the generated fat tree")
      ->capture_default_str()
      ->needs(hosts);
  up->add_option("--rails", a->rails,
                 "Generate this many identical fat trees, not linked to each other: one subnet "
                 "(part) per rail, node ids prefixed R1-, R2-, ... (R1-Hca1, R2-Hca1 are one "
                 "host's HCAs on two rails)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 64u))
      ->needs(hosts);
  topo->excludes(hosts);
  up->add_option("--subnet-prefix", a->subnet_prefixes,
                 "Subnet prefix of each part (opensm's subnet_prefix), comma-separated in part "
                 "order, or one for every part; default 0xfe80000000000000 everywhere, as most "
                 "sites leave their rails")
      ->type_name("PREFIX[,PREFIX...]");
  up->add_option("--partitions", a->partitions,
                 "opensm partition configuration (partitions.conf syntax, opensm -P): the "
                 "subnet managers program these P_Keys into the ports' tables; default: "
                 "opensm's Default partition (0x7fff, every port a full member)")
      ->check(CLI::ExistingFile)
      ->type_name("FILE");
  up->add_flag("--no-sm", a->no_sm, "Do not keep subnet managers running after LIDs are set");
  up->add_option("--owner-pid", a->owner,
                 "Stop the fabric automatically when this process exits (for tests)");
  up->add_flag("--json", a->json, "Print the fabric's state and client environment as JSON");
  up->add_option("--timeout", a->timeout, "Seconds to wait for the fabric to be ready")
      ->capture_default_str();
  up->footer(fmt::format(
      "Without --topology or --hosts the fabric is ibsim's net.2sw2path4hca example: "
      "Switch1, Switch2, Hca1..Hca4.\n"
      "Parts are the connected components of the links, numbered in file order; each part's "
      "subnet manager attaches at the part's first node. Each resident subnet manager is an "
      "ibsim client and ibsim serves at most {} clients: at most {} parts (with one collector "
      "per part, {}).\n"
      "Example: eval \"$(ibpulse sim up --name lab)\"; perfquery\n"
      "Example: ibpulse sim up --name rails --hosts 8 --rails 2 --subnet-prefix "
      "0xfe80000000000000,0xfe80000000000001",
      sim::kIbsimMaxClients, sim::max_parts(true), sim::kIbsimMaxClients / 2));
  up->callback([a, &action] { action = [a] { return run_up(*a); }; });
}

}  // namespace ibpulse::cli
