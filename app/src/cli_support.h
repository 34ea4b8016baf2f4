#pragma once
// Helpers shared by the command-line front ends: errors, progress, re-running as a fabric
// client, signal-driven stop flags.

#include <atomic>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "ibpulse/collector/discovery.h"
#include "ibpulse/sim/fabric.h"

namespace ibpulse::cli {

// Options every `sim` subcommand shares.
struct FabricOptions {
  std::string name;
  std::string root;
};

// --root, or the default folder of fabrics.
std::filesystem::path fabric_root(const FabricOptions& options);

// The named fabric, if it exists and its ibsim is running.
Result<sim::FabricState> running_fabric(const FabricOptions& options);

// Exit codes: 0 success, 1 the operation failed, 2 bad usage.
inline constexpr int kFailed = 1;
inline constexpr int kUsage = 2;

// Prints "ibpulse: <message>" on standard error and returns kFailed.
int fail(std::string_view message);

// The program's own argv, kept for re-running it (see run_as_client).
void set_program_args(int argc, char** argv);

// Makes sure this process is a client of `fabric` (umad2sim preloaded, its socket name),
// attached at node `sim_host` when one is given (a part of a fabric of several parts).
// When it is not, re-executes the same command line with the client environment; returns
// only on failure or when nothing needed changing.
Status run_as_client(const sim::FabricState& fabric,
                     const std::optional<std::string>& sim_host = std::nullopt);

// In a sanitizer build, what a process attached to the simulator (umad2sim preloaded) needs
// so that an ASan-built ibpulse runs there; nothing otherwise.
void add_sanitizer_env(sim::EnvVars& env);

// A stop flag set by SIGINT and SIGTERM.
const std::atomic<bool>& install_stop_signals();

// Progress for long operations: rewrites one line on a terminal, prints stage changes only
// otherwise. Always on standard error.
class Progress {
 public:
  void operator()(std::string_view stage, size_t done, size_t total);
  void finish() const;

 private:
  std::string last_stage_;
  bool tty_ = false;
  bool started_ = false;
  double start_ = 0;
};

// A client environment as a JSON object ({"IBSIM_SOCKNAME": ..., ...}).
nlohmann::json env_json(const sim::EnvVars& env);

// 'value' quoted for a POSIX shell.
std::string shell_quote(std::string_view value);

}  // namespace ibpulse::cli
