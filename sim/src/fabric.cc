#include "ibpulse/sim/fabric.h"

#include <fmt/format.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <random>
#include <thread>

#include "log_files.h"
#include "state_json.h"
#include "subnet_manager.h"

namespace ibpulse::sim {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

std::string unique_socket_name(std::string_view name) {
  std::random_device rd;
  return fmt::format("ibpulse-{}-{:06x}", name, rd() & 0xffffff);
}

Result<ProcessRef> start_ibsim(const FabricState& s, const Topology& topology,
                               std::chrono::milliseconds timeout) {
  const auto cap = ibsim_capacity(topology);
  const auto console_paths = s.paths.console();
  if (::mkfifo(console_paths.fifo.c_str(), 0600) != 0) {
    return Err("cannot create the console fifo {}", console_paths.fifo.string());
  }
  SpawnSpec spec;
  spec.argv = {"ibsim",
               "-s",
               "-N",
               std::to_string(cap.nodes),
               "-S",
               std::to_string(cap.switches),
               "-P",
               std::to_string(cap.ports),
               "-L",
               std::to_string(cap.linear_cap),
               s.paths.topology().string()};
  spec.env = {{"IBSIM_SOCKNAME", s.socket_name}};
  // ibsim holds the fifo's write end itself (O_RDWR), so it never reads EOF between writers.
  spec.stdin_path = console_paths.fifo;
  spec.stdin_read_write = true;
  spec.stdout_path = console_paths.log;
  spec.stderr_path = s.paths.dir / "ibsim.log";
  auto ibsim = spawn_detached(spec);
  if (!ibsim) return ibsim;
  if (auto ready =
          wait_for_log(console_paths.log, "Network simulator ready", *ibsim, "ibsim", timeout);
      !ready) {
    terminate(*ibsim, 1s);
    return Err("{}: {}{}", ready.error(), tail(console_paths.log, 3),
               tail(s.paths.dir / "ibsim.log", 5));
  }
  return ibsim;
}

// The shim preloaded after umad2sim (sim/shim/umad_agents_shim.cc): beside the running
// ibpulse binary, else where this build made it (a test binary running the library itself).
std::filesystem::path umad2sim_shim() {
  auto beside = self_executable().parent_path() / "libibpulse-umad2sim-shim.so";
  if (std::filesystem::exists(beside)) return beside;
  return IBPULSE_UMAD2SIM_SHIM_BUILT;
}

Status check_tools() {
  for (const char* tool : {"ibsim", "opensm"}) {
    if (!find_program(tool)) {
      return Err("{} is not installed (Debian: {}); scripts/install-deps installs it", tool,
                 tool == std::string_view("ibsim") ? "ibsim-utils" : "opensm");
    }
  }
  if (!std::filesystem::exists(kUmad2simLibrary)) {
    return Err("{} is missing (Debian: libumad2sim0)", kUmad2simLibrary);
  }
  if (!std::filesystem::exists(umad2sim_shim())) {
    return Err("{} is missing: it is built with ibpulse (target ibpulse_umad2sim_shim)",
               umad2sim_shim().string());
  }
  return Ok{};
}

size_t count_active_links(const std::vector<DumpPort>& ports) {
  return static_cast<size_t>(std::count_if(
      ports.begin(), ports.end(), [](const DumpPort& p) { return p.linked() && p.active(); }));
}

void report(const UpOptions& o, std::string_view stage, size_t done = 0, size_t total = 0) {
  if (o.progress) o.progress(stage, done, total);
}

Result<FabricState> bring_up(const UpOptions& o, FabricState s) {
  const auto started = Clock::now();
  const auto left = [&] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(o.timeout -
                                                                 (Clock::now() - started));
  };
  report(o, "starting ibsim");
  auto ibsim = start_ibsim(s, o.topology, left());
  if (!ibsim) return Error{ibsim.error()};
  s.ibsim = *ibsim;
  if (auto saved = save_state(s); !saved) return Error{saved.error()};

  if (auto subnets = start_subnets(s, o.subnet_manager, left, o.progress); !subnets) {
    return Error{subnets.error()};
  }

  const size_t expected = 2 * o.topology.links.size();
  auto ports = wait_for_ports(
      s,
      [&](const std::vector<DumpPort>& current) {
        const size_t active = count_active_links(current);
        report(o, "activating ports", active, expected);
        return active == expected;
      },
      left());
  if (!ports) return Error{ports.error()};
  if (auto saved = write_file_atomically(s.paths.ports(), to_json(*ports).dump(1) + "\n"); !saved) {
    return Error{saved.error()};
  }

  if (o.owner_pid) {
    SpawnSpec spec;
    spec.argv = {o.self_exe.string(),
                 "sim",
                 "watch",
                 "--root",
                 o.root.string(),
                 "--name",
                 s.name,
                 "--owner-pid",
                 std::to_string(*o.owner_pid)};
    spec.stdout_path = s.paths.dir / "watcher.log";
    spec.stderr_path = spec.stdout_path;
    auto watcher = spawn_detached(spec);
    if (!watcher) return Err("starting the owner watcher: {}", watcher.error());
    s.watcher = *watcher;
  }
  s.seconds_to_ready = std::chrono::duration<double>(Clock::now() - started).count();
  if (auto saved = save_state(s); !saved) return Error{saved.error()};
  return s;
}

}  // namespace

std::filesystem::path default_root() {
  if (const char* dir = std::getenv("IBPULSE_SIM_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_RUNTIME_DIR"); xdg && *xdg) {
    return std::filesystem::path(xdg) / "ibpulse-sim";
  }
  return fmt::format("/tmp/ibpulse-sim-{}", ::getuid());
}

Status validate_name(std::string_view name) {
  const auto allowed = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == '.';
  };
  if (name.empty() || name.size() > 32 || std::isalnum(static_cast<unsigned char>(name[0])) == 0 ||
      !std::all_of(name.begin(), name.end(), allowed)) {
    return Err(
        "bad fabric name '{}': use 1-32 letters, digits, '_', '-' or '.', starting with a "
        "letter or digit",
        name);
  }
  return Ok{};
}

Result<FabricState> up(const UpOptions& o) {
  if (auto valid = validate_name(o.name); !valid) return Error{valid.error()};
  if (auto tools = check_tools(); !tools) return Error{tools.error()};
  if (auto fits = check_capacity(o.topology); !fits) return Error{fits.error()};
  auto parts = plan_parts(o.topology, o.subnet_prefixes, o.subnet_manager);
  if (!parts) return Error{parts.error()};

  FabricPaths paths{o.root / o.name};
  if (std::filesystem::exists(paths.dir)) {
    auto existing = load(o.root, o.name);
    if (existing && is_running(existing->ibsim)) {
      return Err(
          "fabric '{}' is already up (ibsim pid {}); stop it with `ibpulse sim down --name "
          "{}`",
          o.name, existing->ibsim.pid, o.name);
    }
    spdlog::warn("fabric '{}': removing what a previous run left in {}", o.name,
                 paths.dir.string());
    (void)down(o.root, o.name);
    std::filesystem::remove_all(paths.dir);
  }
  std::error_code ec;
  std::filesystem::create_directories(paths.clients(), ec);
  if (ec) return Err("cannot create {}: {}", paths.dir.string(), ec.message());

  FabricState s;
  s.name = o.name;
  s.socket_name = unique_socket_name(o.name);
  s.preload = std::string(kUmad2simLibrary) + ":" + umad2sim_shim().string();
  s.paths = paths;
  s.nodes = o.topology.nodes.size();
  s.switches = o.topology.switch_count();
  s.hcas = o.topology.hca_count();
  s.ports = o.topology.physical_port_count();
  s.links = o.topology.links.size();
  s.parts = std::move(*parts);
  report(o, "writing the topology");
  if (auto written = write_file_atomically(paths.topology(), o.topology.render()); !written) {
    return Error{written.error()};
  }
  if (!o.partitions.empty()) {
    std::filesystem::copy_file(o.partitions, paths.partitions(), ec);
    if (ec) return Err("cannot copy {}: {}", o.partitions.string(), ec.message());
  }
  if (auto saved = save_state(s); !saved) return Error{saved.error()};

  auto result = bring_up(o, std::move(s));
  if (!result) {
    (void)down(o.root, o.name);
    return result;
  }
  return result;
}

Result<FabricState> load(const std::filesystem::path& root, std::string_view name) {
  if (auto valid = validate_name(name); !valid) return Error{valid.error()};
  const FabricPaths paths{root / std::string(name)};
  if (!std::filesystem::exists(paths.state())) {
    return Err("no fabric named '{}' (nothing in {}); start one with `ibpulse sim up --name {}`",
               name, paths.dir.string(), name);
  }
  nlohmann::json j = nlohmann::json::parse(read_text(paths.state()), nullptr, false);
  if (j.is_discarded()) return Err("{} is damaged", paths.state().string());
  return state_from_json(j);
}

std::vector<FabricState> list(const std::filesystem::path& root) {
  std::vector<FabricState> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(root, ec)) {
    auto s = load(root, entry.path().filename().string());
    if (s) out.push_back(std::move(*s));
  }
  std::sort(out.begin(), out.end(),
            [](const FabricState& a, const FabricState& b) { return a.name < b.name; });
  return out;
}

Result<DownReport> down(const std::filesystem::path& root, std::string_view name) {
  if (auto valid = validate_name(name); !valid) return Error{valid.error()};
  const FabricPaths paths{root / std::string(name)};
  if (!std::filesystem::exists(paths.dir)) {
    return Err("no fabric named '{}' (nothing in {})", name, paths.dir.string());
  }
  DownReport r;
  const auto stop = [&](const std::optional<ProcessRef>& p, std::string_view what) {
    if (!p || p->pid == ::getpid() || !is_running(*p)) return;
    terminate(*p, 3s);
    r.stopped.push_back(fmt::format("{} (pid {})", what, p->pid));
  };
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(paths.clients(), ec)) {
    pid_t pid = 0;
    uint64_t start = 0;
    std::ifstream(entry.path()) >> pid >> start;
    stop(ProcessRef{pid, start}, "client");
  }
  auto s = load(root, name);
  if (s) {
    stop(s->watcher, "watcher");
    for (size_t p = 0; p < s->parts.size(); ++p) {
      stop(s->parts[p].subnet_manager,
           s->parts.size() == 1 ? std::string("opensm") : fmt::format("opensm {}", p + 1));
    }
    stop(s->ibsim, "ibsim");
  }
  std::filesystem::remove_all(paths.dir, ec);
  if (ec) return Err("cannot remove {}: {}", paths.dir.string(), ec.message());
  return r;
}

EnvVars client_env(const FabricState& s, std::optional<std::string> sim_host) {
  std::string preload = s.preload;
  if (const char* current = std::getenv("LD_PRELOAD");
      current && *current && std::string_view(current).find(s.preload) == std::string_view::npos) {
    preload += ":" + std::string(current);
  } else if (current && *current) {
    preload = current;
  }
  EnvVars env = {{"IBSIM_SOCKNAME", s.socket_name},
                 {"LD_PRELOAD", preload},
                 {"IBPULSE_SIM_NAME", s.name},
                 {"IBPULSE_SIM_RUN_DIR", s.paths.dir.string()},
                 {"IBPULSE_SIM_MAX_MADS", std::to_string(s.max_mads)}};
  if (sim_host) env.emplace_back("SIM_HOST", *sim_host);
  return env;
}

Console console(const FabricState& s) {
  return Console(s.paths.console());
}

Result<std::vector<DumpPort>> dump_ports(const FabricState& s) {
  auto reply = console(s).send("Dump");
  if (!reply) return Error{reply.error()};
  return parse_dump(*reply);
}

Result<std::vector<DumpPort>> wait_for_ports(
    const FabricState& s, const std::function<bool(const std::vector<DumpPort>&)>& done,
    std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (true) {
    auto ports = dump_ports(s);
    if (!ports) return ports;
    if (done(*ports)) return ports;
    if (Clock::now() > deadline) {
      return Err("ports did not reach the expected state within {} ms", timeout.count());
    }
    std::this_thread::sleep_for(100ms);
  }
}

void register_client(const FabricState& s, const ProcessRef& client) {
  std::ofstream(s.paths.clients() / std::to_string(client.pid))
      << client.pid << " " << client.start_time << "\n";
}

void unregister_client(const FabricState& s, pid_t pid) {
  std::error_code ec;
  std::filesystem::remove(s.paths.clients() / std::to_string(pid), ec);
}

}  // namespace ibpulse::sim
