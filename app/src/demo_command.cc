// `ibpulse demo`: the main job on the built-in simulated fabric.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

#include "cli_support.h"
#include "commands.h"
#include "config_flags.h"
#include "ibpulse/sim/fabric.h"

namespace ibpulse::cli {
namespace {

using namespace std::chrono_literals;

struct DemoArgs {
  std::string name = "demo";
  size_t hosts = 0;
  unsigned radix = 36;
  double duration = 0;
  std::string listen = "127.0.0.1:9731";
  std::string snmp_listen = "127.0.0.1:1161";
  std::string prometheus_listen = "127.0.0.1:9090";
  double utilization = 0.3;
};

// The demo's SNMP credentials: made up, printed, and valid only on this loopback agent.
constexpr const char* kDemoCommunity = "public";
constexpr const char* kDemoUser = "demo";
constexpr const char* kDemoAuth = "demo-auth-pass";
constexpr const char* kDemoPriv = "demo-priv-pass";

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
}

// The collector and the traffic generator, each in its own session (terminate() takes the
// group), logging into the fabric's run directory.
struct DemoProcesses {
  sim::ProcessRef daemon, traffic, prometheus;
  std::string prometheus_note;  // what print_endpoints says about the local Prometheus
  ~DemoProcesses() {
    if (prometheus.pid != 0) sim::terminate(prometheus, 5s);
    if (traffic.pid != 0) sim::terminate(traffic, 3s);
    if (daemon.pid != 0) sim::terminate(daemon, 5s);
  }
};

Status start_processes(const sim::FabricState& s, const DemoArgs& a, DemoProcesses& out) {
  const std::string self = sim::self_executable().string();
  sim::SpawnSpec daemon;
  daemon.argv = {self,
                 "sim",
                 "exec",
                 "--name",
                 s.name,
                 "--root",
                 s.paths.dir.parent_path().string(),
                 "--",
                 self,
                 "run",
                 "--web.listen-address",
                 a.listen,
                 "--snmp.listen",
                 a.snmp_listen,
                 "--snmp.community",
                 kDemoCommunity,
                 "--snmp.users",
                 fmt::format(R"({{"name":"{}","auth-password":"{}","priv-password":"{}"}})",
                             kDemoUser, kDemoAuth, kDemoPriv)};
  daemon.stderr_path = s.paths.dir / "demo-ibpulse.log";
  daemon.stdout_path = daemon.stderr_path;
  auto d = sim::spawn_detached(daemon);
  if (!d) return Error{d.error()};
  out.daemon = *d;
  sim::SpawnSpec traffic;
  traffic.argv = {self,
                  "sim",
                  "traffic",
                  "--name",
                  s.name,
                  "--root",
                  s.paths.dir.parent_path().string(),
                  "--utilization",
                  fmt::format("{}", a.utilization),
                  "--duration",
                  "86400"};
  traffic.stderr_path = s.paths.dir / "demo-traffic.log";
  auto t = sim::spawn_detached(traffic);
  if (!t) return Error{t.error()};
  out.traffic = *t;
  return Ok{};
}

std::string loopback_url(std::string listen) {
  if (listen.starts_with(":")) listen = "127.0.0.1" + listen;
  return listen;
}

// dashboards/ (its prometheus/*.rules.yml): $IBPULSE_DASHBOARDS_DIR, else the copy CMake keeps
// beside the binary in the build directory, else the source tree above a build directory in
// it, else ./dashboards.
std::optional<std::filesystem::path> find_dashboards() {
  namespace fs = std::filesystem;
  std::vector<fs::path> candidates;
  if (const char* env = std::getenv("IBPULSE_DASHBOARDS_DIR")) candidates.emplace_back(env);
  const fs::path bin = sim::self_executable().parent_path();
  candidates.push_back(bin / "dashboards");
  candidates.push_back(bin.parent_path() / "dashboards");
  candidates.push_back(fs::current_path() / "dashboards");
  for (const auto& c : candidates) {
    std::error_code ec;
    if (fs::exists(c / "prometheus" / "ibpulse-alerts.rules.yml", ec)) return fs::absolute(c);
  }
  return std::nullopt;
}

// A local Prometheus when one is installed: scrapes the collector every 5 s and evaluates the
// project's alerting and recording rules, so the demo's alerts fire where a user can see them.
// Its configuration and data live in the fabric's run directory, which `sim down` removes.
void start_prometheus(const sim::FabricState& s, const DemoArgs& a, DemoProcesses& out) {
  const auto program = sim::find_program("prometheus");
  if (!program) {
    out.prometheus_note =
        "Prometheus is not installed: no local server, no alerts to look at "
        "(Debian: apt-get install prometheus)";
    return;
  }
  const auto dashboards = find_dashboards();
  if (!dashboards) {
    out.prometheus_note =
        "dashboards/ not found (set IBPULSE_DASHBOARDS_DIR): no local "
        "Prometheus";
    return;
  }
  const auto dir = s.paths.dir / "prometheus";
  std::error_code ec;
  std::filesystem::create_directories(dir / "data", ec);
  const auto rules = *dashboards / "prometheus";
  std::ofstream(dir / "prometheus.yml")
      << "global:\n  scrape_interval: 5s\n  evaluation_interval: 5s\n"
      << "rule_files:\n  - " << (rules / "ibpulse-alerts.rules.yml").string() << "\n  - "
      << (rules / "ibpulse-recording.rules.yml").string() << "\n"
      << "scrape_configs:\n  - job_name: ibpulse\n    static_configs:\n      - targets: ['"
      << loopback_url(a.listen) << "']\n";
  sim::SpawnSpec spec;
  spec.argv = {program->string(), "--config.file=" + (dir / "prometheus.yml").string(),
               "--storage.tsdb.path=" + (dir / "data").string(),
               "--web.listen-address=" + a.prometheus_listen, "--log.level=warn"};
  spec.stderr_path = s.paths.dir / "demo-prometheus.log";
  spec.stdout_path = spec.stderr_path;
  auto p = sim::spawn_detached(spec);
  if (!p) {
    out.prometheus_note = "Prometheus did not start: " + p.error();
    return;
  }
  out.prometheus = *p;
  const std::string url = "http://" + loopback_url(a.prometheus_listen);
  out.prometheus_note = fmt::format(
      "  Prometheus          {0}   (alerts: {0}/alerts; rules from {1}; log: {2})\n"
      "Grafana: provision {1}/provisioning/datasources/ibpulse-prometheus.yml (url: {0}) and\n"
      "  {1}/provisioning/dashboards/ibpulse.yml (path: {1}/grafana); docs/dashboards.md",
      url, dashboards->string(), spec.stderr_path.string());
}

// The first switch's context (`0x` + 16 hex digits, as the agent names it), for a walk of one
// device; the first node's when there is no switch.
std::string sample_context(const std::vector<sim::DumpPort>& ports) {
  uint64_t guid = ports.empty() ? 0 : ports.front().node_guid;
  for (const auto& p : ports) {
    if (p.type == sim::NodeType::kSwitch) {
      guid = p.node_guid;
      break;
    }
  }
  return fmt::format("0x{:016x}", guid);
}

void print_endpoints(const sim::FabricState& s, const DemoArgs& a,
                     const std::vector<sim::DumpPort>& ports, const DemoProcesses& processes) {
  const size_t lid = ports.empty() ? 1 : ports.front().lid;
  std::string url = a.listen;
  if (url.starts_with(":")) url = "127.0.0.1" + url;
  fmt::print(
      "\nibpulse polls every port above under {:.0f}% generated traffic and serves:\n"
      "  Prometheus metrics  http://{}/metrics   (status page: http://{}/)\n"
      "  SNMP agent          udp:{}   (v2c community '{}', SNMPv3 user '{}')\n"
      "Logs: {}/demo-ibpulse.log, {}/demo-traffic.log. Your own tools meanwhile:\n"
      "  ibpulse sim exec --name {} -- ibpulse query --all\n"
      "  ibpulse sim exec --name {} -- perfquery {} 1\n",
      a.utilization * 100, url, url, a.snmp_listen, kDemoCommunity, kDemoUser, s.paths.dir.string(),
      s.paths.dir.string(), s.name, s.name, lid);
  const std::string mibs = "-M +build/mibs-base:mibs -m IF-MIB:IB-IF-MIB";
  fmt::print(
      "SNMP (names need the MIB files: run from the source tree after ./run build):\n"
      "  snmptable -v2c -c {0} {1} -Cb -Ci {2} IF-MIB::ifXTable\n"
      "  snmpbulkwalk -v2c -c {0} {1} {2} IB-IF-MIB::ibIfPortStatTable\n"
      "  snmpbulkwalk -v3 -l authPriv -u {3} -a SHA-256 -A {4} -x AES -X {5} {1} {2} "
      "IF-MIB::ifHCOutOctets\n"
      "  snmpbulkwalk -v2c -c {0}@{6} {1} {2} IF-MIB::ifName   (one node, by GUID: ifIndex = "
      "port)\n",
      kDemoCommunity, mibs, a.snmp_listen, kDemoUser, kDemoAuth, kDemoPriv, sample_context(ports));
  fmt::print("{}\n", processes.prometheus_note);
  std::fflush(stdout);  // to a pipe or a file too, while the demo runs
}

// The first HCA port with a link: where the demo injects its symbol-error bursts.
std::string burst_port(const std::vector<sim::DumpPort>& ports) {
  for (const auto& p : ports) {
    if (p.type == sim::NodeType::kHca && !p.remote_node.empty()) {
      return fmt::format("{}[{}]", p.node, p.port);
    }
  }
  return "";
}

// A burst of symbol errors (`ibpulse sim bump`), so that the default rule symbol_error_burst
// raises (and clears a few minutes later) where the user can watch it.
void inject_burst(const sim::FabricState& s, const std::string& port) {
  const std::string self = sim::self_executable().string();
  auto r = sim::run_command(
      {self, "sim", "bump", "--name", s.name, "--root", s.paths.dir.parent_path().string(), port,
       "--counter", "SymbolErrorCounter", "--by", "50"},
      {}, 20s);
  if (!r || r->exit_code != 0) {
    fmt::print(stderr, "demo: could not inject symbol errors on {}: {}\n", port,
               r ? r->err : r.error());
    return;
  }
  fmt::print(stderr,
             "demo: 50 symbol errors on {}: the rule symbol_error_burst raises (event=alert_raised "
             "in {}/demo-ibpulse.log, ibpulse_alerts_active in /metrics) and clears about 3 "
             "minutes later\n",
             port, s.paths.dir.string());
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
  std::optional<DemoProcesses> processes(std::in_place);
  if (auto started = start_processes(*state, a, *processes); !started) {
    (void)sim::down(o.root, o.name);
    return fail(started.error());
  }
  start_prometheus(*state, a, *processes);
  print_endpoints(*state, a, *ports, *processes);
  fmt::print(stderr, "\nfabric up in {:.1f} s; {}\n", state->seconds_to_ready,
             a.duration > 0 ? fmt::format("stopping after {} s", a.duration)
                            : std::string("Ctrl-C stops the demo"));
  const auto start = std::chrono::steady_clock::now();
  const auto until = start + std::chrono::duration<double>(a.duration);
  // A burst 30 s in (the rules need a history first), then every 5 minutes.
  auto next_burst = start + 30s;
  const std::string burst_at = burst_port(*ports);
  while (!stop.load() && (a.duration <= 0 || std::chrono::steady_clock::now() < until)) {
    std::this_thread::sleep_for(100ms);
    if (!burst_at.empty() && std::chrono::steady_clock::now() >= next_burst) {
      inject_burst(*state, burst_at);
      next_burst += 5min;
    }
  }
  processes.reset();  // the collector and the generator stop before the fabric
  auto down = sim::down(o.root, o.name);
  if (!down) return fail(down.error());
  fmt::print(stderr, "fabric '{}' stopped\n", a.name);
  return 0;
}

}  // namespace

void add_demo_command(CLI::App& app, Action& action) {
  auto* demo = app.add_subcommand(
      "demo",
      "Bring up a simulated fabric (ibsim + opensm), run the collector on it under generated "
      "traffic and print where it serves its metrics; runs until Ctrl-C or --duration, then "
      "stops everything it started");
  auto a = std::make_shared<DemoArgs>();
  demo->add_option("--name", a->name, "Fabric name")->capture_default_str();
  auto* hosts = demo->add_option("--hosts", a->hosts,
                                 "Use a generated fat tree with this many hosts instead of the "
                                 "built-in 2-switch, 4-HCA fabric");
  demo->add_option("--radix", a->radix, "Switch ports of the generated fat tree")
      ->capture_default_str()
      ->needs(hosts);
  demo->add_option("--web.listen-address", a->listen, "Where the collector serves /metrics")
      ->capture_default_str();
  demo->add_option("--snmp.listen", a->snmp_listen, "Where the collector's SNMP agent listens")
      ->capture_default_str();
  demo->add_option("--prometheus.listen", a->prometheus_listen,
                   "Where the local Prometheus (started when `prometheus` is installed) listens")
      ->capture_default_str();
  demo->add_option("--utilization", a->utilization, "Generated traffic, fraction of link rate")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  add_seconds_option(*demo, "--duration", a->duration,
                     "How long to run: seconds or a duration (90, 1m30s; default: until Ctrl-C)", 0,
                     1e9);
  demo->callback([a, &action] { action = [a] { return run_demo(*a); }; });
}

}  // namespace ibpulse::cli
