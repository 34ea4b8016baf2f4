#pragma once
// A named simulated fabric: ibsim with a console fifo, and per disconnected part of its topology
// (one subnet; see parts.h) LIDs from `opensm -o` and a resident subnet manager, and a run
// directory that records everything needed to reach and stop it.
//
//   <root>/<name>/state.json      pids, socket name, paths, sizes, parts (FabricState)
//                 ports.json      every port: node, GUIDs, LID, peer, state (the LID map)
//                 topology.net    the net file ibsim runs
//                 console         ibsim's stdin (fifo); console.log its stdout
//                 opensm-<part>/  a part's opensm cache and logs (parts numbered from 1)
//                 clients/<pid>   processes attached through `sim exec`, stopped by `down`
//
// Thread safety: functions only; concurrent processes coordinate through the run directory
// (the console lock, the clients folder).

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ibpulse/base/result.h"
#include "ibpulse/sim/console.h"
#include "ibpulse/sim/dump.h"
#include "ibpulse/sim/parts.h"
#include "ibpulse/sim/process.h"
#include "ibpulse/sim/topology.h"

namespace ibpulse::sim {

inline constexpr std::string_view kUmad2simLibrary =
    "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so";
// MADs a client may keep in flight: umad2sim (libumad2sim0 0.10) deadlocks past ~300
// outstanding requests of one client, so clients stay well below.
inline constexpr unsigned kSimMaxMadsInFlight = 64;

struct FabricPaths {
  std::filesystem::path dir;
  std::filesystem::path state() const { return dir / "state.json"; }
  std::filesystem::path ports() const { return dir / "ports.json"; }
  std::filesystem::path topology() const { return dir / "topology.net"; }
  // opensm's partition configuration (sim up --partitions), when given: every subnet manager
  // of the fabric reads it (opensm -P).
  std::filesystem::path partitions() const { return dir / "partitions.conf"; }
  std::filesystem::path clients() const { return dir / "clients"; }
  // opensm's cache (OSM_CACHE_DIR) and logs for one part (index from 0).
  std::filesystem::path part_dir(size_t part) const {
    return dir / ("opensm-" + std::to_string(part + 1));
  }
  ConsolePaths console() const {
    return {dir / "console", dir / "console.log", dir / "console.lock"};
  }
};

struct FabricState {
  std::string name;
  std::string socket_name;  // IBSIM_SOCKNAME
  std::string preload;      // LD_PRELOAD for clients
  FabricPaths paths;
  ProcessRef ibsim;
  std::vector<SubnetPart> parts;      // one subnet each, with its resident opensm
  std::optional<ProcessRef> watcher;  // stops the fabric when its owner process dies
  size_t nodes = 0;
  size_t switches = 0;
  size_t hcas = 0;
  size_t ports = 0;  // physical ports (switch port 0 not counted)
  size_t links = 0;
  double seconds_to_ready = 0;
  unsigned max_mads = kSimMaxMadsInFlight;
};

// Where fabrics live: $IBPULSE_SIM_DIR, else $XDG_RUNTIME_DIR/ibpulse-sim, else
// /tmp/ibpulse-sim-<uid>.
std::filesystem::path default_root();

// Names are file and socket names: 1-32 of [A-Za-z0-9_.-], starting with a letter or digit.
Status validate_name(std::string_view name);

using ProgressFn = std::function<void(std::string_view stage, size_t done, size_t total)>;

struct UpOptions {
  std::string name;
  std::filesystem::path root;
  Topology topology;
  bool subnet_manager = true;
  // Subnet prefixes: none (every part at fe80::), one for every part, or one per part.
  std::vector<uint64_t> subnet_prefixes;
  std::filesystem::path partitions;  // opensm's partition configuration; empty: its default
  std::optional<pid_t> owner_pid;    // stop the fabric when this process exits
  std::filesystem::path self_exe;    // the ibpulse binary, to start the watcher
  std::chrono::seconds timeout{120};
  ProgressFn progress;
};

Result<FabricState> up(const UpOptions& options);

// Loads a fabric's state; fails with a clear message when no such fabric exists.
Result<FabricState> load(const std::filesystem::path& root, std::string_view name);

// Every live fabric under root.
std::vector<FabricState> list(const std::filesystem::path& root);

struct DownReport {
  std::vector<std::string> stopped;  // "ibsim (pid 123)", ...
};

// Stops clients, the watcher (unless it is the caller), the subnet manager and ibsim, by pid,
// and removes the run directory. Works on a half-started or crashed fabric too.
Result<DownReport> down(const std::filesystem::path& root, std::string_view name);

// What a client process needs in its environment.
EnvVars client_env(const FabricState& state, std::optional<std::string> sim_host = std::nullopt);

Console console(const FabricState& state);

// The current ports as ibsim reports them.
Result<std::vector<DumpPort>> dump_ports(const FabricState& state);

// Asks every part's subnet manager to sweep again (SIGHUP to the resident opensm, or
// `opensm -o`).
Status resweep(const FabricState& state);

// Moves a port to a new LID the way a subnet manager would: ibsim's `Baselid`, then LIDs of the
// port's part assigned again with the new one kept (the SM's LID cache is cleared, `opensm -o`
// honours the LID it finds, the resident SM restarts on that cache). Updates `state`.
Status change_lid(FabricState& state, const std::string& node, unsigned port, unsigned lid);

// The fabric's topology, read back from its run directory.
Result<Topology> load_topology(const FabricState& state);

// Where a client that reaches `node` by LID must attach (SIM_HOST): the node of the SM of the
// part holding it, as LIDs only mean something within a part; nullopt on a fabric of one part,
// where the default attachment reaches every port.
Result<std::optional<std::string>> attach_node_for(const FabricState& state, std::string_view node);

// The ids of the nodes of one part (index from 0).
Result<std::vector<std::string>> part_node_ids(const FabricState& state, size_t part);

// Waits until `done` holds for the ports ibsim reports, or the timeout passes.
Result<std::vector<DumpPort>> wait_for_ports(
    const FabricState& state, const std::function<bool(const std::vector<DumpPort>&)>& done,
    std::chrono::milliseconds timeout);

// Registers a process attached through `sim exec`, so `down` can stop it.
void register_client(const FabricState& state, const ProcessRef& client);
void unregister_client(const FabricState& state, pid_t pid);

}  // namespace ibpulse::sim
