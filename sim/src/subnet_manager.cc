#include "subnet_manager.h"

#include <signal.h>

#include <filesystem>

#include "log_files.h"
#include "state_json.h"

namespace ibpulse::sim {
namespace {

using namespace std::chrono_literals;

EnvVars opensm_env(const FabricState& s, size_t part) {
  // umad2sim gives a client the first port of the SIM_HOST node: the SM's port in that part.
  const auto& node = s.parts[part].attach_node;
  EnvVars env = client_env(s, node.empty() ? std::nullopt : std::optional<std::string>(node));
  env.emplace_back("OSM_CACHE_DIR", (s.paths.part_dir(part) / "cache").string());
  env.emplace_back("OSM_TMP_DIR", s.paths.part_dir(part).string());
  return env;
}

std::vector<std::string> opensm_args(const FabricState& s, size_t part) {
  // -d0: ignore other SMs. A client that takes the SM role at its node to be handed what ibsim
  // forwards (a test responder, a daemon taking the SM's Reports) is sent no SMInfo queries,
  // which umad2sim would hand to an agent it may not have (its receiver thread then crashes),
  // and an `opensm -o` does not wait for it to answer them.
  std::vector<std::string> args = {"-d0", "--subnet_prefix",
                                   prefix_text(s.parts[part].subnet_prefix)};
  if (std::filesystem::exists(s.paths.partitions()))
    args.insert(args.end(), {"-P", s.paths.partitions().string()});
  return args;
}

// The part's name in messages: "" for a fabric of one part, " (part 2, at Hca9)" otherwise.
std::string which(const FabricState& s, size_t part) {
  if (s.parts.size() == 1) return "";
  return fmt::format(" (part {}, at {})", part + 1, s.parts[part].attach_node);
}

Status assign_lids(const FabricState& s, size_t part, std::chrono::milliseconds timeout) {
  const auto log = s.paths.part_dir(part) / "opensm-once.log";
  std::vector<std::string> argv = {"opensm", "-o", "-f", log.string()};
  const auto extra = opensm_args(s, part);
  argv.insert(argv.end(), extra.begin(), extra.end());
  auto run = run_command(argv, opensm_env(s, part), timeout);
  if (!run) return Err("assigning LIDs{}: {}", which(s, part), run.error());
  if (run->exit_code != 0) {
    return Err("opensm -o{} failed (exit {}): {}{}", which(s, part), run->exit_code, run->err,
               tail(log, 5));
  }
  return Ok{};
}

Result<ProcessRef> start_subnet_manager(const FabricState& s, size_t part,
                                        std::chrono::milliseconds timeout) {
  const auto dir = s.paths.part_dir(part);
  const auto out = dir / "opensm.out";
  SpawnSpec spec;
  // -s 0: no periodic sweeps; `resweep` sends SIGHUP when links change, as after a real flap.
  spec.argv = {"opensm", "-s", "0", "-f", (dir / "opensm.log").string()};
  const auto extra = opensm_args(s, part);
  spec.argv.insert(spec.argv.end(), extra.begin(), extra.end());
  spec.env = opensm_env(s, part);
  spec.stdout_path = out;
  spec.stderr_path = out;
  auto sm = spawn_detached(spec);
  if (!sm) return sm;
  const auto what = "resident opensm" + which(s, part);
  if (auto ready = wait_for_log(out, "Entering MASTER state", *sm, what, timeout); !ready) {
    terminate(*sm, 1s);
    return Err("{}: {}", ready.error(), tail(out, 5));
  }
  return sm;
}

bool resident_running(const SubnetPart& part) {
  return part.subnet_manager && is_running(*part.subnet_manager);
}

}  // namespace

Status start_subnets(FabricState& s, bool resident, const TimeLeftFn& left,
                     const ProgressFn& progress) {
  const auto report = [&](std::string_view stage, size_t done) {
    const bool many = s.parts.size() > 1;
    if (progress) progress(stage, many ? done : 0, many ? s.parts.size() : 0);
  };
  for (size_t p = 0; p < s.parts.size(); ++p) {
    std::error_code ec;
    std::filesystem::create_directories(s.paths.part_dir(p) / "cache", ec);
    if (ec) return Err("cannot create {}: {}", s.paths.part_dir(p).string(), ec.message());
  }
  // Every `opensm -o` exits before the next starts: they never hold more than one ibsim client.
  for (size_t p = 0; p < s.parts.size(); ++p) {
    report("assigning LIDs (opensm -o)", p);
    if (auto lids = assign_lids(s, p, left()); !lids) return lids;
  }
  if (!resident) return Ok{};
  for (size_t p = 0; p < s.parts.size(); ++p) {
    report("starting the resident subnet managers", p);
    auto sm = start_subnet_manager(s, p, left());
    if (!sm) return Error{sm.error()};
    s.parts[p].subnet_manager = *sm;
    if (auto saved = save_state(s); !saved) return saved;
  }
  return Ok{};
}

Status resweep(const FabricState& s) {
  for (size_t p = 0; p < s.parts.size(); ++p) {
    const auto& part = s.parts[p];
    if (resident_running(part)) {
      if (::kill(part.subnet_manager->pid, SIGHUP) != 0) {
        return Err("cannot signal opensm{}", which(s, p));
      }
    } else if (auto lids = assign_lids(s, p, 60s); !lids) {
      return lids;
    }
  }
  return Ok{};
}

Result<Topology> load_topology(const FabricState& s) {
  auto topology = parse_net(read_text(s.paths.topology()));
  if (!topology) return Err("{}: {}", s.paths.topology().string(), topology.error());
  return topology;
}

Result<std::optional<std::string>> attach_node_for(const FabricState& s, std::string_view node) {
  if (s.parts.size() < 2) return std::optional<std::string>();
  auto topology = load_topology(s);
  if (!topology) return Error{topology.error()};
  const auto part = part_of(*topology, node);
  if (!part || *part >= s.parts.size()) {
    return Err("node \"{}\" is in no part of fabric '{}' (unknown, or without links)", node,
               s.name);
  }
  return std::optional<std::string>(s.parts[*part].attach_node);
}

Result<std::vector<std::string>> part_node_ids(const FabricState& s, size_t part) {
  auto topology = load_topology(s);
  if (!topology) return Error{topology.error()};
  const auto parts = connected_parts(*topology);
  if (part >= parts.size()) return Err("fabric '{}' has no part {}", s.name, part + 1);
  std::vector<std::string> ids;
  for (size_t n : parts[part])
    ids.push_back(topology->nodes[n].id);
  return ids;
}

Status change_lid(FabricState& s, const std::string& node, unsigned port, unsigned lid) {
  if (lid == 0 || lid > kMaxUnicastLids) return Err("LID {} is not a unicast LID", lid);
  auto topology = load_topology(s);
  if (!topology) return Error{topology.error()};
  // A node without links is in no subnet; its LID is ibsim's alone, any SM run keeps it.
  const auto part = part_of(*topology, node).value_or(0);
  if (part >= s.parts.size()) return Err("the fabric's state lists no part {}", part + 1);
  auto reply = console(s).send(fmt::format("Baselid \"{}\"[{}] {}", node, port, lid));
  if (!reply) return Error{reply.error()};
  auto& sm = s.parts[part].subnet_manager;
  const bool resident = resident_running(s.parts[part]);
  if (resident) terminate(*sm, 3s);
  sm.reset();
  std::error_code ec;
  std::filesystem::remove(s.paths.part_dir(part) / "cache" / "guid2lid", ec);
  if (auto lids = assign_lids(s, part, 60s); !lids) return lids;
  if (resident) {
    auto started = start_subnet_manager(s, part, 60s);
    if (!started) return Error{started.error()};
    sm = *started;
  }
  if (auto saved = save_state(s); !saved) return saved;
  auto ports = wait_for_ports(
      s,
      [&](const std::vector<DumpPort>& current) {
        const DumpPort* p = find_port(current, node, port == 0 ? 1 : port);
        return p != nullptr && p->lid == lid && (!p->linked() || p->active());
      },
      30s);
  if (!ports) return Err("{}[{}] did not come up with LID {}: {}", node, port, lid, ports.error());
  return Ok{};
}

}  // namespace ibpulse::sim
